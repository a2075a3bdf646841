package loop_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/store"
)

// TestReanalysisRun runs the tiny run with reanalysis (a window wide
// enough to hold generation 0 beside 1), stopped before
// generation 1's reanalysis and resumed: generation 0 has nothing earlier
// to search again; generation 1 searches 50 positions of generation 0's
// games, whose shards verify; training counts them; a reanalysis
// directory of a generation not yet reached is refused on resume.
func TestReanalysisRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the loop twice")
	}
	c, err := loop.ParseConfig([]byte(looptest.Merge(t, looptest.TinyYAML, "reanalysis: {positions: 50, simulations: 4}\ntrain: {window: {min_rows: 100, expansion: 2}}")), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, _ := store.NewDir(dir)
	var stages []string
	o := loop.Options{CodeVersion: "test",
		Progress: func(e loop.Event) {
			if e.Kind == loop.EventStage && (len(stages) == 0 || stages[len(stages)-1] != e.Stage) {
				stages = append(stages, e.Stage)
			}
		}}
	runStoppedOnce(t, st, c, o, func(s loop.State) bool { return s.Generation == 1 && s.Stage == loop.StageReanalyse })
	want := []string{"selfplay", "reanalyse", "train", "arena", "selfplay", "reanalyse", "train", "arena"}
	if !slices.Equal(stages, want) {
		t.Errorf("stages %v, want %v", stages, want)
	}
	_, _, ms := looptest.CheckRun(t, dir, c)
	var selfplay, reanalysed int64
	for _, m := range ms {
		switch {
		case m.Stage == loop.StageSelfplay:
			selfplay += m.Positions
		case m.Stage == loop.StageReanalyse && m.Generation == 0:
			if m.Positions != 0 || len(m.SourceGenerations) != 0 {
				t.Errorf("generation 0's reanalysis: %+v, want nothing searched", m)
			}
		case m.Stage == loop.StageReanalyse && m.Generation == 1:
			if m.Positions != 50 || !slices.Equal(m.SourceGenerations, []int{0}) || m.EvalsPerSecond <= 0 {
				t.Errorf("generation 1's reanalysis: %+v, want 50 positions of generation 0's games", m)
			}
			reanalysed += m.Positions
		case m.Stage == loop.StageTrain && m.Generation == 1:
			if m.TotalPositions != selfplay+reanalysed {
				t.Errorf("generation 1 trained on %d positions, want %d of self-play and %d reanalysed", m.TotalPositions, selfplay, reanalysed)
			}
		}
	}
	if reanalysed != 50 {
		t.Fatalf("reanalysed %d positions", reanalysed)
	}
	if probs, err := datasets.Verify(st.Local(loop.ReanalysisKey(1))); err != nil || len(probs) > 0 {
		t.Errorf("generation 1's reanalysis shards: %v %v", err, probs)
	}
	if _, err := os.Stat(st.Local(loop.ReanalysisKey(0))); !os.IsNotExist(err) {
		t.Errorf("generation 0's reanalysis directory: %v, want none", err)
	}

	// A reanalysis of a generation the run has not reached.
	later := st.Local(loop.ReanalysisKey(3))
	if err := os.MkdirAll(later, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(st.Local(loop.ReanalysisKey(1)), datasets.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(later, datasets.ManifestName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	c.Generations = 3
	err = loop.Run(context.Background(), st, c, loop.Options{CodeVersion: "test"})
	if err == nil || !strings.Contains(err.Error(), loop.ReanalysisKey(3)+" exists") {
		t.Errorf("resumed with a later generation's reanalysis: %v, want a refusal naming it", err)
	}
}
