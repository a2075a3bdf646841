package mcts

import (
	"errors"
	"slices"
	"testing"

	"github.com/palace-chess/palace/rules"
)

// RootMoves restricts a search to the moves given: no other root move is
// visited, and the move, the PV and the policy are among them; an illegal
// entry is ignored; a later unrestricted search of the same tree considers
// every move again.
func TestRootMovesRestrictSearch(t *testing.T) {
	for _, mode := range []Mode{PUCT, Gumbel} {
		rs := rules.MustPreset("xiangqi")
		g := newGame(t, rs, rs.StartFEN())
		legal := g.LegalMoves(nil)
		only := []rules.Move{legal[3], legal[17], rules.NewMove(rules.SquareAt(4, 4), rules.SquareAt(4, 5))}
		p := DefaultParams()
		p.Mode, p.Simulations, p.CheapSimulations, p.LeavesPerEval = mode, 200, 0, 4
		s := newSearch(t, p, random(5))
		var r Result
		if err := s.RunWith(g, RunOptions{RootMoves: only}, &r); err != nil {
			t.Fatal(err)
		}
		checkResult(t, g, &r)
		if !slices.Contains(only[:2], r.Best) || !slices.Contains(only[:2], r.PV[0]) {
			t.Errorf("%v: best %v, PV %v, outside %v", mode, r.Best, r.PV, only[:2])
		}
		visited := 0
		for j, m := range r.Moves {
			allowed := slices.Contains(only, m)
			if !allowed && (r.Visits[j] != 0 || r.Policy[j] != 0) {
				t.Errorf("%v: %v not allowed, has %d visits and policy %v", mode, m, r.Visits[j], r.Policy[j])
			}
			if allowed {
				visited += r.Visits[j]
			}
		}
		if visited != r.Simulations || r.Simulations != p.Simulations || r.Depth < 1 {
			t.Errorf("%v: %d visits among the allowed moves, %d simulations, depth %d", mode, visited, r.Simulations, r.Depth)
		}
		// The same tree, unrestricted: the other moves are searched too.
		if err := s.RunWith(g, RunOptions{}, &r); err != nil {
			t.Fatal(err)
		}
		checkResult(t, g, &r)
		others := 0
		for j, m := range r.Moves {
			if !slices.Contains(only, m) {
				others += r.Visits[j]
			}
		}
		if others == 0 {
			t.Errorf("%v: after the restricted search, an unrestricted one visits only the old moves", mode)
		}
		if err := s.RunWith(g, RunOptions{RootMoves: only[2:]}, &r); !errors.Is(err, ErrNoRootMoves) {
			t.Errorf("%v: no legal root move: %v, want ErrNoRootMoves", mode, err)
		}
	}
}

// A proof through a move the search may not play neither decides the
// restricted search nor survives it wrongly: without the mating move the
// root is not a mate in 1, and the next unrestricted search of the same
// tree plays the mate at once.
func TestRootMovesProofs(t *testing.T) {
	for _, mode := range []Mode{PUCT, Gumbel} {
		mp := mateProblems[2] // janggi palace diagonal, a mate in 1
		g := newGame(t, rules.MustPreset(mp.rules), mp.fen)
		mates := matesIn1(g)
		var rest []rules.Move
		for _, m := range g.LegalMoves(nil) {
			if !slices.Contains(mates, m) {
				rest = append(rest, m)
			}
		}
		p := DefaultParams()
		p.Mode, p.Simulations, p.CheapSimulations = mode, 300, 0
		p.GumbelK = rules.MaxMoves
		s := newSearch(t, p, uniform())
		var r Result
		if err := s.RunWith(g, RunOptions{RootMoves: rest}, &r); err != nil {
			t.Fatal(err)
		}
		checkResult(t, g, &r)
		if slices.Contains(mates, r.Best) || r.Proof == ProvenWin && r.ProofPlies == 1 {
			t.Errorf("%v: restricted to non-mates, best %v, proof %v in %d", mode, r.Best, r.Proof, r.ProofPlies)
		}
		if err := s.RunWith(g, RunOptions{}, &r); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(mates, r.Best) || r.Proof != ProvenWin || r.ProofPlies != 1 {
			t.Errorf("%v: unrestricted, best %v, proof %v in %d; mates %v", mode, r.Best, r.Proof, r.ProofPlies, mates)
		}
		// Restricted to the mate only: proven at once.
		if err := s.RunWith(g, RunOptions{RootMoves: mates[:1]}, &r); err != nil {
			t.Fatal(err)
		}
		if r.Best != mates[0] || r.Proof != ProvenWin || r.ProofPlies != 1 {
			t.Errorf("%v: restricted to the mate, best %v, proof %v in %d", mode, r.Best, r.Proof, r.ProofPlies)
		}
	}
}

