// Package gib reads Korean janggi game records in the .gib format (기보) into
// gamerec games, replayed under the janggi preset.
//
// A .gib file holds games one after another, each a block of tags in Korean
// then numbered moves:
//
//	[초차림 "상마상마"]
//	[한차림 "상마마상"]
//	[대국결과 "초 완승"]
//
//	1. 71楚卒72 2. 13漢馬34 ... 39. 04楚包34馬장군 ... 11. 한수쉼
//
// A move is the from-square, an optional side mark (楚 or 漢), the piece
// (in hanja, 車 包 馬 象 士 將 卒 兵, or in Hangul, 차 포 마 상 사 장 졸 병),
// the to-square, the piece it captures if any, and 장군 when it checks.
// Squares are two digits, row then column: rows count from Han's side, 1 to
// 9, and 0 is the tenth row, Cho's back rank; columns count 1 to 9 from file
// a. 한수쉼 is a pass. Comments are in braces. Files are CP949 (EUC-KR), as
// the programs that write them do, or UTF-8.
//
// 초차림 and 한차림 name each side's horse (마) and elephant (상) order on
// files b, c, g and h, read from file a to file i for both sides: checked
// against real games, where names that read differently from Han's side
// (Han's 상마상마 in the Maeil Sinbo games) make Han's first moves illegal
// the other way. A game whose tags are missing gets the setup its moves
// allow, if only one. Handicap games draw their board in a 판 tag instead,
// and may have Han move first; whoever's piece the first move moves, moves
// first.
//
// 대국결과 gives the result: 초 or 한 (楚, 漢) with 완승 (an outright win:
// resignation, unless the rules ended the game), 기권승 (resignation),
// 시간승 (time), 점수승 or another win (recorded); 무승부 a draw; 미상 or
// nothing, unknown. The rules settle it as gamerec.Game.Settle says: a
// forced end (mate, double pass, bikjang) must agree with the record and
// gives the reason, and no move may follow it; players may play on past
// an end the rules give on a claim (repetition), and their result stands.
package gib

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding/korean"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// RuleSetName is the preset the games are replayed under.
const RuleSetName = "janggi"

// ErrGame is wrapped by every error about one game of a file.
var ErrGame = errors.New("gib: bad game record")

// Error is what is wrong with one game of a file, and where.
type Error struct {
	Source string
	Game   int // 1-based position in the file
	Line   int // 1-based line where the problem is
	// Kind is the gamerec refusal reason (gamerec.ErrRecordMove…).
	Kind error
	Msg  string
	// illegal: a move is not among the legal ones (for the bikjang hint).
	illegal bool
}

func (e *Error) Error() string {
	if e.Game == 0 { // the whole file
		return fmt.Sprintf("gib: %s: %s", e.Source, e.Msg)
	}
	return fmt.Sprintf("gib: %s game %d, line %d: %s", e.Source, e.Game, e.Line, e.Msg)
}

// Unwrap makes every Error match ErrGame and its Kind.
func (e *Error) Unwrap() []error {
	if e.Kind == nil {
		return []error{ErrGame}
	}
	return []error{ErrGame, e.Kind}
}

