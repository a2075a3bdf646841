package train_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/internal/runlock"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/train"
)

// TestRunGamesJob runs a games job in its work directory: whole, and
// stopped and resumed to the same network; a second process kept out by
// the lock; another job's inputs, a directory of other files and a
// network of the other game refused.
func TestRunGamesJob(t *testing.T) {
	rs := ruleSet(t, "xiangqi")
	dir := t.TempDir()
	games := filepath.Join(dir, "games.jsonl")
	writeGames(t, games, randomGames(t, rs, 24, 16, 5), rs)
	cfg := tinyGamesConfig()
	cfg.Epochs, cfg.EvalEvery = 1, 6
	job := func(name string) train.GamesRun {
		return train.GamesRun{Dir: filepath.Join(dir, name+".work"), Out: filepath.Join(dir, name+".palnet"), Inputs: []string{games},
			Filter: train.GameFilter{HeldOut: 0.25, Seed: 1}, Config: cfg, ConfigText: "tiny", Evaluators: 1, CodeVersion: "test"}
	}

	whole := job("whole")
	var events []train.GamesEvent
	res, err := train.RunGamesJob(context.Background(), whole, func(e train.GamesEvent) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	counts := map[train.GamesEventKind]int{}
	var set *train.GameSet
	var plan train.GamesPlan
	for _, e := range events {
		counts[e.Kind]++
		switch e.Kind {
		case train.GamesSetReady:
			set = e.Set
		case train.GamesTraining:
			plan = e.Plan
		}
	}
	if counts[train.GamesSetReady] != 1 || counts[train.GamesTraining] != 1 || set == nil || set.Read != 24 {
		t.Fatalf("events %v, game set %+v", counts, set)
	}
	if plan.Steps != res.Steps || plan.Steps != train.GamesSteps(cfg.Train, set.Train.Positions, 1) || plan.Network.Filters != tinyNet.Filters || plan.Batch != cfg.Train.Batch {
		t.Errorf("plan %+v, result %+v", plan, res)
	}
	if counts[train.GamesPoint] != len(res.Curve.Points) || counts[train.GamesStep] == 0 {
		t.Errorf("%d points, %d step reports; the curve has %d points", counts[train.GamesPoint], counts[train.GamesStep], len(res.Curve.Points))
	}
	out, err := model.Load(whole.Out)
	if err != nil {
		t.Fatal(err)
	}
	wantKept, wantStep := "last", res.Steps
	if res.Curve.BestStep != res.Steps {
		wantKept, wantStep = "best", res.Curve.BestStep
	}
	if res.Kept != wantKept || res.Step != wantStep || out.Steps != wantStep || out.Weights.ID() != res.Network || out.Optimizer != nil {
		t.Errorf("result %+v: wrote step %d's network %s, best step %d", res, out.Steps, out.Weights.ID(), res.Curve.BestStep)
	}
	if !strings.HasPrefix(out.Provenance.Note, "trained on ") || out.Provenance.Parent != "" {
		t.Errorf("provenance %+v", out.Provenance)
	}
	// job.json's layout is what earlier work directories hold: a resumed
	// job compares its bytes.
	data, err := os.ReadFile(filepath.Join(whole.Dir, "job.json"))
	if err != nil || !strings.HasPrefix(string(data), "{\n  \"format\": \"palace-train-games\",\n  \"inputs\": [\n    \""+games+"\"\n  ],\n  \"filter\": {\n    \"held_out\": 0.25,\n    \"seed\": 1\n  },\n  \"config\": \"tiny\",\n  \"epochs\": 1,\n  \"eval_every\": 6,\n  \"network\": {") {
		t.Errorf("job.json: %v\n%s", err, data)
	}
	// --keep last of the finished job: its last step's network, nothing
	// trained again.
	last := whole
	last.KeepLast, last.Out = true, filepath.Join(dir, "last.palnet")
	if again, err := train.RunGamesJob(context.Background(), last, nil); err != nil || again.Kept != "last" || again.Step != res.Steps || len(again.Curve.Points) != len(res.Curve.Points) {
		t.Errorf("keep last: %v, %+v", err, again)
	}

	// Stopped while the games are read, then part way through training;
	// resumed, it ends where the uninterrupted job did.
	cut := job("cut")
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := train.RunGamesJob(stopped, cut, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped before the game set: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cut.Dir, "gameset")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a stopped build left a game set: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var locked error
	part, err := train.RunGamesJob(ctx, cut, func(e train.GamesEvent) {
		switch e.Kind {
		case train.GamesSetReady:
			_, locked = train.RunGamesJob(context.Background(), cut, nil)
		case train.GamesStep:
			if e.Step.Step >= 8 {
				cancel()
			}
		}
	})
	if !errors.Is(err, context.Canceled) || part == nil || part.Curve == nil || len(part.Curve.Points) < 2 || part.Network != "" {
		t.Fatalf("stopped job: %v, %+v", err, part)
	}
	if !errors.Is(locked, runlock.ErrLocked) {
		t.Errorf("a second run of a running job: %v, want the lock's refusal", locked)
	}
	if _, err := os.Stat(cut.Out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a stopped job wrote its network: %v", err)
	}
	got, err := train.RunGamesJob(context.Background(), cut, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Network != res.Network || got.Steps != res.Steps || len(got.Curve.Points) != len(res.Curve.Points) {
		t.Errorf("resumed job wrote %s of %d steps, %d points; uninterrupted %s of %d steps, %d points",
			got.Network, got.Steps, len(got.Curve.Points), res.Network, res.Steps, len(res.Curve.Points))
	}

	// Other inputs in the same directory: refused, the job untouched.
	other := whole
	other.Filter.MinPlies = 10
	before, _ := os.ReadFile(filepath.Join(whole.Dir, "job.json"))
	if _, err := train.RunGamesJob(context.Background(), other, nil); err == nil || !strings.Contains(err.Error(), "was started with other games, filters, config or initial network") {
		t.Errorf("another filter in the same directory: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(whole.Dir, "job.json")); string(after) != string(before) {
		t.Error("the refused job rewrote job.json")
	}

	// A directory of other files is not a work directory.
	foreign := job("foreign")
	os.Mkdir(foreign.Dir, 0o755)
	os.WriteFile(filepath.Join(foreign.Dir, "notes.txt"), []byte("mine"), 0o644)
	if _, err := train.RunGamesJob(context.Background(), foreign, nil); err == nil ||
		err.Error() != "train: "+foreign.Dir+" is not a palace train job (no job.json) and holds other files (notes.txt); give a new or empty work directory" {
		t.Errorf("a directory of other files: %v", err)
	}
	if entries, _ := os.ReadDir(foreign.Dir); len(entries) != 1 {
		t.Errorf("the refused job left %d entries, want notes.txt only", len(entries))
	}

	// A network of the other game does not start; one of this game is
	// the written network's parent.
	janggi, err := model.RandomCheckpoint(tinyNet, []*rules.RuleSet{ruleSet(t, "janggi")}, model.Provenance{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	wrong := job("janggi")
	wrong.Init, wrong.InitName = janggi, "janggi.palnet"
	if _, err := train.RunGamesJob(context.Background(), wrong, nil); err == nil || !strings.Contains(err.Error(), "initial network janggi.palnet: model: the network was made for janggi") {
		t.Errorf("a janggi network to learn xiangqi from: %v", err)
	}
	init := initial(t)
	short := job("init")
	short.Init, short.InitName = init, "init.palnet"
	short.Config.Epochs, short.Config.EvalEvery = 0.05, 0
	if _, err := train.RunGamesJob(context.Background(), short, nil); err != nil {
		t.Fatal(err)
	}
	if ck, err := model.Load(short.Out); err != nil {
		t.Error(err)
	} else if ck.Provenance.Parent != init.Weights.ID() {
		t.Errorf("from an initial network: parent %q, want %s", ck.Provenance.Parent, init.Weights.ID())
	}
}
