package mcts

import (
	"slices"

	"github.com/palace-chess/palace/rules"
)

// Line is one root move as the tree stands after a search: an engine's
// MultiPV line.
type Line struct {
	Move   rules.Move
	Visits int
	// Value and WDL are the move's worth to the root's side to move: the
	// mean over its visits, exact when proven; an unvisited move gets the
	// root's mixed value estimate (Gumbel's v_mix) and a WDL without draws.
	Value float32
	WDL   [3]float32
	// Proof is what the move is proven worth to the root's side to move
	// (ProvenWin: it wins by force), and ProofPlies how many plies the
	// game lasts along the proof, the move included.
	Proof      Proof
	ProofPlies int
	// PV starts with Move and follows the most visited replies (the
	// proof's moves where proven).
	PV []rules.Move
}

// Lines appends the root's moves to dst[:0], most visited first (ties to
// the larger prior, then generation order), each with its own line,
// reusing the PV slices dst already holds. It reads the tree the last
// RunWith left, so call it after RunWith and before the next one; it
// allocates, and is meant for reports, not for every simulation.
func (s *Search) Lines(dst []Line) []Line {
	t := &s.t
	dst = dst[:0]
	if t.empty() || !t.nodes[t.root].expanded() {
		return dst
	}
	ri := t.root
	first := t.nodes[ri].first
	n := int(t.nodes[ri].nkids)
	s.completedQ(ri, false)
	order := make([]int32, n)
	for j := range order {
		order[j] = first + int32(j)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		switch x, y := &t.nodes[a], &t.nodes[b]; {
		case better(x, y):
			return -1
		case better(y, x):
			return 1
		}
		return 0
	})
	for _, i := range order {
		c := &t.nodes[i]
		var l Line
		if k := len(dst); k < cap(dst) {
			l.PV = dst[:k+1][k].PV[:0]
		}
		l.Move, l.Visits = c.move, int(c.n)
		switch {
		case c.proof != unproven:
			w, d, lo := c.proof.wdl()
			l.Value, l.WDL = float32(-c.proof.value()), [3]float32{float32(lo), float32(d), float32(w)}
			l.Proof, l.ProofPlies = Proof(flip(c.proof)), int(c.plies)+1
		case c.n > 0:
			cn := float64(c.n)
			v, d := -c.vsum/cn, c.dsum/cn
			l.Value = float32(v)
			l.WDL = meanWDL(v, d)
		default:
			v := s.q[i-first]
			l.Value = float32(v)
			l.WDL = meanWDL(v, 0)
		}
		for k := i; k >= 0 && len(l.PV) < maxPV; k = s.pvChild(k) {
			l.PV = append(l.PV, t.nodes[k].move)
		}
		dst = append(dst, l)
	}
	return dst
}

// flip is a child's proof seen from its parent's side to move.
func flip(p proof) proof {
	switch p {
	case provenWin:
		return provenLoss
	case provenLoss:
		return provenWin
	}
	return p
}

// Probed is what the tree knows of one position (Search.Probe).
type Probed struct {
	// Visits are the position's completed visits.
	Visits int
	// Value and WDL are its worth to its side to move: the mean over its
	// visits, exact when proven.
	Value float32
	WDL   [3]float32
	// Proof is what is proven about the position, to its side to move,
	// and ProofPlies the plies to the end along the proof.
	Proof      Proof
	ProofPlies int
	// PV is the principal variation from the position: the proof's moves,
	// else the most visited; empty when no move has been visited.
	PV []rules.Move
}

// Probe looks g's position up in the tree: the last searched root, or a
// position reached from it by g's moves since (up to 32 plies on, the same
// game as encode's history-aware key checks it). It reports false when the
// tree does not hold the position or holds it unvisited. g is left as it
// was found. Like RunWith, it is for the Search's own goroutine.
func (s *Search) Probe(g *rules.Game) (Probed, bool) {
	t := &s.t
	if g == nil || t.empty() || g.Rules() != s.rootRules {
		return Probed{}, false
	}
	d := g.Ply() - s.rootPly
	if d < 0 || d > maxReuseDepth {
		return Probed{}, false
	}
	i := s.nodeAfter(g, d)
	if i < 0 {
		return Probed{}, false
	}
	nd := &t.nodes[i]
	if nd.n == 0 && nd.proof == unproven {
		return Probed{}, false
	}
	var p Probed
	p.Visits = int(nd.n)
	if nd.proof != unproven {
		w, dr, l := nd.proof.wdl()
		p.Value, p.WDL = float32(nd.proof.value()), [3]float32{float32(w), float32(dr), float32(l)}
		p.Proof, p.ProofPlies = Proof(nd.proof), int(nd.plies)
	} else {
		n := float64(nd.n)
		v, dr := nd.vsum/n, nd.dsum/n
		p.Value = float32(v)
		p.WDL = meanWDL(v, dr)
	}
	for k := s.pvChild(i); k >= 0 && len(p.PV) < maxPV; k = s.pvChild(k) {
		p.PV = append(p.PV, t.nodes[k].move)
	}
	return p, true
}
