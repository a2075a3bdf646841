package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/store"
)

// stopAt stops a run once its state reaches (gen, stage).
func stopAt(gen int, stage string) func(loop.State) bool {
	return func(s loop.State) bool { return s.Generation == gen && s.Stage == stage }
}

// logged collects a run's notices: its reports but the stages and their
// figures (what palace draws as lines that stay).
func logged(events *[]loop.Event) func(loop.Event) {
	return func(e loop.Event) {
		switch e.Kind {
		case loop.EventStage, loop.EventStageDone, loop.EventSelfplay, loop.EventTrain, loop.EventArena, loop.EventLadder:
		default:
			*events = append(*events, e)
		}
	}
}

// has says whether events hold one of kind.
func has(events []loop.Event, kind loop.EventKind) bool {
	return slices.ContainsFunc(events, func(e loop.Event) bool { return e.Kind == kind })
}

// wantErr fails the test unless err names every one of parts.
func wantErr(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one naming %q", what, parts)
		return
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v\nwant it to name %q", what, err, p)
		}
	}
}

// A resumed run trusts none of its files blindly: an edited match record
// is refused (and, its line removed, the game played again to the same
// standings), and so is a state.json or best.json that does not agree with
// the run; each error names the file and the fix, and the run, its files
// restored, goes on. Temporary files that kills left are removed on start.
func TestResumeChecksFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("plays and trains a generation")
	}
	c := tinyConfig(t)
	dir := t.TempDir()
	st, _ := store.NewDir(dir)
	ctx := context.Background()
	if err := loop.Run(ctx, st, c, loop.Options{StopAfter: stopAt(0, loop.StageGate)}); err != nil {
		t.Fatal(err)
	}

	// The match is over, the gate not yet decided: edit one game's result.
	recFile := st.Local(loop.ArenaKey(1))
	h, recs, err := arena.ReadRecords(recFile)
	if err != nil {
		t.Fatal(err)
	}
	played := arena.Summarize(h, recs)
	orig, _ := os.ReadFile(recFile)
	lines := strings.SplitAfter(string(orig), "\n")
	var r arena.GameRecord
	if err := json.Unmarshal([]byte(lines[2]), &r); err != nil {
		t.Fatal(err)
	}
	var line map[string]any
	json.Unmarshal([]byte(lines[2]), &line)
	line["result"], line["score"] = "1-0", float64(1-r.Game)
	if r.Result == "1-0" {
		line["result"], line["score"] = "0-1", float64(r.Game)
	}
	b, _ := json.Marshal(line)
	edited := lines[0] + lines[1] + string(b) + "\n" + strings.Join(lines[3:], "")
	os.WriteFile(recFile, []byte(edited), 0o644)
	err = loop.Run(ctx, st, c, loop.Options{})
	wantErr(t, "an edited match record", err, loop.ArenaKey(1), fmt.Sprintf("pair %d game %d", r.Pair, r.Game), "remove its line")
	// Its line removed, the game is played again and the gate decides on
	// the match as it was played.
	os.WriteFile(recFile, []byte(lines[0]+lines[1]+strings.Join(lines[3:], "")), 0o644)
	var log []loop.Event
	if err := loop.Run(ctx, st, c, loop.Options{Progress: logged(&log), StopAfter: stopAt(1, loop.StageSelfplay)}); err != nil {
		t.Fatal(err)
	}
	ms, _ := loop.ReadMetrics(st)
	gate := ms[len(ms)-1]
	if gate.Stage != loop.StageGate || gate.Match == nil || gate.Match.WDL != played.WDL || gate.Match.Games != played.Games ||
		!slices.ContainsFunc(log, func(e loop.Event) bool { return e.Kind == loop.EventMatchNotOver && e.Generation == 0 }) {
		t.Errorf("the gate after a record was removed: %+v (match %+v), want W-D-L %v; notices %+v", gate, gate.Match, played.WDL, log)
	}

	// Now at generation 1's self-play, with best.json naming candidate 1.
	best, err := loop.BestOf(st)
	if err != nil {
		t.Fatal(err)
	}
	gen0, err := model.Load(st.Local(loop.NetKey(0)))
	if err != nil {
		t.Fatal(err)
	}
	stateFile, bestFile := st.Local(loop.StateKey), st.Local(loop.BestKey)
	goodState, _ := os.ReadFile(stateFile)
	goodBest, _ := os.ReadFile(bestFile)
	for _, tc := range []struct {
		what        string
		state, best string
		remove      string
		want        []string
	}{
		{what: "generation 99", state: `{"version":1,"generation":99,"stage":"selfplay"}`,
			want: []string{"state.json", "generation 99", "nets/gen-0002.palnet is missing", "restore state.json", "new run directory"}},
		{what: "a stage of the next generation", state: `{"version":1,"generation":1,"stage":"arena"}`,
			want: []string{"state.json", "nets/gen-0002.palnet is missing"}},
		{what: "generation 0 again", state: `{"version":1,"generation":0,"stage":"selfplay"}`,
			want: []string{"state.json", "nets/gen-0001.palnet exists"}},
		{what: "a stage gating off has not", state: `{"version":1,"generation":1,"stage":"ladder"}`,
			want: []string{"state.json", "has no ladder stage"}},
		{what: "a lost manifest", remove: loop.ManifestKey(0),
			want: []string{"state.json", loop.ManifestKey(0)}},
		{what: "a lost match record file", remove: loop.ArenaKey(1),
			want: []string{"state.json", loop.ArenaKey(1)}},
		{what: "another network id", best: fmt.Sprintf(`{"generation":%d,"key":%q,"network_id":"0123456789abcdef"}`, best.Generation, best.Key),
			want: []string{"best.json", best.Key, "0123456789abcdef", best.NetworkID, "restore best.json"}},
		{what: "a network the gates did not make the best", best: fmt.Sprintf(`{"generation":0,"key":%q,"network_id":%q}`, loop.NetKey(0), gen0.Weights.ID()),
			want: []string{"best.json", "generation 0", "make generation 1 the best"}},
		{what: "a lost best network", remove: best.Key,
			want: []string{"state.json", best.Key}},
	} {
		var saved []byte
		if tc.state != "" {
			os.WriteFile(stateFile, []byte(tc.state+"\n"), 0o644)
		}
		if tc.best != "" {
			os.WriteFile(bestFile, []byte(tc.best+"\n"), 0o644)
		}
		if tc.remove != "" {
			saved, _ = os.ReadFile(st.Local(tc.remove))
			os.Remove(st.Local(tc.remove))
		}
		err := loop.Run(ctx, st, c, loop.Options{StopAfter: func(loop.State) bool { return true }})
		wantErr(t, tc.what, err, tc.want...)
		os.WriteFile(stateFile, goodState, 0o644)
		os.WriteFile(bestFile, goodBest, 0o644)
		if tc.remove != "" {
			os.WriteFile(st.Local(tc.remove), saved, 0o644)
		}
	}

	// Temporary files of killed writes go; anything else stays.
	debris := []string{".best.json.tmp-123", "nets/.gen-0002.palnet.tmp-4fe1a9", "selfplay/gen-0001/.shard-000000.shard.tmp-77"}
	keep := []string{".hidden", "notes.tmp-1", "nets/.tmp-1", ".best.json.tmp-", ".x.tmp-1 2"}
	for _, f := range append(debris, keep...) {
		p := filepath.Join(dir, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log = nil
	if err := loop.Run(ctx, st, c, loop.Options{Progress: logged(&log), StopAfter: func(loop.State) bool { return true }}); err != nil {
		t.Fatal(err)
	}
	for _, f := range debris {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", f, err)
		}
	}
	for _, f := range keep {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
			t.Errorf("%s was removed: %v", f, err)
		}
	}
	if len(log) == 0 || log[0].Kind != loop.EventDebris || log[0].Removed != 3 || log[0].Dir != dir {
		t.Errorf("notices %+v, want the removal of 3 files from %s said first", log, dir)
	}
}

