package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/store"
)

// What a run directory holds is believed only when it is what the run
// wrote (issue 47, "what palace believes").

// A line of metrics.jsonl that is not a metric is refused with its
// number; blank lines at the end are passed over, one between metrics is
// named.
func TestReadMetricsRefusesStrangeLines(t *testing.T) {
	good := `{"generation":0,"stage":"selfplay","time":"2026-12-04T00:00:00Z","games":4}` + "\n" +
		`{"generation":0,"stage":"train","time":"2026-12-04T00:00:01Z","total_steps":8}` + "\n"
	for _, tc := range []struct {
		what, data, want string
		lines            int
	}{
		{what: "the file as written", data: good, lines: 2},
		{what: "trailing blank lines", data: good + "\n\n  \n", lines: 2},
		{what: "a garbage line", data: good + `{"garbage":1}` + "\n", want: `metrics.jsonl line 3: not a metric: unknown keys "garbage"`},
		{what: "an empty object", data: `{}` + "\n" + good, want: "metrics.jsonl line 1: not a metric: no generation"},
		{what: "an unknown stage", data: good + `{"generation":1,"stage":"party"}` + "\n", want: `line 3: not a metric: generation 1, stage "party"`},
		{what: "a negative generation", data: `{"generation":-1,"stage":"train"}` + "\n", want: `line 1: not a metric: generation -1`},
		{what: "not JSON", data: good + "[1, 2\n", want: "line 3: not a metric"},
		{what: "a blank line between metrics", data: strings.Replace(good, "\n", "\n\n", 1), want: "metrics.jsonl line 2 is blank, between metrics"},
	} {
		st, _ := store.NewDir(t.TempDir())
		if err := st.Write(loop.MetricsKey, []byte(tc.data)); err != nil {
			t.Fatal(err)
		}
		ms, err := loop.ReadMetrics(st)
		if tc.want == "" {
			if err != nil || len(ms) != tc.lines {
				t.Errorf("%s: %d metrics, %v; want %d", tc.what, len(ms), err, tc.lines)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error naming %q", tc.what, err, tc.want)
		}
	}
}

// stopped is a context already cancelled: a run given it checks and
// starts its directory, and plays nothing.
func stopped() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// A run directory reached through a symbolic link is that directory
// (issue 47: its networks were "missing" through the link).
func TestRunThroughLink(t *testing.T) {
	c := tinyConfig(t)
	dir := t.TempDir()
	real, link := filepath.Join(dir, "run"), filepath.Join(dir, "link")
	st, _ := store.NewDir(real)
	if err := loop.Run(stopped(), st, c, loop.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(real, ".best.json.tmp-9"), []byte("x"), 0o644) // a killed write's
	lst, _ := store.NewDir(link)
	if err := loop.Run(stopped(), lst, c, loop.Options{}); err != nil {
		t.Errorf("the run through a link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(real, ".best.json.tmp-9")); !os.IsNotExist(err) {
		t.Errorf("a temporary file in a run reached through a link is still there (%v)", err)
	}
}

// Symbolic links inside a run directory that lead out of it, or nowhere,
// are refused before anything is read or written through them; a link
// that stays inside is left alone (issue 47: metrics.jsonl -> outside was
// appended to, train/state.palnet -> outside read and overwritten).
func TestRunRefusesLinksOut(t *testing.T) {
	c := tinyConfig(t)
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("not the run's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ link, target, want string }{
		{loop.MetricsKey, outside, "outside the run directory"},
		{loop.TrainKey, outside, "outside the run directory"},
		{"run.lock", outside, "outside the run directory"},
		{"selfplay", filepath.Dir(outside), "outside the run directory"},
		{loop.StateKey, "../../nowhere", "leads nowhere"},
	} {
		dir := t.TempDir()
		st, _ := store.NewDir(dir)
		p := st.Local(tc.link)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(tc.target, p); err != nil {
			t.Fatal(err)
		}
		err := loop.Run(stopped(), st, c, loop.Options{})
		if err == nil || !strings.Contains(err.Error(), p+" is a symbolic link") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s -> %s: %v; want it refused as %q", tc.link, tc.target, err, tc.want)
		}
		if _, err := os.Stat(st.Local(loop.NetKey(0))); !os.IsNotExist(err) {
			t.Errorf("%s -> %s: the run started (%v)", tc.link, tc.target, err)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "not the run's\n" {
		t.Errorf("the file outside was changed: %q", b)
	}
	// A link inside is the user's arrangement.
	dir := t.TempDir()
	st, _ := store.NewDir(dir)
	os.Mkdir(filepath.Join(dir, "notes"), 0o755)
	if err := os.Symlink("notes", filepath.Join(dir, "notes-link")); err != nil {
		t.Fatal(err)
	}
	if err := loop.Run(stopped(), st, c, loop.Options{}); err != nil {
		t.Errorf("a link inside the run: %v", err)
	}
}

// A run keeps the config it started with: config.yaml edited in place is
// refused on resume, naming the keys that changed, while comments and
// layout may change; a state.json of an older palace, without the
// config's digest, resumes and has it recorded (issue 47).
func TestRunRefusesEditedConfig(t *testing.T) {
	c := tinyConfig(t)
	dir := t.TempDir()
	st, _ := store.NewDir(dir)
	st.Write(loop.ConfigKey, []byte(looptest.TinyYAML))
	if err := loop.Run(stopped(), st, c, loop.Options{}); err != nil {
		t.Fatal(err)
	}
	state, _ := st.Read(loop.StateKey)
	if !strings.Contains(string(state), `"config_hash":"`) {
		t.Fatalf("a new run's state.json: %s, want the config's digest", state)
	}
	for _, tc := range []struct{ what, over, want string }{
		{"the seed", "seed: 6", "(changed seed)"},
		{"the network and the search", "network: {blocks: 2}\nselfplay: {search: {simulations: 16, dirichlet_alpha: 0.3}}",
			"(changed network.blocks, selfplay.search.simulations; added selfplay.search.dirichlet_alpha)"},
		{"a key removed", "arena: {accept_score: null}", "(removed arena.accept_score)"},
	} {
		st.Write(loop.ConfigKey, []byte(looptest.Merge(t, looptest.TinyYAML, tc.over)))
		err := loop.Run(stopped(), st, c, loop.Options{})
		wantErr(t, tc.what, err, "config.yaml was edited since the run started "+tc.want, "restore it")
	}
	// Comments, layout and flow style are no change.
	relaid := "# my run\n" + looptest.Merge(t, looptest.TinyYAML, "") + "\n# the end\n"
	st.Write(loop.ConfigKey, []byte(relaid))
	if err := loop.Run(stopped(), st, c, loop.Options{}); err != nil {
		t.Errorf("the config re-laid out: %v", err)
	}

	// An older palace's state.json: the digest is recorded, then kept to.
	st.Write(loop.StateKey, []byte(`{"version":1,"generation":0,"stage":"selfplay"}`+"\n"))
	var log []loop.Event
	if err := loop.Run(stopped(), st, c, loop.Options{Progress: logged(&log)}); err != nil {
		t.Fatalf("a state.json without the config's digest: %v", err)
	}
	if state, _ := st.Read(loop.StateKey); !strings.Contains(string(state), `"config_hash":"`) || !has(log, loop.EventConfigRecorded) {
		t.Errorf("after resuming an older state.json: %s, notices %+v", state, log)
	}
	st.Write(loop.ConfigKey, []byte(looptest.Merge(t, looptest.TinyYAML, "seed: 7")))
	wantErr(t, "the seed edited after the digest was recorded", loop.Run(stopped(), st, c, loop.Options{}), "(changed seed)")
	st.Remove(loop.ConfigKey)
	wantErr(t, "config.yaml removed", loop.Run(stopped(), st, c, loop.Options{}), "config.yaml is missing")
}

// Before training, every shard is checked against its manifest and every
// manifest against its generation's recorded positions: a shard swapped
// for another and a manifest entry removed are refused, not trained on
// (issue 47). The trainer's state is checked against the run's training:
// deleted, or replaced by another network, it is refused rather than
// started over or trained on.
func TestRunRefusesSwappedShardsAndTrainer(t *testing.T) {
	if testing.Short() {
		t.Skip("plays and trains a generation")
	}
	c := tinyConfig(t)
	dir := t.TempDir()
	st, _ := store.NewDir(dir)
	ctx := context.Background()
	if err := loop.Run(ctx, st, c, loop.Options{StopAfter: stopAt(0, loop.StageTrain)}); err != nil {
		t.Fatal(err)
	}
	once := loop.Options{StopAfter: func(loop.State) bool { return true }}
	spDir := st.Local(loop.SelfplayKey(0))
	first, second := filepath.Join(spDir, "shard-000000.shard"), filepath.Join(spDir, "shard-000001.shard")
	orig, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := os.ReadFile(second)
	os.WriteFile(first, other, 0o644)
	wantErr(t, "a swapped shard", loop.Run(ctx, st, c, once), "generation 0's self-play", first, "the manifest says", "restore the shard")
	os.WriteFile(first, orig, 0o644)

	manifest := st.Local(loop.ManifestKey(0))
	origManifest, _ := os.ReadFile(manifest)
	var m map[string]any
	json.Unmarshal(origManifest, &m)
	shards := m["shards"].([]any)
	m["shards"] = shards[:len(shards)-1]
	cut, _ := json.Marshal(m)
	os.WriteFile(manifest, cut, 0o644)
	wantErr(t, "a manifest entry removed", loop.Run(ctx, st, c, once), loop.ManifestKey(0)+" lists", "metrics.jsonl says generation 0's self-play made")
	os.WriteFile(manifest, origManifest, 0o644)

	// Restored, the run trains.
	if err := loop.Run(ctx, st, c, loop.Options{StopAfter: stopAt(0, loop.StageArena)}); err != nil {
		t.Fatal(err)
	}
	stateFile := st.Local(loop.TrainKey)
	trainer, err := model.Load(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	origState, _ := os.ReadFile(stateFile)
	os.Remove(stateFile)
	wantErr(t, "the trainer's state deleted", loop.Run(stopped(), st, c, loop.Options{}), "train/state.palnet is missing, but the run's training reached step")
	gen0, _ := model.Load(st.Local(loop.NetKey(0)))
	gen0.Save(stateFile)
	wantErr(t, "generation 0 as the trainer", loop.Run(stopped(), st, c, loop.Options{}), "train/state.palnet is at step 0, but the run's training reached step")
	gen0.Steps = trainer.Steps
	gen0.Save(stateFile)
	wantErr(t, "a foreign network at the trainer's step", loop.Run(stopped(), st, c, loop.Options{}),
		fmt.Sprintf("train/state.palnet holds network %s at step %d", gen0.Weights.ID(), trainer.Steps), "restore the trainer's state")
	os.WriteFile(stateFile, origState, 0o644)
	if err := loop.Run(stopped(), st, c, loop.Options{}); err != nil {
		t.Errorf("the trainer's state restored: %v", err)
	}
}
