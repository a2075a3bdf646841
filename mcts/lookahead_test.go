package mcts

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/palace-chess/palace/rules"
)

// endsForReplier reports whether, after m, the opponent has a move that
// ends the game in its favour; over reports that m itself ends the game.
func endsForReplier(g *rules.Game, m rules.Move) (over, lost bool) {
	mover := g.Position().SideToMove()
	g.Play(m)
	defer g.Undo()
	if g.Result().Over() {
		return true, false
	}
	for _, r := range g.LegalMoves(nil) {
		g.Play(r)
		res := g.Result()
		g.Undo()
		if res.Over() && res.Outcome != rules.Draw && (res.Outcome == rules.WhiteWins) != (mover == rules.White) {
			return false, true
		}
	}
	return false, false
}

// TestRootLookaheadProvesMovesLostAtOnce searches positions of random games
// with one simulation and a uniform network, which cannot see a reply by
// itself: with the lookahead every root move the opponent can answer with
// a win is proven lost (Q −1) and no other is; without it (and without the
// mate check, which would prove the one move visited) none is.
func TestRootLookaheadProvesMovesLostAtOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	lostSeen, positions := 0, 0
	for _, preset := range []string{"xiangqi", "janggi"} {
		for game := range 12 {
			rs := rules.MustPreset(preset)
			g := newGame(t, rs, rs.StartFEN())
			for ply := 0; ply < 200 && !g.Result().Over(); ply++ {
				moves := g.LegalMoves(nil)
				if ply >= 30 && ply%3 == 0 && len(moves) > 1 {
					positions++
					for _, on := range []bool{true, false} {
						p := DefaultParams()
						p.Simulations, p.CheapSimulations = 1, 0
						p.RootLookahead, p.MateCheck = on, on
						p.Seed = uint64(game)
						s := newSearch(t, p, uniform())
						r, err := s.Run(g)
						if err != nil {
							t.Fatal(err)
						}
						checkResult(t, g, &r)
						for j, m := range r.Moves {
							over, lost := endsForReplier(g, m)
							proven := r.Q[j] == -1
							if on && lost {
								lostSeen++
							}
							if !over && proven != (on && lost) {
								t.Errorf("%s, lookahead %v: %v has Q %v; the opponent wins at once after it: %v",
									g.Position().FEN(), on, m, r.Q[j], lost)
							}
							// The mark that lets the expansion skip its mate
							// check: on every move with no winning reply, and
							// only there.
							k := s.t.child(s.t.root, m)
							marked := s.t.nodes[k].flags&flagNoWinningMove != 0
							if marked != (on && !over && !lost) {
								t.Errorf("%s, lookahead %v: %v marked without a winning reply %v; ends the game %v, a reply wins %v",
									g.Position().FEN(), on, m, marked, over, lost)
							}
						}
					}
				}
				g.Play(moves[rng.IntN(len(moves))])
			}
		}
	}
	t.Logf("%d positions, %d root moves lost at once", positions, lostSeen)
	if lostSeen < 20 {
		t.Fatalf("only %d root moves lost at once in %d positions: the test proves little", lostSeen, positions)
	}
}

// TestRootLookaheadMates: with one simulation the lookahead proves a mate
// in 1 won and plays it, and proves the defender of a mate in 2 lost in 2
// plies, since every defence allows a mate.
func TestRootLookaheadMates(t *testing.T) {
	for _, mp := range mateProblems {
		for side, fen := range []string{mp.fen, flipFEN(mp.fen)} {
			g := newGame(t, rules.MustPreset(mp.rules), fen)
			p := DefaultParams()
			p.Simulations, p.CheapSimulations, p.Seed = 1, 0, uint64(side)
			if mp.depth == 2 {
				g.Play(matesIn2(g)[0])
			}
			r, err := newSearch(t, p, uniform()).Run(g)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, g, &r)
			switch {
			case mp.depth == 1 && (r.Proof != ProvenWin || r.ProofPlies != 1 || !slices.Contains(matesIn1(g), r.Best)):
				t.Errorf("%s (%s): best %v, proof %v in %d plies", mp.name, fen, r.Best, r.Proof, r.ProofPlies)
			case mp.depth == 2 && (r.Proof != ProvenLoss || r.ProofPlies != 2 || r.Value != -1):
				t.Errorf("%s (%s), defending: proof %v in %d plies, value %v", mp.name, fen, r.Proof, r.ProofPlies, r.Value)
			}
		}
	}
}

