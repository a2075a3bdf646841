package selfplay

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/palace-chess/palace/nn"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/internal/yamlconf"
	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

// Config is one self-play run: where it writes, what it plays, with which
// network and search. LoadConfig reads it from YAML (configs/selfplay.yaml
// documents every key); DefaultConfig fills what a file leaves out. The
// yaml keys are decoded over the values already there; File adds the keys
// that must be given or that conflict with others.
type Config struct {
	// Output is the shard directory. A run that finds games there already
	// resumes: it plays only the game indices its manifest does not list.
	Output string `yaml:"output"`
	// Rules is a preset name or a rule-set YAML file.
	Rules string `yaml:"rules"`
	// Network is a checkpoint file; empty plays a fresh random network of
	// RandomNetwork's shape (6 blocks × 64 filters by default).
	Network       string        `yaml:"network"`
	RandomNetwork RandomNetwork `yaml:"-"`
	// Games is the run's target: game indices 0 to Games-1. The run stops
	// once the directory holds each of them.
	Games int `yaml:"-"`
	// ConcurrentGames are played at once, each by its own goroutine and
	// search; Evaluators is the number of network copies (one batcher each)
	// they share, games split evenly; 0 is two per core, each serving at
	// least 8 games. BatchSize caps a batch; 0 is each evaluator's share of
	// the games times Search.LeavesPerEval, the most that can ever wait.
	//
	// Why two per core: a batcher's games wait while their batch is
	// computed, so with one network per core a core idles whenever its
	// games are between batches. Measured on 2 cores (OpenBLAS), 32 games,
	// the default 6×64 network and search: 1 evaluator 730 network
	// evaluations/s, 2 1,070, 4 1,290, 8 no more than 4; the network alone
	// on both cores at batch 32 does about 1,500.
	ConcurrentGames int `yaml:"concurrent_games"`
	Evaluators      int `yaml:"evaluators"`
	BatchSize       int `yaml:"batch_size"`
	// CacheEntries sizes the evaluation cache all games share (about 300
	// bytes an entry).
	CacheEntries int `yaml:"cache_entries"`
	// MaxPlies caps a game's length through the rule set's own length cap
	// (RuleSet.MaxPlies, on a copy: the rule set's hash changes with it), so
	// a capped game is adjudicated as the rule set says (counting in
	// janggi, else a draw). 0 keeps the rule set's own cap.
	MaxPlies int `yaml:"max_plies"`
	// JanggiSetups weighs the 16 janggi start setups; the zero value is
	// uniform. Ignored (and must be zero) for xiangqi.
	JanggiSetups SetupWeights `yaml:"-"`
	// GamesPerShard is how many completed games make a shard: the unit of
	// durability (a crash loses at most the games of the shard being
	// gathered, which the next run plays again).
	GamesPerShard int `yaml:"games_per_shard"`
	// Seed and a game's index determine all of that game's randomness (its
	// janggi setup and its search's random numbers).
	Seed uint64 `yaml:"-"`
	// Search is the search's parameters; Search.Seed is ignored (each game
	// has its own, from Seed and its index).
	Search mcts.Params `yaml:"search"`
}

// RandomNetwork is the shape and seed of the network played when Config
// has no checkpoint (a config's random_network: the shape's keys and seed).
type RandomNetwork struct {
	model.Config `yaml:",inline"`
	Seed         uint64 `yaml:"seed"`
}

// ModelConfig is the network's full shape: the planes and policy slots are
// this build's encoding.
func (r RandomNetwork) ModelConfig() model.Config {
	c := r.Config
	c.Planes, c.PolicySize = encode.Planes, encode.PolicySize()
	return c
}

// Defaults that DefaultConfig gives.
const (
	DefaultConcurrentGames = 32
	DefaultEvaluators      = 0 // automatic
	DefaultCacheEntries    = 1 << 18
	DefaultMaxPlies        = 400
	DefaultGamesPerShard   = 128
)

