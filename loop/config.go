package loop

import (
	"errors"
	"fmt"
	"github.com/palace-chess/palace/arena"
	"gopkg.in/yaml.v3"
	"strings"

	"github.com/palace-chess/palace/internal/yamlconf"
	"github.com/palace-chess/palace/ladder"
	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/stats"
	"github.com/palace-chess/palace/train"
)

// Config is a whole run: the rules, the network's shape, and each stage's
// settings. LoadConfig reads it from YAML (configs/quickstart-*.yaml
// document every key).
type Config struct {
	// Rules is the run's rule set, uncapped: the config's rules (a preset
	// or a rule-set YAML file), loaded once by ParseConfig. Each stage caps
	// it as it plays (RuleSets).
	Rules *rules.RuleSet
	Seed  uint64
	// Generations stops the run after that many generations (0: never).
	Generations int
	// Gating: a candidate replaces the best network only when it wins its
	// gate match. Off, every candidate is promoted (KataGo's ungated
	// loop) and no match is played.
	Gating  bool
	Network model.Config
	// NetworkSeed seeds generation 0's random weights.
	NetworkSeed uint64
	// NetworkInit, when set, is a network file that generation 0 is
	// instead (one trained from records by palace train --games, say), or
	// model.Builtin, the network palace ships for the run's game:
	// its shape replaces Network's, and it is read once, when the run
	// starts.
	NetworkInit string
	// Selfplay is each generation's self-play.
	Selfplay SelfplayConfig
	// Reanalysis searches positions of earlier generations' games again
	// with the best network, as fresh training positions (off by default).
	Reanalysis ReanalysisConfig
	Train      train.Config
	Gate       GateConfig
	Ladder     LadderConfig
	// Async is the distributed run's asynchronous mode (off: the exact
	// loop).
	Async AsyncConfig
}

// AsyncConfig is the distributed run's asynchronous mode (KataGo's and
// lc0's loop; issue 46): workers play self-play blocks with the best
// network of the moment, never waiting for training or the gate; the
// trainer trains a candidate on the newest committed generation whenever
// it is free; the gatekeeper tests the newest candidate as it comes. The
// yaml keys are a config's async section.
type AsyncConfig struct {
	// Enabled turns the mode on (palace run --distributed only).
	Enabled bool `yaml:"enabled"`
	// Lead is how many self-play generations are queued at once beyond
	// the newest committed one: enough blocks that no worker waits for
	// the last block of a generation, few enough that a gate pair waits
	// behind few of them and a new best soon plays.
	Lead int `yaml:"lead"`
	// CatchUp bounds a candidate's training: the steps of the positions
	// of at most this many of the newest generations (samples_per_position
	// of each). When the workers outrun the trainer, the older untrained
	// generations join the window with fewer samples (KataGo's cap on the
	// training bucket) instead of the trainer falling ever further behind.
	CatchUp int `yaml:"catch_up"`
}

// validate reports what cannot work in the section.
func (a *AsyncConfig) validate() error {
	if a.Lead < 1 || a.Lead > 64 || a.CatchUp < 1 || a.CatchUp > 1000 {
		return fmt.Errorf("async: lead %d, catch_up %d: want 1 to 64, 1 to 1000", a.Lead, a.CatchUp)
	}
	return nil
}

// ReanalysisConfig is the reanalyse stage (MuZero Reanalyse): after each
// generation's self-play, Positions positions sampled from the earlier
// generations' games that the replay window still holds are searched
// again by the best network at the self-play search's full budget (or
// Simulations) and trained on beside the games' own positions. The yaml
// keys are a config's reanalysis section.
type ReanalysisConfig struct {
	// Positions a generation (0: no reanalysis).
	Positions int `yaml:"positions"`
	// Simulations is each search's budget (0: selfplay.search.simulations).
	Simulations int `yaml:"simulations"`
}

// validate reports what cannot work in the section.
func (r *ReanalysisConfig) validate() error {
	if r.Positions < 0 || r.Positions > selfplay.MaxReanalysePositions || r.Simulations < 0 {
		return fmt.Errorf("reanalysis: positions %d, simulations %d: want 0 to %d, ≥ 0 (0: the self-play search's)",
			r.Positions, r.Simulations, selfplay.MaxReanalysePositions)
	}
	return nil
}

// SelfplayConfig is a config's selfplay section: selfplay's config, and
// the two keys of a self-play job that stay the same for the whole run.
// The rest of each job (its directory, rule set, network and seed) is the
// run's (Stages.SelfplayJob).
type SelfplayConfig struct {
	selfplay.Config
	// Games is the number of games a round plays: a generation plays one
	// round, or more until training has its positions (MoreSelfplay).
	Games        int
	JanggiSetups selfplay.SetupWeights
}