// Import reads every game of a .gib file (CP949 or UTF-8). Each game that
// cannot be read (no tags, no moves, an illegal move, a wrong captured
// piece, an unknown piece name, an unknown result wording, a result the
// rules contradict under opt.Strict) is reported as an *Error and skipped;
// the others are returned, each of which replays under the rule set
// (gamerec.Game.Replay): opt.RuleSet, else the janggi preset. notices say
// what was changed or skipped in games that were imported: stray bytes
// between tokens, tokens that are not moves (<0>), results corrected to
// the rules' forced end. source names the file in games and errors.
func Import(data []byte, source string, opt gamerec.ImportOptions) (games []gamerec.Game, errs []error, notices []gamerec.Notice) {
	rs := opt.RuleSet
	if rs == nil {
		rs = rules.MustPreset(RuleSetName)
	}
	if rs.Game != rules.Janggi {
		return nil, []error{&Error{Source: source, Kind: gamerec.ErrRecordSetup,
			Msg: fmt.Sprintf("rule set %s is for %s; .gib records are janggi", rs.Name, rs.Game)}}, nil
	}
	text, err := gibDecode(data)
	if err != nil {
		return nil, []error{&Error{Source: source, Kind: gamerec.ErrRecordSyntax, Msg: err.Error()}}, nil
	}
	segs := gibSplit(text)
	type outcome struct {
		game    gamerec.Game
		err     *Error
		notices []gamerec.Notice
	}
	out := make([]outcome, len(segs))
	// Games are independent: replay them on every core (most of the time
	// goes to move generation), each into its own slot, so the order and
	// the output are the same as one by one.
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := min(runtime.GOMAXPROCS(0), len(segs)); w > 0; w-- {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(segs); i = int(next.Add(1)) - 1 {
				out[i].game, out[i].notices, out[i].err = gibConvert(rs, &segs[i], opt)
			}
		})
	}
	wg.Wait()
	for i := range out {
		// The scanner's notices (stray bytes) stand whatever became of the
		// game: they may be the file's, between games.
		for _, n := range segs[i].notices {
			n.Source, n.Game = source, i+1
			notices = append(notices, n)
		}
		if err := out[i].err; err != nil {
			err.Source, err.Game = source, i+1
			errs = append(errs, err)
			continue
		}
		for _, n := range out[i].notices {
			n.Source, n.Game = source, i+1
			notices = append(notices, n)
		}
		g := &out[i].game
		g.Source, g.Index = source, i+1
		games = append(games, *g)
	}
	return games, errs, notices
}

// gibDecode returns the file's text: UTF-8 (without a byte-order mark) when
// the file is UTF-8, stray bytes aside, else CP949 decoded. Bytes neither
// knows become U+FFFD, which the scanner reports in the game where they
// stand.
func gibDecode(data []byte) (string, error) {
	if utf8.Valid(data) || gibMostlyUTF8(data) {
		// Stray bytes in a UTF-8 file become U+FFFD, as in CP949 ones.
		return strings.TrimPrefix(strings.ToValidUTF8(string(data), "\ufffd"), "\ufeff"), nil
	}
	out, err := korean.EUCKR.NewDecoder().Bytes(data)
	if err != nil {
		return "", fmt.Errorf("decoding CP949: %w", err)
	}
	return string(out), nil
}

// gibMostlyUTF8 reports whether data is UTF-8 text with a few stray bytes:
// far more multi-byte UTF-8 sequences than bytes that fit none. CP949 text
// has almost no valid multi-byte UTF-8 sequences.
func gibMostlyUTF8(data []byte) bool {
	good, bad := 0, 0
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		switch {
		case r == utf8.RuneError && size == 1:
			bad++
		case size > 1:
			good++
		}
		data = data[size:]
	}
	return good > 8*bad
}

// gibSegment is one game's text: its tags and move tokens, before they are
// checked against the rules.
type gibSegment struct {
	line    int // first line
	tags    []gibTag
	tokens  []gibToken
	comment bool   // a comment followed the tags
	err     *Error // the first problem the scanner saw
	// notices are the stray bytes skipped in the game's text; Source and
	// Game are filled in by Import.
	notices []gamerec.Notice
	// nonMoves counts the tokens like <0> that some sites write after
	// every move, skipped.
	nonMoves int
}

type gibTag struct {
	key, value string
	line       int
}

// gibToken is one move's text, number removed.
type gibToken struct {
	num  int // the number written before it, 0 if none
	text string
	line int
}

// fail records the segment's first problem, a syntax error: the scanner
// sees nothing else.
func (s *gibSegment) fail(line int, format string, args ...any) {
	if s.err == nil {
		s.err = &Error{Line: line, Kind: gamerec.ErrRecordSyntax, Msg: fmt.Sprintf(format, args...)}
	}
}

func (s *gibSegment) tag(key string) (string, bool) {
	for _, t := range s.tags {
		if t.key == key {
			return t.value, true
		}
	}
	return "", false
}

// tagLine is the line of tag key (gibSplit keeps a key once a game), or
// the game's first line when it has none: where an error about the tag's
// value points.
func (s *gibSegment) tagLine(key string) int {
	for _, t := range s.tags {
		if t.key == key {
			return t.line
		}
	}
	return s.line
}

// gibSpace reports the runes that separate tokens: white space, the DOS
// end-of-file mark and byte-order marks some files carry.
func gibSpace(r rune) bool {
	return unicode.IsSpace(r) || r == 0x1a || r == '\ufeff'
}

