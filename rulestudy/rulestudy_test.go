package rulestudy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/store"
)

func TestMain(m *testing.M) {
	if os.Getenv("PALACE_BLAS") == "" {
		os.Setenv("PALACE_BLAS", "off")
	}
	os.Exit(m.Run())
}

func stages(t *testing.T, dir string) int {
	t.Helper()
	st, _ := store.NewDir(dir)
	ms, err := loop.ReadMetrics(st)
	if err != nil {
		t.Fatal(err)
	}
	return len(ms)
}

// Train stops once the run's recorded stage time reaches the budget,
// does nothing more for the same budget, trains on for a larger one, and
// refuses a directory started with another config.
func TestTrainToBudgets(t *testing.T) {
	cfg, err := WithRules([]byte(looptest.TinyYAML), "janggi")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cfg), "\nrules: janggi\n") || strings.Contains(string(cfg), "rules: xiangqi") {
		t.Fatalf("rules not replaced:\n%s", cfg)
	}
	dir := filepath.Join(t.TempDir(), "A")
	best, spent, err := Train(context.Background(), dir, cfg, "tiny", time.Nanosecond, loop.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if spent <= 0 || stages(t, dir) != 1 || filepath.Base(best) != "gen-0000.palnet" {
		t.Fatalf("a budget of 1 ns: spent %v, %d stages, best %s", spent, stages(t, dir), best)
	}
	if _, again, err := Train(context.Background(), dir, cfg, "tiny", time.Nanosecond, loop.Options{}); err != nil || again != spent || stages(t, dir) != 1 {
		t.Fatalf("the same budget again: %v, spent %v (was %v), %d stages", err, again, spent, stages(t, dir))
	}
	// On past one generation's gate: its candidate may be the best now.
	st, _ := store.NewDir(dir)
	var last time.Duration
	var lastBest string
	for stages(t, dir) < 4 {
		s, err := Spent(st)
		if err != nil {
			t.Fatal(err)
		}
		if lastBest, _, err = Train(context.Background(), dir, cfg, "tiny", s+time.Nanosecond, loop.Options{}); err != nil {
			t.Fatal(err)
		}
		last = s + time.Nanosecond
	}
	if b, err := loop.BestOf(st); err != nil || st.Local(b.Key) != lastBest {
		t.Fatalf("trained to its budget: best %s, the run's %+v (%v)", lastBest, b, err)
	}
	// Past a budget, the study's player at that budget is the one it
	// played then, not the run's best now.
	if again, at, err := Train(context.Background(), dir, cfg, "tiny", time.Nanosecond, loop.Options{}); err != nil || filepath.Base(again) != "gen-0000.palnet" || at != spent {
		t.Fatalf("the first budget after training on: %s at %v (%v), want gen-0000.palnet at %v", again, at, err, spent)
	}
	if again, _, err := Train(context.Background(), dir, cfg, "tiny", last, loop.Options{}); err != nil || again != lastBest {
		t.Fatalf("the last budget again: %s (%v), want %s", again, err, lastBest)
	}
	if _, _, err := Train(context.Background(), dir, []byte(looptest.TinyYAML), "tiny", time.Hour, loop.Options{}); err == nil || !strings.Contains(err.Error(), "another configuration") {
		t.Errorf("another config in the run: %v", err)
	}
	if _, err := WithRules([]byte("seed: 1\n"), "janggi"); err == nil {
		t.Error("a config without rules was taken")
	}
}

// BestAt walks the recorded stages: the best is self-play's network until
// a gate promotes another, and the budget is reached after the stage that
// brings the stage time (ladders left out) to it.
func TestBestAt(t *testing.T) {
	st, err := store.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []loop.Metric{
		{Generation: 0, Stage: loop.StageSelfplay, Seconds: 10, Network: "nets/gen-0000.palnet"},
		{Generation: 0, Stage: loop.StageTrain, Seconds: 10, Network: "nets/gen-0001.palnet"},
		{Generation: 0, Stage: loop.StageArena, Seconds: 10, Network: "nets/gen-0001.palnet"},
		{Generation: 0, Stage: loop.StageGate, Seconds: 1, Network: "nets/gen-0001.palnet", Best: "nets/gen-0000.palnet", Promoted: true},
		{Generation: 1, Stage: loop.StageLadder, Seconds: 100, Network: "nets/gen-0001.palnet"},
		{Generation: 1, Stage: loop.StageSelfplay, Seconds: 10, Network: "nets/gen-0001.palnet"},
		{Generation: 1, Stage: loop.StageTrain, Seconds: 10, Network: "nets/gen-0002.palnet"},
		{Generation: 1, Stage: loop.StageGate, Seconds: 1, Network: "nets/gen-0002.palnet", Best: "nets/gen-0001.palnet"},
	} {
		if err := loop.RecordMetric(st, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		budget time.Duration
		key    string
		at     time.Duration
	}{
		{5 * time.Second, "nets/gen-0000.palnet", 10 * time.Second},
		{25 * time.Second, "nets/gen-0000.palnet", 30 * time.Second},
		{31 * time.Second, "nets/gen-0001.palnet", 31 * time.Second},
		{50 * time.Second, "nets/gen-0001.palnet", 51 * time.Second},
		{52 * time.Second, "nets/gen-0001.palnet", 52 * time.Second},
	} {
		key, at, err := BestAt(st, tc.budget)
		if err != nil || key != tc.key || at != tc.at {
			t.Errorf("budget %v: %s at %v (%v), want %s at %v", tc.budget, key, at, err, tc.key, tc.at)
		}
	}
}
