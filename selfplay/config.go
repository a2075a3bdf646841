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

// Config is how self-play plays: the settings a self-play file
// (configs/selfplay.yaml documents every key) and a run config's selfplay
// section share, which stay the same from one job of a run to the next.
// DefaultConfig fills what a file leaves out. What a run plays, and where,
// is its Job.
type Config struct {
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
	// janggi, else a draw). 0 keeps the rule set's own cap. It is applied
	// where the job's rule set is made (RuleSet), once.
	MaxPlies int `yaml:"max_plies"`
	// GamesPerShard is how many completed games make a shard: the unit of
	// durability (a crash loses at most the games of the shard being
	// gathered, which the next run plays again).
	GamesPerShard int `yaml:"games_per_shard"`
	// Search is the search's parameters; Search.Seed is ignored (each game
	// has its own, from Job.Seed and its index).
	Search mcts.Params `yaml:"search"`
	// Resign ends a game whose side to move sees it lost (AlphaZero's
	// resignation): off unless Resign.Value is set.
	Resign Resign `yaml:"resign"`
}

// Resign is self-play's resignation: the side to move resigns when its
// search's root value (W − L, from −1 to 1) is at or below Value at Moves
// of its searches in a row, and the game is scored as its loss. The plies
// of a decided game that it saves are self-play's time; the positions it
// drops are the ones whose targets say least. Playthrough is the share of
// games (drawn by each game's seed) that never resign: where their side
// would have resigned and then did not lose, the resignation would have
// been false (Stats.Resigns.False, to keep under about 5%, as
// AlphaZero did).
type Resign struct {
	Value       float64 `yaml:"value"`
	Moves       int     `yaml:"moves"`
	Playthrough float64 `yaml:"playthrough"`
}

// On reports whether games resign.
func (r Resign) On() bool { return r.Value != 0 }

// Resignation defaults: off; when a value is given, two searches in a
// row, and one game in ten played out.
const (
	DefaultResignMoves       = 2
	DefaultResignPlaythrough = 0.1
)

// RuleSet is rs as a job under c plays it: capped at MaxPlies.
func (c *Config) RuleSet(rs *rules.RuleSet) *rules.RuleSet { return rs.WithMaxPlies(c.MaxPlies) }

// Job is one self-play run's games: where they go, under which rule set,
// with which network, how many and from which seed. Its caller builds it
// with the rule set it has loaded (a self-play file's is LoadConfig's).
type Job struct {
	// Output is the shard directory. A run that finds games there already
	// resumes: it plays only the game indices its manifest does not list.
	Output string
	// Rules is the rule set the games are played under, capped by the
	// config (Config.RuleSet).
	Rules *rules.RuleSet
	// Network is a checkpoint file; empty plays a fresh random network of
	// RandomNetwork's shape (DefaultRandomNetwork's, in a file).
	Network       string
	RandomNetwork RandomNetwork
	// Games is the run's target: game indices 0 to Games-1. The run stops
	// once the directory holds each of them.
	Games int
	// JanggiSetups weighs the 16 janggi start setups; the zero value is
	// uniform. Ignored (and must be zero) for xiangqi.
	JanggiSetups SetupWeights
	// Seed and a game's index determine all of that game's randomness (its
	// janggi setup and its search's random numbers).
	Seed uint64
}

// RandomNetwork is the shape and seed of the network played when a Job
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

// DefaultRandomNetwork is the random network of a self-play file that
// gives no network: model's default shape.
func DefaultRandomNetwork() RandomNetwork {
	return RandomNetwork{Config: model.DefaultConfig(), Seed: 1}
}

// DefaultConfig is a configuration with every default filled in.
func DefaultConfig() Config {
	return Config{
		ConcurrentGames: DefaultConcurrentGames,
		Evaluators:      DefaultEvaluators,
		CacheEntries:    DefaultCacheEntries,
		MaxPlies:        DefaultMaxPlies,
		GamesPerShard:   DefaultGamesPerShard,
		Search:          mcts.DefaultParams(),
		Resign:          Resign{Moves: DefaultResignMoves, Playthrough: DefaultResignPlaythrough},
	}
}

// SetupWeights are the relative weights of the janggi start setups,
// [Cho's setup][Han's setup] in rules.JanggiSetup order. The zero value
// means uniform.
type SetupWeights [4][4]float64

// IsZero reports whether w is the zero value (uniform).
func (w SetupWeights) IsZero() bool { return w == SetupWeights{} }

