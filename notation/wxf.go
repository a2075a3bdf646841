package notation

import "github.com/palace-chess/palace/rules"

// ParseWXF resolves a WXF move to the legal move of g's position it names.
//
// A move is four characters: the piece (K, A, E or B, H or N, R, C, P),
// its file counted from the mover's own right (Red: 9 at a … 1 at i), the
// direction (+ forward, - backward, . or = along the rank) and a number
// (steps along the file, else the destination file). Full-width forms
// (Ｃ２＝５) and lower case read the same. Two like pieces on one file
// replace the file with + (front) or - (back), after or before the letter
// (R+.3, +R.3); pawns follow WXF's numbering: P3.4 is the middle of
// three or five, ++ and -- the outermost of four or five (++.4), and with
// pawns doubled on two files the file replaces the letter (3+.4, 33.4,
// 3-.4). Advisors and elephants keep their file: the direction tells two
// on one file apart.
func ParseWXF(g *rules.Game, text string) (rules.Move, error) {
	bad := func(detail string) (rules.Move, error) {
		return rules.NoMove, &Error{Notation: WXF, Text: text, Err: ErrSyntax, Detail: detail}
	}
	var buf [12]byte
	t, ok := foldASCII(buf[:0], text)
	if !ok {
		return bad("not ASCII or full-width letters and digits")
	}
	t = trimCheck(t)
	if len(t) != 4 {
		return bad("want 4 characters: piece, file, direction, number (C2.5)")
	}
	sp, ok := wxfDesignator(t[0], t[1])
	if !ok {
		return bad("want a piece letter KAEHRCP and a file 1–9 or + or -")
	}
	switch t[2] {
	case '+', '-':
		sp.dir = t[2]
	case '.', '=':
		sp.dir = '='
	default:
		return bad("direction is not +, -, . or =")
	}
	if !isDigit19(t[3]) {
		return bad("last character is not 1–9")
	}
	sp.num = int(t[3] - '0')
	return resolve(g, &sp, WXF, text)
}

// wxfPiece reads a WXF piece letter (ICCS's B and N accepted too).
func wxfPiece(c byte) (rules.PieceType, bool) {
	switch c {
	case 'K', 'k':
		return rules.King, true
	case 'A', 'a':
		return rules.Advisor, true
	case 'E', 'e', 'B', 'b':
		return rules.Elephant, true
	case 'H', 'h', 'N', 'n':
		return rules.Horse, true
	case 'R', 'r':
		return rules.Chariot, true
	case 'C', 'c':
		return rules.Cannon, true
	case 'P', 'p':
		return rules.Soldier, true
	}
	return rules.NoPieceType, false
}

// wxfDesignator reads a WXF move's first two characters: which piece.
func wxfDesignator(a, b byte) (spec, bool) {
	var sp spec
	pa, okA := wxfPiece(a)
	pb, okB := wxfPiece(b)
	pm := func(c byte) mark {
		if c == '+' {
			return markWXFFront
		}
		return markWXFBack
	}
	sign := func(c byte) bool { return c == '+' || c == '-' }
	switch {
	case okA && isDigit19(b):
		sp.piece, sp.file = pa, int(b-'0')
	case okA && sign(b):
		sp.piece, sp.mark = pa, pm(b)
	case sign(a) && okB:
		sp.piece, sp.mark = pb, pm(a)
	case a == '+' && b == '+':
		sp.mark = markFirst
	case a == '-' && b == '-':
		sp.mark = markLast
	case isDigit19(a) && sign(b):
		sp.file, sp.mark = int(a-'0'), pm(b)
	case isDigit19(a) && a == b:
		sp.file, sp.mark = int(a-'0'), markMiddle
	default:
		return sp, false
	}
	return sp, true
}

var wxfLetters = [...]byte{rules.King: 'K', rules.Advisor: 'A', rules.Elephant: 'E', rules.Horse: 'H',
	rules.Chariot: 'R', rules.Cannon: 'C', rules.Soldier: 'P'}

// AppendWXF appends m, a legal move of g's position, in WXF's standard
// ASCII form: C2.5, H8+7, R+.3, P-+1, ++.4, 3+.4 (the official WXF
// notation: '.' along the rank, + and - after the letter). A janggi move
// that no form names alone (a palace diagonal can read as a move along
// the file: e1d2 and e1e7 are both R5+6) is written in the standard form.
func AppendWXF(dst []byte, g *rules.Game, m rules.Move) []byte {
	sp, _, ok := pickSpec(g, m, true)
	if !ok {
		return append(dst, '?')
	}
	digit := func(n int) byte { return byte('0' + n) }
	sign := func(m mark) byte {
		if m == markWXFFront || m == markFront {
			return '+'
		}
		return '-'
	}
	switch {
	case sp.mark == markNone:
		dst = append(dst, wxfLetters[sp.piece], digit(sp.file))
	case sp.mark == markFirst:
		dst = append(dst, '+', '+')
	case sp.mark == markLast:
		dst = append(dst, '-', '-')
	case sp.piece == rules.NoPieceType && sp.mark == markMiddle:
		dst = append(dst, digit(sp.file), digit(sp.file))
	case sp.piece == rules.NoPieceType:
		dst = append(dst, digit(sp.file), sign(sp.mark))
	default:
		dst = append(dst, wxfLetters[sp.piece], sign(sp.mark))
	}
	dir := sp.dir
	if dir == '=' {
		dir = '.'
	}
	return append(dst, dir, digit(sp.num))
}