// gibSpaceOrStray is gibSpace or a byte that is not text (U+FFFD after
// decoding), trimmed around a tag line.
func gibSpaceOrStray(r rune) bool { return gibSpace(r) || r == utf8.RuneError }

func gibStrayNotice(line int) gamerec.Notice {
	return gamerec.Notice{Line: line, Kind: gamerec.NoticeStrayBytes, Msg: "bytes that are not CP949 or UTF-8 text"}
}

// gibNonMove reports the tokens some sites write in the move list that are
// not moves: <0> after every move in Hangame's league records (a
// time or marker field).
func gibNonMove(tok string) bool {
	return len(tok) >= 2 && tok[0] == '<' && tok[len(tok)-1] == '>' && !strings.ContainsAny(tok[1:len(tok)-1], "<>")
}

// gibSplit cuts a file's text into games. A game starts with a tag line
// that follows moves or comments, or repeats a tag of the current game;
// text before the first tags is a game of its own (reported as lacking
// tags).
func gibSplit(text string) []gibSegment {
	var segs []gibSegment
	cur := func(line int) *gibSegment {
		if len(segs) == 0 {
			segs = append(segs, gibSegment{line: line})
		}
		return &segs[len(segs)-1]
	}
	inComment := false
	commentLine := 0
	num := 0 // a number waiting for its move
	for lineNo := 1; text != ""; lineNo++ {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		if t := strings.TrimFunc(line, gibSpaceOrStray); strings.HasPrefix(t, "[") {
			if t != strings.TrimFunc(line, gibSpace) {
				cur(lineNo).notices = append(cur(lineNo).notices, gibStrayNotice(lineNo))
			}
			key, value, ok := gibParseTag(t)
			if inComment && ok {
				// A tag line ends a comment left open: the game that opened
				// it is bad, the next one starts here.
				cur(lineNo).fail(commentLine, "comment not closed")
				inComment = false
			}
			if !inComment {
				s := cur(lineNo)
				if _, dup := s.tag(key); len(s.tokens) > 0 || s.comment || num > 0 || (ok && dup) {
					if num > 0 {
						s.fail(lineNo, "move number %d without its move", num)
					}
					segs = append(segs, gibSegment{line: lineNo})
					s, num = &segs[len(segs)-1], 0
				}
				if !ok {
					s.fail(lineNo, "bad tag line %q (want [key \"value\"])", t)
					continue
				}
				s.tags = append(s.tags, gibTag{key, value, lineNo})
				continue
			}
		}
		for line != "" {
			r, size := utf8.DecodeRuneInString(line)
			switch {
			case inComment:
				end := strings.IndexByte(line, '}')
				if end < 0 {
					line = ""
					continue
				}
				line, inComment = line[end+1:], false
				continue
			case gibSpace(r):
				line = line[size:]
				continue
			case r == '{':
				inComment, commentLine = true, lineNo
				line = line[1:]
				s := cur(lineNo)
				if len(s.tags) > 0 {
					s.comment = true
				}
				continue
			}
			end := strings.IndexFunc(line, func(r rune) bool { return gibSpace(r) || r == '{' })
			if end < 0 {
				end = len(line)
			}
			tok := line[:end]
			line = line[end:]
			s := cur(lineNo)
			if strings.Trim(tok, "\ufffd") == "" {
				// Bytes that are no text between tokens (0xFF runs between
				// games, say): skipped, the games around them kept.
				s.notices = append(s.notices, gibStrayNotice(lineNo))
				continue
			}
			if strings.ContainsRune(tok, utf8.RuneError) {
				s.fail(lineNo, "stray bytes (not CP949 or UTF-8 text) in %q", tok)
				continue
			}
			if gibNonMove(tok) {
				s.nonMoves++
				continue
			}
			// A move number, "12.", possibly with its move glued on.
			if n, rest, ok := gibCutNumber(tok); ok {
				if num > 0 {
					s.fail(lineNo, "move number %d without its move", num)
				}
				num = n
				if rest == "" {
					continue
				}
				tok = rest
			}
			if tok == "장군" || tok == "멍군" {
				continue // a check mark written apart from its move
			}
			s.tokens = append(s.tokens, gibToken{num: num, text: tok, line: lineNo})
			num = 0
		}
	}
	if len(segs) > 0 {
		s := &segs[len(segs)-1]
		if inComment {
			s.fail(commentLine, "comment not closed")
		}
		if num > 0 {
			s.fail(s.line, "move number %d without its move at the end", num)
		}
	}
	return segs
}

