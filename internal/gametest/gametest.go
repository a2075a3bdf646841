// Package gametest is what tests of several packages do with games and
// positions: random playouts that reach the interesting endings and
// moves, and mirrored FENs. Only tests import it.
package gametest

import (
	"math/rand/v2"
	"strings"

	"github.com/palace-chess/palace/rules"
)

// Playout plays up to plies random moves on g, until the game is over,
// leaning towards captures (3 in 10 moves) and, in janggi, passes (1 in
// 10), so that the games reach counted and material endings.
func Playout(rng *rand.Rand, g *rules.Game, plies int) { playout(rng, g, plies, false) }

// PlayoutChecks is Playout leaning towards checks too: of 12 moves, 3
// lean to captures, 2 to checks and 1 to a pass.
func PlayoutChecks(rng *rand.Rand, g *rules.Game, plies int) { playout(rng, g, plies, true) }

func playout(rng *rand.Rand, g *rules.Game, plies int, checks bool) {
	rolls, passRoll := 10, 3
	if checks {
		rolls, passRoll = 12, 5
	}
	for i := 0; i < plies && !g.Result().Over(); i++ {
		moves := g.LegalMoves(nil)
		if len(moves) == 0 {
			return
		}
		m := moves[rng.IntN(len(moves))]
		pos := g.Position()
		switch roll := rng.IntN(rolls); {
		case roll < 3:
			for _, j := range rng.Perm(len(moves)) {
				if !moves[j].IsPass() && pos.Board(moves[j].To()) != rules.NoPiece {
					m = moves[j]
					break
				}
			}
		case checks && roll < 5:
			for _, j := range rng.Perm(len(moves)) {
				g.Play(moves[j])
				check := g.InCheck()
				g.Undo()
				if check {
					m = moves[j]
					break
				}
			}
		case roll == passRoll && moves[len(moves)-1].IsPass():
			m = moves[len(moves)-1]
		}
		g.Play(m)
	}
}

// MirrorFEN reverses every rank of a FEN's board.
func MirrorFEN(fen string) string {
	board, rest, _ := strings.Cut(fen, " ")
	rows := strings.Split(board, "/")
	for i, row := range rows {
		r := []rune(row)
		for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
			r[a], r[b] = r[b], r[a]
		}
		rows[i] = string(r)
	}
	return strings.Join(rows, "/") + " " + rest
}
