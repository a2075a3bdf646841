// Package pgn reads PGN game records as real collections hold them (UTF-8,
// GBK/GB18030 or Big5; ICCS, WXF, Chinese or SAN moves; comments,
// variations, stray bytes and broken games) and imports them as palace
// game records. A bad game is reported, naming its file, index and line,
// and reading goes on with the next. Write exports palace's games as PGN
// that liground and pychess-variants read (Fairy-Stockfish SAN).
package pgn

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/notation"
)

// The kinds of problems; every *Error wraps one, for errors.Is.
var (
	// ErrSyntax: the record is malformed (a tag, comment or variation,
	// bytes the file's encoding cannot read).
	ErrSyntax = fmt.Errorf("pgn: %w", gamerec.ErrRecordSyntax)
	// ErrNoMoves: the game has no moves.
	ErrNoMoves = fmt.Errorf("pgn: %w", gamerec.ErrRecordNoMoves)
	// ErrSetup: the game's variant or start position is unusable.
	ErrSetup = fmt.Errorf("pgn: %w", gamerec.ErrRecordSetup)
	// ErrMove: a move is unreadable, illegal or ambiguous, or comes
	// after the rules ended the game.
	ErrMove = fmt.Errorf("pgn: %w", gamerec.ErrRecordMove)
	// ErrResult: the results the record gives disagree with each other or
	// with the rules.
	ErrResult = fmt.Errorf("pgn: %w", gamerec.ErrRecordResult)
)

// Error is a problem with one game of a file (Game 0: with the file
// between games).
type Error struct {
	Source string
	Game   int // 1-based index of the game in the file; 0 between games
	Line   int // where the problem is (the game's first line when it is the whole game)
	Err    error
}