// Validate reports weights that cannot be drawn from, and weights given
// for rs (nil: not known yet) when it is not janggi.
func (w SetupWeights) Validate(rs *rules.RuleSet) error {
	if err := w.check(); err != nil {
		return err
	}
	if rs != nil && rs.Game != rules.Janggi && !w.IsZero() {
		return fmt.Errorf("janggi_setups given, but rule set %s is %s", rs.Name, rs.Game)
	}
	return nil
}

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

// MaxGames bounds a run's games: the games to play are listed up front,
// and at the fastest self-play this is months of play.
const MaxGames = 1 << 24

// Validate reports every setting that cannot work, naming the YAML key.
func (c *Config) Validate() error {
	return problems("selfplay: config", c.problems())
}

// problems lists what cannot work in c, each naming its key.
func (c *Config) problems() []string {
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
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
	if err := c.Search.Validate(); err != nil {
		add("search: %v", strings.TrimPrefix(err.Error(), "mcts: "))
	}
	if r := c.Resign; math.IsNaN(r.Value) || r.Value <= -1 || r.Value > 0 {
		add("resign.value: %v, want 0 (off) or a root value above -1 and below 0", r.Value)
	}
	if r := c.Resign; r.Moves < 1 || r.Moves > 1000 {
		add("resign.moves: %d, want 1 to 1000", r.Moves)
	}
	if r := c.Resign; math.IsNaN(r.Playthrough) || r.Playthrough < 0 || r.Playthrough > 1 {
		add("resign.playthrough: %v, want 0 to 1", r.Playthrough)
	}
	return errs
}

// problems lists what cannot work in j under c, each named by the key of
// a self-play file that gives it.
func (j *Job) problems(c *Config) []string {
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if j.Output == "" {
		add("output: missing (the shard directory)")
	}
	if j.Rules == nil {
		add("rules: missing (a preset: %s; or a rule-set YAML file)", strings.Join(rules.PresetNames(), ", "))
	} else if c.MaxPlies > 0 && j.Rules.MaxPlies != c.MaxPlies {
		// A job's rule set not made by Config.RuleSet would play other
		// games than its config says, under the same game hash.
		add("rules: %s is capped at %d plies, max_plies at %d", j.Rules.Name, j.Rules.MaxPlies, c.MaxPlies)
	}
	if j.Games < 1 || j.Games > MaxGames {
		add("games: %d, want 1 to %d", j.Games, MaxGames)
	}
	if err := j.JanggiSetups.Validate(j.Rules); err != nil {
		add("%v", err)
	}
	return errs
}

// check validates a run's config and job together, so that a file's
// every problem is told at once. The random network is checked where it
// would be played: without a network file, and with opt (nil for a file)
// giving no evaluator in its place.
func check(c *Config, j *Job, opt *Options) error {
	errs := j.problems(c)
	if j.Network == "" && (opt == nil || opt.Evaluator == nil) {
		if err := j.RandomNetwork.ModelConfig().Validate(); err != nil {
			errs = append(errs, fmt.Sprintf("random_network: %v", strings.TrimPrefix(err.Error(), "model: config ")))
		}
	}
	return problems("selfplay: config", append(errs, c.problems()...))
}