// validate reports what cannot work in the section under rule set rs.
func (s *SelfplayConfig) validate(rs *rules.RuleSet) error {
	var errs []error
	if err := s.Config.Validate(); err != nil {
		errs = append(errs, err)
	}
	if s.Games < 1 || s.Games > selfplay.MaxGames {
		errs = append(errs, fmt.Errorf("games: %d, want 1 to %d", s.Games, selfplay.MaxGames))
	}
	if err := s.JanggiSetups.Validate(rs); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("selfplay: %w", errors.Join(errs...))
	}
	return nil
}

// GateConfig is the gate: a match between the candidate and the best
// network. The yaml keys are a config's gate section (arena, its old
// name, is read too: ParseConfig).
type GateConfig struct {
	// Settings are the match's pairs (at most), opening plies and games
	// at once.
	arena.Settings `yaml:",inline"`
	Search         mcts.Params `yaml:"search"`
	Evaluators     int         `yaml:"evaluators"` // per player
	// SPRT's keys are its fields' names in lower case (elo0, elo1, alpha,
	// beta), yaml's default.
	SPRT stats.SPRT `yaml:"sprt"`
	// AcceptScore decides a match the test leaves open after Pairs pairs:
	// the candidate is promoted when its score is at least this.
	AcceptScore float64 `yaml:"accept_score"`
	// Every gates only every Every-th candidate (1: each one): fewer,
	// larger gates for the same time. The candidates between are trained
	// on (the trainer goes on from its own last one) but never played.
	Every int `yaml:"every"`
	// MaxPlies caps the match's games (0: the self-play cap).
	MaxPlies int `yaml:"max_plies"`
}

// LadderConfig rates the best network on the absolute scale (package
// ladder) every Every promotions, in a stage of its own after the gate.
// The yaml keys are a config's ladder section.
type LadderConfig struct {
	// Every is the number of promotions between ratings (0: never).
	Every int `yaml:"every"`
	// Settings are each rung's match: its pairs, opening plies and games
	// at once.
	arena.Settings `yaml:",inline"`
	// Simulations is the network's search budget (0: the gate's); the
	// rest of its search is the gate's.
	Simulations int `yaml:"simulations"`
	// Engine is the rungs' program ("": the scale's); Scale a scale file
	// ("": the built-in scale of the run's rule set).
	Engine     string `yaml:"engine"`
	Scale      string `yaml:"scale"`
	Evaluators int    `yaml:"evaluators"` // network copies
}

// DefaultConfig is a configuration with every default filled in; Rules and
// Seed are the caller's.
func DefaultConfig() Config {
	net := model.DefaultConfig()
	net.Blocks, net.Filters, net.ValueHidden = 4, 32, 32
	return Config{
		Gating:      true,
		Network:     net,
		NetworkSeed: 1,
		Selfplay:    SelfplayConfig{Config: selfplay.DefaultConfig(), Games: 200},
		Train:       train.DefaultConfig(),
		Gate: GateConfig{Settings: arena.Settings{Pairs: 50, OpeningPlies: 2, Concurrency: 16},
			Search: mcts.PlayParams(32), Evaluators: 2, Every: 1,
			SPRT: stats.SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}, AcceptScore: 0.55},
		Ladder: LadderConfig{Settings: arena.Settings{Pairs: 5, OpeningPlies: 2, Concurrency: 4}, Evaluators: 1},
		Async:  AsyncConfig{Lead: 2, CatchUp: 2},
	}
}

// Validate reports every setting that cannot work, naming the YAML key.
func (c *Config) Validate() error {
	var errs []error
	if c.Rules == nil {
		errs = append(errs, errors.New("rules: missing"))
	}
	if c.Generations < 0 {
		errs = append(errs, fmt.Errorf("generations: %d, want ≥ 0", c.Generations))
	}
	if err := c.Network.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("network: %w", err))
	}
	if err := c.Selfplay.validate(c.Rules); err != nil {
		errs = append(errs, err)
	}
	if err := c.Reanalysis.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Train.Validate(); err != nil {
		errs = append(errs, err)
	}
	a := &c.Gate
	errs = append(errs, settingsErrors("gate", &a.Settings)...)
	if a.Evaluators < 1 || a.Evaluators > arena.MaxEvaluators || a.MaxPlies < 0 {
		errs = append(errs, fmt.Errorf("gate: evaluators %d, max_plies %d: want 1 to %d, ≥ 0",
			a.Evaluators, a.MaxPlies, arena.MaxEvaluators))
	}
	if a.Every < 1 || a.Every > 1000 {
		errs = append(errs, fmt.Errorf("gate: every %d, want 1 (each candidate) to 1000", a.Every))
	}
	if err := a.Search.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("gate: search: %w", err))
	}
	if err := a.SPRT.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("gate: sprt: %w", err))
	}
	if !(a.AcceptScore >= 0 && a.AcceptScore <= 1) {
		errs = append(errs, fmt.Errorf("gate: accept_score %v, want 0 to 1", a.AcceptScore))
	}
	if err := c.Ladder.validate(c.Rules); err != nil {
		errs = append(errs, err)
	}
	if err := c.Async.validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("loop: config: %w", errors.Join(errs...))
	}
	return nil
}