func (e *Error) Error() string {
	msg := strings.TrimPrefix(e.Err.Error(), "pgn: ")
	if e.Game == 0 {
		return fmt.Sprintf("pgn: %s: line %d: %s", e.Source, e.Line, msg)
	}
	return fmt.Sprintf("pgn: %s: game %d (line %d): %s", e.Source, e.Game, e.Line, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// Tag is one tag pair as read.
type Tag struct{ Name, Value string }

// Move is one move of a game's main line as written (numbers, comments
// and annotation marks stripped), with the line it is on.
type Move struct {
	Text string
	Line int
}

// Game is one game record as read.
type Game struct {
	Index int // 1-based position in the file
	Line  int // the line the game starts on
	Tags  []Tag
	Moves []Move
	// Result is the movetext's termination token (1-0, 0-1, 1/2-1/2 or *),
	// "" when the record ends without one.
	Result string
	// Comments and Variations count what the movetext held beside its
	// main line, which palace's games file cannot keep; Trailing counts
	// the lines of notes after a separator line that ends the movetext
	// (XQWizard's ===== and text after the result).
	Comments, Variations, Trailing int
}

// Tag is the value of the tag named name ("" when absent).
func (g *Game) Tag(name string) string {
	v, _ := g.LookupTag(name)
	return v
}

// LookupTag is the value of the tag named name and whether there is one.
func (g *Game) LookupTag(name string) (string, bool) {
	for _, t := range g.Tags {
		if t.Name == name {
			return t.Value, true
		}
	}
	return "", false
}

// Options steer reading and importing.
type Options struct {
	// ImportOptions: the collection's rule set (it replaces the rule set
	// a game's Variant tag names when both are of one game) and --strict's
	// refusal of results the rules contradict.
	gamerec.ImportOptions
	// Encoding is the files' encoding; AutoEncoding detects it.
	Encoding Encoding
	// Variant is the rule set of games without a Variant tag (a palace
	// preset name; "" is xiangqi).
	Variant string
	// CutAtRulesEnd imports a game that goes on after the rules ended it
	// up to that end. Real games do go on: palace's rules end a game at
	// the first repetition, perpetual check or chase that could be
	// claimed, where in play a referee may have a player deviate. The cut
	// game takes the rules' result, which may differ from the record's;
	// the record's result and the dropped plies go into the tag
	// PalaceCut. Without it such a game is an error.
	CutAtRulesEnd bool
}

// Read decodes a file (see Decode) and parses its games. Games with
// syntax errors are left out and reported; the rest come back in file
// order. Moves are not checked here: Import does that.
func Read(data []byte, source string, opt Options) ([]Game, []error) {
	text, _ := Decode(data, opt.Encoding)
	return Parse(text, source)
}

// Parse parses decoded PGN text; source names it in errors.
//
// Games are tag pairs ([Name "value"], \" and \\ escaped) then movetext:
// moves, with move numbers (1. 1... １．), comments ({…} and ; to the end
// of the line), variations (…) at any depth, NAGs ($1) and annotation
// marks (! ? !? …) skipped, up to a result (1-0 0-1 1/2-1/2 *, full-width
// and Chinese forms too). A tag after movetext, or movetext after a
// result, starts the next game; a game may lack tags, or a result. A
// line of three or more = - * _ or ~ ends the movetext: the lines after
// it, up to the next tag, are the game's notes (XQWizard writes them),
// counted in Trailing.
func Parse(text, source string) ([]Game, []error) {
	p := parser{s: text, line: 1, source: source}
	// Room for the moves up front (a move and its share of numbers and
	// spaces take 5 to 15 bytes), so that few files ever grow it.
	p.moveBuf = make([]Move, 0, min(len(text)/8, 1<<16))
	p.run()
	return p.games, p.errs
}

type parser struct {
	s       string
	i       int
	line    int
	source  string
	games   []Game
	errs    []error
	cur     Game
	in      bool  // a game is open
	bad     error // the open game's first problem
	badAt   int
	moves   bool // the open game has movetext
	lastTag int  // the line of the open game's last tag
	n       int  // games begun
	// moveBuf holds the moves of the games read so far, each game's
	// Moves a slice of it, so that a game's moves cost no allocations
	// of their own.
	moveBuf   []Move
	moveStart int
	// lastKept: the game last closed was kept (the last of games).
	lastKept bool
}

// hasTagAt reports whether the open game already has the tag whose pair
// starts at s[i].
func (p *parser) hasTagAt(i int) bool {
	s := p.s
	i++
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	j := i
	for j < len(s) && (isAlnum(s[j]) || s[j] == '_') {
		j++
	}
	_, ok := p.cur.LookupTag(s[i:j])
	return ok && j > i
}

func (p *parser) run() {
	s := p.s
	for p.i < len(s) {
		c := s[p.i]
		switch {
		case c == '\n':
			p.line++
			p.i++
		case c <= ' ' || c == 0x7F:
			p.i++ // spaces and stray control characters (a DOS end-of-file mark)
		case c == '%' && (p.i == 0 || s[p.i-1] == '\n'):
			p.skipLine() // escape line
		case c == '[':
			p.tagPair()
		case c == '{':
			p.countAside(&p.cur.Comments)
			p.comment()
		case c == ';':
			p.countAside(&p.cur.Comments)
			p.skipLine()
		case c == '(':
			p.countAside(&p.cur.Variations)
			p.variation()
		case p.separatorLine():
			p.trailing()
		case c == ')' || c == '}' || c == ']':
			p.fail(p.line, "unmatched %q", c)
			p.i++
		case c == '$':
			p.i++
			for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
				p.i++
			}
		case c >= utf8.RuneSelf:
			if r, size := utf8.DecodeRuneInString(s[p.i:]); isSpace(r) {
				p.i += size
				continue
			}
			p.token()
		default:
			p.token()
		}
	}
	p.end()
}

// isSpace: Unicode white space (the ideographic space U+3000 of Chinese
// records among it) and the byte-order mark where files were joined.
func isSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

func (p *parser) begin() {
	if !p.in {
		p.n++
		p.in, p.moves, p.bad = true, false, nil
		p.cur = Game{Index: p.n, Line: p.line}
		p.moveStart = len(p.moveBuf)
	}
}

// end closes the open game: kept if sound, else reported.
func (p *parser) end() {
	if !p.in {
		return
	}
	if p.bad != nil {
		p.errs = append(p.errs, &Error{Source: p.source, Game: p.cur.Index, Line: p.badAt, Err: p.bad})
		p.moveBuf = p.moveBuf[:p.moveStart]
	} else {
		n := len(p.moveBuf)
		p.cur.Moves = p.moveBuf[p.moveStart:n:n]
		p.games = append(p.games, p.cur)
	}
	p.in = false
	p.cur = Game{}
	p.lastKept = p.bad == nil
}

// countAside counts a comment or variation of the open game.
func (p *parser) countAside(n *int) {
	if p.in {
		*n++
	}
}

// separatorLine reports whether the parser stands at the start of a line
// that is only a separator (=====, -----, *****: three or more), as
// XQWizard writes between a game's moves and its notes.
func (p *parser) separatorLine() bool {
	s := p.s
	c := s[p.i]
	if c != '=' && c != '-' && c != '*' && c != '_' && c != '~' {
		return false
	}
	for j := p.i - 1; j >= 0 && s[j] != '\n'; j-- {
		if s[j] != ' ' && s[j] != '\t' {
			return false
		}
	}
	n := 0
	j := p.i
	for ; j < len(s) && s[j] == c; j++ {
		n++
	}
	for ; j < len(s) && s[j] != '\n'; j++ {
		if s[j] != ' ' && s[j] != '\t' && s[j] != '\r' {
			return false
		}
	}
	return n >= 3
}

// trailing skips a separator line and the notes after it, up to the
// next line that starts with a tag: the notes of the game they follow
// (the open one, else the one just read), counted in its Trailing.
func (p *parser) trailing() {
	var n *int
	switch {
	case p.in:
		n = &p.cur.Trailing
	case p.lastKept && len(p.games) > 0:
		n = &p.games[len(p.games)-1].Trailing
	}
	s := p.s
	for first := true; p.i < len(s); first = false {
		end := strings.IndexByte(s[p.i:], '\n')
		if end < 0 {
			end = len(s) - p.i
		}
		if !first && strings.HasPrefix(strings.TrimLeft(s[p.i:p.i+end], " \t\ufeff"), "[") {
			return
		}
		if n != nil && !first && strings.TrimSpace(s[p.i:p.i+end]) != "" {
			*n++
		}
		p.i += end
		if p.i < len(s) {
			p.i++
			p.line++
		}
	}
}

// fail records a syntax problem of the open game (its first one counts),
// or of the file between games.
func (p *parser) fail(line int, format string, args ...any) {
	err := fmt.Errorf("%w: %s", ErrSyntax, fmt.Sprintf(format, args...))
	if !p.in {
		p.errs = append(p.errs, &Error{Source: p.source, Line: line, Err: err})
		return
	}
	if p.bad == nil {
		p.bad, p.badAt = err, line
	}
}

func (p *parser) skipLine() {
	if j := strings.IndexByte(p.s[p.i:], '\n'); j >= 0 {
		p.i += j
	} else {
		p.i = len(p.s)
	}
}

func (p *parser) comment() {
	start := p.line
	j := strings.IndexByte(p.s[p.i:], '}')
	if j < 0 {
		p.line += strings.Count(p.s[p.i:], "\n")
		p.i = len(p.s)
		p.fail(start, "comment opened on line %d is not closed", start)
		return
	}
	p.line += strings.Count(p.s[p.i:p.i+j], "\n")
	p.i += j + 1
}

// variation skips a parenthesised variation, nested ones and comments
// inside it included.
func (p *parser) variation() {
	start := p.line
	depth := 0
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				p.i++
				return
			}
		case '{':
			p.comment()
			continue
		case ';':
			p.skipLine()
			continue
		case '\n':
			p.line++
		}
		p.i++
	}
	p.fail(start, "variation opened on line %d is not closed", start)
}

