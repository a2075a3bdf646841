package rules

import (
	"sort"
)

// Perft counts the leaves of the legal-move tree depth plies deep, counting
// the last ply in bulk as Fairy-Stockfish does. History rules apply: a
// double pass or a pass under bikjang is a node without moves.
func (g *Game) Perft(depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	bufs := make([]Move, depth*maxMoves)
	return g.perft(depth, bufs)
}

func (g *Game) perft(depth int, buf []Move) uint64 {
	moves := g.LegalMoves(buf[:0:maxMoves])
	if depth == 1 {
		return uint64(len(moves))
	}
	var n uint64
	rest := buf[maxMoves:]
	for _, m := range moves {
		g.Play(m)
		n += g.perft(depth-1, rest)
		g.Undo()
	}
	return n
}

// MoveCount is one root move and the leaves below it.
type MoveCount struct {
	Move  Move
	Nodes uint64
}

// PerftDivide is Perft split by root move, sorted by move text.
func (g *Game) PerftDivide(depth int) []MoveCount {
	if depth <= 0 {
		return nil
	}
	moves := g.LegalMoves(make([]Move, 0, maxMoves))
	out := make([]MoveCount, 0, len(moves))
	bufs := make([]Move, depth*maxMoves)
	for _, m := range moves {
		var n uint64 = 1
		if depth > 1 {
			g.Play(m)
			n = g.perft(depth-1, bufs)
			g.Undo()
		}
		out = append(out, MoveCount{m, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Move.String() < out[j].Move.String() })
	return out
}