// A generation whose training was killed part way reports, resumed, the
// metric of a training left alone: all the generation's steps and their
// mean losses, not only the steps after the resume; so does a train stage
// killed after its candidate was written. A kill between the trainer's
// save and the record of its losses (simulated by cutting that record)
// is said: the loss is the mean over the steps known, and LossSteps says
// how many.
func TestTrainMetricAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("plays and trains a generation three times")
	}
	c := tinyConfig(t)
	ctx := context.Background()
	trainLine := func(st store.Store) loop.Metric {
		t.Helper()
		ms, err := loop.ReadMetrics(st)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Generation == 0 && m.Stage == loop.StageTrain {
				return m
			}
		}
		t.Fatal("no training metric for generation 0")
		return loop.Metric{}
	}
	// same compares what describes the training (not times and rates).
	same := func(a, b loop.Metric) bool {
		return a.Steps == b.Steps && a.TotalSteps == b.TotalSteps && a.LossSteps == b.LossSteps && a.Window == b.Window &&
			reflect.DeepEqual(a.Loss, b.Loss) && reflect.DeepEqual(a.LastLoss, b.LastLoss)
	}

	ref, _ := store.NewDir(t.TempDir())
	if err := loop.Run(ctx, ref, c, loop.Options{StopAfter: stopAt(0, loop.StageArena)}); err != nil {
		t.Fatal(err)
	}
	want := trainLine(ref)
	if want.Steps != want.TotalSteps || want.Loss == nil || want.LastLoss == nil || want.LossSteps != 0 || want.Steps < 8 {
		t.Fatalf("the uninterrupted training: %+v", want)
	}

	// killed runs the tiny run until its first save in training, then
	// cancels it there.
	killed := func() store.Store {
		t.Helper()
		st, _ := store.NewDir(t.TempDir())
		kctx, cancel := context.WithCancel(ctx)
		defer cancel()
		if err := loop.Run(kctx, st, c, loop.Options{Progress: func(e loop.Event) {
			if e.Kind == loop.EventTrain {
				cancel()
			}
		}}); err != nil {
			t.Fatal(err)
		}
		if b, _ := st.Read(loop.StateKey); !strings.Contains(string(b), `"stage":"train"`) {
			t.Fatalf("killed in state %s, want in training", b)
		}
		return st
	}

	st := killed()
	if err := loop.Run(ctx, st, c, loop.Options{StopAfter: stopAt(0, loop.StageArena)}); err != nil {
		t.Fatal(err)
	}
	if got := trainLine(st); !same(got, want) {
		t.Errorf("killed in training and resumed:\n%+v (loss %+v)\nuninterrupted:\n%+v (loss %+v)", got, got.Loss, want, want.Loss)
	}
	a, _ := model.Load(ref.Local(loop.NetKey(1)))
	b, _ := model.Load(st.Local(loop.NetKey(1)))
	if a == nil || b == nil || a.Weights.ID() != b.Weights.ID() {
		t.Errorf("candidates differ: %v %v", a, b)
	}

	// Killed after the candidate was written and the metric recorded,
	// before the state moved on: the stage redone takes no step and
	// records the same line.
	if err := loop.WriteState(ref, loop.State{Generation: 0, Stage: loop.StageTrain}); err != nil {
		t.Fatal(err)
	}
	if err := loop.Run(ctx, ref, c, loop.Options{StopAfter: stopAt(0, loop.StageArena)}); err != nil {
		t.Fatal(err)
	}
	if got := trainLine(ref); !same(got, want) {
		t.Errorf("the train stage redone:\n%+v\nfirst done:\n%+v", got, want)
	}

	// The record of the first save's losses lost.
	st = killed()
	var l map[string]any
	data, err := st.Read(loop.TrainLossesKey)
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &l)
	chunks := l["chunks"].([]any)
	if len(chunks) != 1 {
		t.Fatalf("after the first save: %s", data)
	}
	lost := int64(chunks[0].(map[string]any)["to"].(float64))
	l["chunks"] = []any{}
	data, _ = json.Marshal(l)
	st.Write(loop.TrainLossesKey, data)
	if err := loop.Run(ctx, st, c, loop.Options{StopAfter: stopAt(0, loop.StageArena)}); err != nil {
		t.Fatal(err)
	}
	got := trainLine(st)
	if got.Steps != want.Steps || got.LossSteps != want.Steps-lost || got.Loss == nil || reflect.DeepEqual(got.Loss, want.Loss) ||
		!reflect.DeepEqual(got.LastLoss, want.LastLoss) {
		t.Errorf("with the losses of steps 0-%d lost: %+v, want %d steps, the loss over %d of them", lost, got, want.Steps, want.Steps-lost)
	}
}