// DefaultConfig is a configuration with every default filled in; Output,
// Rules, Games and Seed are the caller's.
func DefaultConfig() Config {
	return Config{
		RandomNetwork:   RandomNetwork{Config: model.DefaultConfig(), Seed: 1},
		ConcurrentGames: DefaultConcurrentGames,
		Evaluators:      DefaultEvaluators,
		CacheEntries:    DefaultCacheEntries,
		MaxPlies:        DefaultMaxPlies,
		GamesPerShard:   DefaultGamesPerShard,
		Search:          mcts.DefaultParams(),
	}
}

// SetupWeights are the relative weights of the janggi start setups,
// [Cho's setup][Han's setup] in rules.JanggiSetup order. The zero value
// means uniform.
type SetupWeights [4][4]float64

// IsZero reports whether w is the zero value (uniform).
func (w SetupWeights) IsZero() bool { return w == SetupWeights{} }

func (w SetupWeights) check() error {
	sum := 0.0
	for c := range w {
		for h, x := range w[c] {
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return fmt.Errorf("janggi_setups: weight of %s,%s is %v, want a finite number >= 0", rules.JanggiSetup(c), rules.JanggiSetup(h), x)
			}
			sum += x
		}
	}
	if sum == 0 && !w.IsZero() {
		return errors.New("janggi_setups: every weight is 0")
	}
	return nil
}

// pick draws a (Cho, Han) pair by weight from u, uniform in [0, 1).
func (w SetupWeights) pick(u float64) (cho, han rules.JanggiSetup) {
	if w.IsZero() {
		i := min(int(u*16), 15)
		return rules.JanggiSetup(i / 4), rules.JanggiSetup(i % 4)
	}
	sum := 0.0
	for c := range w {
		for _, x := range w[c] {
			sum += x
		}
	}
	x := u * sum
	last := 0
	for i := range 16 {
		wt := w[i/4][i%4]
		if wt <= 0 {
			continue
		}
		last = i
		if x -= wt; x < 0 {
			break
		}
	}
	return rules.JanggiSetup(last / 4), rules.JanggiSetup(last % 4)
}

// Validate reports every setting that cannot work, naming the YAML key.
// MaxGames bounds a run's games: the games to play are listed up front,
// and at the fastest self-play this is months of play.
const MaxGames = 1 << 24

func (c *Config) Validate() error {
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if c.Output == "" {
		add("output: missing (the shard directory)")
	}
	if c.Rules == "" {
		add("rules: missing (a preset: %s; or a rule-set YAML file)", strings.Join(rules.PresetNames(), ", "))
	}
	if c.Games < 1 || c.Games > MaxGames {
		add("games: %d, want 1 to %d", c.Games, MaxGames)
	}
	if c.ConcurrentGames < 1 || c.ConcurrentGames > 1<<14 {
		add("concurrent_games: %d, want 1 to %d", c.ConcurrentGames, 1<<14)
	}
	if c.Evaluators < 0 || c.Evaluators > 64 {
		add("evaluators: %d, want 0 (automatic) to 64", c.Evaluators)
	} else if c.Evaluators > c.ConcurrentGames && c.ConcurrentGames >= 1 {
		add("evaluators: %d, more than concurrent_games (%d)", c.Evaluators, c.ConcurrentGames)
	}
	if c.BatchSize < 0 || c.BatchSize > 1<<16 {
		add("batch_size: %d, want 0 (automatic) to %d", c.BatchSize, 1<<16)
	}
	if c.CacheEntries < 1 || c.CacheEntries > nn.MaxCacheEntries {
		add("cache_entries: %d, want 1 to %d", c.CacheEntries, nn.MaxCacheEntries)
	}
	if c.MaxPlies < 0 {
		add("max_plies: %d, want 0 (the rule set's own cap) or more", c.MaxPlies)
	}
	if c.GamesPerShard < 1 || c.GamesPerShard > 1<<20 {
		add("games_per_shard: %d, want 1 to %d", c.GamesPerShard, 1<<20)
	}
	if err := c.JanggiSetups.check(); err != nil {
		add("%v", err)
	}
	if c.Network == "" {
		if err := c.RandomNetwork.ModelConfig().Validate(); err != nil {
			add("random_network: %v", strings.TrimPrefix(err.Error(), "model: config "))
		}
	}
	if err := c.Search.Validate(); err != nil {
		add("search: %v", strings.TrimPrefix(err.Error(), "mcts: "))
	}
	if len(errs) > 0 {
		return fmt.Errorf("selfplay: config: %s", strings.Join(errs, "; "))
	}
	return nil
}

