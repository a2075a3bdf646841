package loop_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/store"
)

func TestMain(m *testing.M) {
	if os.Getenv("PALACE_BLAS") == "" {
		os.Setenv("PALACE_BLAS", "off") // batch-independent outputs: reruns are exact
	}
	if os.Getenv("PALACE_KERNEL") == "" {
		os.Setenv("PALACE_KERNEL", "blas") // the same numbers on every CPU: the pins hold anywhere
	}
	os.Exit(m.Run())
}

func tinyConfig(t *testing.T) loop.Config {
	t.Helper()
	c, err := loop.ParseConfig([]byte(looptest.TinyYAML), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runStoppedOnce runs c in st with o, stopped the first time stopAt
// says so of the state reached, then resumed to its end.
func runStoppedOnce(t *testing.T, st store.Store, c loop.Config, o loop.Options, stopAt func(loop.State) bool) {
	t.Helper()
	stopped := false
	o.StopAfter = func(s loop.State) bool {
		if !stopped && stopAt(s) {
			stopped = true
			return true
		}
		return false
	}
	if err := loop.Run(context.Background(), st, c, o); err != nil {
		t.Fatal(err)
	}
	if !stopped {
		t.Fatal("the run never reached the state to stop at")
	}
	if err := loop.Run(context.Background(), st, c, o); err != nil {
		t.Fatalf("resuming: %v", err)
	}
}

// runTiny runs the tiny run to its end in a new directory with o.
func runTiny(t *testing.T, o loop.Options) (loop.Config, string, store.Store) {
	t.Helper()
	c := tinyConfig(t)
	dir := t.TempDir()
	st, _ := store.NewDir(dir)
	if err := loop.Run(context.Background(), st, c, o); err != nil {
		t.Fatal(err)
	}
	return c, dir, st
}

// checkRun checks every artifact of a finished two-generation run: what
// looptest.CheckRun checks of any run, and that candidates are saved
// without their optimizer and trainings report their loss.
func checkRun(t *testing.T, dir string, c loop.Config) []loop.Metric {
	t.Helper()
	st, _, ms := looptest.CheckRun(t, dir, c)
	for g := 1; g <= 2; g++ {
		ck, err := model.Load(st.Local(loop.NetKey(g)))
		if err != nil {
			t.Fatalf("generation %d's network: %v", g, err)
		}
		if ck.Steps == 0 || ck.Optimizer != nil {
			t.Errorf("candidate %d: %d steps, optimizer %v", g, ck.Steps, ck.Optimizer != nil)
		}
	}
	for _, m := range ms {
		if m.Stage == loop.StageTrain && (m.Loss == nil || m.Steps == 0) {
			t.Errorf("training of generation %d: %+v", m.Generation, m)
		}
	}
	return ms
}

func TestRunTwoGenerations(t *testing.T) {
	var events []loop.Event
	progress := func(e loop.Event) { events = append(events, e) }
	c, dir, _ := runTiny(t, loop.Options{CodeVersion: "test", Progress: progress})
	checkRun(t, dir, c)
	checkEvents(t, events)
}

// checkEvents checks a two-generation run's reports: each stage announced
// and completed in order, self-play's and the stages' figures, the gates'
// verdicts, and the closing line.
func checkEvents(t *testing.T, events []loop.Event) {
	t.Helper()
	var stages, done []string
	count := map[loop.EventKind]int{}
	for _, e := range events {
		count[e.Kind]++
		switch e.Kind {
		case loop.EventStage:
			stages = append(stages, fmt.Sprintf("%d %s", e.Generation, e.Stage))
		case loop.EventStageDone:
			done = append(done, fmt.Sprintf("%d %s", e.Generation, e.Stage))
		case loop.EventSelfplay:
			if e.Stage != loop.StageSelfplay {
				t.Errorf("self-play's report in stage %s", e.Stage)
			}
		case loop.EventTrain:
			if e.Stage != loop.StageTrain || e.Train.Step == 0 || e.Train.Target == 0 {
				t.Errorf("training's figures %+v in stage %s", e.Train, e.Stage)
			}
		case loop.EventArena:
			if e.Stage != loop.StageArena || e.Arena.Games == 0 {
				t.Errorf("the match's figures %+v in stage %s", e.Arena, e.Stage)
			}
		case loop.EventGate:
			// The gate's decision on the candidate its stage trained, with
			// the match it decided on.
			if e.Stage != loop.StageGate || e.Metric.Generation != e.Generation || e.Metric.Match == nil || e.Metric.Reason == "" {
				t.Errorf("gate %+v", e)
			}
		}
	}
	// (Self-play is announced again for each round it adds.)
	if want := []string{"0 selfplay", "0 train", "0 arena", "1 selfplay", "1 train", "1 arena"}; !slices.Equal(slices.Compact(stages), want) {
		t.Errorf("stages announced %v, want %v", stages, want)
	}
	if want := []string{"0 selfplay", "0 train", "0 arena", "0 gate", "1 selfplay", "1 train", "1 arena", "1 gate"}; !slices.Equal(done, want) {
		t.Errorf("stages done %v, want %v", done, want)
	}
	if count[loop.EventGate] != 2 || count[loop.EventTrain] == 0 || count[loop.EventArena] == 0 || count[loop.EventSelfplay] < 4 {
		t.Errorf("events by kind %v", count)
	}
	if last := events[len(events)-1]; last.Kind != loop.EventComplete || last.Generation != 2 {
		t.Errorf("last event %+v", last)
	}
}

// A run stopped after every stage, and cut short inside stages, ends as
// a run left alone does: same networks, same decisions.
func TestRunResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the loop twice")
	}
	for _, v := range []struct{ name, over string }{
		{"gated", ""},
		// The weight average's candidates are not the trainer's weights:
		// a resume once refused every such run.
		{"ungated-weight-average", "gating: false\ntrain: {weight_average: 0.9}"},
	} {
		t.Run(v.name, func(t *testing.T) {
			c, err := loop.ParseConfig([]byte(looptest.Merge(t, looptest.TinyYAML, v.over)), "tiny")
			if err != nil {
				t.Fatal(err)
			}
			whole := t.TempDir()
			wst, _ := store.NewDir(whole)
			if err := loop.Run(context.Background(), wst, c, loop.Options{}); err != nil {
				t.Fatal(err)
			}
			want := checkRun(t, whole, c)
			cut := t.TempDir()
			cst, _ := store.NewDir(cut)
			for i := 0; i < 40; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(150+40*i)*time.Millisecond)
				stops := 0
				err := loop.Run(ctx, cst, c, loop.Options{StopAfter: func(loop.State) bool { stops++; return stops == 2 }})
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				if b, _ := cst.Read(loop.StateKey); strings.Contains(string(b), `"generation":2`) {
					break
				}
			}
			got := checkRun(t, cut, c)
			for i := range want {
				w, g := want[i], got[i]
				// Training's steps and losses too: the whole generation's,
				// however often it was cut.
				if w.Stage != g.Stage || w.Generation != g.Generation || w.Promoted != g.Promoted || w.TotalSteps != g.TotalSteps || w.TotalPositions != g.TotalPositions ||
					w.Steps != g.Steps || w.LossSteps != g.LossSteps || !reflect.DeepEqual(w.Loss, g.Loss) || !reflect.DeepEqual(w.LastLoss, g.LastLoss) {
					t.Errorf("metric %d: uninterrupted %+v, resumed %+v", i, w, g)
				}
			}
			for g := 0; g <= 2; g++ {
				a, _ := model.Load(filepath.Join(whole, loop.NetKey(g)))
				b, _ := model.Load(filepath.Join(cut, loop.NetKey(g)))
				if a.Weights.ID() != b.Weights.ID() {
					t.Errorf("generation %d: uninterrupted %s, resumed %s", g, a.Weights.ID(), b.Weights.ID())
				}
			}
		})
	}
}

