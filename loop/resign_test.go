package loop_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/store"
)

// A run whose self-play resigns: the run's files verify, and each
// generation's metric counts the resignations its games files record.
func TestResignRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the loop")
	}
	c, err := loop.ParseConfig([]byte(looptest.Merge(t, looptest.TinyYAML,
		"gating: false\nselfplay: {resign: {value: -0.02, moves: 1, playthrough: 0.25}}")), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, _ := store.NewDir(dir)
	if err := loop.Run(context.Background(), st, c, loop.Options{CodeVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	looptest.CheckRun(t, dir, c)
	ms, err := loop.ReadMetrics(st)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, m := range ms {
		if m.Stage != loop.StageSelfplay {
			continue
		}
		seen++
		files, _ := filepath.Glob(filepath.Join(dir, "selfplay", fmt.Sprintf("gen-%04d", m.Generation), "*.games.jsonl"))
		resigned := 0
		for _, f := range files {
			gf, err := gamerec.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range gf.Games {
				if g.Reason == gamerec.ReasonResignation {
					resigned++
				}
			}
		}
		if int64(resigned) != m.Resigns.Resigned || resigned == 0 || m.Resigns.False > m.Resigns.Would {
			t.Errorf("generation %d: %d games resigned, the metric says %+v", m.Generation, resigned, m.Resigns)
		}
	}
	if seen != c.Generations+1 && seen != c.Generations {
		t.Errorf("%d self-play metrics", seen)
	}
}