// gibParseTag reads `[key "value"]`.
func gibParseTag(t string) (key, value string, ok bool) {
	if !strings.HasSuffix(t, "]") || len(t) < 2 {
		return "", "", false
	}
	inner := strings.TrimFunc(t[1:len(t)-1], gibSpace)
	i := strings.IndexFunc(inner, func(r rune) bool { return gibSpace(r) || r == '"' })
	if i <= 0 {
		return "", "", false
	}
	key, rest := inner[:i], strings.TrimFunc(inner[i:], gibSpace)
	if len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
		return "", "", false
	}
	return key, rest[1 : len(rest)-1], true
}

// gibCutNumber splits "12." or "12.71楚卒72" into 12 and the rest.
func gibCutNumber(tok string) (int, string, bool) {
	i := 0
	for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
		i++
	}
	if i == 0 || i > 6 || i >= len(tok) || tok[i] != '.' {
		return 0, "", false
	}
	n, err := strconv.Atoi(tok[:i])
	if err != nil || n == 0 {
		return 0, "", false
	}
	return n, tok[i+1:], true
}

// gibMove is one parsed move.
type gibMove struct {
	pass     bool
	from, to rules.Square
	piece    rules.PieceType
	side     int8 // 0 Cho (楚), 1 Han (漢), -1 not marked
	captured rules.PieceType
	tok      gibToken
}

// gibPiece reads a piece name, in hanja or Hangul.
func gibPiece(r rune) rules.PieceType {
	switch r {
	case '將', '帥', '장', '궁':
		return rules.King
	case '士', '仕', '사':
		return rules.Advisor
	case '象', '相', '상':
		return rules.Elephant
	case '馬', '傌', '마':
		return rules.Horse
	case '車', '俥', '차':
		return rules.Chariot
	case '包', '砲', '炮', '포':
		return rules.Cannon
	case '卒', '兵', '졸', '병':
		return rules.Soldier
	}
	return rules.NoPieceType
}

func gibSide(r rune) int8 {
	switch r {
	case '楚', '초':
		return 0
	case '漢', '한':
		return 1
	}
	return -1
}

// gibSquare reads a two-digit square: row (1–9 from Han's side, 0 the
// tenth) then column (1–9 from file a).
func gibSquare(s string) (rules.Square, bool) {
	if len(s) < 2 || s[0] < '0' || s[0] > '9' || s[1] < '1' || s[1] > '9' {
		return rules.NoSquare, false
	}
	rank := 0
	if row := int(s[0] - '0'); row > 0 {
		rank = 10 - row
	}
	return rules.SquareAt(int(s[1]-'1'), rank), true
}

// gibParseMove reads one move token.
func gibParseMove(tok gibToken) (gibMove, string) {
	m := gibMove{side: -1, tok: tok}
	s := tok.text
	if s == "한수쉼" {
		m.pass = true
		return m, ""
	}
	from, ok := gibSquare(s)
	if !ok {
		return m, "no from-square (two digits, row then column 1–9) at its start"
	}
	m.from, s = from, s[2:]
	r, size := utf8.DecodeRuneInString(s)
	if side := gibSide(r); side >= 0 {
		m.side, s = side, s[size:]
		r, size = utf8.DecodeRuneInString(s)
	}
	if t := gibPiece(r); t != rules.NoPieceType {
		m.piece, s = t, s[size:]
	} else if m.side >= 0 && r >= '0' && r <= '9' {
		m.piece = rules.King // 95楚05: the side mark is the general's own name
	} else {
		return m, fmt.Sprintf("unknown piece name %q", gibFirst(s))
	}
	to, ok := gibSquare(s)
	if !ok {
		return m, "no to-square (two digits, row then column 1–9) after the piece"
	}
	m.to, s = to, s[2:]
	if strings.HasSuffix(s, "장군") { // check: not validated, records differ on it
		s = strings.TrimSuffix(s, "장군")
	} else if strings.HasSuffix(s, "멍군") {
		s = strings.TrimSuffix(s, "멍군")
	}
	// Some sites mark a capture with 타 before the captured piece
	// (09차49타졸).
	if rest, ok := strings.CutPrefix(s, "타"); ok && rest != "" {
		s = rest
	}
	if s != "" {
		r, size := utf8.DecodeRuneInString(s)
		if m.captured = gibPiece(r); m.captured == rules.NoPieceType || size != len(s) {
			return m, fmt.Sprintf("unknown captured piece %q", s)
		}
	}
	return m, ""
}

