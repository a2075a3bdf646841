package loop_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/ladder"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/store"
)

// The ladder stage follows the gate only with a ladder configured, and
// rates only after every Every-th promotion (counted from the gates'
// metrics).
func TestLadderStageOrderAndDue(t *testing.T) {
	c := tinyConfig(t)
	st, _ := store.NewDir(t.TempDir())
	s, err := loop.NewStages(st, c, "test")
	if err != nil {
		t.Fatal(err)
	}
	gate := loop.State{Generation: 3, Stage: loop.StageGate}
	if next := s.Next(gate); next.Stage != loop.StageSelfplay || next.Generation != 4 {
		t.Errorf("without a ladder the gate is followed by %+v", next)
	}
	s.Config.Ladder.Every = 2
	if next := s.Next(gate); next.Stage != loop.StageLadder || next.Generation != 3 {
		t.Errorf("with a ladder the gate is followed by %+v", next)
	}
	if next := s.Next(loop.State{Generation: 3, Stage: loop.StageLadder}); next.Stage != loop.StageSelfplay || next.Generation != 4 {
		t.Errorf("the ladder is followed by %+v", next)
	}
	// Gates: generation 0 promoted, 1 not, 2 promoted, 3 promoted.
	for gen, promoted := range []bool{true, false, true, true} {
		if err := loop.RecordMetric(st, loop.Metric{Generation: gen, Stage: loop.StageGate, Promoted: promoted}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		gen  int
		best int
		due  bool
	}{
		{0, 1, false}, // first promotion
		{1, 1, false}, // not promoted: the best is still generation 1
		{2, 3, true},  // second promotion
		{3, 4, false}, // third
	}
	for _, k := range cases {
		due, err := s.LadderDue(k.gen, loop.Best{Generation: k.best, Key: loop.NetKey(k.best)})
		if err != nil || due != k.due {
			t.Errorf("generation %d, best %d: due %v (%v), want %v", k.gen, k.best, due, err, k.due)
		}
	}
}

func TestLadderConfig(t *testing.T) {
	bad := []struct{ yaml, want string }{
		{"ladder: {every: -1}", "every -1"},
		{"ladder: {every: 1, pairs: 0}", "pairs 0"},
		{"ladder: {climb: 0.7}", "climb"},
		{"ladder: {every: 1, scale: /nonexistent/scale.json}", "nonexistent"},
		{"ladder: {every: 1, rungs: 3}", "rungs"},
	}
	for _, b := range bad {
		_, err := loop.ParseConfig([]byte(looptest.Merge(t, looptest.TinyYAML, b.yaml)), "tiny")
		if err == nil || !strings.Contains(err.Error(), b.want) || !strings.Contains(err.Error(), "ladder") {
			t.Errorf("%s: error %v, want one naming ladder and %q", b.yaml, err, b.want)
		}
	}
}

// A whole run with a ladder after every promotion (gating off: every
// candidate is promoted), on a two-rung scale calibrated here, stopped in
// its first ladder stage and resumed: each generation's best is rated,
// the rating in its metric and in the run directory.
func TestRunWithLadder(t *testing.T) {
	if _, err := os.Stat(ladder.DefaultEngine); err != nil {
		if os.Getenv("PALACE_REQUIRE_FSF") != "" {
			t.Fatalf("PALACE_REQUIRE_FSF is set: %v", err)
		}
		t.Skipf("no Fairy-Stockfish: %v", err)
	}
	if testing.Short() {
		t.Skip("plays a run and a calibration")
	}
	rs, err := rules.Preset("xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	scaleFile := filepath.Join(t.TempDir(), "scale.json")
	scale, err := ladder.Calibrate(context.Background(), ladder.Calibration{
		Settings: ladder.Settings{Settings: arena.Settings{Pairs: 1, Concurrency: 2}, Seed: 1, Dir: t.TempDir()},
		RuleSet:  rs, Program: ladder.DefaultEngine, Nodes: []int{1, 100}})
	if err != nil {
		t.Fatal(err)
	}
	if err := scale.Save(scaleFile); err != nil {
		t.Fatal(err)
	}
	c, err := loop.ParseConfig([]byte(looptest.Merge(t, looptest.TinyYAML,
		"gating: false\nladder: {every: 1, pairs: 1, simulations: 2, concurrent_games: 2, scale: "+scaleFile+"}")), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, _ := store.NewDir(dir)
	runStoppedOnce(t, st, c, loop.Options{CodeVersion: "test"}, func(s loop.State) bool { return s.Stage == loop.StageLadder })
	ms, err := loop.ReadMetrics(st)
	if err != nil {
		t.Fatal(err)
	}
	rated := 0
	for _, m := range ms {
		if m.Stage != loop.StageLadder {
			continue
		}
		rated++
		r := m.Rating
		if r == nil || r.Games < 2 || len(r.Rungs) == 0 || m.Network != loop.NetKey(m.Generation+1) || !strings.Contains(r.Scale, "Fairy-Stockfish") {
			t.Errorf("ladder metric %+v, rating %+v", m, r)
			continue
		}
		file, err := ladder.ReadRating(st.Local(loop.LadderKey(m.Generation)))
		if err != nil || file.Elo != r.Elo {
			t.Errorf("generation %d's rating file: %+v, %v", m.Generation, file, err)
		}
		if !strings.HasPrefix(r.Player, "gen"+string(rune('0'+m.Generation+1))+":") || !strings.Contains(r.Player, "sims=2") {
			t.Errorf("rated player %q", r.Player)
		}
	}
	if rated != 2 {
		t.Errorf("%d ratings in the metrics, want 2 (one per promotion)", rated)
	}
}
