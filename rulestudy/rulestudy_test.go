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
	for stages(t, dir) < 3 {
		s, err := Spent(st)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := Train(context.Background(), dir, cfg, "tiny", s+time.Nanosecond, loop.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := Train(context.Background(), dir, []byte(looptest.TinyYAML), "tiny", time.Hour, loop.Options{}); err == nil || !strings.Contains(err.Error(), "another configuration") {
		t.Errorf("another config in the run: %v", err)
	}
	if _, err := WithRules([]byte("seed: 1\n"), "janggi"); err == nil {
		t.Error("a config without rules was taken")
	}
}
