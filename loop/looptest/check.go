package looptest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/store"
)

// CheckRun checks what every finished run of c (c.Generations
// generations, 2 in most tests) leaves in dir, run by loop or by the
// cluster: the state at generation n, the n+1 networks with best.json
// naming the right one, each generation's self-play (at least c's games,
// shards that verify) and finished match, and the metrics, n of each stage
// (reanalysis's where c has it), every gate with its match. It
// returns the store, each generation's self-play report and the metrics,
// for the driver's own checks.
func CheckRun(t *testing.T, dir string, c loop.Config) (*store.Dir, []*selfplay.VerifyReport, []loop.Metric) {
	t.Helper()
	n := c.Generations
	if n <= 0 {
		t.Fatal("looptest: CheckRun checks a run of a set number of generations")
	}
	st, _ := store.NewDir(dir)
	b, err := st.Read(loop.StateKey)
	if err != nil || !strings.Contains(string(b), fmt.Sprintf(`"generation":%d,`, n)) {
		t.Fatalf("state %s, %v", b, err)
	}
	best, err := loop.BestOf(st)
	if err != nil {
		t.Fatal(err)
	}
	for g := 0; g <= n; g++ {
		ck, err := model.Load(st.Local(loop.NetKey(g)))
		if err != nil {
			t.Fatalf("generation %d's network: %v", g, err)
		}
		if g == best.Generation && ck.Weights.ID() != best.NetworkID {
			t.Errorf("best.json names %s, the file holds %s", best.NetworkID, ck.Weights.ID())
		}
	}
	var reps []*selfplay.VerifyReport
	for g := 0; g < n; g++ {
		rep, err := selfplay.Verify(st.Local(loop.SelfplayKey(g)))
		if err != nil {
			t.Fatalf("generation %d's self-play: %v", g, err)
		}
		if rep.Games < c.Selfplay.Games {
			t.Errorf("generation %d: %d games", g, rep.Games)
		}
		reps = append(reps, rep)
		if probs, err := datasets.Verify(st.Local(loop.SelfplayKey(g))); err != nil || len(probs) > 0 {
			t.Errorf("generation %d's shards: %v %v", g, err, probs)
		}
		if !c.Gating {
			continue // no matches: every candidate is promoted
		}
		h, recs, err := arena.ReadRecords(st.Local(loop.ArenaKey(g + 1)))
		if err != nil {
			t.Fatal(err)
		}
		if s := arena.Summarize(h, recs); !s.Done {
			t.Errorf("match of candidate %d is not over: %+v", g+1, s)
		}
	}
	ms, err := loop.ReadMetrics(st)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, m := range ms {
		seen[m.Stage]++
		if m.Stage == loop.StageGate && (m.Match == nil) == c.Gating {
			t.Errorf("gate of generation %d: a match %v, gating %v", m.Generation, m.Match != nil, c.Gating)
		}
	}
	arenas := n
	if !c.Gating {
		arenas = 0
	}
	lines, reanalyses := 3*n+arenas, 0
	if c.Reanalysis.Positions > 0 {
		lines, reanalyses = lines+n, n
	}
	if seen[loop.StageSelfplay] != n || seen[loop.StageTrain] != n || seen[loop.StageArena] != arenas || seen[loop.StageGate] != n ||
		seen[loop.StageReanalyse] != reanalyses || len(ms) != lines {
		t.Errorf("metrics %v", seen)
	}
	return st, reps, ms
}