// A second process on a run directory in use is refused.
func TestRunLock(t *testing.T) {
	c := tinyConfig(t)
	st, _ := store.NewDir(t.TempDir())
	var second error
	err := loop.Run(context.Background(), st, c, loop.Options{StopAfter: func(loop.State) bool {
		second = loop.Run(context.Background(), st, c, loop.Options{})
		return true
	}})
	if err != nil {
		t.Fatal(err)
	}
	if second == nil || !strings.Contains(second.Error(), "another palace run") {
		t.Errorf("a second run on the same directory: %v", second)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"seed: 1", "missing rules"},
		{"rules: xiangqi\nseed: 1\nbogus: 2", "bogus"},
		{"rules: xiangqi\nseed: 1\nselfplay: {output: x}", "output"},
		{"rules: xiangqi\nseed: 1\ntrain: {batch: 0}", "batch"},
		{"rules: xiangqi\nseed: 1\narena: {sprt: {elo0: 10, elo1: 5}}", "sprt"},
		{"rules: nosuch\nseed: 1", "rules"},
		{"rules: xiangqi\nseed: 1\nselfplay: {concurrent_gmes: 3}", "unknown keys concurrent_gmes"},
		{"rules: xiangqi\nseed: 1\ntrain: {window: {min_rowz: 3}}", "unknown key min_rowz in window"},
		{"rules: xiangqi\nseed: 1\ngate: {search: {simz: 3}}", "unknown key simz in search"},
		{"rules: xiangqi\nseed: 1\nnetwork: {init: a.palnet, blocks: 4, seed: 2}", "leave out blocks, seed"},
		{"rules: xiangqi\nseed: 1\narena: {evaluators: 100000000}", "evaluators 100000000"},
		{"rules: xiangqi\nseed: 1\nladder: {evaluators: 100000000}", "evaluators 100000000"},
		{"rules: xiangqi\nseed: 1\nselfplay: {cache_entries: 1000000000}", "cache_entries"},
		{"rules: xiangqi\nseed: 1\narena: {pairs: 1000000000000}", "pairs 1000000000000, want 1 to 1048576"},
		{"rules: xiangqi\nseed: 1\narena: {concurrent_games: 100000000}", "concurrent_games 100000000"},
		{"rules: xiangqi\nseed: 1\nladder: {pairs: 1000000000000}", "pairs 1000000000000"},
		{"rules: xiangqi\nseed: 1\nselfplay: {games: 4.5}", "line 3: games: 4.5: want a whole number"},
		{"rules: xiangqi\nseed: 1\nselfplay: {games: 1e18}", "games: 1e18: too large a whole number to read exactly"},
		{"rules: xiangqi\nseed: 18446744073709551616", "seed: 18446744073709551616: too large"},
		{"rules: xiangqi\nseed: 1\nselfplay: {games: 100000000}", "games: 100000000, want 1 to 16777216"},
		// Issue 47: values that pass a range check and later make NaN, a
		// wrapped step count or a setting never used.
		{"rules: xiangqi\nseed: 1\narena: {sprt: {elo0: 1e308, elo1: 1.7e308}}", "gate: sprt: stats: elo bounds 1e+308, 1.7e+308 are too far out"},
		{"rules: xiangqi\nseed: 1\ntrain: {samples_per_position: 1e300}", "samples_per_position 1e+300, want > 0 and ≤ 1000"},
		{"rules: xiangqi\nseed: 1\ntrain: {records: /etc}", `records "/etc", records_generations 0 are never used with records_share 0`},
		{"rules: xiangqi\nseed: 5.0", "line 2: seed: 5.0: want a whole number written as one (5)"},
		{"rules: xiangqi\nseed: 1\ngenerations: 1e1", "line 3: generations: 1e1: want a whole number written as one (10)"},
	} {
		_, err := loop.ParseConfig([]byte(tc.yaml), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error about %s", tc.yaml, err, tc.want)
		}
	}
}

