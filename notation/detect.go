package notation

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/palace-chess/palace/rules"
)

// Notation is a way of writing one move.
type Notation uint8

const (
	Unknown Notation = iota
	ICCS             // coordinates, ranks 0–9 from Red's side: h2e2, H2-E2
	WXF              // piece, file, direction, number: C2.5, Ｃ２＝５, +P.6
	Chinese          // 炮二平五, 馬８進７, 前卒進１ (traditional or simplified)
	SAN              // Fairy-Stockfish's SAN (notation/san.go)
)

var notationNames = [...]string{"unknown", "ICCS", "WXF", "Chinese", "SAN"}

func (n Notation) String() string {
	if int(n) < len(notationNames) {
		return notationNames[n]
	}
	return fmt.Sprintf("Notation(%d)", n)
}

// The kinds of failure; every *Error wraps one, for errors.Is.
var (
	ErrSyntax    = errors.New("notation: unreadable move")
	ErrNoMatch   = errors.New("notation: no legal move matches")
	ErrAmbiguous = errors.New("notation: ambiguous move")
)

// Error is a move text that did not resolve to exactly one legal move.
type Error struct {
	Notation Notation
	Text     string
	Err      error  // ErrSyntax, ErrNoMatch or ErrAmbiguous
	Detail   string // what was wrong, or which moves matched
}