func gibFirst(s string) string {
	if s == "" {
		return ""
	}
	_, size := utf8.DecodeRuneInString(s)
	return s[:size]
}

// gibSetups maps 차림 names, read from file a to file i, to setups.
var gibSetups = map[string]rules.JanggiSetup{
	"마상상마": rules.MaSangSangMa, "마상마상": rules.MaSangMaSang,
	"상마상마": rules.SangMaSangMa, "상마마상": rules.SangMaMaSang,
	"馬象象馬": rules.MaSangSangMa, "馬象馬象": rules.MaSangMaSang,
	"象馬象馬": rules.SangMaSangMa, "象馬馬象": rules.SangMaMaSang,
}

var gibAllSetups = []rules.JanggiSetup{rules.MaSangSangMa, rules.MaSangMaSang, rules.SangMaSangMa, rules.SangMaMaSang}

// gibStart is a candidate start position.
type gibStart struct {
	fen   string
	setup string // "CHO,HAN" when fen is a standard setup with Cho to move
}

// gibConvert checks one game against the rules and builds its record.
func gibConvert(rs *rules.RuleSet, seg *gibSegment, opt gamerec.ImportOptions) (gamerec.Game, []gamerec.Notice, *Error) {
	var g gamerec.Game
	if seg.err != nil {
		return g, nil, seg.err
	}
	if len(seg.tags) == 0 {
		return g, nil, &Error{Line: seg.line, Kind: gamerec.ErrRecordSyntax, Msg: "no tags ([초차림 \"...\"] and the like): not a .gib game"}
	}
	if len(seg.tokens) == 0 {
		return g, nil, &Error{Line: seg.line, Kind: gamerec.ErrRecordNoMoves, Msg: "no moves"}
	}
	moves := make([]gibMove, len(seg.tokens))
	for i, tok := range seg.tokens {
		if tok.num != 0 && tok.num != i+1 {
			return g, nil, &Error{Line: tok.line, Kind: gamerec.ErrRecordSyntax, Msg: fmt.Sprintf("move %q numbered %d, want %d", tok.text, tok.num, i+1)}
		}
		m, msg := gibParseMove(tok)
		if msg != "" {
			return g, nil, &Error{Line: tok.line, Kind: gamerec.ErrRecordMove, Msg: fmt.Sprintf("move %d %q: %s", i+1, tok.text, msg)}
		}
		moves[i] = m
	}
	tagResult, _ := seg.tag("대국결과")
	result, reason, err := gibResult(tagResult)
	if err != nil {
		return g, nil, &Error{Line: seg.tagLine("대국결과"), Kind: gamerec.ErrRecordResult, Msg: err.Error()}
	}
	starts, fail := gibStarts(seg)
	if fail != nil {
		return g, nil, fail
	}
	game, start, fail := gibFit(rs, seg.line, starts, moves)
	if fail != nil {
		if fail.illegal && rs.Facing != rules.FacingIgnored {
			fail.Msg += gibBikjangHint(rs, starts, moves)
		}
		return g, nil, fail
	}
	g.SetMoves(game)
	if game.RootFEN() == start.fen { // not when Han moved first
		g.Setup = start.setup
	}
	var notices []gamerec.Notice
	corrected, err := g.SettleImport(game, result, reason, opt)
	last := moves[len(moves)-1].tok.line
	if err != nil {
		return g, nil, &Error{Line: last, Kind: gamerec.ErrRecordResult, Msg: fmt.Sprintf("%v (%q)", err, tagResult)}
	}
	if corrected != "" {
		notices = append(notices, gamerec.Notice{Line: last, Kind: gamerec.NoticeResultCorrected,
			Msg: fmt.Sprintf("%s (대국결과 %q)", corrected, tagResult)})
	}
	if seg.nonMoves > 0 {
		notices = append(notices, gamerec.Notice{Line: seg.line, Kind: gamerec.NoticeTokens,
			Msg: fmt.Sprintf("%d tokens like <0> in the move list", seg.nonMoves)})
	}
	for _, t := range seg.tags {
		switch t.key {
		case "초대국자":
			g.White = gibKnown(t.value)
		case "한대국자":
			g.Black = gibKnown(t.value)
		default:
			if t.key == "대국일자" {
				g.Date = gamerec.RecordDate(t.value)
			}
			if g.Tags == nil {
				g.Tags = map[string]string{}
			}
			g.Tags[t.key] = t.value
		}
	}
	return g, notices, nil
}