// A restricted search in steady state allocates nothing either.
func TestRootMovesNoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, mode := range []Mode{PUCT, Gumbel} {
		rs := rules.MustPreset("xiangqi")
		g := newGame(t, rs, xiangqiMiddlegame)
		legal := g.LegalMoves(nil)
		o := RunOptions{RootMoves: legal[:5], MatePlies: 3}
		p := DefaultParams()
		p.Mode, p.Simulations, p.CheapSimulations, p.LeavesPerEval = mode, 300, 0, 4
		s := newSearch(t, p, uniform())
		var r Result
		run := func() {
			s.Reset()
			if err := s.RunWith(g, o, &r); err != nil {
				t.Fatal(err)
			}
		}
		run()
		if a := testing.AllocsPerRun(5, run); a != 0 {
			t.Errorf("%v: %v allocations per restricted search", mode, a)
		}
	}
}

// MatePlies ends the search once the root is proven won that soon: a mate
// in 2 is played as soon as it is proven, well within a large budget, and
// without it the search goes on through the budget.
func TestMatePliesStopsAtProof(t *testing.T) {
	mp := mateProblems[4] // xiangqi horses, a mate in 2
	g := newGame(t, rules.MustPreset(mp.rules), mp.fen)
	p := DefaultParams()
	p.Mode, p.Simulations, p.CheapSimulations = PUCT, 50000, 0
	var r Result
	if err := newSearch(t, p, uniform()).RunWith(g, RunOptions{MatePlies: 3}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Proof != ProvenWin || r.ProofPlies > 3 || r.Simulations >= p.Simulations || !slices.Contains(matesIn2(g), r.Best) {
		t.Errorf("mate in 2: proof %v in %d after %d simulations, best %v", r.Proof, r.ProofPlies, r.Simulations, r.Best)
	}
	// Asked for a mate in 1 there is none: the budget goes on.
	if err := newSearch(t, p, uniform()).RunWith(g, RunOptions{MatePlies: 1, Simulations: 3000}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Simulations != 3000 && r.Proof != ProvenWin {
		t.Errorf("mate in 1 asked of a mate in 2: %d simulations, proof %v", r.Simulations, r.Proof)
	}
}

// Lines lists every root move, most visited first, each with its own PV;
// Probe finds the root and a position below it, and not one elsewhere.
func TestLinesAndProbe(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	g := newGame(t, rs, rs.StartFEN())
	p := DefaultParams()
	p.Mode, p.Simulations, p.CheapSimulations = PUCT, 400, 0
	s := newSearch(t, p, random(9))
	var r Result
	if err := s.RunWith(g, RunOptions{}, &r); err != nil {
		t.Fatal(err)
	}
	lines := s.Lines(nil)
	if len(lines) != len(r.Moves) {
		t.Fatalf("%d lines for %d moves", len(lines), len(r.Moves))
	}
	for k, l := range lines {
		if k > 0 && l.Visits > lines[k-1].Visits {
			t.Errorf("line %d has %d visits, more than line %d's %d", k, l.Visits, k-1, lines[k-1].Visits)
		}
		if l.Visits > 0 && (len(l.PV) == 0 || l.PV[0] != l.Move) {
			t.Errorf("line %d: PV %v for move %v", k, l.PV, l.Move)
		}
		if !(l.Value >= -1 && l.Value <= 1) {
			t.Errorf("line %d: value %v", k, l.Value)
		}
		j := slices.Index(r.Moves, l.Move)
		if r.Visits[j] != l.Visits {
			t.Errorf("line %d: %d visits, the result says %d", k, l.Visits, r.Visits[j])
		}
	}
	again := s.Lines(lines)
	if len(again) != len(lines) || again[0].Move != lines[0].Move {
		t.Errorf("Lines reusing its slice: %v", again[0])
	}

	root, ok := s.Probe(g)
	if !ok || root.Visits < r.Simulations || len(root.PV) == 0 || root.PV[0] != r.PV[0] {
		t.Errorf("probing the root: %+v, %v", root, ok)
	}
	g.Play(lines[0].Move)
	below, ok := s.Probe(g)
	if !ok || below.Visits != lines[0].Visits || below.Value != -lines[0].Value {
		t.Errorf("probing below the root: %+v, %v; line %+v", below, ok, lines[0])
	}
	g.Undo()
	other := newGame(t, rs, xiangqiMiddlegame)
	if _, ok := s.Probe(other); ok {
		t.Errorf("a position outside the tree was found")
	}
}