// problems is the error listing errs under prefix; nil when there are none.
func problems(prefix string, errs []string) error {
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %s", prefix, strings.Join(errs, "; "))
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

// File is the YAML form of a self-play file (configs/selfplay.yaml):
// Config's keys, decoded over the Config it holds (NewFile), and the job's,
// pointers where they must be given. A run config's selfplay section is a
// File too, whose job keys but games and janggi_setups are the run's
// (Settings).
type File struct {
	Config        `yaml:",inline"`
	Output        string                          `yaml:"output"`
	Rules         string                          `yaml:"rules"`
	Network       string                          `yaml:"network"`
	RandomNetwork yamlconf.Section[RandomNetwork] `yaml:"random_network"`
	Games         *int                            `yaml:"games"`
	Seed          *uint64                         `yaml:"seed"`
	JanggiSetups  *setupsFile                     `yaml:"janggi_setups"`
	Extra         map[string]any                  `yaml:",inline"` // unknown keys, reported by name
}

// NewFile is a File to decode over c, and over DefaultRandomNetwork.
func NewFile(c Config) File {
	return File{Config: c, RandomNetwork: yamlconf.Section[RandomNetwork]{Value: DefaultRandomNetwork()}}
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

// LoadConfig reads a self-play file: its config and its job.
func LoadConfig(path string) (Config, Job, error) {
	type both struct {
		c Config
		j Job
	}
	b, err := yamlconf.Load("selfplay", path, func(data []byte, source string) (both, error) {
		c, j, err := ParseConfig(data, source)
		return both{c, j}, err
	})
	return b.c, b.j, err
}

// ParseConfig reads a self-play file over DefaultConfig and validates it,
// loading its rule set. Unknown keys are errors; source names the input
// in messages.
func ParseConfig(data []byte, source string) (Config, Job, error) {
	f := NewFile(DefaultConfig())
	if err := yamlconf.Decode(data, &f, SectionNames); err != nil {
		return Config{}, Job{}, fmt.Errorf("selfplay: %s: %w", source, err)
	}
	return f.Parse(source)
}

// Parse is the config and the job the file gives, validated, the job's
// rule set loaded and capped; source names the file in messages.
func (f *File) Parse(source string) (Config, Job, error) {
	if err := f.unknown(source); err != nil {
		return Config{}, Job{}, err
	}
	c := f.Config
	j := Job{Output: f.Output, Network: f.Network, RandomNetwork: f.RandomNetwork.Value}
	if err := yamlconf.Missing(
		yamlconf.Required{Name: "games (the number of games the directory should hold)", Given: f.Games != nil},
		yamlconf.Required{Name: "seed (any number: game i's randomness comes from (seed, i), so a resumed run needs the same one)", Given: f.Seed != nil},
	); err != nil {
		return Config{}, Job{}, fmt.Errorf("selfplay: %s: %w", source, err)
	}
	j.Games, j.Seed = *f.Games, *f.Seed
	if f.RandomNetwork.Given && f.Network != "" {
		return Config{}, Job{}, fmt.Errorf("selfplay: %s: random_network is for runs without a network; this one plays %s", source, f.Network)
	}
	var err error
	if j.JanggiSetups, err = f.setups(source); err != nil {
		return Config{}, Job{}, err
	}
	if f.Rules != "" {
		rs, err := rules.LoadRuleSet(f.Rules)
		if err != nil {
			return Config{}, Job{}, fmt.Errorf("selfplay: %s: %w", source, err)
		}
		j.Rules = c.RuleSet(rs)
	}
	if err := check(&c, &j, nil); err != nil {
		return Config{}, Job{}, fmt.Errorf("selfplay: %s: %s", source, strings.TrimPrefix(err.Error(), "selfplay: config: "))
	}
	return c, j, nil
}

// Settings are the config and the janggi setup weights the file gives,
// validated: a run config's selfplay section, whose games and rule set
// are the run's to check. Source names the file in messages.
func (f *File) Settings(source string) (Config, SetupWeights, error) {
	if err := f.unknown(source); err != nil {
		return Config{}, SetupWeights{}, err
	}
	w, err := f.setups(source)
	if err != nil {
		return Config{}, SetupWeights{}, err
	}
	c := f.Config
	if err := c.Validate(); err != nil {
		return Config{}, SetupWeights{}, fmt.Errorf("selfplay: %s: %s", source, strings.TrimPrefix(err.Error(), "selfplay: config: "))
	}
	return c, w, nil
}

// unknown reports the keys the file has that no field takes.
func (f *File) unknown(source string) error {
	if len(f.Extra) == 0 {
		return nil
	}
	keys := make([]string, 0, len(f.Extra))
	for k := range f.Extra {
		keys = append(keys, k)
	}
	return fmt.Errorf("selfplay: %s: unknown keys %s", source, strings.Join(slices.Sorted(slices.Values(keys)), ", "))
}

// setups are the file's janggi setup weights (zero: uniform).
func (f *File) setups(source string) (SetupWeights, error) {
	if f.JanggiSetups == nil {
		return SetupWeights{}, nil
	}
	w, err := f.JanggiSetups.weights()
	if err != nil {
		return SetupWeights{}, fmt.Errorf("selfplay: %s: %w", source, err)
	}
	return w, nil
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
func gameHash(c *Config, j *Job, networkID string) string {
	p := c.Search
	p.Seed = 0
	// Resignation changes the games only when on: runs from before it
	// keep their hash.
	var resign *Resign
	if c.Resign.On() {
		resign = &c.Resign
	}
	b, _ := json.Marshal(struct {
		RuleSet string
		Network string
		Search  mcts.Params
		Setups  SetupWeights
		Seed    uint64
		Resign  *Resign `json:",omitempty"`
	}{j.Rules.String(), networkID, p, j.JanggiSetups, j.Seed, resign})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