// gibFit replays the moves from each candidate start and returns the one
// they fit; an error when they fit none, or several.
func gibFit(rs *rules.RuleSet, line int, starts []gibStart, moves []gibMove) (*rules.Game, gibStart, *Error) {
	var game *rules.Game
	var start gibStart
	var first *Error
	fits := 0
	for _, st := range starts {
		played, err := gibReplay(rs, st.fen, moves)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		if fits++; fits == 1 {
			game, start = played, st
		}
	}
	switch {
	case fits == 0 && len(starts) > 1:
		first.Kind = gamerec.ErrRecordSetup
		first.Msg = fmt.Sprintf("setup tags (초차림, 한차림) missing or unknown, and the moves fit no setup (with the first, %s)", first.Msg)
		return nil, start, first
	case fits == 0:
		return nil, start, first
	case fits > 1:
		return nil, start, &Error{Line: line, Kind: gamerec.ErrRecordSetup,
			Msg: fmt.Sprintf("no setup tags (초차림, 한차림), and the moves fit %d setups", fits)}
	}
	return game, start, nil
}

// gibBikjangHint says whether a game refused for an illegal move under rs
// would import under a preset that gives facing generals no meaning: the
// sites that play without the bikjang obligation (Kakao, Hangame) record
// moves that janggi's rule forbids.
func gibBikjangHint(rs *rules.RuleSet, starts []gibStart, moves []gibMove) string {
	for _, name := range rules.PresetNames() {
		other := rules.MustPreset(name)
		if other.Game != rules.Janggi || other.Facing != rules.FacingIgnored {
			continue
		}
		if _, _, err := gibFit(other, 0, starts, moves); err == nil {
			return fmt.Sprintf("; illegal under %s only because of bikjang (the side whose general faces the other's must break it or pass): the record imports with --rules %s", rs.Name, name)
		}
	}
	return ""
}

// gibKnown drops the word for "unknown".
func gibKnown(v string) string {
	v = strings.TrimSpace(v)
	if v == "미상" || v == "?" || v == "-" {
		return ""
	}
	return v
}

// gibStarts lists the start positions the game's tags allow: the named
// setups, every setup of a side whose tag is missing (the moves decide),
// or the board a 판 tag draws for a handicap game.
func gibStarts(seg *gibSegment) ([]gibStart, *Error) {
	sides := [2][]rules.JanggiSetup{}
	for c, keys := range [2][2]string{{"초차림", "초포진"}, {"한차림", "한포진"}} {
		for _, key := range keys {
			if v, ok := seg.tag(key); ok {
				if s, ok := gibSetups[strings.TrimSpace(v)]; ok {
					sides[c] = []rules.JanggiSetup{s}
					break
				}
			}
		}
		if sides[c] == nil {
			sides[c] = gibAllSetups
		}
	}
	if board, ok := seg.tag("판"); ok {
		fen, err := gibBoardFEN(board)
		if err != nil {
			return nil, &Error{Line: seg.tagLine("판"), Kind: gamerec.ErrRecordSetup, Msg: err.Error()}
		}
		// The board decides (handicap games lack pieces); it is named by
		// its setups when it is a standard one.
		st := gibStart{fen: fen}
		if cho, han, ok := rules.JanggiSetupsOf(fen); ok {
			st.setup = cho.String() + "," + han.String()
		}
		return []gibStart{st}, nil
	}
	var starts []gibStart
	for _, cho := range sides[0] {
		for _, han := range sides[1] {
			starts = append(starts, gibStart{fen: rules.JanggiSetupFEN(cho, han), setup: cho.String() + "," + han.String()})
		}
	}
	return starts, nil
}

