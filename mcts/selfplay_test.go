package mcts

import (
	"fmt"
	"testing"
)

// Complete games of search against itself with a random network, under
// each game's rule sets, both searches, one leaf and several per
// evaluation, fresh trees and reused ones: every move is legal and every
// result well formed, including at passes, checks and the games' ends.
func TestSelfPlayRandomEvaluator(t *testing.T) {
	games := 8
	if testing.Short() {
		games = 1
	}
	ends := map[string]int{}
	plies := 0
	for _, base := range []string{"xiangqi", "janggi", "janggimodern"} {
		rs := capped(t, base, 80)
		for _, mode := range []Mode{PUCT, Gumbel} {
			for _, leaves := range []int{1, 4} {
				p := DefaultParams()
				p.Mode, p.Simulations, p.CheapSimulations = mode, 24, 6
				p.LeavesPerEval = leaves
				p.Seed = uint64(leaves)
				s := newSearch(t, p, random(7))
				fresh := leaves == 4 // reset the tree before each move
				var r Result
				for game := range games {
					g := newGame(t, rs, rs.StartFEN())
					for !g.Result().Over() {
						if fresh {
							s.Reset()
						}
						fen, ply := g.Position().FEN(), g.Ply()
						if err := s.RunWith(g, RunOptions{}, &r); err != nil {
							t.Fatalf("%s %v game %d ply %d: %v", base, mode, game, ply, err)
						}
						if g.Position().FEN() != fen || g.Ply() != ply {
							t.Fatalf("the search left the game changed")
						}
						checkResult(t, g, &r)
						sum := 0
						for _, v := range r.Visits {
							sum += v
						}
						if fresh && sum != r.Simulations {
							t.Fatalf("fresh tree: visits sum to %d after %d simulations", sum, r.Simulations)
						}
						want := p.Simulations
						if !r.Full {
							want = p.CheapSimulations
						}
						if len(r.Moves) > 1 && r.Proof == Unproven && r.Simulations != want {
							t.Fatalf("%d simulations, budget %d", r.Simulations, want)
						}
						g.Play(r.Best)
						plies++
					}
					ends[base+" "+g.Result().String()]++
				}
			}
		}
	}
	t.Logf("%d plies; %s", plies, fmt.Sprint(ends))
}