func (e *Error) Error() string {
	msg := strings.TrimPrefix(e.Err.Error(), "notation: ")
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return fmt.Sprintf("notation: %s %q: %s", e.Notation, e.Text, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// Detect says which notation a move token is written in, from its shape
// alone: Chinese if it holds a Chinese piece, direction or position
// character; otherwise (full-width letters and digits read as ASCII) ICCS
// for a4a5 shapes, WXF for four-character piece/file/direction/number
// shapes, SAN for other letter-and-square shapes.
func Detect(text string) Notation {
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if isChineseRune(r) {
			return Chinese
		}
		i += size
	}
	var buf [12]byte
	t, ok := foldASCII(buf[:0], text)
	if !ok {
		return Unknown
	}
	t = trimCheck(t)
	switch {
	case isICCS(t):
		return ICCS
	case isWXF(t):
		return WXF
	case isSAN(t):
		return SAN
	}
	return Unknown
}

// Parse resolves a move in whichever notation Detect finds.
func Parse(g *rules.Game, text string) (rules.Move, error) {
	switch Detect(text) {
	case ICCS:
		return ParseICCS(g, text)
	case WXF:
		return ParseWXF(g, text)
	case Chinese:
		return ParseChinese(g, text)
	case SAN:
		return ParseSAN(g, text)
	}
	return rules.NoMove, &Error{Notation: Unknown, Text: text, Err: ErrSyntax, Detail: "not ICCS, WXF, Chinese or SAN"}
}

// foldASCII appends text to dst with full-width ASCII forms (Ｃ２＝５) and
// the minus sign read as ASCII; false if anything else is not ASCII or
// the result would outgrow dst's capacity (no move is that long).
func foldASCII(dst []byte, text string) ([]byte, bool) {
	for _, r := range text {
		switch {
		case r < utf8.RuneSelf:
		case r >= 0xFF01 && r <= 0xFF5E:
			r -= 0xFEE0
		case r == '−' || r == '–': // U+2212, U+2013
			r = '-'
		default:
			return dst, false
		}
		if len(dst) == cap(dst) {
			return dst, false
		}
		dst = append(dst, byte(r))
	}
	return dst, true
}

// trimCheck drops a trailing check or mate mark that some writers add.
func trimCheck(t []byte) []byte {
	for len(t) > 4 && (t[len(t)-1] == '+' || t[len(t)-1] == '#') {
		t = t[:len(t)-1]
	}
	return t
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isFileLetter(c byte) bool { c = lower(c); return c >= 'a' && c <= 'i' }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isDigit19(c byte) bool    { return c >= '1' && c <= '9' }

// isICCS accepts h2e2, H2E2, h2-e2 and H2-E2; mixed case (H1g3) is SAN.
func isICCS(t []byte) bool {
	if len(t) == 5 && t[2] == '-' {
		return isICCS4(t[0], t[1], t[3], t[4])
	}
	return len(t) == 4 && isICCS4(t[0], t[1], t[2], t[3])
}

func isICCS4(f1, r1, f2, r2 byte) bool {
	return isFileLetter(f1) && isDigit(r1) && isFileLetter(f2) && isDigit(r2) && (f1 >= 'a') == (f2 >= 'a')
}

func isWXF(t []byte) bool {
	if len(t) != 4 || !isDigit19(t[3]) {
		return false
	}
	switch t[2] {
	case '+', '-', '.', '=':
	default:
		return false
	}
	_, ok := wxfDesignator(t[0], t[1])
	return ok
}

// isSAN accepts the characters SAN uses around at least one square.
func isSAN(t []byte) bool {
	square := false
	for i, c := range t {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', isDigit(c):
			if i > 0 && isDigit(c) && t[i-1] >= 'a' && t[i-1] <= 'i' {
				square = true
			}
		case c == 'x', c == '+', c == '#', c == '=', c == '-', c == '@':
		default:
			return false
		}
	}
	return square || string(t) == "@@@@" || string(t) == "pass"
}

// mark picks one of several like pieces on a file, counted from the front
// (the one nearest the opponent).
type mark uint8

const (
	markNone     mark = iota
	markFront         // 前: the foremost
	markBack          // 後/后: the rearmost
	markMiddle        // 中, or WXF's file repeated (33.4): the middle of three or five
	markNth           // 一…五: the nth from the front
	markWXFFront      // WXF +: the foremost of two or three, the second of four or five
	markWXFBack       // WXF -: the rearmost of two or three, the second-rearmost of four or five
	markFirst         // WXF ++: the foremost of four or five
	markLast          // WXF --: the rearmost of four or five
)

// spec is a move as WXF and Chinese notation describe it: which piece
// (type, the mover's own file, a position on that file) and where it goes
// (direction and a file or a distance).
type spec struct {
	piece rules.PieceType // NoPieceType: forms that name no piece, which mean pawns
	file  int             // the mover's own file 1–9 (counted from its right); 0: not given
	mark  mark
	nth   int  // 1–5 with markNth
	dir   byte // '+' forward, '-' backward, '=' along the rank
	num   int  // 1–9: steps along the file, else the destination file
}

// ownFile numbers board file f (0 = a) as side c counts it: from its own
// right, so Red's file 1 is i and Black's file 1 is a.
func ownFile(c rules.Color, f int) int {
	if c == rules.White {
		return 9 - f
	}
	return f + 1
}

// describe is the direction and number WXF and Chinese notation write for
// a move by side c: along the rank, the destination file; along the file,
// the distance; otherwise (horse, advisor, elephant, palace diagonals) the
// destination file.
func describe(c rules.Color, m rules.Move) (dir byte, num int) {
	from, to := m.From(), m.To()
	fwd := to.Rank() - from.Rank()
	if c == rules.Black {
		fwd = -fwd
	}
	switch {
	case fwd == 0:
		return '=', ownFile(c, to.File())
	case from.File() == to.File():
		if fwd > 0 {
			return '+', fwd
		}
		return '-', -fwd
	case fwd > 0:
		return '+', ownFile(c, to.File())
	}
	return '-', ownFile(c, to.File())
}

// tandem is the number k of pieces like pc on sq's file and the index i
// (0 = foremost) of the one on sq.
func tandem(pos *rules.Position, pc rules.Piece, sq rules.Square) (i, k int) {
	f, r := sq.File(), sq.Rank()
	for rr := 0; rr < rules.Ranks; rr++ {
		if pos.Board(rules.SquareAt(f, rr)) != pc {
			continue
		}
		k++
		if (pc.Color() == rules.White && rr > r) || (pc.Color() == rules.Black && rr < r) {
			i++
		}
	}
	return i, k
}

// picks reports whether mark m (with nth) names the piece at index i of k.
func (m mark) picks(nth, i, k int) bool {
	if k < 2 {
		return false
	}
	switch m {
	case markFront, markFirst:
		return i == 0
	case markBack, markLast:
		return i == k-1
	case markMiddle:
		return k%2 == 1 && i == k/2
	case markNth:
		return i == nth-1
	case markWXFFront:
		return (k <= 3 && i == 0) || (k >= 4 && i == 1)
	case markWXFBack:
		return (k <= 3 && i == k-1) || (k >= 4 && i == k-2)
	}
	return false
}

// matches collects into dst the legal moves of g that sp describes. It
// does not generate every legal move: it finds the pieces sp names, works
// out where each would go (the board geometry leaves one square, two for
// janggi's palace diagonals) and asks g whether that move is legal.
func (sp *spec) matches(dst []rules.Move, g *rules.Game) []rules.Move {
	pos := g.Position()
	side := pos.SideToMove()
	t := sp.piece
	if t == rules.NoPieceType {
		t = rules.Soldier // forms that name no piece name pawns
	}
	pc := rules.MakePiece(side, t)
	janggi := pos.Rules().Game == rules.Janggi
	lo, hi := 0, rules.Files-1
	if sp.file != 0 {
		lo = boardFile(side, sp.file)
		hi = lo
	}
	var tos [4]rules.Square
	for f := lo; f <= hi; f++ {
		for r := 0; r < rules.Ranks; r++ {
			from := rules.SquareAt(f, r)
			if pos.Board(from) != pc {
				continue
			}
			if sp.mark != markNone {
				if i, k := tandem(pos, pc, from); !sp.mark.picks(sp.nth, i, k) {
					continue
				}
			}
			for _, to := range destinations(tos[:0], janggi, t, side, from, sp.dir, sp.num) {
				if m := rules.NewMove(from, to); g.IsLegal(m) {
					dst = append(dst, m)
				}
			}
		}
	}
	// A piece and a file alone name the middle pawn of three or five on
	// that file (WXF's P3.4); for other tandems they stay ambiguous.
	if len(dst) > 1 && sp.mark == markNone && sp.file != 0 {
		n := 0
		for _, m := range dst {
			if i, k := tandem(pos, pc, m.From()); k%2 == 1 && i == k/2 {
				dst[n] = m
				n++
			}
		}
		if n > 0 {
			dst = dst[:n]
		}
	}
	return dst
}

// boardFile is the board file (0 = a) of side c's own file n (1–9).
func boardFile(c rules.Color, n int) int {
	if c == rules.White {
		return 9 - n
	}
	return n - 1
}

// destinations appends the squares a piece of type t on from may reach by
// a move that describe writes as dir and num: along the rank the file num;
// along the file num steps (pieces that move straight); off the file the
// file num at the rank offsets the piece's geometry allows (horse 2 or 1,
// elephant 2, or janggi's 3 or 2, advisor 1, janggi's palace diagonals
// for the rest). Whether the move is legal is the caller's question.
func destinations(dst []rules.Square, janggi bool, t rules.PieceType, c rules.Color, from rules.Square, dir byte, num int) []rules.Square {
	f, r := from.File(), from.Rank()
	to := boardFile(c, num)
	if dir == '=' {
		if to != f {
			dst = append(dst, rules.SquareAt(to, r))
		}
		return dst
	}
	step := 1 // towards the mover's front
	if c == rules.Black {
		step = -1
	}
	if dir == '-' {
		step = -step
	}
	add := func(ff, dr int) {
		if rr := r + step*dr; rr >= 0 && rr < rules.Ranks {
			dst = append(dst, rules.SquareAt(ff, rr))
		}
	}
	straight := t == rules.King || t == rules.Chariot || t == rules.Cannon || t == rules.Soldier ||
		janggi && t == rules.Advisor
	if straight {
		add(f, num)
	}
	df := to - f
	if df < 0 {
		df = -df
	}
	switch {
	case df == 0:
	case t == rules.Horse:
		add(to, 3-df) // (1,2) or (2,1)
	case t == rules.Elephant && janggi:
		add(to, 5-df) // (2,3) or (3,2)
	case t == rules.Elephant:
		add(to, 2)
	case janggi && df <= 2 || t == rules.Advisor && df == 1:
		add(to, df) // diagonals: janggi's palace lines, xiangqi's advisor
	}
	return dst
}

// resolve finds the one legal move of g that sp describes.
func resolve(g *rules.Game, sp *spec, n Notation, text string) (rules.Move, error) {
	var buf [8]rules.Move
	found := sp.matches(buf[:0], g)
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return rules.NoMove, &Error{Notation: n, Text: text, Err: ErrNoMatch, Detail: "in " + g.Position().FEN()}
	}
	texts := make([]string, len(found))
	for i, m := range found {
		texts[i] = m.Text(rules.Ranks0)
	}
	return rules.NoMove, &Error{Notation: n, Text: text, Err: ErrAmbiguous,
		Detail: "matches " + strings.Join(texts, ", ") + " (ICCS) in " + g.Position().FEN()}
}

