package selfplay

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

// TestMain runs the network on palace's Go kernel: its outputs do not
// depend on the batch, so runs are exactly reproducible (see the package
// doc on OpenBLAS).
func TestMain(m *testing.M) {
	if os.Getenv("PALACE_BLAS") == "" {
		os.Setenv("PALACE_BLAS", "off")
	}
	if os.Getenv("PALACE_KERNEL") == "" {
		os.Setenv("PALACE_KERNEL", "blas") // the same numbers on every CPU
	}
	dir, err := os.MkdirTemp("", "selfplay-test-")
	if err != nil {
		panic(err)
	}
	sharedDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sharedDir outlives single tests: for runs that several tests copy.
var sharedDir string

// testRun is a run's config and job, which tests change alike.
type testRun struct {
	Config
	Job
}

// tinyConfig is a run small enough for a unit test: a 1×8 network, 8
// simulations (2 cheap), 40-ply games.
func tinyConfig(t testing.TB, ruleSet string, games int) testRun {
	t.Helper()
	c := testRun{Config: DefaultConfig()}
	c.Output = filepath.Join(t.TempDir(), "run")
	c.Games = games
	c.Seed = 7
	c.ConcurrentGames = 3
	c.GamesPerShard = 4
	c.MaxPlies = 40
	if testing.Short() && raceEnabled {
		c.MaxPlies = 16
	}
	c.Rules = c.RuleSet(preset(t, ruleSet, 0))
	c.CacheEntries = 4096
	c.RandomNetwork = RandomNetwork{Config: model.Config{Blocks: 1, Filters: 8, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}, Seed: 3}
	c.Search.Simulations, c.Search.CheapSimulations, c.Search.GumbelK = 8, 2, 4
	return c
}

// withTestEvaluator gives o the nn package's hash-based Random evaluator in
// place of the network under the race detector, which slows the network
// down some 30 times; TestRun keeps the network.
func withTestEvaluator(o Options) Options {
	if raceEnabled {
		o.Evaluator = func() (nn.Evaluator, string, error) {
			return nn.NewRandom(encode.InputSize, encode.PolicySize(), 5), "random-5", nil
		}
	}
	return o
}

func mustRun(t testing.TB, cfg testRun) Stats {
	t.Helper()
	st, err := Run(context.Background(), cfg.Config, cfg.Job, withTestEvaluator(Options{CodeVersion: "test"}))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// dirGames reads every listed shard's game records, in manifest order.
func dirGames(t testing.TB, dir string) []gamerec.Game {
	t.Helper()
	m, err := datasets.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var all []gamerec.Game
	for _, s := range m.Shards {
		gf, err := gamerec.Read(GamesPath(filepath.Join(dir, s.Name)))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, gf.Games...)
	}
	return all
}

// byID sorts game records by id.
func byID(games []gamerec.Game) []gamerec.Game {
	games = slices.Clone(games)
	slices.SortFunc(games, func(a, b gamerec.Game) int { return int(int64(a.ID) - int64(b.ID)) })
	return games
}

func preset(t testing.TB, name string, maxPlies int) *rules.RuleSet {
	t.Helper()
	rs, err := rules.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	rs.MaxPlies = maxPlies
	return rs
}

// copyDir copies a run's directory (plain files only) to a new one.
func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "copy")
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			copyFile(t, filepath.Join(from, e.Name()), filepath.Join(to, e.Name()))
		}
	}
	return to
}
