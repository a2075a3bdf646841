package selfplay

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

// The example config parses, and its search settings are the defaults it
// claims to be.
func TestExampleConfig(t *testing.T) {
	c, j, err := LoadConfig(filepath.Join("..", "configs", "selfplay.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	d := DefaultConfig()
	if c.Search != mcts.DefaultParams() {
		t.Errorf("example search %+v, defaults %+v", c.Search, mcts.DefaultParams())
	}
	if j.RandomNetwork != DefaultRandomNetwork() || c.ConcurrentGames != d.ConcurrentGames || c.Evaluators != d.Evaluators ||
		c.CacheEntries != d.CacheEntries || c.MaxPlies != d.MaxPlies || c.GamesPerShard != d.GamesPerShard || c.BatchSize != 0 {
		t.Errorf("example %+v differs from the defaults %+v", c, d)
	}
	if j.Rules.String() != rules.MustPreset("xiangqi").WithMaxPlies(400).String() || j.Games != 10000 || j.Seed != 1 || j.Output != "runs/selfplay" || !j.JanggiSetups.IsZero() {
		t.Errorf("example: %+v", j)
	}
}

func TestParseConfig(t *testing.T) {
	c, j, err := ParseConfig([]byte("output: out\nrules: janggi\ngames: 5\nseed: 0\n"), "min")
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	wantJob := Job{Output: "out", Rules: rules.MustPreset("janggi").WithMaxPlies(DefaultMaxPlies), RandomNetwork: DefaultRandomNetwork(), Games: 5}
	if c != want || !reflect.DeepEqual(j, wantJob) {
		t.Errorf("minimal config %+v, %+v; want %+v, %+v", c, j, want, wantJob)
	}
	e := max(1, min(2*runtime.NumCPU(), 32/8))
	if c.evaluators() != e || c.batchSize() != (32+e-1)/e {
		t.Errorf("automatic: %d evaluators, batch size %d; want %d and %d", c.evaluators(), c.batchSize(), e, (32+e-1)/e)
	}
	c, j, err = ParseConfig([]byte(`output: out
rules: janggi
games: 5
seed: 9
concurrent_games: 8
evaluators: 2
batch_size: 3
max_plies: 0
janggi_setups:
  pairs: {"masangsangma,sangmamasang": 2, " sangmasangma , masangmasang ": 1}
search: {mode: puct, simulations: 64, cheap_simulations: 0, leaves_per_eval: 4, temperature_plies: 10}
random_network: {blocks: 2, filters: 16, seed: 5}
`), "full")
	if err != nil {
		t.Fatal(err)
	}
	var w SetupWeights
	w[rules.MaSangSangMa][rules.SangMaMaSang], w[rules.SangMaSangMa][rules.MaSangMaSang] = 2, 1
	p := mcts.DefaultParams()
	p.Mode, p.Simulations, p.CheapSimulations, p.LeavesPerEval, p.TemperaturePlies = mcts.PUCT, 64, 0, 4, 10
	if j.JanggiSetups != w || c.Search != p || j.Seed != 9 || c.MaxPlies != 0 || j.Rules.MaxPlies != 0 || c.Evaluators != 2 || c.BatchSize != 3 ||
		j.RandomNetwork != (RandomNetwork{Config: model.Config{Planes: encode.Planes, PolicySize: encode.PolicySize(), Blocks: 2, Filters: 16, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 64}, Seed: 5}) {
		t.Errorf("full config: %+v, %+v", c, j)
	}
	c.BatchSize = 0
	if got := c.batchSize(); got != 16 {
		t.Errorf("automatic batch size %d, want 4 games × 4 leaves", got)
	}
	_, j, err = ParseConfig([]byte("output: o\nrules: janggi\ngames: 1\nseed: 1\njanggi_setups: {cho: {masangmasang: 1}, han: {sangmamasang: 1, masangsangma: 3}}\n"), "sides")
	if err != nil {
		t.Fatal(err)
	}
	w = SetupWeights{}
	w[rules.MaSangMaSang][rules.SangMaMaSang], w[rules.MaSangMaSang][rules.MaSangSangMa] = 1, 3
	if j.JanggiSetups != w {
		t.Errorf("per-side setups: %v", j.JanggiSetups)
	}
}

func TestConfigErrors(t *testing.T) {
	const base = "output: o\nrules: xiangqi\ngames: 3\nseed: 1\n"
	for _, tc := range []struct{ yaml, want string }{
		{"rules: xiangqi\ngames: 3\nseed: 1\n", "output: missing"},
		{"output: o\ngames: 3\nseed: 1\n", "rules: missing"},
		{"output: o\nrules: xiangqi\nseed: 1\n", "missing games"},
		{"output: o\nrules: xiangqi\ngames: 3\n", "missing seed"},
		{base + "bogus: 1\nother: 2\n", "unknown keys bogus, other"},
		{base + "search: {simulation: 3}\n", "line 5: unknown key simulation in search"},
		{base + "games: 0\n", "already defined"},
		{"output: o\nrules: xiangqi\ngames: 0\nseed: 1\n", "games: 0, want 1 to 16777216"},
		{base + "concurrent_games: 0\n", "concurrent_games: 0"},
		{base + "concurrent_games: 2\nevaluators: 3\n", "more than concurrent_games"},
		{base + "batch_size: -1\n", "batch_size: -1"},
		{base + "cache_entries: 0\n", "cache_entries: 0"},
		{base + "max_plies: -5\n", "max_plies: -5"},
		{base + "games_per_shard: 0\n", "games_per_shard: 0"},
		{base + "search: {mode: alphabeta}\n", `mode "alphabeta"`},
		{base + "search: {simulations: 0}\n", "search: Simulations = 0"},
		{base + "search: {simulations: 4, cheap_simulations: 8}\n", "CheapSimulations = 8"},
		{base + "random_network: {blocks: 500}\n", "random_network: blocks = 500"},
		{base + "network: n.palnet\nrandom_network: {blocks: 1}\n", "random_network is for runs without a network"},
		{base + "janggi_setups: {cho: {masang: 1}}\n", `unknown janggi setup "masang"`},
		{base + "janggi_setups: {cho: {masangmasang: 0}}\n", "cho: every weight is 0"},
		{base + "janggi_setups: {han: {masangmasang: -1}}\n", "weight of masangmasang is -1"},
		{base + "janggi_setups: {pairs: {masangmasang: 1}}\n", "want CHO,HAN"},
		{base + "janggi_setups: {pairs: {\"masangmasang,x\": 1}}\n", `unknown janggi setup "x"`},
		{base + "janggi_setups: {pairs: {\"masangmasang,masangmasang\": 0}}\n", "every weight is 0"},
		{base + "janggi_setups: {pairs: {\"masangmasang,masangmasang\": 1}, cho: {masangmasang: 1}}\n", "not both"},
		{"output: [1, 2]\n", "cannot unmarshal"},
	} {
		_, _, err := ParseConfig([]byte(tc.yaml), "test.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "selfplay: test.yaml: ") {
			t.Errorf("%q: got %v, want an error containing %q", tc.yaml, err, tc.want)
		}
	}
	// Several problems are reported together.
	_, _, err := ParseConfig([]byte("output: o\nrules: xiangqi\ngames: 0\nseed: 1\nconcurrent_games: 0\n"), "test.yaml")
	if err == nil || !strings.Contains(err.Error(), "games: 0") || !strings.Contains(err.Error(), "concurrent_games: 0") {
		t.Errorf("two problems: %v", err)
	}
	if _, _, err := LoadConfig(filepath.Join(t.TempDir(), "none.yaml")); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing file: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

// What only the loaded rule set or network can tell is checked when the
// rule set is loaded or the run starts.
func TestRunConfigErrors(t *testing.T) {
	cfg := tinyConfig(t, "xiangqi", 2)
	cfg.JanggiSetups[0][0] = 1
	if _, err := Run(context.Background(), cfg.Config, cfg.Job, Options{}); err == nil || !strings.Contains(err.Error(), "janggi_setups given, but rule set xiangqi is xiangqi") {
		t.Errorf("setups for xiangqi: %v", err)
	}
	if _, _, err := ParseConfig([]byte("output: o\nrules: nosuchrules\ngames: 2\nseed: 1\n"), "test.yaml"); err == nil || !strings.Contains(err.Error(), "nosuchrules") {
		t.Errorf("unknown rules: %v", err)
	}
	cfg = tinyConfig(t, "xiangqi", 2)
	cfg.Rules = nil
	if _, err := Run(context.Background(), cfg.Config, cfg.Job, Options{}); err == nil || !strings.Contains(err.Error(), "selfplay: config: rules: missing") {
		t.Errorf("no rule set: %v", err)
	}
	// A job's rule set is capped by its config, or it would play other
	// games than the config says.
	cfg = tinyConfig(t, "xiangqi", 2)
	cfg.Rules = preset(t, "xiangqi", 0)
	if _, err := Run(context.Background(), cfg.Config, cfg.Job, Options{}); err == nil || !strings.Contains(err.Error(), "capped at 0 plies, max_plies at") {
		t.Errorf("an uncapped rule set: %v", err)
	}
	cfg = tinyConfig(t, "xiangqi", 2)
	cfg.Network = filepath.Join(t.TempDir(), "missing.palnet")
	if _, err := Run(context.Background(), cfg.Config, cfg.Job, Options{}); err == nil || !strings.Contains(err.Error(), "missing.palnet") {
		t.Errorf("missing network: %v", err)
	}
	cfg = tinyConfig(t, "xiangqi", 2)
	cfg.Games = 0
	if _, err := Run(context.Background(), cfg.Config, cfg.Job, Options{}); err == nil || !strings.Contains(err.Error(), "selfplay: config: games: 0") {
		t.Errorf("invalid config: %v", err)
	}
}
