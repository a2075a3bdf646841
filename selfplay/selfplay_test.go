package selfplay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
)

// checkDir checks a finished run's directory against its config: Verify
// finds nothing wrong; the manifest, the shards and the game records hold
// games 0 to n-1 once each; records decode, carry sound targets and agree
// with their games. It returns the games by id.
func checkDir(t *testing.T, cfg testRun) []gamerec.Game {
	t.Helper()
	dir := cfg.Output
	rep, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("verify: %s", p)
	}
	if rep.Games != cfg.Games {
		t.Errorf("verify replayed %d games, want %d", rep.Games, cfg.Games)
	}
	m, err := datasets.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var manifestGames int64
	shardIDs := map[uint64]int{}
	var games []gamerec.Game
	for _, s := range m.Shards {
		manifestGames += s.Games
		gf, err := gamerec.Read(GamesPath(filepath.Join(dir, s.Name)))
		if err != nil {
			t.Fatal(err)
		}
		byGame := map[uint64]*gamerec.Game{}
		for i := range gf.Games {
			byGame[gf.Games[i].ID] = &gf.Games[i]
		}
		games = append(games, gf.Games...)
		r, err := datasets.Open(filepath.Join(dir, s.Name))
		if err != nil {
			t.Fatal(err)
		}
		full := map[uint64]int{}
		for rec, err := range r.Records() {
			if err != nil {
				t.Fatal(err)
			}
			g := byGame[rec.GameID]
			if g == nil {
				t.Fatalf("%s: a record of game %d, which its game records lack", s.Name, rec.GameID)
			}
			if rec.Ply == 0 {
				shardIDs[rec.GameID]++
			}
			if rec.Full {
				full[rec.GameID]++
			}
			var sum float64
			for _, e := range rec.Policy {
				sum += float64(e.P)
			}
			if len(rec.Policy) == 0 || math.Abs(sum-1) > 0.01 {
				t.Fatalf("game %d ply %d: policy of %d moves sums to %v", rec.GameID, rec.Ply, len(rec.Policy), sum)
			}
			if w := rec.WDL; math.Abs(float64(w[0]+w[1]+w[2])-1) > 0.01 || math.Abs(float64(rec.Value-(w[0]-w[2]))) > 0.01 {
				t.Fatalf("game %d ply %d: value %v, WDL %v", rec.GameID, rec.Ply, rec.Value, w)
			}
		}
		r.Close()
		for id, g := range byGame {
			if full[id] != g.Full {
				t.Errorf("game %d: %d full records, its game record says %d", id, full[id], g.Full)
			}
		}
	}
	if manifestGames != int64(cfg.Games) || len(games) != cfg.Games {
		t.Errorf("the manifest counts %d games and the game records hold %d, want %d", manifestGames, len(games), cfg.Games)
	}
	games = byID(games)
	for i, g := range games {
		if g.ID != uint64(i) || shardIDs[g.ID] != 1 {
			t.Fatalf("game ids: position %d holds game %d (%d times in the shards); want 0..%d once each", i, g.ID, shardIDs[g.ID], cfg.Games-1)
		}
		if g.Seed != gameSeed(cfg.Seed, g.ID) {
			t.Errorf("game %d: seed %d, want gameSeed(%d, %d)", g.ID, g.Seed, cfg.Seed, g.ID)
		}
	}
	return games
}