// evaluators is the number of network copies the run uses.
func (c *Config) evaluators() int {
	if c.Evaluators > 0 {
		return c.Evaluators
	}
	return max(1, min(2*runtime.NumCPU(), c.ConcurrentGames/8, 64))
}

// batchSize is the batch cap each evaluator's batcher uses.
func (c *Config) batchSize() int {
	if c.BatchSize > 0 {
		return c.BatchSize
	}
	e := c.evaluators()
	perEval := (c.ConcurrentGames + e - 1) / e
	return max(perEval*c.Search.LeavesPerEval, 1)
}

// File is the YAML form of Config (configs/selfplay.yaml), for files that
// hold a self-play section of their own: Config's keys, decoded over the
// Config it holds (NewFile), and the keys that must be given (pointers) or
// that conflict with others.
type File struct {
	Config        `yaml:",inline"`
	Games         *int                            `yaml:"games"`
	Seed          *uint64                         `yaml:"seed"`
	RandomNetwork yamlconf.Section[RandomNetwork] `yaml:"random_network"`
	JanggiSetups  *setupsFile                     `yaml:"janggi_setups"`
	Extra         map[string]any                  `yaml:",inline"` // unknown keys, reported by name
}

// NewFile is a File to decode over c.
func NewFile(c Config) File {
	return File{Config: c, RandomNetwork: yamlconf.Section[RandomNetwork]{Value: c.RandomNetwork}}
}

// setupsFile weighs janggi's setups either per side (cho and han: setup
// name → weight, a missing name weighing 0; a side left out is uniform)
// or per pair ("CHO,HAN" → weight, a missing pair weighing 0).
type setupsFile struct {
	Cho   map[string]float64 `yaml:"cho"`
	Han   map[string]float64 `yaml:"han"`
	Pairs map[string]float64 `yaml:"pairs"`
}

// SectionNames maps the Go types of File's sections to their YAML names,
// for messages about unknown keys (files that embed a File add them to
// theirs).
var SectionNames = map[string]string{
	"mcts.Params":            "search",
	"selfplay.RandomNetwork": "random_network",
	"selfplay.setupsFile":    "janggi_setups",
}

// LoadConfig reads a YAML configuration file.
func LoadConfig(path string) (Config, error) {
	return yamlconf.Load("selfplay", path, ParseConfig)
}

// ParseConfig reads a YAML configuration over DefaultConfig and validates
// it. Unknown keys are errors; source names the input in messages.
func ParseConfig(data []byte, source string) (Config, error) {
	f := NewFile(DefaultConfig())
	if err := yamlconf.Decode(data, &f, SectionNames); err != nil {
		return Config{}, fmt.Errorf("selfplay: %s: %w", source, err)
	}
	return f.Parse(source)
}