func TestConfigDrawScore(t *testing.T) {
	cfg, err := loop.ParseConfig([]byte("rules: xiangqi\nseed: 1\nselfplay: {search: {draw_score: -0.1}}\ngate: {search: {draw_score: -0.2}}"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Selfplay.Search.DrawScore != -0.1 || cfg.Gate.Search.DrawScore != -0.2 {
		t.Errorf("draw scores: self-play %v, gate %v; want -0.1, -0.2", cfg.Selfplay.Search.DrawScore, cfg.Gate.Search.DrawScore)
	}
	w, err := model.NewRandom(model.Config{Planes: encode.Planes, PolicySize: encode.PolicySize(), Blocks: 1, Filters: 8,
		PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := loop.PlayerName(cfg, 3, w), "gen3:"+w.ID()+"/sims=32,draw=-0.2"; got != want {
		t.Errorf("player name %q, want %q", got, want)
	}
	if _, err := loop.ParseConfig([]byte("rules: xiangqi\nseed: 1\narena: {search: {draw_score: -3}}"), "t.yaml"); err == nil || !strings.Contains(err.Error(), "DrawScore") {
		t.Errorf("draw_score -3: %v, want a DrawScore error", err)
	}
}

// A run whose network section names a network file starts from it:
// generation 0 is that network (same weights, so the same id), untrained
// as far as the run's trainer counts, and says where it came from.
func TestRunFromInitNetwork(t *testing.T) {
	dir := t.TempDir()
	shape := model.Config{Planes: encode.Planes, PolicySize: encode.PolicySize(), Blocks: 1, Filters: 8, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}
	master, err := model.RandomCheckpoint(shape, []*rules.RuleSet{rules.MustPreset("xiangqi")}, model.Provenance{Seed: 77, Note: "trained on records", Parent: "feedface00000000"})
	if err != nil {
		t.Fatal(err)
	}
	master.Steps, master.Samples = 5000, 5000*256 // far past the run's own step target
	file := filepath.Join(dir, "master.palnet")
	if err := master.Save(file); err != nil {
		t.Fatal(err)
	}
	c, err := loop.ParseConfig([]byte(looptest.Merge(t, looptest.TinyYAML,
		"generations: 1\nnetwork: {blocks: null, filters: null, policy_channels: null, value_channels: null, value_hidden: null, seed: null, init: "+file+"}")), "init")
	if err != nil {
		t.Fatal(err)
	}
	if c.NetworkInit != file {
		t.Fatalf("network init %q, want %q", c.NetworkInit, file)
	}
	run := filepath.Join(dir, "run")
	st, _ := store.NewDir(run)
	if err := loop.Run(context.Background(), st, c, loop.Options{CodeVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	gen0, err := model.Load(st.Local(loop.NetKey(0)))
	if err != nil {
		t.Fatal(err)
	}
	id := master.Weights.ID()
	if gen0.Weights.ID() != id || gen0.Steps != 0 || gen0.Optimizer != nil || gen0.Provenance.Parent != id ||
		!strings.Contains(gen0.Provenance.Note, file) || !strings.Contains(gen0.Provenance.Note, "trained on records") {
		t.Errorf("generation 0: network %s (want %s), %d steps, provenance %+v", gen0.Weights.ID(), id, gen0.Steps, gen0.Provenance)
	}
	gen1, err := model.Load(st.Local(loop.NetKey(1)))
	if err != nil {
		t.Fatal(err)
	}
	if gen1.Steps == 0 || gen1.Weights.Config != shape {
		t.Errorf("generation 1: %d steps, shape %+v; want training from the file's network", gen1.Steps, gen1.Weights.Config)
	}
	// Each network names its run, its generation and what it descends
	// from: generation 0 the file's ancestry, generation 1 generation 0
	// too (palace net info prints them).
	if got := gen0.Ancestry(); !slices.Equal(got, []string{"feedface00000000"}) {
		t.Errorf("generation 0 descends from %v, want the file's parent", got)
	}
	p := gen1.Provenance
	if p.Run != st.String() || p.Generation != 1 || p.Parent != id || !slices.Equal(p.Lineage, []string{"feedface00000000", id}) {
		t.Errorf("generation 1: run %q, generation %d, parent %s, lineage %v; want %q, 1, %s, [feedface00000000 %s]",
			p.Run, p.Generation, p.Parent, p.Lineage, st.String(), id, id)
	}
}

// network: {init: builtin} starts a run from the network palace ships for
// the run's game: generation 0 is that network, untrained as far as the
// run counts, and its provenance names it.
func TestInitialNetworkBuiltin(t *testing.T) {
	for _, game := range []string{"xiangqi", "janggi"} {
		c, err := loop.ParseConfig([]byte(looptest.Merge(t, looptest.TinyYAML,
			"rules: "+game+"\nnetwork: {blocks: null, filters: null, policy_channels: null, value_channels: null, value_hidden: null, seed: null, init: builtin}")), "builtin")
		if err != nil {
			t.Fatal(err)
		}
		rs := rules.MustPreset(game)
		shipped, err := model.LoadBuiltin(rs)
		if err != nil {
			t.Fatal(err)
		}
		gen0, err := loop.InitialNetwork(c, rs, "test")
		if err != nil {
			t.Fatal(err)
		}
		id := shipped.Weights.ID()
		if gen0.Weights.ID() != id || gen0.Steps != 0 || gen0.Optimizer != nil || gen0.Provenance.Parent != id ||
			!strings.Contains(gen0.Provenance.Note, "builtin") {
			t.Errorf("%s: generation 0 is network %s (want the shipped %s), %d steps, provenance %+v", game, gen0.Weights.ID(), id, gen0.Steps, gen0.Provenance)
		}
	}
}

// Records to train on that are not a game set are refused when the run
// starts, before its first self-play (issue 47: records was accepted and
// only read, or never, later).
func TestRunRefusesRecordsThatAreNoGameSet(t *testing.T) {
	c := tinyConfig(t)
	c.Train.Records, c.Train.RecordsShare, c.Train.RecordsGenerations = t.TempDir(), 0.25, 1
	st, _ := store.NewDir(t.TempDir())
	err := loop.Run(context.Background(), st, c, loop.Options{})
	if err == nil || !strings.Contains(err.Error(), "loop: train: records: train: game set") {
		t.Errorf("records of no game set: %v", err)
	}
	if keys, _ := st.List(""); len(keys) > 0 {
		t.Errorf("the run started before the records were checked: %v", keys)
	}
}
