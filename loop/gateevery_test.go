package loop_test

import (
	"os"
	"strings"
	"testing"

	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/store"
)

// TestGateEvery runs four generations gating every second candidate,
// stopped where an ungated candidate's gate is next and resumed: candidates
// 2 and 4 play matches, 1 and 3 are kept out unplayed (never promoted),
// and the stages go train → gate for them.
func TestGateEvery(t *testing.T) {
	if testing.Short() {
		t.Skip("four generations")
	}
	c, err := loop.ParseConfig([]byte(looptest.Merge(t, looptest.TinyYAML, "generations: 4\narena: {every: 2}")), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, _ := store.NewDir(dir)
	runStoppedOnce(t, st, c, loop.Options{CodeVersion: "test"}, func(s loop.State) bool {
		return s.Generation == 0 && s.Stage == loop.StageGate
	})
	ms, err := loop.ReadMetrics(st)
	if err != nil {
		t.Fatal(err)
	}
	arenas := map[int]bool{}
	for _, m := range ms {
		switch m.Stage {
		case loop.StageArena:
			arenas[m.Generation+1] = true
		case loop.StageGate:
			cand := m.Generation + 1
			if cand%2 == 1 && (m.Match != nil || m.Promoted || !strings.Contains(m.Reason, "not gated")) {
				t.Errorf("candidate %d's gate: %+v, want it kept out unplayed", cand, m)
			}
			if cand%2 == 0 && m.Match == nil {
				t.Errorf("candidate %d's gate without its match: %+v", cand, m)
			}
		}
	}
	if len(arenas) != 2 || !arenas[2] || !arenas[4] {
		t.Errorf("matches of candidates %v, want 2 and 4", arenas)
	}
	for cand := 1; cand <= 4; cand++ {
		_, err := os.Stat(st.Local(loop.ArenaKey(cand)))
		if (err == nil) != (cand%2 == 0) {
			t.Errorf("candidate %d's match record: %v", cand, err)
		}
	}
	best, err := loop.BestOf(st)
	if err != nil || best.Generation%2 != 0 {
		t.Errorf("best %+v, %v: want a gated candidate or generation 0", best, err)
	}
}