// gibBoardFEN reads a 판 tag, as JanggiDosa writes it for handicap games:
// ranks from Cho's back rank to Han's, '/' between them, files a to i,
// digits for empty points (those after a rank's last piece left out), Cho's
// pieces in Hangul and Han's in hanja, then words about the game (한
// 접장기). Checked against real games: Cho's and Han's setups and the
// missing piece of a handicap game are where the moves need them.
func gibBoardFEN(tag string) (string, error) {
	board, _, _ := strings.Cut(strings.TrimSpace(tag), " ")
	ranks := strings.Split(board, "/")
	if len(ranks) != rules.Ranks {
		return "", fmt.Errorf("판 tag %q: %d ranks, want %d", tag, len(ranks), rules.Ranks)
	}
	var b strings.Builder
	for i := rules.Ranks - 1; i >= 0; i-- { // FEN starts from Han's side
		files, empty := 0, 0
		for _, r := range ranks[i] {
			if r >= '1' && r <= '9' {
				empty += int(r - '0')
				continue
			}
			t := gibPiece(r)
			if t == rules.NoPieceType {
				return "", fmt.Errorf("판 tag %q: unknown piece %q", tag, r)
			}
			c := rules.Black
			if unicode.Is(unicode.Hangul, r) {
				c = rules.White
			}
			if empty > 0 {
				b.WriteString(strconv.Itoa(empty))
				files, empty = files+empty, 0
			}
			b.WriteByte(rules.MakePiece(c, t).Letter())
			files++
		}
		if files+empty > rules.Files {
			return "", fmt.Errorf("판 tag %q: rank %d has %d files, want %d", tag, i+1, files+empty, rules.Files)
		}
		if files < rules.Files {
			b.WriteString(strconv.Itoa(rules.Files - files))
		}
		if i > 0 {
			b.WriteByte('/')
		}
	}
	b.WriteString(" w - - 0 1")
	return b.String(), nil
}

// gibReplay plays the moves from fen: each must be legal, by the piece it
// names, capturing what it says, and none may follow the game's end. The
// side to move first is the side of the first move's piece.
func gibReplay(rs *rules.RuleSet, fen string, moves []gibMove) (*rules.Game, *Error) {
	if first := moves[0]; first.side == 1 || (!first.pass && first.side < 0 && gibFirstIsHan(fen, first.from)) {
		fen = strings.Replace(fen, " w ", " b ", 1)
	}
	game, err := rules.NewGame(rs, fen)
	if err != nil {
		return nil, &Error{Line: moves[0].tok.line, Kind: gamerec.ErrRecordSetup, Msg: err.Error()}
	}
	var buf [rules.MaxMoves]rules.Move
	for i := range moves {
		m := &moves[i]
		bad := func(format string, args ...any) (*rules.Game, *Error) {
			return nil, &Error{Line: m.tok.line, Kind: gamerec.ErrRecordMove, Msg: fmt.Sprintf("move %d %q: %s", i+1, m.tok.text, fmt.Sprintf(format, args...))}
		}
		// Only a forced end stops play: players may play on past an
		// end the rules give on a claim (gamerec.Game.Settle).
		if r := game.ImmediateResult(); r.Over() {
			return bad("the game is over after move %d (%s %s)", i, r.Score(), r.Reason)
		}
		pos := game.Position()
		side := pos.SideToMove()
		if m.side >= 0 && rules.Color(m.side) != side {
			return bad("marked for %s, but %s is to move", gibSideName(rules.Color(m.side)), gibSideName(side))
		}
		legal := game.LegalMoves(buf[:0])
		if m.pass {
			k := pos.KingSquare(side)
			if !gibContains(legal, rules.PassMove(k)) {
				return bad("a pass is not legal here (%s)", pos.FEN())
			}
			game.Play(rules.PassMove(k))
			continue
		}
		pc := pos.Board(m.from)
		switch {
		case pc == rules.NoPiece:
			return bad("no piece on %s (%s)", m.from, pos.FEN())
		case pc.Color() != side:
			return bad("the %s on %s is not %s's (%s)", pc.Type(), m.from, gibSideName(side), pos.FEN())
		case pc.Type() != m.piece:
			return bad("names %s, but %s holds %s (%s)", gibA(m.piece), m.from, gibA(pc.Type()), pos.FEN())
		}
		mv := rules.NewMove(m.from, m.to)
		if !gibContains(legal, mv) {
			game, err := bad("%s is not legal (%s)", mv, pos.FEN())
			err.illegal = true
			return game, err
		}
		switch got := pos.Board(m.to); {
		case got == rules.NoPiece && m.captured != rules.NoPieceType:
			return bad("says it captures %s, but %s is empty", gibA(m.captured), m.to)
		case got != rules.NoPiece && m.captured == rules.NoPieceType:
			return bad("captures the %s on %s without saying so", got.Type(), m.to)
		case got != rules.NoPiece && got.Type() != m.captured:
			return bad("says it captures %s, but %s holds %s", gibA(m.captured), m.to, gibA(got.Type()))
		}
		game.Play(mv)
	}
	return game, nil
}

