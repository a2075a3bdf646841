package mcts

import (
	"slices"
	"testing"

	"github.com/palace-chess/palace/rules"
)

// mateProblems are forced mates, each checked against the rules before it is
// searched, and searched also upside down (colours swapped, the other side
// to move).
var mateProblems = []struct {
	name, rules, fen string
	depth            int // moves of the mating side
}{
	// Black's soldier keeps b1a1 from winning by stalemate.
	{"xiangqi chariots", "xiangqi", "3k5/R8/9/8p/9/9/9/9/9/1R2K4 w - - 0 1", 1},
	// The cannon checks over its own horse on e9; a guard that takes the
	// horse becomes the screen, and the chariot guards e9 from the king.
	{"xiangqi cannon jump", "xiangqi", "3aka3/R3N4/9/9/9/9/9/9/7C1/3K5 w - - 0 1", 1},
	// The soldier steps along the palace diagonal d8-e9, covering d10 and
	// f10 diagonally; the horse guards it.
	{"janggi palace diagonal", "janggi", "4k4/9/3P2N2/9/9/9/9/9/9/3K5 w - - 0 1", 1},
	// The cannon reaches e3 by jumping its soldier on g3, then checks over
	// its horse on e9.
	{"janggi cannon jump", "janggi", "3aka3/R3N4/9/9/9/9/9/6PC1/9/3K5 w - - 0 1", 1},
	{"xiangqi horses", "xiangqi", "9/2a3a2/3k5/6N2/9/1N7/C8/5K3/9/9 w - - 0 1", 2},
	{"xiangqi chariot and cannon", "xiangqi", "2R6/8C/3b1ka2/9/9/9/9/4K4/9/9 w - - 0 1", 2},
	{"janggi chariots", "janggi", "4k4/3b5/9/2C6/9/7R1/6R2/9/3K5/9 w - - 0 1", 2},
	// The key move f8d10 is a cannon jumping its screen on e9 along the
	// palace diagonal.
	{"janggi cannon on the palace diagonal", "janggi", "9/3nbC3/4kC3/9/9/3P5/9/5R3/9/5K3 w - - 0 1", 2},
}

// TestMateProblemsAreMates checks the problems themselves: the mates in 1
// mate, and the mates in 2 have no mate in 1 while every defence to the key
// move allows one.
func TestMateProblemsAreMates(t *testing.T) {
	for _, mp := range mateProblems {
		for _, fen := range []string{mp.fen, flipFEN(mp.fen)} {
			g := newGame(t, rules.MustPreset(mp.rules), fen)
			m1, m2 := matesIn1(g), matesIn2(g)
			switch {
			case mp.depth == 1 && len(m1) == 0:
				t.Errorf("%s (%s): no mate in 1", mp.name, fen)
			case mp.depth == 2 && (len(m1) > 0 || len(m2) == 0):
				t.Errorf("%s (%s): mates in 1 %v, in 2 %v", mp.name, fen, m1, m2)
			}
		}
	}
}

// With uniform priors and values and enough simulations, both searches
// prove every problem won and play a move that mates in the stated number.
// Gumbel considers every root move here (GumbelK above the move count):
// with fewer it may prove a longer mate through the moves it sampled.
func TestSearchFindsMates(t *testing.T) {
	for _, mode := range []Mode{PUCT, Gumbel} {
		for _, mp := range mateProblems {
			for side, fen := range []string{mp.fen, flipFEN(mp.fen)} {
				g := newGame(t, rules.MustPreset(mp.rules), fen)
				want := matesIn1(g)
				if mp.depth == 2 {
					want = matesIn2(g)
				}
				p := DefaultParams()
				p.Mode, p.Simulations, p.CheapSimulations = mode, 50000, 0
				p.GumbelK = rules.MaxMoves
				p.Seed = uint64(side)
				s := newSearch(t, p, uniform())
				r, err := s.Run(g)
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, g, &r)
				if r.Proof != ProvenWin || r.ProofPlies != 2*mp.depth-1 || r.Value != 1 || !slices.Contains(want, r.Best) {
					t.Errorf("%v %s (%s): best %v, proof %v in %d plies, value %v after %d simulations; mates %v",
						mode, mp.name, fen, r.Best, r.Proof, r.ProofPlies, r.Value, r.Simulations, want)
				}
				if r.PV[0] != r.Best {
					t.Errorf("%v %s: PV %v does not start with the best move %v", mode, mp.name, r.PV, r.Best)
				}
				// The whole mate is in the PV: playing it ends the game in checkmate.
				for _, m := range r.PV {
					g.Play(m)
				}
				if res := g.Result(); len(r.PV) != 2*mp.depth-1 || res.Reason != rules.Checkmate {
					t.Errorf("%v %s: PV %v ends in %v", mode, mp.name, r.PV, res)
				}
				t.Logf("%v %s %s: %v in %d simulations", mode, mp.name, []string{"", "flipped"}[side], r.PV, r.Simulations)
				if mp.depth == 2 {
					// The defender, after the key move, is proven lost
					// and resists for the 2 plies it has.
					for range r.PV {
						g.Undo()
					}
					g.Play(r.Best)
					d, err := newSearch(t, p, uniform()).Run(g)
					if err != nil {
						t.Fatal(err)
					}
					checkResult(t, g, &d)
					if d.Proof != ProvenLoss || d.ProofPlies != 2 || d.Value != -1 || d.WDL != [3]float32{0, 0, 1} {
						t.Errorf("%v %s: defender's proof %v in %d plies, value %v, WDL %v", mode, mp.name, d.Proof, d.ProofPlies, d.Value, d.WDL)
					}
				}
			}
		}
	}
}