// Parse is the configuration the file gives, validated; source names the
// file in messages.
func (f *File) Parse(source string) (Config, error) {
	if len(f.Extra) > 0 {
		keys := make([]string, 0, len(f.Extra))
		for k := range f.Extra {
			keys = append(keys, k)
		}
		return Config{}, fmt.Errorf("selfplay: %s: unknown keys %s", source, strings.Join(slices.Sorted(slices.Values(keys)), ", "))
	}
	c := f.Config
	if err := yamlconf.Missing(
		yamlconf.Required{Name: "games (the number of games the directory should hold)", Given: f.Games != nil},
		yamlconf.Required{Name: "seed (any number: game i's randomness comes from (seed, i), so a resumed run needs the same one)", Given: f.Seed != nil},
	); err != nil {
		return Config{}, fmt.Errorf("selfplay: %s: %w", source, err)
	}
	c.Games, c.Seed = *f.Games, *f.Seed
	if r := f.RandomNetwork; r.Given {
		if c.Network != "" {
			return Config{}, fmt.Errorf("selfplay: %s: random_network is for runs without a network; this one plays %s", source, c.Network)
		}
		c.RandomNetwork = r.Value
	}
	if s := f.JanggiSetups; s != nil {
		w, err := s.weights()
		if err != nil {
			return Config{}, fmt.Errorf("selfplay: %s: %w", source, err)
		}
		c.JanggiSetups = w
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("selfplay: %s: %s", source, strings.TrimPrefix(err.Error(), "selfplay: config: "))
	}
	return c, nil
}

func (s *setupsFile) weights() (SetupWeights, error) {
	var w SetupWeights
	if s.Pairs != nil && (s.Cho != nil || s.Han != nil) {
		return w, errors.New("janggi_setups: give pairs, or cho and han, not both")
	}
	if s.Pairs != nil {
		for k, x := range s.Pairs {
			cho, han, ok := strings.Cut(k, ",")
			if !ok {
				return w, fmt.Errorf("janggi_setups: pairs: %q: want CHO,HAN (e.g. masangsangma,sangmamasang)", k)
			}
			c, err := rules.ParseJanggiSetup(strings.TrimSpace(cho))
			if err != nil {
				return w, fmt.Errorf("janggi_setups: pairs: %w", err)
			}
			h, err := rules.ParseJanggiSetup(strings.TrimSpace(han))
			if err != nil {
				return w, fmt.Errorf("janggi_setups: pairs: %w", err)
			}
			w[c][h] = x
		}
		if w.IsZero() {
			return w, errors.New("janggi_setups: pairs: every weight is 0")
		}
		return w, w.check()
	}
	side := func(name string, m map[string]float64) ([4]float64, error) {
		if m == nil {
			return [4]float64{1, 1, 1, 1}, nil
		}
		var v [4]float64
		for k, x := range m {
			s, err := rules.ParseJanggiSetup(k)
			if err != nil {
				return v, fmt.Errorf("janggi_setups: %s: %w", name, err)
			}
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return v, fmt.Errorf("janggi_setups: %s: weight of %s is %v, want a finite number >= 0", name, k, x)
			}
			v[s] = x
		}
		if v == [4]float64{} {
			return v, fmt.Errorf("janggi_setups: %s: every weight is 0", name)
		}
		return v, nil
	}
	cho, err := side("cho", s.Cho)
	if err != nil {
		return w, err
	}
	han, err := side("han", s.Han)
	if err != nil {
		return w, err
	}
	for c := range 4 {
		for h := range 4 {
			w[c][h] = cho[c] * han[h]
		}
	}
	return w, w.check()
}

// gameHash is the digest of everything that decides a game's moves: the
// rule set (with the length cap), the network, the search, the setup
// weights and the seed. A directory's games all share it, so a resumed run
// with other settings is refused instead of mixing games silently. How
// many games run at once, batch and cache sizes and shard sizes are left
// out: they change how fast games are played, not which.
func gameHash(rs *rules.RuleSet, networkID string, c *Config) string {
	p := c.Search
	p.Seed = 0
	b, _ := json.Marshal(struct {
		RuleSet string
		Network string
		Search  mcts.Params
		Setups  SetupWeights
		Seed    uint64
	}{rs.String(), networkID, p, c.JanggiSetups, c.Seed})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
