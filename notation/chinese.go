package notation

import (
	"unicode/utf8"

	"github.com/palace-chess/palace/rules"
)

// ParseChinese resolves a move in Chinese notation, traditional or
// simplified, to the legal move of g's position it names.
//
// A move is four characters: the piece (帥帅將将 仕士 相象 傌馬马 俥車车
// 炮砲包 兵卒, either side's name for either side), its file counted from
// the mover's own right, the direction (進/进 forward, 退 back, 平 along
// the rank) and a number (steps, else the destination file). Numbers may
// be Chinese (一…九, Red's custom), full-width (１…９, Black's) or ASCII
// for either side: the side to move is g's. Two like pieces on one file
// are 前 and 後/后 before the piece (前炮平四; 車前平三 is read too),
// three pawns 前, 中 and 後, four or five 一…五 from the front; with pawns
// doubled on two files the file replaces the piece (前七進一, 中七平六).
func ParseChinese(g *rules.Game, text string) (rules.Move, error) {
	bad := func(detail string) (rules.Move, error) {
		return rules.NoMove, &Error{Notation: Chinese, Text: text, Err: ErrSyntax, Detail: detail}
	}
	var rs [4]rune
	n := 0
	for _, r := range text {
		if n == len(rs) {
			return bad("more than 4 characters")
		}
		rs[n] = r
		n++
	}
	if n != 4 {
		return bad("want 4 characters: piece, file, direction, number (炮二平五)")
	}
	var sp spec
	switch rs[2] {
	case '進', '进':
		sp.dir = '+'
	case '退':
		sp.dir = '-'
	case '平':
		sp.dir = '='
	default:
		return bad("third character is not 進, 进, 退 or 平")
	}
	num, ok := numeral(rs[3])
	if !ok {
		return bad("last character is not a number 1–9")
	}
	sp.num = num
	pa, isPa := chinesePiece(rs[0])
	pb, isPb := chinesePiece(rs[1])
	ma, isMa := chineseMark(rs[0])
	mb, isMb := chineseMark(rs[1])
	na, isNa := numeral(rs[0])
	nb, isNb := numeral(rs[1])
	switch {
	case isPa && isNb:
		sp.piece, sp.file = pa, nb
	case isMa && isPb:
		sp.piece, sp.mark = pb, ma
	case isNa && isPb && na <= 5:
		sp.piece, sp.mark, sp.nth = pb, markNth, na
	case isPa && isMb:
		sp.piece, sp.mark = pa, mb
	case isMa && isNb:
		sp.file, sp.mark = nb, ma
	case isNa && isNb && na <= 5:
		sp.file, sp.mark, sp.nth = nb, markNth, na
	default:
		return bad("want a piece and a file, or 前/中/後/一…五 and a piece or file")
	}
	return resolve(g, &sp, Chinese, text)
}

func chinesePiece(r rune) (rules.PieceType, bool) {
	switch r {
	case '帥', '帅', '將', '将':
		return rules.King, true
	case '仕', '士':
		return rules.Advisor, true
	case '相', '象':
		return rules.Elephant, true
	case '傌', '馬', '马':
		return rules.Horse, true
	case '俥', '車', '车':
		return rules.Chariot, true
	case '炮', '砲', '包':
		return rules.Cannon, true
	case '兵', '卒':
		return rules.Soldier, true
	}
	return rules.NoPieceType, false
}

func chineseMark(r rune) (mark, bool) {
	switch r {
	case '前':
		return markFront, true
	case '後', '后':
		return markBack, true
	case '中':
		return markMiddle, true
	}
	return markNone, false
}

// numeral reads 1–9 written as 一…九, １…９ or 1…9.
func numeral(r rune) (int, bool) {
	switch {
	case r >= '1' && r <= '9':
		return int(r - '0'), true
	case r >= '１' && r <= '９':
		return int(r - '０'), true
	}
	for i, c := range chineseNumerals {
		if r == c {
			return i + 1, true
		}
	}
	return 0, false
}

var chineseNumerals = [9]rune{'一', '二', '三', '四', '五', '六', '七', '八', '九'}

// isChineseRune reports whether r occurs only in Chinese notation.
func isChineseRune(r rune) bool {
	if r < 0x3000 {
		return false
	}
	if _, ok := chinesePiece(r); ok {
		return true
	}
	if _, ok := chineseMark(r); ok {
		return true
	}
	switch r {
	case '進', '进', '退', '平':
		return true
	}
	for _, c := range chineseNumerals {
		if r == c {
			return true
		}
	}
	return false
}

// Piece names as game records print them, by colour and piece type: Red's
// and Black's differ for the general, advisor, elephant and pawn.
var (
	traditionalNames = [2][8]rune{
		{rules.King: '帥', rules.Advisor: '仕', rules.Elephant: '相', rules.Horse: '馬', rules.Chariot: '車', rules.Cannon: '炮', rules.Soldier: '兵'},
		{rules.King: '將', rules.Advisor: '士', rules.Elephant: '象', rules.Horse: '馬', rules.Chariot: '車', rules.Cannon: '炮', rules.Soldier: '卒'},
	}
	simplifiedNames = [2][8]rune{
		{rules.King: '帅', rules.Advisor: '仕', rules.Elephant: '相', rules.Horse: '马', rules.Chariot: '车', rules.Cannon: '炮', rules.Soldier: '兵'},
		{rules.King: '将', rules.Advisor: '士', rules.Elephant: '象', rules.Horse: '马', rules.Chariot: '车', rules.Cannon: '炮', rules.Soldier: '卒'},
	}
)

// AppendChinese appends m, a legal move of g's position, in Chinese
// notation as records print it: Red's numbers 一…九, Black's １…９;
// traditional (炮二平五 馬８進７ 前炮退二) or simplified (马８进７ 后炮平四).
// Four or five pawns on a file are 一…五 from the front; pawns doubled on
// two files write the file for the piece (前七進一). A janggi move that no
// form names alone is written in the standard form (see AppendWXF).
func AppendChinese(dst []byte, g *rules.Game, m rules.Move, simplified bool) []byte {
	sp, _, ok := pickSpec(g, m, false)
	if !ok {
		return append(dst, '?')
	}
	side := g.Position().SideToMove()
	names := &traditionalNames
	forward, back := '進', '後'
	if simplified {
		names, forward, back = &simplifiedNames, '进', '后'
	}
	number := func(n int) rune {
		if side == rules.White {
			return chineseNumerals[n-1]
		}
		return '０' + rune(n)
	}
	switch sp.mark {
	case markFront:
		dst = utf8.AppendRune(dst, '前')
	case markBack:
		dst = utf8.AppendRune(dst, back)
	case markMiddle:
		dst = utf8.AppendRune(dst, '中')
	case markNth:
		dst = utf8.AppendRune(dst, chineseNumerals[sp.nth-1])
	}
	switch {
	case sp.piece == rules.NoPieceType:
		dst = utf8.AppendRune(dst, number(sp.file))
	case sp.mark == markNone:
		dst = utf8.AppendRune(dst, names[side][sp.piece])
		dst = utf8.AppendRune(dst, number(sp.file))
	default:
		dst = utf8.AppendRune(dst, names[side][sp.piece])
	}
	switch sp.dir {
	case '+':
		dst = utf8.AppendRune(dst, forward)
	case '-':
		dst = utf8.AppendRune(dst, '退')
	default:
		dst = utf8.AppendRune(dst, '平')
	}
	return utf8.AppendRune(dst, number(sp.num))
}