// A run under each game's rule sets (janggi with setups drawn from a
// skewed distribution) writes shards and game records that agree, ids
// 0..n-1 once each, every game replaying to its stored result.
func TestRun(t *testing.T) {
	for _, tc := range []struct {
		rules  string
		setups SetupWeights
		check  func(t *testing.T, g gamerec.Game)
	}{
		{rules: "xiangqi", check: func(t *testing.T, g gamerec.Game) {
			if g.Setup != "" || g.StartFEN != rules.XiangqiStartFEN {
				t.Errorf("game %d: setup %q, start %s", g.ID, g.Setup, g.StartFEN)
			}
		}},
		{rules: "janggi", setups: SetupWeights{rules.SangMaMaSang: {rules.MaSangSangMa: 1, rules.SangMaSangMa: 3}},
			check: func(t *testing.T, g gamerec.Game) {
				if g.Setup != "sangmamasang,masangsangma" && g.Setup != "sangmamasang,sangmasangma" {
					t.Errorf("game %d: setup %s, outside the distribution", g.ID, g.Setup)
				}
				if g.StartFEN != rules.JanggiSetupFEN(rules.SangMaMaSang, rules.MaSangSangMa) && g.StartFEN != rules.JanggiSetupFEN(rules.SangMaMaSang, rules.SangMaSangMa) {
					t.Errorf("game %d: setup %s but start %s", g.ID, g.Setup, g.StartFEN)
				}
			}},
		{rules: "janggimodern"},
	} {
		t.Run(tc.rules, func(t *testing.T) {
			cfg := tinyConfig(t, tc.rules, 10)
			cfg.JanggiSetups = tc.setups
			if raceEnabled && tc.rules == "janggimodern" {
				t.Skip("the race detector makes the network slow: two rule sets suffice")
			}
			st, err := Run(context.Background(), cfg.Config, cfg.Job, Options{CodeVersion: "test"}) // the network, always
			if err != nil {
				t.Fatal(err)
			}
			if st.Played != 10 || st.Finished != 10 || st.Before != 0 || st.Shards != 3 {
				t.Errorf("stats %+v: want 10 games played in 3 shards", st)
			}
			if st.Positions != st.Plies || st.Network.Positions == 0 || st.Network.MeanBatch() < 1 {
				t.Errorf("stats %+v", st)
			}
			games := checkDir(t, cfg)
			rs := preset(t, tc.rules, cfg.MaxPlies)
			ends := map[string]int{}
			for _, g := range games {
				if tc.check != nil {
					tc.check(t, g)
				}
				if _, err := g.ReplayStrict(rs); err != nil {
					t.Error(err)
				}
				ends[g.Result+" "+g.Reason]++
			}
			t.Logf("%s: %d plies, %s", tc.rules, st.Plies, fmt.Sprint(ends))
		})
	}
}

// The same seed gives the same games, however many run at once and
// however they are sharded; another seed gives other games.
func TestDeterministic(t *testing.T) {
	a := tinyConfig(t, "janggi", 8)
	mustRun(t, a)
	b := tinyConfig(t, "janggi", 8)
	b.ConcurrentGames, b.GamesPerShard, b.Evaluators, b.BatchSize = 4, 3, 2, 3
	mustRun(t, b)
	ga, gb := checkDir(t, a), checkDir(t, b)
	if !reflect.DeepEqual(ga, gb) {
		t.Errorf("two runs with seed %d differ", a.Seed)
	}
	c := tinyConfig(t, "janggi", 8)
	c.Seed++
	mustRun(t, c)
	gc := checkDir(t, c)
	same := 0
	for i := range gc {
		if gc[i].Moves == ga[i].Moves {
			same++
		}
	}
	if same == len(gc) {
		t.Errorf("seeds %d and %d played the same games", a.Seed, c.Seed)
	}
}

// Raising the target resumes: two steps give the games of one
// uninterrupted run, and a third run finds nothing to do.
func TestResume(t *testing.T) {
	ref := tinyConfig(t, "xiangqi", 10)
	mustRun(t, ref)
	want := checkDir(t, ref)

	cfg := tinyConfig(t, "xiangqi", 4)
	cfg.GamesPerShard = 3
	mustRun(t, cfg)
	cfg.Games = 10
	st := mustRun(t, cfg)
	if st.Before != 4 || st.Played != 6 {
		t.Errorf("second step: %d before, %d played; want 4 and 6", st.Before, st.Played)
	}
	if got := checkDir(t, cfg); !reflect.DeepEqual(got, want) {
		t.Errorf("two steps played other games than one run")
	}
	st = mustRun(t, cfg)
	if st.Before != 10 || st.Played != 0 || st.Shards != 0 {
		t.Errorf("a finished directory: %+v", st)
	}
}