func gibContains(moves []rules.Move, m rules.Move) bool {
	for _, x := range moves {
		if x == m {
			return true
		}
	}
	return false
}

// gibFirstIsHan reports whether the board of fen holds a Han piece on s.
func gibFirstIsHan(fen string, s rules.Square) bool {
	board, _, _ := strings.Cut(fen, " ")
	ranks := strings.Split(board, "/")
	r := rules.Ranks - 1 - s.Rank()
	if r < 0 || r >= len(ranks) {
		return false
	}
	f := 0
	for _, ch := range ranks[r] {
		if ch >= '1' && ch <= '9' {
			f += int(ch - '0')
			continue
		}
		if f == s.File() {
			return ch >= 'a' && ch <= 'z'
		}
		f++
	}
	return false
}

// gibA names a piece type with its article.
func gibA(t rules.PieceType) string {
	if t == rules.Advisor || t == rules.Elephant {
		return "an " + t.String()
	}
	return "a " + t.String()
}

func gibSideName(c rules.Color) string {
	if c == rules.White {
		return "Cho"
	}
	return "Han"
}

// gibResult reads a 대국결과 tag: who won (초/楚 or 한/漢) and how (완승, an
// outright win: the loser resigned unless the rules ended the game;
// 기권승, resignation; 시간승, time; 점수승 and other wins, recorded), or
// 무승부, a draw; 미상 or nothing, unknown. 승리 and 패배 are 승 and 패
// written out (초 승리); 0.5점 승 is a win on points. A move count (166수)
// may precede it. A wording it does not know is an error, never a guess.
func gibResult(v string) (result, reason string, err error) {
	s := strings.Map(func(r rune) rune {
		if gibSpace(r) {
			return -1
		}
		return r
	}, v)
	s = gibHanjaWords.Replace(s)
	if i := strings.Index(s, "수"); i > 0 && strings.Trim(s[:i], "0123456789") == "" {
		s = s[i+len("수"):] // "166수 초 완승"
	}
	switch s {
	case "", "미상", "?", "*", "진행중", "미완", "미정", "없음":
		return gamerec.Unknown, gamerec.ReasonUnfinished, nil
	case "무승부", "비김", "무", "빅장무승부", "무승부(빅장)":
		return gamerec.Draw, gamerec.ReasonRecorded, nil
	}
	// 승리 and 패배 are the long words for a win and a loss (초 승리).
	if t, ok := strings.CutSuffix(s, "승리"); ok {
		s = t + "승"
	} else if t, ok := strings.CutSuffix(s, "패배"); ok {
		s = t + "패"
	}
	winner := -1
	for _, r := range s {
		if side := gibSide(r); side >= 0 {
			winner = int(side)
			break
		}
	}
	win, loss := strings.HasSuffix(s, "승"), strings.HasSuffix(s, "패")
	if winner < 0 || win == loss {
		return "", "", fmt.Errorf("result %q: a wording palace does not know (want 초 or 한 with 승 or 승리: 완승, 기권승, 시간승, 점수승, 0.5점 승…; 무승부; 미상)", v)
	}
	if loss {
		winner = 1 - winner
	}
	result = gamerec.WhiteWins
	if winner == 1 {
		result = gamerec.BlackWins
	}
	switch {
	case strings.Contains(s, "시간"):
		return result, gamerec.ReasonTime, nil
	case strings.Contains(s, "기권"), strings.Contains(s, "완승"), strings.Contains(s, "불계"):
		return result, gamerec.ReasonResignation, nil
	}
	return result, gamerec.ReasonRecorded, nil
}

// gibHanjaWords are the result words some records write in hanja.
var gibHanjaWords = strings.NewReplacer("無勝負", "무승부", "勝", "승", "敗", "패", "完", "완", "時間", "시간", "棄權", "기권", "點數", "점수")
