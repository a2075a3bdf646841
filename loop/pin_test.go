package loop_test

import (
	"crypto/sha256"
	"fmt"
	"sort"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/nn/model"
)

// The tiny run under PALACE_BLAS=off and PALACE_KERNEL=blas (TestMain)
// makes the same networks and plays the same gate games as the layout of
// 2026-12-01 (765c578; the networks since palace's own batch norm, whose
// float64 sums differ from Gorgonia's float32 ones in the last bits, and
// again since the fused batch-norm and loss ops of 2026-12-02, whose
// arithmetic is ordered otherwise, and since 2026-12-07, when the filter
// gradients' partial sums became a fixed four rather than one a core, so
// that the networks are the same on any number of cores, as this test now
// is; the gate games are unchanged):
// a refactor that changes a seed, a default or the order of anything
// random shows here. Update the pins only with a change that means to
// alter behaviour, and say why in its commit.
func TestRunPinned(t *testing.T) {
	if testing.Short() {
		t.Skip("plays and trains two generations")
	}
	_, _, st := runTiny(t, loop.Options{CodeVersion: "test"})
	wantNets := []string{"14f9185085d301dc", "9d65dfaea71c8630", "e72e52d0920f60b0"}
	for g, want := range wantNets {
		ck, err := model.Load(st.Local(loop.NetKey(g)))
		if err != nil {
			t.Fatal(err)
		}
		if got := ck.Weights.ID(); got != want {
			t.Errorf("generation %d's network is %s, pinned %s", g, got, want)
		}
	}
	wantGates := []string{"0-8-0 efc6724d9ad8", "0-8-0 29e3ed80f59f"}
	for g, want := range wantGates {
		h, recs, err := arena.ReadRecords(st.Local(loop.ArenaKey(g + 1)))
		if err != nil {
			t.Fatal(err)
		}
		s := arena.Summarize(h, recs)
		if got := gateLine(s, recs); got != want {
			t.Errorf("candidate %d's gate: %s, pinned %s", g+1, got, want)
		}
	}
}

// gateLine is a match's W-D-L and a digest of every game's moves and
// result, in pair order.
func gateLine(s arena.Summary, recs []arena.GameRecord) string {
	sort.Slice(recs, func(i, j int) bool {
		if recs[i].Pair != recs[j].Pair {
			return recs[i].Pair < recs[j].Pair
		}
		return recs[i].Game < recs[j].Game
	})
	h := sha256.New()
	for _, r := range recs {
		fmt.Fprintf(h, "%d %d %s %s %s\n", r.Pair, r.Game, r.StartFEN, r.Moves, r.Result)
	}
	return fmt.Sprintf("%d-%d-%d %x", s.WDL.Wins, s.WDL.Draws, s.WDL.Losses, h.Sum(nil)[:6])
}