// A run stopped through its context commits the games it finished, and the
// next run completes the set: the games of an uninterrupted run.
func TestResumeAfterCancel(t *testing.T) {
	const games = 40
	// Every run here evaluates with the hash-based Random evaluator, held
	// in the stopped run: from half the calls one uninterrupted run makes,
	// each call waits for the cancel (sent when the first shard is
	// committed), so the cancel lands with games left to play however
	// slowly the shard writer runs.
	evaluator := func(calls *atomic.Int64, hold int64, release <-chan struct{}) Options {
		return Options{CodeVersion: "test", Evaluator: func() (nn.Evaluator, string, error) {
			return heldEvaluator{nn.NewRandom(encode.InputSize, encode.PolicySize(), 5), calls, hold, release}, "random-5", nil
		}}
	}
	ref := tinyConfig(t, "janggi", games)
	var refCalls atomic.Int64
	if _, err := Run(context.Background(), ref.Config, ref.Job, evaluator(&refCalls, 0, nil)); err != nil {
		t.Fatal(err)
	}
	want := checkDir(t, ref)

	cfg := tinyConfig(t, "janggi", games)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt := evaluator(new(atomic.Int64), refCalls.Load()/2, ctx.Done())
	opt.Progress = func(ev Event) {
		if ev.Kind == EventShard {
			cancel()
		}
	}
	st, err := Run(ctx, cfg.Config, cfg.Job, opt)
	if err != nil {
		t.Fatal(err)
	}
	if st.Played < cfg.GamesPerShard || st.Played >= cfg.Games {
		t.Fatalf("stopped after the first shard: %+v", st)
	}
	rep, err := Verify(cfg.Output)
	if err != nil || len(rep.Problems) > 0 || rep.Games != st.Played {
		t.Fatalf("stopped run's directory: %+v, %v", rep, err)
	}
	st2, err := Run(context.Background(), cfg.Config, cfg.Job, evaluator(new(atomic.Int64), 0, nil))
	if err != nil {
		t.Fatal(err)
	}
	if st2.Before != st.Played || st.Played+st2.Played != cfg.Games {
		t.Errorf("resumed: %+v after %+v", st2, st)
	}
	if got := checkDir(t, cfg); !reflect.DeepEqual(got, want) {
		t.Errorf("a stopped and resumed run played other games than one run")
	}
}

// heldEvaluator counts the calls of all its copies in calls and, past the
// hold'th (hold > 0), makes each wait until release is closed.
type heldEvaluator struct {
	nn.Evaluator
	calls   *atomic.Int64
	hold    int64
	release <-chan struct{}
}

func (h heldEvaluator) Evaluate(in []nn.Input, out []nn.Output) error {
	if n := h.calls.Add(1); h.hold > 0 && n > h.hold {
		<-h.release
	}
	return h.Evaluator.Evaluate(in, out)
}

