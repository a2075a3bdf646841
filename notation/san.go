package notation

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/palace-chess/palace/rules"
)

// Fairy-Stockfish's SAN for xiangqi and janggi (its default notation, as
// ffish's sanMove, pychess-variants and liground write it):
//
//	[piece][disambiguation][x]<square>[+|#]
//
// The piece is always written, soldiers included (K A E H R C P: the
// elephant and horse by their SAN letters, not the FEN letters b and n).
// Squares have files a–i and ranks 1–10. Disambiguation, needed when
// another piece of the same kind can legally reach the square, is the
// from-file if that tells them apart, else the from-rank, else the whole
// from-square. A janggi pass is the king "moving" to its own square (Ke2).
// "+" marks check and "#" a check that leaves no legal move.

// ErrSAN is wrapped by every error ParseSAN returns.
var ErrSAN = errors.New("notation: bad SAN move")

// sanLetters are the SAN piece letters, indexed by rules.PieceType.
var sanLetters = [...]byte{rules.King: 'K', rules.Advisor: 'A', rules.Elephant: 'E', rules.Horse: 'H',
	rules.Chariot: 'R', rules.Cannon: 'C', rules.Soldier: 'P'}

// sanPieceType reads a SAN piece letter; FEN's B and N are taken for the
// elephant and horse too, as some writers use them.
func sanPieceType(c byte) rules.PieceType {
	switch c {
	case 'K':
		return rules.King
	case 'A':
		return rules.Advisor
	case 'E', 'B':
		return rules.Elephant
	case 'H', 'N':
		return rules.Horse
	case 'R':
		return rules.Chariot
	case 'C':
		return rules.Cannon
	case 'P':
		return rules.Soldier
	}
	return rules.NoPieceType
}

// AppendSAN appends m, a legal move of g's position, in Fairy-Stockfish's
// SAN, check marks included. Disambiguation and mate follow the position's
// legal moves, as Fairy-Stockfish's SAN does, so a move that only the
// game's history forbids (after a double pass) is still written. A move
// that is not legal in the position is written in UCI form (e2e3), never
// panicking. g is not changed.
func AppendSAN(dst []byte, g *rules.Game, m rules.Move) []byte {
	pos := *g.Position() // a copy: playing m below must not touch g
	from, to := m.From(), m.To()
	if m == rules.NoMove || from >= rules.Squares || to >= rules.Squares {
		return append(dst, "0000"...)
	}
	var buf [rules.MaxMoves]rules.Move
	legal := pos.LegalMoves(buf[:0])
	if !slices.Contains(legal, m) {
		return m.AppendText(dst, rules.Ranks1) // not a move of this position
	}
	pc := pos.Board(from)
	dst = append(dst, sanLetters[pc.Type()])
	dst = sanAppendDisambiguation(dst, &pos, legal, m, pc)
	if !m.IsPass() && pos.Board(to) != rules.NoPiece {
		dst = append(dst, 'x')
	}
	dst = sanAppendSquare(dst, to)
	// Check marks follow the position alone, as Fairy-Stockfish's do: a
	// check is "#" when the side checked has no legal move.
	u := pos.MakeMove(m)
	if pos.InCheck() {
		if pos.HasLegalMove() {
			dst = append(dst, '+')
		} else {
			dst = append(dst, '#')
		}
	}
	pos.UnmakeMove(m, u)
	return dst
}

// sanAppendDisambiguation writes what tells m apart from the legal moves
// of other pieces like pc to the same square: nothing, the from-file, the
// from-rank, or the from-square, in Fairy-Stockfish's order of preference.
func sanAppendDisambiguation(dst []byte, pos *rules.Position, legal []rules.Move, m rules.Move, pc rules.Piece) []byte {
	from, to := m.From(), m.To()
	others, sameFile, sameRank := false, false, false
	for _, o := range legal {
		if o.To() != to || o.From() == from || pos.Board(o.From()) != pc {
			continue
		}
		others = true
		sameFile = sameFile || o.From().File() == from.File()
		sameRank = sameRank || o.From().Rank() == from.Rank()
	}
	switch {
	case !others:
		return dst
	case !sameFile:
		return append(dst, byte('a'+from.File()))
	case !sameRank:
		return sanAppendRank(dst, from.Rank())
	}
	return sanAppendSquare(dst, from)
}

func sanAppendSquare(dst []byte, s rules.Square) []byte {
	return sanAppendRank(append(dst, byte('a'+s.File())), s.Rank())
}