// uniquely reports whether sp describes m and no other legal move.
func (sp *spec) uniquely(g *rules.Game, m rules.Move) bool {
	var buf [8]rules.Move
	found := sp.matches(buf[:0], g)
	return len(found) == 1 && found[0] == m
}

// writeSpecs lists the ways to name m's piece, the standard one first
// (wxf: WXF's marks, else Chinese ones), then the plain file form and the
// marked one; the writers use the first that names m alone.
func writeSpecs(pos *rules.Position, m rules.Move, wxf bool) [3]spec {
	from := m.From()
	pc := pos.Board(from)
	side := pc.Color()
	dir, num := describe(side, m)
	plain := spec{piece: pc.Type(), file: ownFile(side, from.File()), dir: dir, num: num}
	marked := plain
	i, k := tandem(pos, pc, from)
	switch {
	case k < 2:
	case pc.Type() == rules.Soldier && otherTandemFile(pos, pc, from.File()):
		// Pawns doubled on two files: the file replaces the piece. (At
		// most three share a file then, where WXF's + and - agree with
		// 前 and 後.)
		marked.piece = rules.NoPieceType
		switch {
		case i == 0:
			marked.mark = markFront
		case i == k-1:
			marked.mark = markBack
		default:
			marked.mark = markMiddle
		}
	case wxf:
		switch {
		case k >= 4 && i == 0:
			marked.piece, marked.file, marked.mark = rules.NoPieceType, 0, markFirst
		case k >= 4 && i == k-1:
			marked.piece, marked.file, marked.mark = rules.NoPieceType, 0, markLast
		case (k <= 3 && i == 0) || (k >= 4 && i == 1):
			marked.file, marked.mark = 0, markWXFFront
		case (k <= 3 && i == k-1) || (k >= 4 && i == k-2):
			marked.file, marked.mark = 0, markWXFBack
		}
		// otherwise the middle one of three or five: the file form.
	case k >= 4:
		marked.file, marked.mark, marked.nth = 0, markNth, i+1
	case i == 0:
		marked.file, marked.mark = 0, markFront
	case i == k-1:
		marked.file, marked.mark = 0, markBack
	default:
		marked.file, marked.mark = 0, markMiddle
	}
	if t := pc.Type(); t == rules.Advisor || t == rules.Elephant {
		// Advisors and elephants keep their file: in xiangqi the
		// direction tells two on one file apart.
		return [3]spec{plain, plain, marked}
	}
	return [3]spec{marked, plain, marked}
}

// otherTandemFile reports whether pieces like pc stand two or more on a
// file other than f.
func otherTandemFile(pos *rules.Position, pc rules.Piece, f int) bool {
	for ff := 0; ff < rules.Files; ff++ {
		if ff == f {
			continue
		}
		n := 0
		for r := 0; r < rules.Ranks; r++ {
			if pos.Board(rules.SquareAt(ff, r)) == pc {
				n++
			}
		}
		if n >= 2 {
			return true
		}
	}
	return false
}

// pickSpec is the first of writeSpecs' forms that names m alone (unique),
// or the standard one when none does: janggi's palace diagonals make some
// moves unnameable (e1e7 and e1d2 are both R5+6). ok is false for a pass
// or an empty square.
func pickSpec(g *rules.Game, m rules.Move, wxf bool) (sp spec, unique, ok bool) {
	pos := g.Position()
	if pos.Board(m.From()) == rules.NoPiece || m.IsPass() {
		return spec{}, false, false
	}
	specs := writeSpecs(pos, m, wxf)
	for i := range specs {
		if specs[i].uniquely(g, m) {
			return specs[i], true, true
		}
	}
	return specs[0], false, true
}