// tagPair reads [Name "value"]. A tag after movetext starts a new game.
func (p *parser) tagPair() {
	// A game without movetext is followed directly by the next game's
	// tags: a blank line or a repeated tag name tells them apart.
	if p.in && (p.moves || p.line > p.lastTag+1 || p.hasTagAt(p.i)) {
		p.end()
	}
	p.begin()
	s, line := p.s, p.line
	eol := strings.IndexByte(s[p.i:], '\n')
	if eol < 0 {
		eol = len(s)
	} else {
		eol += p.i
	}
	i := p.i + 1
	for i < eol && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	nameStart := i
	for i < eol && (isAlnum(s[i]) || s[i] == '_') {
		i++
	}
	name := s[nameStart:i]
	for i < eol && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	bad := func(format string, args ...any) {
		p.fail(line, format, args...)
		p.i = eol
	}
	switch {
	case name == "":
		bad("tag without a name: %s", clip(s[p.i:eol]))
		return
	case i >= eol || s[i] != '"':
		bad("tag %s: value not in quotes", name)
		return
	}
	value, j, ok := quoted(s, i+1, eol)
	if !ok {
		bad("tag %s: value not closed by a quote", name)
		return
	}
	for j < eol && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j >= eol || s[j] != ']' {
		// An unescaped quote inside the value ([Event "the "X" cup"]):
		// everything up to the line's last "] is the value.
		k := strings.LastIndex(s[i+1:eol], "\"]")
		if k < 0 {
			bad("tag %s: no closing ]", name)
			return
		}
		value, j = unescape(s[i+1:i+1+k]), i+1+k+1
	}
	p.i = j + 1
	p.lastTag = p.line
	if strings.ContainsRune(value, utf8.RuneError) {
		p.fail(line, "tag %s: bytes the file's encoding cannot read", name)
	}
	p.cur.Tags = append(p.cur.Tags, Tag{name, value})
}

