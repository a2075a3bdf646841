package mcts

import (
	"math"

	"github.com/palace-chess/palace/rules"
)

// maxPV bounds the principal variation's length.
const maxPV = 128

// fill writes the search's answer into r.
func (s *Search) fill(g *rules.Game, r *Result, full bool) {
	t := &s.t
	ri := t.root
	root := &t.nodes[ri]
	kids := t.kids(ri)
	n := len(kids)

	r.Mode = s.p.Mode
	r.Simulations, r.Evaluations, r.Full, r.Depth, r.TreeFull = s.sims, s.evals, full, s.depth, s.poolFull
	r.LeafDepths = s.leafDepths
	r.Proof, r.ProofPlies = Proof(root.proof), 0
	if root.proof != unproven {
		r.ProofPlies = int(root.plies)
	}
	r.Moves = r.Moves[:0]
	r.Visits = r.Visits[:0]
	r.Prior = r.Prior[:0]
	r.Q = r.Q[:0]
	r.Policy = r.Policy[:0]
	maxN, _ := s.completedQ(ri, false)
	for j := range kids {
		c := &kids[j]
		p := c.prior
		if s.noised {
			p = s.saved[j]
		}
		r.Moves = append(r.Moves, c.move)
		r.Visits = append(r.Visits, int(c.n))
		r.Prior = append(r.Prior, p)
		r.Q = append(r.Q, float32(s.q[j]))
		r.Policy = append(r.Policy, 0)
	}

	if root.proof != unproven {
		w, d, l := root.proof.wdl()
		r.Value, r.WDL = float32(root.proof.value()), [3]float32{float32(w), float32(d), float32(l)}
	} else {
		rn := float64(max(root.n, 1))
		v, d := root.vsum/rn, root.dsum/rn
		r.Value = float32(v)
		r.WDL = meanWDL(v, d)
	}

	// The policy target. A won or drawn root's target is the moves that
	// keep its proof (the shortest wins), weighted by visits.
	decided := int32(-1)
	if root.proof != unproven {
		decided = s.decidedChild(ri)
	}
	switch {
	case root.proof == provenWin || root.proof == provenDraw:
		want, plies := t.nodes[decided].proof, t.nodes[decided].plies
		var sum float64
		for j := range kids {
			if c := &kids[j]; c.proof == want && (want != provenLoss || c.plies == plies) && t.allowed(ri, j) {
				r.Policy[j] = float32(max(c.n, 1))
				sum += float64(r.Policy[j])
			}
		}
		for j := range kids {
			r.Policy[j] = float32(float64(r.Policy[j]) / sum)
		}
	case s.p.Mode == Gumbel:
		// π' = softmax(logit + σ(q̂)), every legal move included.
		top := math.Inf(-1)
		for j := range kids {
			s.noise[j] = logit(r.Prior[j]) + s.sigma(s.q[j], maxN)
			top = max(top, s.noise[j])
		}
		var z float64
		for j := range kids {
			s.noise[j] = math.Exp(s.noise[j] - top)
			z += s.noise[j]
		}
		for j := range kids {
			r.Policy[j] = float32(s.noise[j] / z)
		}
	default:
		var sum float64
		for j := range kids {
			sum += float64(kids[j].n)
		}
		for j := range kids {
			if sum > 0 {
				r.Policy[j] = float32(float64(kids[j].n) / sum)
			} else {
				r.Policy[j] = r.Prior[j]
			}
		}
	}

	if t.mask != nil {
		s.maskPolicy(r)
	}

	// The move: by the proof when there is one.
	choice := s.pvChild(ri)
	switch {
	case n == 0:
		r.Best = rules.NoMove
	case decided >= 0:
		r.Best = t.nodes[decided].move
	case s.p.Mode == Gumbel && s.halved:
		choice = root.first + int32(s.gumbelFinal(maxN, n))
		r.Best = t.nodes[choice].move
	case s.p.Mode == Gumbel:
		r.Best = r.Select(0, 0) // no search this time (forced, or a decided root)
	default:
		u := s.rng.Float64()
		r.Best = r.Select(s.p.TemperatureAt(g.Ply()), u)
	}
	if choice < 0 && n > 0 { // nothing visited: the PV is the move alone
		choice = t.child(ri, r.Best)
	}

	r.PV = r.PV[:0]
	for i := choice; i >= 0 && len(r.PV) < maxPV; i = s.pvChild(i) {
		r.PV = append(r.PV, t.nodes[i].move)
	}

	// Restricted to some root moves, the root is worth what its move is:
	// its mean over all its visits may come from moves not allowed now.
	if c := t.child(ri, r.Best); t.mask != nil && root.proof == unproven && c >= 0 && t.nodes[c].n > 0 {
		nd := &t.nodes[c]
		cn := float64(nd.n)
		v, d := -nd.vsum/cn, nd.dsum/cn
		r.Value = float32(v)
		r.WDL = meanWDL(v, d)
	}
}