// configFile is the YAML form of Config, decoded over the defaults: each
// package's section decodes itself; pointers mark the keys that must be
// given.
type configFile struct {
	Rules       *string          `yaml:"rules"`
	Seed        *uint64          `yaml:"seed"`
	Generations int              `yaml:"generations"`
	Gating      bool             `yaml:"gating"`
	Network     networkFile      `yaml:"network"`
	Selfplay    selfplay.File    `yaml:"selfplay"`
	Reanalysis  ReanalysisConfig `yaml:"reanalysis"`
	Train       train.Config     `yaml:"train"`
	// Gate is the gate's section; Arena, the same section by its old
	// name, is still read (ParseConfig refuses both).
	Gate   yamlconf.Section[gateFile] `yaml:"gate"`
	Arena  yamlconf.Section[gateFile] `yaml:"arena"`
	Ladder LadderConfig               `yaml:"ladder"`
	Async  AsyncConfig                `yaml:"async"`
}

// networkFile is generation 0's network: its shape and its seed, or a
// network file.
type networkFile struct {
	model.Config `yaml:",inline"`
	Seed         uint64 `yaml:"seed"`
	Init         string `yaml:"init"`
}

// shapeKeys are the network section's keys that a network file fixes.
var shapeKeys = []string{"blocks", "filters", "policy_channels", "value_channels", "value_hidden", "reply_policy", "seed"}

// gateFile is the gate's section; its simulations, when given, is the
// search's budget (over the search section's).
type gateFile struct {
	GateConfig  `yaml:",inline"`
	Simulations *int `yaml:"simulations"`
}

// sectionNames maps the Go types of configFile's sections to their YAML
// names, for messages about unknown keys.
var sectionNames = func() map[string]string {
	m := map[string]string{
		"loop.configFile":       "the config",
		"loop.networkFile":      "network",
		"loop.gateFile":         "gate",
		"loop.LadderConfig":     "ladder",
		"loop.ReanalysisConfig": "reanalysis",
		"loop.AsyncConfig":      "async",
		"stats.SPRT":            "sprt",
		"selfplay.File":         "selfplay",
	}
	for _, names := range []map[string]string{selfplay.SectionNames, train.SectionNames} {
		for typ, name := range names {
			m[typ] = name
		}
	}
	return m
}()

// LoadConfig reads a run's YAML configuration.
func LoadConfig(path string) (Config, error) {
	return yamlconf.Load("loop", path, ParseConfig)
}