// The commit point is the manifest entry: a shard and game records left
// unlisted by a crash (and temporary files) are removed on restart and
// their games played again, so the result is an uninterrupted run's.
func TestResumeRemovesDebris(t *testing.T) {
	ref := tinyConfig(t, "xiangqi", 10)
	mustRun(t, ref)
	want := checkDir(t, ref)

	cfg := tinyConfig(t, "xiangqi", 10)
	mustRun(t, cfg)
	dir := cfg.Output
	// Unlist the last shard, as a kill between its rename and its listing
	// leaves it.
	mpath := filepath.Join(dir, datasets.ManifestName)
	data, err := os.ReadFile(mpath)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	shards := m["shards"].([]any)
	last := shards[len(shards)-1].(map[string]any)["name"].(string)
	m["shards"] = shards[:len(shards)-1]
	data, _ = json.Marshal(m)
	if err := os.WriteFile(mpath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// Game records written just before a kill, and temporary files.
	orphan := filepath.Join(dir, "shard-000042"+GamesSuffix)
	copyFile(t, GamesPath(filepath.Join(dir, "shard-000000.shard")), orphan)
	temps := []string{".shard-000043.shard.tmp-123", ".shard-000043.games.jsonl.tmp-456", ".manifest.json.tmp-789"}
	for _, name := range temps {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(dir, "notes.txt") // not self-play's: left alone
	if err := os.WriteFile(other, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) < 3 { // the unlisted shard, its game records, the orphan
		t.Errorf("verify of a crashed directory: %v", rep.Problems)
	}

	st := mustRun(t, cfg)
	if st.Before+st.Played != cfg.Games || st.Played == 0 {
		t.Errorf("after the crash: %+v", st)
	}
	// The unlisted shard's number is free again: the replayed games took it.
	for _, name := range append([]string{filepath.Base(orphan)}, temps...) {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s is still there", name)
		}
	}
	if m, err := datasets.ReadManifest(dir); err != nil || m.Shards[len(m.Shards)-1].Name != last {
		t.Errorf("the replayed games' shard is not %s", last)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a file self-play did not write was removed: %v", err)
	}
	if got := checkDir(t, cfg); !reflect.DeepEqual(got, want) {
		t.Errorf("the recovered run played other games than one run")
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A directory's games are one configuration's: a run with other settings
// is refused, one with other speeds is not.
func TestResumeRefusesOtherGames(t *testing.T) {
	cfg := tinyConfig(t, "xiangqi", 3)
	mustRun(t, cfg)
	changes := map[string]func(c *testRun){
		"seed":      func(c *testRun) { c.Seed++ },
		"max_plies": func(c *testRun) { c.MaxPlies++; c.Rules = c.RuleSet(c.Rules) },
		"search":    func(c *testRun) { c.Search.Simulations++ },
		"network":   func(c *testRun) { c.RandomNetwork.Seed++ },
		"rules":     func(c *testRun) { c.Rules = c.RuleSet(preset(t, "janggi", 0)) },
	}
	if raceEnabled {
		delete(changes, "network") // the test evaluator stands in for any network
	}
	for name, change := range changes {
		c := cfg
		c.Games = 4
		change(&c)
		_, err := Run(context.Background(), c.Config, c.Job, withTestEvaluator(Options{}))
		if err == nil || !strings.Contains(err.Error(), "another configuration") {
			t.Errorf("%s changed: %v", name, err)
		}
	}
	c := cfg
	c.Games, c.ConcurrentGames, c.CacheEntries, c.GamesPerShard = 4, 1, 10, 1
	if st := mustRun(t, c); st.Played != 1 {
		t.Errorf("other speeds: %+v", st)
	}
}

// A listed shard that is gone or of another size stops a resumed run
// (issue 25's hostile pass: its games counted as played, lost without a
// word), and so does a new run in a directory of other files.
func TestResumeRefusesDamage(t *testing.T) {
	cfg := tinyConfig(t, "xiangqi", 4)
	cfg.GamesPerShard = 2
	mustRun(t, cfg)
	m, err := datasets.ReadManifest(cfg.Output)
	if err != nil || len(m.Shards) < 2 {
		t.Fatalf("%d shards, %v", len(m.Shards), err)
	}
	first := filepath.Join(cfg.Output, m.Shards[0].Name)
	data, _ := os.ReadFile(first)
	os.WriteFile(first, data[:len(data)/2], 0o644)
	second := filepath.Join(cfg.Output, m.Shards[1].Name)
	secondData, _ := os.ReadFile(second)
	os.Remove(second)
	c := cfg
	c.Games = 6
	_, err = Run(context.Background(), c.Config, c.Job, withTestEvaluator(Options{}))
	if err == nil || !strings.Contains(err.Error(), first+" has ") || !strings.Contains(err.Error(), "the directory is damaged") {
		t.Errorf("a truncated shard: %v", err)
	}
	os.WriteFile(first, data, 0o644)
	_, err = Run(context.Background(), c.Config, c.Job, withTestEvaluator(Options{}))
	if err == nil || !strings.Contains(err.Error(), m.Shards[1].Name+" is missing") {
		t.Errorf("a missing shard: %v", err)
	}
	os.WriteFile(second, secondData, 0o644)
	// The same size, one bit changed: its SHA-256 tells (issue 47's pass).
	flipped := bytes.Clone(data)
	flipped[len(flipped)/2] ^= 1
	os.WriteFile(first, flipped, 0o644)
	_, err = Run(context.Background(), c.Config, c.Job, withTestEvaluator(Options{}))
	if err == nil || !strings.Contains(err.Error(), "is damaged") || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("a changed shard: %v", err)
	}

	other := tinyConfig(t, "xiangqi", 2)
	os.MkdirAll(other.Output, 0o755)
	os.WriteFile(filepath.Join(other.Output, "notes.txt"), nil, 0o644)
	if _, err := Run(context.Background(), other.Config, other.Job, withTestEvaluator(Options{})); err == nil || !strings.Contains(err.Error(), "holds other files (notes.txt)") {
		t.Errorf("a directory of other files: %v", err)
	}
}

// Two runs never share a directory.
func TestRunLock(t *testing.T) {
	cfg := tinyConfig(t, "xiangqi", 1)
	if err := os.MkdirAll(cfg.Output, 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := lockRun(cfg.Output)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), cfg.Config, cfg.Job, withTestEvaluator(Options{}))
	if err == nil || !strings.Contains(err.Error(), "another self-play run") {
		t.Errorf("a locked directory: %v", err)
	}
	unlock()
	mustRun(t, cfg)
}

// Progress: a start, a report per shard and a done, with the counters;
// cmd/palace's tests check the lines drawn from them.
func TestProgress(t *testing.T) {
	cfg := tinyConfig(t, "xiangqi", 4)
	var events []Event
	if _, err := Run(context.Background(), cfg.Config, cfg.Job, withTestEvaluator(Options{Progress: func(ev Event) { events = append(events, ev) }})); err != nil {
		t.Fatal(err)
	}
	var kinds []EventKind
	for _, ev := range events {
		if ev.Kind != EventProgress {
			kinds = append(kinds, ev.Kind)
		}
	}
	if !slices.Equal(kinds, []EventKind{EventStart, EventShard, EventDone}) {
		t.Fatalf("events %v; want start, shard, done", kinds)
	}
	start, shard, done := events[0], events[len(events)-2], events[len(events)-1]
	if start.Start.Dir != cfg.Output || start.Start.ToPlay != 4 || start.Start.ConcurrentGames != 3 || start.Stats.Target != 4 ||
		start.Stats.RuleSet == "" || start.Stats.NetworkID == "" {
		t.Errorf("start: %+v", start)
	}
	if shard.Kind != EventShard || shard.Shard.Name != "shard-000000.shard" || shard.Shard.Games != 4 || shard.Shard.Records == 0 ||
		shard.Shard.FirstGame != 0 || shard.Shard.LastGame != 3 {
		t.Errorf("shard: %+v", shard)
	}
	if st := done.Stats; st.Before+st.Played != 4 || st.Finished != 4 || st.Shards != 1 || st.Positions == 0 || st.Elapsed <= 0 {
		t.Errorf("done: %+v", done)
	}
	if EventDone.String() != "done" || EventShard.String() != "shard" {
		t.Errorf("kind names %s %s", EventDone, EventShard)
	}
}

// An evaluator can stand in for the network (tests, benchmarks); an
// evaluator failing stops the run with its error, and commits nothing
// unfinished.
func TestEvaluatorError(t *testing.T) {
	cfg := tinyConfig(t, "xiangqi", 4)
	_, err := Run(context.Background(), cfg.Config, cfg.Job, Options{Evaluator: func() (nn.Evaluator, string, error) {
		return failing{}, "failing", nil
	}})
	if err == nil || !strings.Contains(err.Error(), "broken backend") {
		t.Fatalf("got %v", err)
	}
	if rep, err := Verify(cfg.Output); err != nil || rep.Shards != 0 || len(rep.Problems) != 0 {
		t.Errorf("after a failed run: %+v %v", rep, err)
	}
}

type failing struct{}

func (failing) InputSize() int  { return encode.InputSize }
func (failing) PolicySize() int { return encode.PolicySize() }
func (failing) Evaluate([]nn.Input, []nn.Output) error {
	return errors.New("broken backend")
}

func TestSetupWeightsPick(t *testing.T) {
	w := SetupWeights{rules.MaSangMaSang: {rules.SangMaMaSang: 1, rules.MaSangSangMa: 3}}
	count := map[[2]rules.JanggiSetup]int{}
	const n = 4000
	for i := range n {
		c, h := w.pick((float64(i) + 0.5) / n)
		count[[2]rules.JanggiSetup{c, h}]++
	}
	if len(count) != 2 || count[[2]rules.JanggiSetup{rules.MaSangMaSang, rules.MaSangSangMa}] != 3*n/4 {
		t.Errorf("skewed: %v", count)
	}
	clear(count)
	for i := range n {
		c, h := SetupWeights{}.pick((float64(i) + 0.5) / n)
		count[[2]rules.JanggiSetup{c, h}]++
	}
	if len(count) != 16 {
		t.Errorf("uniform: %v", count)
	}
	for k, v := range count {
		if v != n/16 {
			t.Errorf("uniform: %v drawn %d times of %d", k, v, n)
		}
	}
	if c, h := w.pick(0.999999999); c != rules.MaSangMaSang || h != rules.SangMaMaSang {
		t.Errorf("u near 1: %v,%v", c, h)
	}
}