// meanWDL is the win/draw/loss of a mean value v (win − loss) and mean
// draw share d, clamped at 0 against rounding.
func meanWDL(v, d float64) [3]float32 {
	return [3]float32{float32(max((1-d+v)/2, 0)), float32(d), float32(max((1-d-v)/2, 0))}
}

// maskPolicy keeps r.Policy to the root moves the search was restricted
// to (RunOptions.RootMoves), renormalised; equal over them when the policy
// gave them nothing.
func (s *Search) maskPolicy(r *Result) {
	t := &s.t
	var sum float64
	n := 0
	for j := range r.Policy {
		if !t.allowed(t.root, j) {
			r.Policy[j] = 0
			continue
		}
		sum += float64(r.Policy[j])
		n++
	}
	for j := range r.Policy {
		switch {
		case !t.allowed(t.root, j):
		case sum > 0:
			r.Policy[j] = float32(float64(r.Policy[j]) / sum)
		default:
			r.Policy[j] = 1 / float32(n)
		}
	}
}

// gumbelFinal is Gumbel's action: among the root actions with the most
// visits this search, the largest g(a) + logit(a) + σ(q̂(a)). s.q holds the
// root's completed Q.
func (s *Search) gumbelFinal(maxN float64, n int) int {
	most := int32(0)
	for j := range n {
		most = max(most, s.runVisits[j])
	}
	best, bestJ := math.Inf(-1), s.t.firstAllowed(s.t.root)
	for j := range n {
		if !s.t.allowed(s.t.root, j) {
			continue
		}
		if sc := s.score[j] + s.sigma(s.q[j], maxN); s.runVisits[j] == most && sc > best {
			best, bestJ = sc, j
		}
	}
	return bestJ
}

// pvChild is the principal variation's move from i: the proof's move when
// i is proven, else the most visited child (ties to the larger prior, then
// the earlier); -1 when i has no visited child.
func (s *Search) pvChild(i int32) int32 {
	t := &s.t
	nd := &t.nodes[i]
	if nd.proof != unproven {
		return s.decidedChild(i)
	}
	best := int32(-1)
	for j, c := range t.kids(i) {
		if c.n == 0 && c.proof == unproven || !t.allowed(i, j) {
			continue
		}
		if best < 0 || better(&c, &t.nodes[nd.first+best]) {
			best = int32(j)
		}
	}
	if best < 0 {
		return -1
	}
	return nd.first + best
}

// better orders children by visits, then prior.
func better(a, b *node) bool { return a.n > b.n || a.n == b.n && a.prior > b.prior }

// decidedChild is a proven node's move: the shortest win, a draw, or the
// longest loss, the most visited among equals; -1 for a node without
// children (a finished game).
func (s *Search) decidedChild(i int32) int32 {
	t := &s.t
	nd := &t.nodes[i]
	best := int32(-1)
	for j, c := range t.kids(i) {
		if !t.allowed(i, j) {
			continue
		}
		switch nd.proof {
		case provenWin:
			if c.proof != provenLoss {
				continue
			}
		case provenDraw:
			if c.proof != provenDraw {
				continue
			}
		}
		if best < 0 {
			best = int32(j)
			continue
		}
		b := &t.nodes[nd.first+best]
		switch {
		case nd.proof == provenWin && c.plies != b.plies:
			if c.plies < b.plies {
				best = int32(j)
			}
		case nd.proof == provenLoss && c.plies != b.plies:
			if c.plies > b.plies {
				best = int32(j)
			}
		case better(&c, b):
			best = int32(j)
		}
	}
	if best < 0 {
		return -1
	}
	return nd.first + best
}