// quoted reads a tag value from s[i:] up to its closing quote (before
// end); it returns the value, \" and \\ undone, and the index after the
// quote.
func quoted(s string, i, end int) (string, int, bool) {
	start := i
	for ; i < end; i++ {
		switch s[i] {
		case '"':
			return unescape(s[start:i]), i + 1, true
		case '\\':
			if i+1 < end && (s[i+1] == '"' || s[i+1] == '\\') {
				i++
			}
		}
	}
	return "", end, false
}

// unescape undoes \" and \\; other backslashes stay as written.
func unescape(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	b := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) && (v[i+1] == '"' || v[i+1] == '\\') {
			i++
		}
		b = append(b, v[i])
	}
	return string(b)
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// clip shortens text for a message.
func clip(s string) string {
	if len(s) > 40 {
		for i := 40; i > 0; i-- {
			if utf8.RuneStart(s[i]) {
				return s[:i] + "…"
			}
		}
	}
	return s
}

// token reads one movetext token: a move, possibly glued to its number
// (1.h2e2), a result, or annotation marks.
func (p *parser) token() {
	s := p.s
	start := p.i
	for p.i < len(s) {
		c := s[p.i]
		if c < utf8.RuneSelf {
			if c <= ' ' || c == 0x7F || c == '{' || c == '}' || c == '(' || c == ')' ||
				c == '[' || c == ']' || c == ';' || c == '$' {
				break
			}
			p.i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[p.i:])
		if isSpace(r) {
			break
		}
		p.i += size
	}
	tok := s[start:p.i]
	if res, ok := resultToken(tok); ok {
		p.begin()
		p.cur.Result = res
		p.moves = true
		p.end()
		return
	}
	tok = stripMoveNumber(tok)
	tok = stripAnnotation(tok)
	if tok == "" {
		return
	}
	p.begin()
	p.moves = true
	if strings.ContainsRune(tok, utf8.RuneError) {
		p.fail(p.line, "move %q: bytes the file's encoding cannot read", tok)
	}
	p.moveBuf = append(p.moveBuf, Move{Text: tok, Line: p.line})
}

// stripMoveNumber drops a leading move number (12. 12... １２． 12…) and
// a bare number; WXF's pawn moves that start with digits (33.4) stay.
func stripMoveNumber(tok string) string {
	i := 0
	for i < len(tok) {
		if c := tok[i]; c >= '0' && c <= '9' {
			i++
		} else if isFullWidthDigit(tok[i:]) {
			i += len("０")
		} else {
			break
		}
	}
	switch {
	case i == 0:
		return tok
	case i == len(tok):
		return ""
	case notation.Detect(tok) == notation.WXF:
		return tok
	}
	j := i
	for j < len(tok) {
		switch {
		case tok[j] == '.':
			j++
		case strings.HasPrefix(tok[j:], "．"), strings.HasPrefix(tok[j:], "…"), strings.HasPrefix(tok[j:], "。"):
			j += len("．")
		case j == i:
			return tok // digits not followed by a dot: not a move number
		default:
			return tok[j:]
		}
	}
	return ""
}

func isFullWidthDigit(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r >= '０' && r <= '９'
}

// stripAnnotation drops trailing annotation marks (! ? and their
// full-width forms) and stray punctuation (，。、).
func stripAnnotation(tok string) string {
	for tok != "" {
		r, size := utf8.DecodeLastRuneInString(tok)
		switch r {
		case '!', '?', '！', '？', '，', '。', '、':
			tok = tok[:len(tok)-size]
		default:
			return tok
		}
	}
	return tok
}

// resultToken reads a game-termination token, normalised to PGN's form.
func resultToken(tok string) (string, bool) {
	switch tok {
	case "1-0", "0-1", "1/2-1/2", "*":
		return tok, true
	case "½-½", "1/2", "0.5-0.5":
		return "1/2-1/2", true
	case "红胜", "紅勝", "红方胜", "紅方勝", "先胜", "先勝":
		return "1-0", true
	case "黑胜", "黑勝", "黑方胜", "黑方勝", "后胜", "後勝", "先负", "先負":
		return "0-1", true
	case "和棋", "和局", "平局", "先和":
		return "1/2-1/2", true
	case "＊":
		return "*", true
	}
	if len(tok) > 3*7 || !strings.ContainsRune(tok, '－') && !strings.ContainsRune(tok, '／') {
		return "", false
	}
	// Full-width: １－０, ０－１, １／２－１／２.
	var buf [8]byte
	b := buf[:0]
	for _, r := range tok {
		if r < 0xFF01 || r > 0xFF5E || len(b) == cap(b) {
			return "", false
		}
		b = append(b, byte(r-0xFEE0))
	}
	switch string(b) {
	case "1-0", "0-1", "1/2-1/2":
		return string(b), true
	}
	return "", false
}