// A root move proven lost by the lookahead is given its children without
// a visit; when the game goes on with it (analysis reusing the tree), its
// position is a proven win and the winning reply is played.
func TestRootLookaheadReusedTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	g := newGame(t, rules.MustPreset("xiangqi"), rules.XiangqiStartFEN)
	for ply := 0; ply < 400 && !g.Result().Over(); ply++ {
		p := DefaultParams()
		p.Simulations, p.CheapSimulations = 4, 0
		s := newSearch(t, p, uniform())
		r, err := s.Run(g)
		if err != nil {
			t.Fatal(err)
		}
		for j, m := range r.Moves {
			if r.Q[j] != -1 || r.Visits[j] != 0 {
				continue
			}
			g.Play(m)
			r2, err := s.Run(g)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, g, &r2)
			g.Play(r2.Best)
			res := g.Result()
			if r2.Proof != ProvenWin || r2.ProofPlies != 1 || !res.Over() || res.Outcome == rules.Draw {
				t.Fatalf("after %v: proof %v in %d plies, best %v ends %v", m, r2.Proof, r2.ProofPlies, r2.Best, res)
			}
			return
		}
		moves := g.LegalMoves(nil)
		g.Play(moves[rng.IntN(len(moves))])
	}
	t.Fatal("no root move was proven lost without a visit")
}

// TestMateCheck: a position with a mate in one is proven won when it is
// expanded, without an evaluation, and the mates in two are proven with
// far fewer simulations than without the check (every defence's position
// is proven at its first visit).
func TestMateCheck(t *testing.T) {
	var sims [2]int // without, with
	for _, mp := range mateProblems {
		for side, fen := range []string{mp.fen, flipFEN(mp.fen)} {
			for k, on := range []bool{false, true} {
				g := newGame(t, rules.MustPreset(mp.rules), fen)
				p := DefaultParams()
				p.Mode, p.Simulations, p.CheapSimulations = PUCT, 50000, 0
				p.GumbelK, p.Seed = rules.MaxMoves, uint64(side)
				p.RootLookahead, p.MateCheck = false, on
				r, err := newSearch(t, p, uniform()).Run(g)
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, g, &r)
				want := matesIn1(g)
				if mp.depth == 2 {
					want = matesIn2(g)
				}
				if r.Proof != ProvenWin || r.ProofPlies != 2*mp.depth-1 || !slices.Contains(want, r.Best) {
					t.Errorf("%s (%s), mate check %v: best %v, proof %v in %d plies", mp.name, fen, on, r.Best, r.Proof, r.ProofPlies)
				}
				if on && mp.depth == 1 && (r.Evaluations != 0 || len(r.PV) != 1) {
					t.Errorf("%s (%s): a mate in one took %d evaluations, PV %v", mp.name, fen, r.Evaluations, r.PV)
				}
				if mp.depth == 2 {
					sims[k] += r.Simulations
				}
			}
		}
	}
	t.Logf("mates in two: %d simulations without the mate check, %d with", sims[0], sims[1])
	if 2*sims[1] > sims[0] {
		t.Errorf("the mate check saved too little: %d simulations with it, %d without", sims[1], sims[0])
	}
}

// The root children's legal moves the lookahead keeps for their expansion
// are the moves LegalMoves gives there, search after search of a game, and
// none are kept after Restart.
func TestLookaheadKeepsRootChildrenMoves(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	g := newGame(t, rs, rs.StartFEN())
	s := newSearch(t, DefaultParams(), random(2))
	kept := 0
	for range 10 {
		r, err := s.Run(g)
		if err != nil {
			t.Fatal(err)
		}
		root := s.t.root
		for j, c := range s.t.kids(root) {
			got := s.lookedAhead([]int32{root, s.t.nodes[root].first + int32(j)})
			if got == nil {
				continue
			}
			kept++
			g.Play(c.move)
			want := g.LegalMoves(nil)
			g.Undo()
			if !slices.Equal(got, want) {
				t.Fatalf("%s, after %v: kept %v, LegalMoves %v", g.Position().FEN(), c.move, got, want)
			}
		}
		// The next search's tree reuses this one's subtree (promoted, the
		// children at other indices): what it keeps must be its own, as
		// the next round checks.
		g.Play(r.Best)
	}
	s.Restart(1)
	if s.lookedAhead([]int32{s.t.root, 1}) != nil {
		t.Fatal("moves kept after Restart")
	}
	if kept < 100 {
		t.Fatalf("only %d root children's moves kept", kept)
	}
}