// sanAppendRank writes rank r (0-based) as 1–10.
func sanAppendRank(dst []byte, r int) []byte {
	if r == 9 {
		return append(dst, '1', '0')
	}
	return append(dst, byte('1'+r))
}

// sanPassWords are the other spellings of a janggi pass in game records
// (Fairy-Stockfish's own SAN for it is the king's square, Ke2): UCI's null
// move, Fairy-Stockfish's "@@@@" and the plain word.
var sanPassWords = []string{"pass", "@@@@", "0000", "--"}

// ParseSAN resolves a move in Fairy-Stockfish's SAN (as pychess-variants and
// liground write it) to exactly one legal move of g's position, history
// included. Check and mate marks may be present or not (they are not
// checked), as may annotation marks (!, ?); a capture mark on a move that
// captures nothing is an error, a missing one is not. Long forms with the
// whole from-square (Ra1a2, Ra1-a2) are accepted, and a janggi pass as Ke2
// (the king's square), pass, @@@@, 0000 or --.
func ParseSAN(g *rules.Game, text string) (rules.Move, error) {
	bad := func(format string, args ...any) (rules.Move, error) {
		return rules.NoMove, fmt.Errorf("%w %q: %s", ErrSAN, text, fmt.Sprintf(format, args...))
	}
	s := strings.TrimSpace(text)
	s = strings.TrimRight(s, "+#!?")
	if s == "" {
		return bad("empty")
	}
	var buf [rules.MaxMoves]rules.Move
	legal := g.LegalMoves(buf[:0])
	pos := g.Position()
	for _, w := range sanPassWords {
		if strings.EqualFold(s, w) {
			for _, m := range legal {
				if m.IsPass() {
					return m, nil
				}
			}
			return bad("no pass is legal here")
		}
	}
	want := rules.Soldier // chess-style SAN without a letter: a soldier
	if t := sanPieceType(s[0]); t != rules.NoPieceType {
		want = t
		s = s[1:]
	}
	// The destination is the last square; what precedes it is an optional
	// disambiguation, then an optional x or -.
	to, rest, ok := sanCutLastSquare(s)
	if !ok {
		return bad("no destination square (file a–i, rank 1–10) at the end")
	}
	capture := false
	if n := len(rest); n > 0 && (rest[n-1] == 'x' || rest[n-1] == ':' || rest[n-1] == '-') {
		capture = rest[n-1] != '-'
		rest = rest[:n-1]
	}
	fromFile, fromRank := -1, -1
	if rest != "" && rest[0] >= 'a' && rest[0] <= 'i' {
		fromFile = int(rest[0] - 'a')
		rest = rest[1:]
	}
	if rest != "" {
		r, ok := sanParseRank(rest)
		if !ok {
			return bad("%q is no file or rank", rest)
		}
		fromRank = r
	}
	found := rules.NoMove
	n := 0
	for _, m := range legal {
		f := m.From()
		if m.To() != to || pos.Board(f).Type() != want ||
			(fromFile >= 0 && f.File() != fromFile) || (fromRank >= 0 && f.Rank() != fromRank) {
			continue
		}
		found = m
		n++
	}
	switch {
	case n == 0:
		return bad("no legal %s move to %s", want, to)
	case n > 1:
		return bad("ambiguous: %d %s moves to %s", n, want, to)
	case capture && (found.IsPass() || pos.Board(to) == rules.NoPiece):
		return bad("marked a capture, but %s is empty", to)
	}
	return found, nil
}

// sanCutLastSquare splits s into what precedes its final square and that
// square.
func sanCutLastSquare(s string) (rules.Square, string, bool) {
	for _, width := range []int{3, 2} { // a10 before a1: "Ra10" ends on rank 10
		if len(s) < width {
			continue
		}
		tail := s[len(s)-width:]
		if tail[0] < 'a' || tail[0] > 'i' {
			continue
		}
		if r, ok := sanParseRank(tail[1:]); ok {
			return rules.SquareAt(int(tail[0]-'a'), r), s[:len(s)-width], true
		}
	}
	return rules.NoSquare, "", false
}

// sanParseRank reads a whole rank, 1–10, as a 0-based rank.
func sanParseRank(s string) (int, bool) {
	switch {
	case s == "10":
		return 9, true
	case len(s) == 1 && s[0] >= '1' && s[0] <= '9':
		return int(s[0] - '1'), true
	}
	return 0, false
}
