package rules

import (
	"sort"
)

// MaxPerftDepth is the deepest perft a command accepts: far beyond any
// count that can finish (xiangqi's start has about 10^14 leaves at depth
// 9), and a bound on the move buffers a count allocates (depth ×
// maxMoves), so that a mistyped depth is an error, not an out-of-memory.
const MaxPerftDepth = 20

// Perft counts the leaves of the legal-move tree depth plies deep, counting
// the last ply in bulk as Fairy-Stockfish does. History rules apply: a
// double pass or a pass under bikjang is a node without moves.
func (g *Game) Perft(depth int) uint64 {
	n, _ := g.PerftStop(depth, nil)
	return n
}

// PerftStop is Perft that gives up once stop reports true, for a count a
// user may cancel (an engine's go perft): it returns the count and true,
// or 0 and false when stopped. stop is asked at every node more than one
// ply above the leaves, so it is rare beside the bulk-counted last ply and
// costs Perft nothing measurable; nil never stops.
func (g *Game) PerftStop(depth int, stop func() bool) (uint64, bool) {
	if depth <= 0 {
		return 1, true
	}
	bufs := make([]Move, depth*maxMoves)
	return g.perft(depth, bufs, stop)
}

func (g *Game) perft(depth int, buf []Move, stop func() bool) (uint64, bool) {
	moves := g.LegalMoves(buf[:0:maxMoves])
	if depth == 1 {
		return uint64(len(moves)), true
	}
	if stop != nil && stop() {
		return 0, false
	}
	var n uint64
	rest := buf[maxMoves:]
	for _, m := range moves {
		g.Play(m)
		k, ok := g.perft(depth-1, rest, stop)
		g.Undo()
		if !ok {
			return 0, false
		}
		n += k
	}
	return n, true
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
			n, _ = g.perft(depth-1, bufs, nil)
			g.Undo()
		}
		out = append(out, MoveCount{m, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Move.String() < out[j].Move.String() })
	return out
}