// ParseConfig reads a YAML configuration over DefaultConfig, loads its
// rule set and validates it; unknown keys are errors, and source names the
// input in messages.
func ParseConfig(data []byte, source string) (Config, error) {
	c := DefaultConfig()
	f := configFile{Generations: c.Generations, Gating: c.Gating,
		Network:  networkFile{Config: c.Network, Seed: c.NetworkSeed},
		Selfplay: selfplay.NewFile(c.Selfplay.Config), Train: c.Train, Ladder: c.Ladder, Async: c.Async}
	f.Gate.Value = gateFile{GateConfig: c.Gate}
	f.Arena.Value = f.Gate.Value
	if err := yamlconf.Decode(data, &f, sectionNames); err != nil {
		return Config{}, fmt.Errorf("loop: %s: %w", source, err)
	}
	if err := yamlconf.Missing(
		yamlconf.Required{Name: "rules (a preset such as xiangqi or janggi, or a rule-set file)", Given: f.Rules != nil},
		yamlconf.Required{Name: "seed (any number; a resumed run needs the same one)", Given: f.Seed != nil},
	); err != nil {
		return Config{}, fmt.Errorf("loop: %s: %w", source, err)
	}
	rs, err := rules.LoadRuleSet(*f.Rules)
	if err != nil {
		return Config{}, fmt.Errorf("loop: %s: %w", source, err)
	}
	c.Rules, c.Seed, c.Generations, c.Gating = rs, *f.Seed, f.Generations, f.Gating
	c.Network, c.NetworkSeed, c.NetworkInit = f.Network.Config, f.Network.Seed, f.Network.Init
	if c.NetworkInit != "" {
		if given, err := givenNetworkKeys(data); err != nil {
			return Config{}, fmt.Errorf("loop: %s: %w", source, err)
		} else if len(given) > 0 {
			return Config{}, fmt.Errorf("loop: %s: network: init %s gives the network, shape and weights: leave out %s",
				source, c.NetworkInit, strings.Join(given, ", "))
		}
	}
	s := &f.Selfplay
	var given []string
	if s.Output != "" {
		given = append(given, "output")
	}
	if s.Rules != "" {
		given = append(given, "rules")
	}
	if s.Network != "" || s.RandomNetwork.Given {
		given = append(given, "network")
	}
	if s.Seed != nil {
		given = append(given, "seed")
	}
	if len(given) > 0 {
		return Config{}, fmt.Errorf("loop: %s: selfplay: %s are the run's (give them at the top level or leave them out)", source, strings.Join(given, ", "))
	}
	sp, setups, err := s.Settings(source + ": selfplay")
	if err != nil {
		return Config{}, fmt.Errorf("loop: %w", err)
	}
	c.Selfplay.Config, c.Selfplay.JanggiSetups = sp, setups
	if s.Games != nil {
		c.Selfplay.Games = *s.Games
	}
	c.Train = f.Train
	c.Reanalysis = f.Reanalysis
	gate := f.Gate.Value
	if f.Arena.Given {
		if f.Gate.Given {
			return Config{}, fmt.Errorf("loop: %s: gate and arena are the same section (arena is its old name): give one", source)
		}
		gate = f.Arena.Value
	}
	c.Gate = gate.GateConfig
	c.Ladder = f.Ladder
	c.Async = f.Async
	if gate.Simulations != nil {
		c.Gate.Search.Simulations = *gate.Simulations
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("loop: %s: %s", source, strings.TrimPrefix(err.Error(), "loop: config: "))
	}
	return c, nil
}

// givenNetworkKeys lists the shape keys the network section of data
// gives (data has been decoded strictly already).
func givenNetworkKeys(data []byte) ([]string, error) {
	var doc struct {
		Network map[string]any `yaml:"network"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var given []string
	for _, k := range shapeKeys {
		if _, ok := doc.Network[k]; ok {
			given = append(given, k)
		}
	}
	return given, nil
}

// validate reports what cannot work in the ladder section of a run under
// rule set rs; with Every 0 nothing is checked beyond the numbers.
func (l *LadderConfig) validate(rs *rules.RuleSet) error {
	errs := settingsErrors("ladder", &l.Settings)
	if l.Every < 0 || l.Simulations < 0 || l.Evaluators < 1 || l.Evaluators > arena.MaxEvaluators {
		errs = append(errs, fmt.Errorf("ladder: every %d, simulations %d, evaluators %d: want ≥ 0, ≥ 0, 1 to %d",
			l.Every, l.Simulations, l.Evaluators, arena.MaxEvaluators))
	}
	if l.Every > 0 && len(errs) == 0 {
		if _, err := l.scale(rs); err != nil {
			// The section already says ladder.
			errs = append(errs, fmt.Errorf("ladder: %s", strings.TrimPrefix(err.Error(), "ladder: ")))
		}
	}
	return errors.Join(errs...)
}

// settingsErrors are the match settings of section out of their bounds,
// each named by its key in the section: "gate: pairs 0, want 1 to 1048576".
func settingsErrors(section string, s *arena.Settings) []error {
	var bounds arena.BoundErrors
	if !errors.As(s.Validate(), &bounds) {
		return nil
	}
	errs := make([]error, len(bounds))
	for i, b := range bounds {
		errs[i] = fmt.Errorf("%s: %s", section, b.Setting())
	}
	return errs
}

// scale is the ladder's scale: its file, or the built-in one of the run's
// rule set rs (uncapped: a scale is calibrated under the rules' own ends).
func (l *LadderConfig) scale(rs *rules.RuleSet) (*ladder.Scale, error) {
	if l.Scale != "" {
		return ladder.LoadScale(l.Scale)
	}
	return ladder.BuiltinScale(rs)
}

// Program is the rungs' engine program: the configured one, else that of
// the scale for the run's rule set rs.
func (l *LadderConfig) Program(rs *rules.RuleSet) (string, error) {
	if l.Engine != "" {
		return l.Engine, nil
	}
	scale, err := l.scale(rs)
	if err != nil {
		return "", err
	}
	return scale.Engine.Program, nil
}
