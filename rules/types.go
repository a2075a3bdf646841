// Package rules is palace's exact rules core for Xiangqi and Janggi: board
// geometry, rule sets as data, FEN, move generation, make/unmake, move text,
// game history and perft. It imports nothing else of palace.
package rules

import "math/bits"

// Board dimensions shared by both games.
const (
	Files   = 9
	Ranks   = 10
	Squares = Files * Ranks
)

// Color is the side: White moves first (Red in xiangqi, Cho in janggi).
type Color uint8

const (
	White Color = 0
	Black Color = 1
)

// Other returns the opponent's colour.
func (c Color) Other() Color { return c ^ 1 }

func (c Color) String() string {
	if c == White {
		return "white"
	}
	return "black"
}

// PieceType is a kind of piece, without colour.
type PieceType uint8

const (
	NoPieceType PieceType = iota
	King                  // general
	Advisor               // advisor / guard
	Elephant              // elephant / sang
	Horse                 // horse / ma
	Chariot               // chariot / cha
	Cannon                // cannon / po
	Soldier               // soldier / byeong, jol
	pieceTypeCount
)

var pieceTypeLetters = [pieceTypeCount]byte{' ', 'k', 'a', 'b', 'n', 'r', 'c', 'p'}

// Letter is the lower-case FEN letter of the piece type.
func (t PieceType) Letter() byte { return pieceTypeLetters[t] }

// Piece is a coloured piece; the zero value is an empty square.
type Piece uint8

// NoPiece marks an empty square.
const NoPiece Piece = 0

// MakePiece combines a colour and a piece type.
func MakePiece(c Color, t PieceType) Piece { return Piece(uint8(c)<<3 | uint8(t)) }

// Type is the piece's type.
func (p Piece) Type() PieceType { return PieceType(p & 7) }

// Color is the piece's colour; meaningless for NoPiece.
func (p Piece) Color() Color { return Color(p >> 3) }

// Letter is the FEN letter: upper case for White.
func (p Piece) Letter() byte {
	l := p.Type().Letter()
	if p.Color() == White && p != NoPiece {
		l -= 'a' - 'A'
	}
	return l
}

const pieceIndexCount = 16 // Piece values are below this

// Square is an intersection: rank*9 + file, rank 0 on White's side.
type Square int8

// NoSquare is the absent square.
const NoSquare Square = -1

// SquareAt returns the square on file f (0 = a) and rank r (0 = White's back rank).
func SquareAt(f, r int) Square { return Square(r*Files + f) }

// File is 0 for file a through 8 for file i.
func (s Square) File() int { return int(s) % Files }

// Rank is 0 for White's back rank through 9 for Black's.
func (s Square) Rank() int { return int(s) / Files }

// String writes the square with ranks 1–10, as Fairy-Stockfish does.
func (s Square) String() string {
	if s < 0 || s >= Squares {
		return "-"
	}
	return string(rune('a'+s.File())) + itoa(s.Rank()+1)
}

func itoa(n int) string {
	if n >= 10 {
		return string([]byte{byte('0' + n/10), byte('0' + n%10)})
	}
	return string([]byte{byte('0' + n)})
}

// Move is a from-square and a to-square. A janggi pass is the mover's king
// square twice. The zero Move is NoMove (a1a1 can never be a pass).
type Move uint16

// NoMove is the absent move.
const NoMove Move = 0

// NewMove makes a move from one square to another.
func NewMove(from, to Square) Move { return Move(uint16(from) | uint16(to)<<7) }

// PassMove is the pass of the side whose king stands on k.
func PassMove(k Square) Move { return NewMove(k, k) }

// From is the origin square.
func (m Move) From() Square { return Square(m & 0x7f) }

// To is the destination square.
func (m Move) To() Square { return Square(m >> 7 & 0x7f) }

// IsPass reports whether the move is a pass.
func (m Move) IsPass() bool { return m != NoMove && m.From() == m.To() }

// Bitboard is a set of squares: bits 0–63 in lo, 64–89 in hi.
type Bitboard struct{ lo, hi uint64 }

// Has reports whether s is in the set.
func (b Bitboard) Has(s Square) bool {
	if s < 64 {
		return b.lo>>uint(s)&1 != 0
	}
	return b.hi>>uint(s-64)&1 != 0
}

func (b *Bitboard) set(s Square) {
	if s < 64 {
		b.lo |= 1 << uint(s)
	} else {
		b.hi |= 1 << uint(s-64)
	}
}

func (b *Bitboard) clear(s Square) {
	if s < 64 {
		b.lo &^= 1 << uint(s)
	} else {
		b.hi &^= 1 << uint(s-64)
	}
}

// Count is the number of squares in the set.
func (b Bitboard) Count() int { return bits.OnesCount64(b.lo) + bits.OnesCount64(b.hi) }

// popLowest removes and returns the lowest square; the set must not be empty.
func (b *Bitboard) popLowest() Square {
	if b.lo != 0 {
		s := Square(bits.TrailingZeros64(b.lo))
		b.lo &= b.lo - 1
		return s
	}
	s := Square(64 + bits.TrailingZeros64(b.hi))
	b.hi &= b.hi - 1
	return s
}

// Empty reports whether the set has no squares.
func (b Bitboard) Empty() bool { return b.lo|b.hi == 0 }

func squareBB(s Square) Bitboard {
	var b Bitboard
	b.set(s)
	return b
}

func (b Bitboard) or(o Bitboard) Bitboard     { return Bitboard{b.lo | o.lo, b.hi | o.hi} }
func (b Bitboard) and(o Bitboard) Bitboard    { return Bitboard{b.lo & o.lo, b.hi & o.hi} }
func (b Bitboard) andNot(o Bitboard) Bitboard { return Bitboard{b.lo &^ o.lo, b.hi &^ o.hi} }
func (b Bitboard) xor(o Bitboard) Bitboard    { return Bitboard{b.lo ^ o.lo, b.hi ^ o.hi} }

// moreThanOne reports whether the set has at least two squares.
func (b Bitboard) moreThanOne() bool { return b.Count() > 1 }
