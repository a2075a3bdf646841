package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// Position is a board, the side to move and the move clocks: everything a
// FEN says. It is a value: copying it copies the position. History that
// legality or results depend on lives in Game.
type Position struct {
	board    [Squares]Piece
	occ      [2]Bitboard               // squares of each colour
	pieces   [pieceIndexCount]Bitboard // squares of each piece, by Piece
	kings    [2]Square
	side     Color
	key      uint64
	halfmove int // plies since the last capture
	fullmove int
	counts   [pieceIndexCount]int8 // pieces on the board, by Piece
	rules    *RuleSet
	geo      *geometry
}

// Zobrist keys from a fixed seed, so keys are the same in every run and
// on every machine.
var (
	zobristPiece [pieceIndexCount][Squares]uint64
	zobristSide  uint64
)

func init() {
	// splitmix64: a few hundred multiplications, nothing an importer notices.
	state := uint64(0x70616c6163650001) // "palace\0\1"
	next := func() uint64 {
		state += 0x9e3779b97f4a7c15
		z := state
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	for p := range zobristPiece {
		for s := range zobristPiece[p] {
			zobristPiece[p][s] = next()
		}
	}
	zobristSide = next()
}

// Board returns the piece on s (NoPiece when empty).
func (p *Position) Board(s Square) Piece { return p.board[s] }

// Pieces returns the whole board, square by square.
func (p *Position) Pieces() [Squares]Piece { return p.board }

// SideToMove is the colour to move.
func (p *Position) SideToMove() Color { return p.side }

// KingSquare is where c's general stands.
func (p *Position) KingSquare(c Color) Square { return p.kings[c] }

// Key is the 64-bit Zobrist key of the board and side to move.
func (p *Position) Key() uint64 { return p.key }

// HalfmoveClock is the number of plies since the last capture.
func (p *Position) HalfmoveClock() int { return p.halfmove }

// FullmoveNumber counts moves from 1, rising after each Black move.
func (p *Position) FullmoveNumber() int { return p.fullmove }

// Rules is the rule set the position is played under.
func (p *Position) Rules() *RuleSet { return p.rules }

// Occupied is the set of squares holding pieces of colour c.
func (p *Position) Occupied(c Color) Bitboard { return p.occ[c] }

// ComputeKey recomputes the Zobrist key from scratch; it equals Key() in a
// consistent position.
func (p *Position) ComputeKey() uint64 {
	var k uint64
	for s := Square(0); s < Squares; s++ {
		if pc := p.board[s]; pc != NoPiece {
			k ^= zobristPiece[pc][s]
		}
	}
	if p.side == Black {
		k ^= zobristSide
	}
	return k
}

// Count is the number of pc on the board.
func (p *Position) Count(pc Piece) int { return int(p.counts[pc]) }

func (p *Position) put(pc Piece, s Square) {
	p.counts[pc]++
	p.board[s] = pc
	p.occ[pc.Color()].set(s)
	p.pieces[pc].set(s)
	p.key ^= zobristPiece[pc][s]
	if pc.Type() == King {
		p.kings[pc.Color()] = s
	}
}

// The standard start positions.
const (
	XiangqiStartFEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
	JanggiStartFEN  = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1"
)

// JanggiSetup is one side's horse (ma) / elephant (sang) order on files b,
// c, g and h, read from file a to file i, as .gib records name it.
type JanggiSetup uint8

const (
	MaSangSangMa JanggiSetup = iota // RNBA1ABNR, Fairy-Stockfish's default
	MaSangMaSang                    // RNBA1ANBR
	SangMaSangMa                    // RBNA1ABNR
	SangMaMaSang                    // RBNA1ANBR
)

var janggiSetupNames = [...]string{"masangsangma", "masangmasang", "sangmasangma", "sangmamasang"}
var janggiSetupRanks = [...]string{"RNBA1ABNR", "RNBA1ANBR", "RBNA1ABNR", "RBNA1ANBR"}

func (s JanggiSetup) String() string { return janggiSetupNames[s] }

// ParseJanggiSetup reads a setup name such as "masangmasang".
func ParseJanggiSetup(name string) (JanggiSetup, error) {
	for i, n := range janggiSetupNames {
		if n == name {
			return JanggiSetup(i), nil
		}
	}
	return 0, fmt.Errorf("rules: unknown janggi setup %q (one of %s)", name, strings.Join(janggiSetupNames[:], ", "))
}

// ParseJanggiSetups reads "CHO,HAN": Cho's setup name, then Han's.
func ParseJanggiSetups(text string) (cho, han JanggiSetup, err error) {
	c, h, ok := strings.Cut(text, ",")
	if !ok {
		return 0, 0, fmt.Errorf("rules: janggi setups %q: want CHO,HAN", text)
	}
	if cho, err = ParseJanggiSetup(c); err != nil {
		return 0, 0, err
	}
	if han, err = ParseJanggiSetup(h); err != nil {
		return 0, 0, err
	}
	return cho, han, nil
}

// JanggiSetupFEN is the start FEN for the given Cho (White) and Han (Black) setups.
func JanggiSetupFEN(cho, han JanggiSetup) string {
	return strings.ToLower(janggiSetupRanks[han]) + "/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/" +
		janggiSetupRanks[cho] + " w - - 0 1"
}

// JanggiSetupsOf names the Cho and Han setups whose start FEN is fen
// exactly (JanggiSetupFEN's inverse); ok is false for any other FEN.
func JanggiSetupsOf(fen string) (cho, han JanggiSetup, ok bool) {
	for c := range JanggiSetup(4) {
		for h := range JanggiSetup(4) {
			if JanggiSetupFEN(c, h) == fen {
				return c, h, true
			}
		}
	}
	return 0, 0, false
}

// StartFEN is the rule set's start position (janggi: the default setup).
func (rs *RuleSet) StartFEN() string {
	if rs.Game == Janggi {
		return JanggiStartFEN
	}
	return XiangqiStartFEN
}

func (rs *RuleSet) geometry() *geometry {
	if rs.Game == Janggi {
		return janggiGeometry
	}
	return xiangqiGeometry
}

// FENError says what is wrong with a FEN and where.
type FENError struct {
	FEN   string
	Where string // e.g. "rank 7", "field 2 (side to move)"
	Msg   string
}

func (e *FENError) Error() string {
	return fmt.Sprintf("rules: bad FEN %q: %s: %s", e.FEN, e.Where, e.Msg)
}

func pieceFromLetter(ch byte) (Piece, bool) {
	c := White
	if ch >= 'a' && ch <= 'z' {
		c = Black
	} else if ch >= 'A' && ch <= 'Z' {
		ch += 'a' - 'A'
	} else {
		return NoPiece, false
	}
	var t PieceType
	switch ch {
	case 'k':
		t = King
	case 'a':
		t = Advisor
	case 'b', 'e':
		t = Elephant
	case 'n', 'h':
		t = Horse
	case 'r':
		t = Chariot
	case 'c':
		t = Cannon
	case 'p':
		t = Soldier
	default:
		return NoPiece, false
	}
	return MakePiece(c, t), true
}

// ParseFEN reads a FEN as Fairy-Stockfish writes it (board, side, "-", "-",
// half-move clock, full-move number; the last four may be omitted). It
// checks what move generation relies on: one general each, inside its
// palace, and the side not to move not in check. Other pieces may stand
// where no game could bring them (an advisor off its points, a soldier
// behind its start rank), in every rule set, deliberately: Fairy-Stockfish
// accepts them, composed janggi positions in the reference corpus have
// soldiers behind their start rank (testdata/outcomes), and such a piece
// moves by its usual rules (TestUnusualSetupsParse). The counts are plain
// decimal numbers ("+1" is refused); a full-move number of 0 is read as 1,
// as Fairy-Stockfish reads it.
func ParseFEN(fen string, rs *RuleSet) (Position, error) {
	var p Position
	if rs == nil {
		return p, fmt.Errorf("rules: ParseFEN: nil rule set")
	}
	p.rules, p.geo = rs, rs.geometry()
	p.kings = [2]Square{NoSquare, NoSquare}
	bad := func(where, format string, args ...any) (Position, error) {
		return Position{}, &FENError{FEN: fen, Where: where, Msg: fmt.Sprintf(format, args...)}
	}
	fields := strings.Fields(fen)
	if len(fields) == 0 {
		return bad("board", "empty")
	}
	if len(fields) > 6 {
		return bad("fields", "%d fields, at most 6 (board, side, -, -, half-move clock, full-move number)", len(fields))
	}
	rows := strings.Split(fields[0], "/")
	if len(rows) != Ranks {
		return bad("board", "%d ranks, want %d separated by '/'", len(rows), Ranks)
	}
	for i, row := range rows {
		r := Ranks - 1 - i
		where := fmt.Sprintf("rank %d (%q)", r+1, row)
		f := 0
		for j := 0; j < len(row); j++ {
			ch := row[j]
			if ch >= '0' && ch <= '9' {
				n := 0
				for ; j < len(row) && row[j] >= '0' && row[j] <= '9'; j++ {
					n = n*10 + int(row[j]-'0')
					if n > Files {
						break
					}
				}
				j--
				if n == 0 {
					return bad(where, "empty-square count 0")
				}
				f += n
				if f > Files {
					return bad(where, "more than %d files", Files)
				}
				continue
			}
			pc, ok := pieceFromLetter(ch)
			if !ok {
				return bad(where, "unknown piece letter %q", ch)
			}
			if f >= Files {
				return bad(where, "more than %d files", Files)
			}
			s := SquareAt(f, r)
			if pc.Type() == King && p.kings[pc.Color()] != NoSquare {
				return bad(where, "second %s general on %s", pc.Color(), s)
			}
			if pc.Type() == King && !p.geo.palace[pc.Color()].Has(s) {
				return bad(where, "%s general on %s, outside its palace", pc.Color(), s)
			}
			p.put(pc, s)
			f++
		}
		if f != Files {
			return bad(where, "%d files, want %d", f, Files)
		}
	}
	for c := White; c <= Black; c++ {
		if p.kings[c] == NoSquare {
			return bad("board", "no %s general", c)
		}
	}
	p.side, p.fullmove = White, 1
	if len(fields) > 1 {
		switch fields[1] {
		case "w":
			p.side = White
		case "b":
			p.side = Black
		default:
			return bad("field 2 (side to move)", "%q, want w or b", fields[1])
		}
	}
	for i := 2; i < len(fields) && i < 4; i++ {
		if fields[i] != "-" {
			return bad(fmt.Sprintf("field %d", i+1), "%q, want - (no castling or en passant in these games)", fields[i])
		}
	}
	if len(fields) > 4 {
		n, err := fenCount(fields[4])
		if err != nil || n > 1<<20 {
			return bad("field 5 (half-move clock)", "%q is not a count of plies", fields[4])
		}
		p.halfmove = n
	}
	if len(fields) > 5 {
		n, err := fenCount(fields[5])
		if err != nil || n > 1<<20 {
			return bad("field 6 (full-move number)", "%q is not a move number", fields[5])
		}
		p.fullmove = max(n, 1)
	}
	if p.side == Black {
		p.key ^= zobristSide
	}
	// The side to move must not be able to take a general. Generals facing
	// in xiangqi attack each other alike, so Fairy-Stockfish's set-ups with
	// them (sparse endgames) are accepted: the side to move must get out.
	other := p.side.Other()
	if p.squareAttackedForKing(p.kings[other], p.side, false) {
		return bad("board", "the side not to move (%s) is in check", other)
	}
	return p, nil
}

// fenCount reads a FEN's count field: decimal digits only ("+1" and
// "-0" are not counts).
func fenCount(text string) (int, error) {
	if text == "" || strings.Trim(text, "0123456789") != "" {
		return 0, strconv.ErrSyntax
	}
	return strconv.Atoi(text)
}

var pieceTypeNames = [pieceTypeCount]string{"", "general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier"}

// String is the piece type's English name.
func (t PieceType) String() string { return pieceTypeNames[t] }

// FEN writes the position as Fairy-Stockfish does.
func (p *Position) FEN() string {
	var b strings.Builder
	for r := Ranks - 1; r >= 0; r-- {
		empty := 0
		for f := 0; f < Files; f++ {
			pc := p.board[SquareAt(f, r)]
			if pc == NoPiece {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteByte(pc.Letter())
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if r > 0 {
			b.WriteByte('/')
		}
	}
	if p.side == White {
		b.WriteString(" w - - ")
	} else {
		b.WriteString(" b - - ")
	}
	b.WriteString(strconv.Itoa(p.halfmove))
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(p.fullmove))
	return b.String()
}
