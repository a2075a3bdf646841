package loop

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/internal/yamlconf"
	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn/gnet"
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
	Rules string // a preset or a rule-set YAML file
	Seed  uint64
	// Generations stops the run after that many generations (0: never).
	Generations int
	// Gating: a candidate replaces the best network only when it wins its
	// arena match. Off, every candidate is promoted (KataGo's ungated
	// loop) and no match is played.
	Gating  bool
	Network model.Config
	// NetworkSeed seeds generation 0's random weights.
	NetworkSeed uint64
	// Selfplay is each generation's self-play: Games is the number of
	// games per generation; Output, Rules, Network and Seed are the run's.
	Selfplay selfplay.Config
	Train    train.Config
	Arena    ArenaConfig
}

// ArenaConfig is the gate: a match between the candidate and the best
// network.
type ArenaConfig struct {
	Pairs        int // the most game pairs
	OpeningPlies int // random plies of each pair's opening
	Search       mcts.Params
	Concurrency  int
	Evaluators   int // per player
	SPRT         stats.SPRT
	// AcceptScore decides a match the test leaves open after Pairs pairs:
	// the candidate is promoted when its score is at least this.
	AcceptScore float64
	// MaxPlies caps the match's games (0: the self-play cap).
	MaxPlies int
}

// DefaultConfig is a configuration with every default filled in; Rules and
// Seed are the caller's.
func DefaultConfig() Config {
	sp := selfplay.DefaultConfig()
	sp.Games = 200
	return Config{
		Gating:      true,
		Network:     model.Config{Planes: encode.Planes, PolicySize: encode.PolicySize(), Blocks: 4, Filters: 32, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 32},
		NetworkSeed: 1,
		Selfplay:    sp,
		Train:       train.DefaultConfig(),
		Arena: ArenaConfig{Pairs: 50, OpeningPlies: 2, Search: mcts.PlayParams(32), Concurrency: 16, Evaluators: 2,
			SPRT: stats.SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}, AcceptScore: 0.55},
	}
}

// Validate reports every setting that cannot work, naming the YAML key.
func (c *Config) Validate() error {
	var errs []error
	if c.Rules == "" {
		errs = append(errs, errors.New("rules: missing"))
	} else if _, err := rules.LoadRuleSet(c.Rules); err != nil {
		errs = append(errs, fmt.Errorf("rules: %w", err))
	}
	if c.Generations < 0 {
		errs = append(errs, fmt.Errorf("generations: %d, want ≥ 0", c.Generations))
	}
	if err := c.Network.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("network: %w", err))
	}
	sp := c.Selfplay
	sp.Output, sp.Rules = "x", c.Rules
	if err := sp.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("selfplay: %w", err))
	}
	if err := c.Train.Validate(); err != nil {
		errs = append(errs, err)
	}
	a := &c.Arena
	if a.Pairs < 1 {
		errs = append(errs, fmt.Errorf("arena: pairs %d, want ≥ 1", a.Pairs))
	}
	if a.OpeningPlies < 0 || a.Concurrency < 1 || a.Evaluators < 1 || a.MaxPlies < 0 {
		errs = append(errs, fmt.Errorf("arena: opening_plies %d, concurrent_games %d, evaluators %d, max_plies %d: want ≥ 0, ≥ 1, ≥ 1, ≥ 0",
			a.OpeningPlies, a.Concurrency, a.Evaluators, a.MaxPlies))
	}
	if err := a.Search.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("arena: search: %w", err))
	}
	if err := a.SPRT.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("arena: sprt: %w", err))
	}
	if !(a.AcceptScore >= 0 && a.AcceptScore <= 1) {
		errs = append(errs, fmt.Errorf("arena: accept_score %v, want 0 to 1", a.AcceptScore))
	}
	if len(errs) > 0 {
		return fmt.Errorf("loop: config: %w", errors.Join(errs...))
	}
	return nil
}

// configFile is the YAML form; pointers mark what was given.
type configFile struct {
	Rules       *string        `yaml:"rules"`
	Seed        *uint64        `yaml:"seed"`
	Generations *int           `yaml:"generations"`
	Gating      *bool          `yaml:"gating"`
	Network     *networkFile   `yaml:"network"`
	Selfplay    *selfplay.File `yaml:"selfplay"`
	Train       *trainFile     `yaml:"train"`
	Arena       *arenaFile     `yaml:"arena"`
}

type networkFile struct {
	Blocks         *int    `yaml:"blocks"`
	Filters        *int    `yaml:"filters"`
	PolicyChannels *int    `yaml:"policy_channels"`
	ValueChannels  *int    `yaml:"value_channels"`
	ValueHidden    *int    `yaml:"value_hidden"`
	Seed           *uint64 `yaml:"seed"`
}

type trainFile struct {
	Batch              *int           `yaml:"batch"`
	Optimizer          *string        `yaml:"optimizer"`
	Momentum           *float64       `yaml:"momentum"`
	Beta1              *float64       `yaml:"beta1"`
	Beta2              *float64       `yaml:"beta2"`
	Epsilon            *float64       `yaml:"epsilon"`
	Schedule           *gnet.Schedule `yaml:"schedule"`
	L2                 *float64       `yaml:"l2"`
	BNMomentum         *float64       `yaml:"bn_momentum"`
	SamplesPerPosition *float64       `yaml:"samples_per_position"`
	Window             *windowFile    `yaml:"window"`
	Mirror             *float64       `yaml:"mirror"`
	SearchValueWeight  *float64       `yaml:"search_value_weight"`
	DrawMaterialScale  *float64       `yaml:"draw_material_scale"`
	MaskIllegal        *bool          `yaml:"mask_illegal"`
	CheckpointEvery    *int           `yaml:"checkpoint_every"`
}

type arenaFile struct {
	Pairs        *int                 `yaml:"pairs"`
	OpeningPlies *int                 `yaml:"opening_plies"`
	Simulations  *int                 `yaml:"simulations"`
	Search       *selfplay.SearchFile `yaml:"search"`
	Concurrency  *int                 `yaml:"concurrent_games"`
	Evaluators   *int                 `yaml:"evaluators"`
	SPRT         *sprtFile            `yaml:"sprt"`
	AcceptScore  *float64             `yaml:"accept_score"`
	MaxPlies     *int                 `yaml:"max_plies"`
}

type windowFile struct {
	MinRows   *int     `yaml:"min_rows"`
	Exponent  *float64 `yaml:"exponent"`
	Expansion *float64 `yaml:"expansion"`
	MaxRows   *int     `yaml:"max_rows"`
}

type sprtFile struct {
	Elo0  *float64 `yaml:"elo0"`
	Elo1  *float64 `yaml:"elo1"`
	Alpha *float64 `yaml:"alpha"`
	Beta  *float64 `yaml:"beta"`
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// sectionNames maps the Go types of configFile's sections to their YAML
// names, for messages about unknown keys.
var sectionNames = func() map[string]string {
	m := map[string]string{
		"loop.configFile":  "the config",
		"loop.networkFile": "network",
		"loop.trainFile":   "train",
		"loop.arenaFile":   "arena",
		"loop.windowFile":  "window",
		"loop.sprtFile":    "sprt",
	}
	for typ, name := range selfplay.SectionNames {
		m[typ] = name
	}
	return m
}()

// LoadConfig reads a run's YAML configuration.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("loop: %w", err)
	}
	return ParseConfig(data, path)
}

// ParseConfig reads a YAML configuration over DefaultConfig and validates
// it; unknown keys are errors, and source names the input in messages.
func ParseConfig(data []byte, source string) (Config, error) {
	var f configFile
	if err := yamlconf.Decode(data, &f, sectionNames); err != nil {
		return Config{}, fmt.Errorf("loop: %s: %w", source, err)
	}
	c := DefaultConfig()
	var missing []string
	if f.Rules == nil {
		missing = append(missing, "rules (a preset such as xiangqi or janggi, or a rule-set file)")
	}
	if f.Seed == nil {
		missing = append(missing, "seed (any number; a resumed run needs the same one)")
	}
	if len(missing) > 0 {
		return Config{}, fmt.Errorf("loop: %s: missing %s", source, strings.Join(missing, "; "))
	}
	set(&c.Rules, f.Rules)
	set(&c.Seed, f.Seed)
	set(&c.Generations, f.Generations)
	set(&c.Gating, f.Gating)
	if n := f.Network; n != nil {
		set(&c.Network.Blocks, n.Blocks)
		set(&c.Network.Filters, n.Filters)
		set(&c.Network.PolicyChannels, n.PolicyChannels)
		set(&c.Network.ValueChannels, n.ValueChannels)
		set(&c.Network.ValueHidden, n.ValueHidden)
		set(&c.NetworkSeed, n.Seed)
	}
	if s := f.Selfplay; s != nil {
		var given []string
		if s.Output != "" {
			given = append(given, "output")
		}
		if s.Rules != "" {
			given = append(given, "rules")
		}
		if s.Network != "" || s.RandomNetwork != nil {
			given = append(given, "network")
		}
		if s.Seed != nil {
			given = append(given, "seed")
		}
		if len(given) > 0 {
			return Config{}, fmt.Errorf("loop: %s: selfplay: %s are the run's (give them at the top level or leave them out)", source, strings.Join(given, ", "))
		}
		games, seed := 200, uint64(0)
		if s.Games == nil {
			s.Games = &games
		}
		s.Seed, s.Output, s.Rules = &seed, "run", c.Rules
		sp, err := s.Config(source + ": selfplay")
		if err != nil {
			return Config{}, fmt.Errorf("loop: %w", err)
		}
		sp.Output, sp.Rules = "", ""
		c.Selfplay = sp
	}
	if t := f.Train; t != nil {
		tc := &c.Train
		set(&tc.Batch, t.Batch)
		set(&tc.Optimizer, t.Optimizer)
		set(&tc.Momentum, t.Momentum)
		set(&tc.Beta1, t.Beta1)
		set(&tc.Beta2, t.Beta2)
		set(&tc.Epsilon, t.Epsilon)
		set(&tc.Schedule, t.Schedule)
		set(&tc.L2, t.L2)
		set(&tc.BNMomentum, t.BNMomentum)
		set(&tc.SamplesPerPosition, t.SamplesPerPosition)
		if w := t.Window; w != nil {
			set(&tc.MinRows, w.MinRows)
			set(&tc.WindowExponent, w.Exponent)
			set(&tc.WindowExpansion, w.Expansion)
			set(&tc.MaxRows, w.MaxRows)
		}
		set(&tc.Mirror, t.Mirror)
		set(&tc.SearchValueWeight, t.SearchValueWeight)
		set(&tc.DrawMaterialScale, t.DrawMaterialScale)
		set(&tc.MaskIllegal, t.MaskIllegal)
		set(&tc.CheckpointEvery, t.CheckpointEvery)
	}
	if a := f.Arena; a != nil {
		ac := &c.Arena
		set(&ac.Pairs, a.Pairs)
		set(&ac.OpeningPlies, a.OpeningPlies)
		if a.Search != nil {
			if err := a.Search.Apply(&ac.Search); err != nil {
				return Config{}, fmt.Errorf("loop: %s: arena: %w", source, err)
			}
		}
		set(&ac.Search.Simulations, a.Simulations)
		set(&ac.Concurrency, a.Concurrency)
		set(&ac.Evaluators, a.Evaluators)
		if s := a.SPRT; s != nil {
			set(&ac.SPRT.Elo0, s.Elo0)
			set(&ac.SPRT.Elo1, s.Elo1)
			set(&ac.SPRT.Alpha, s.Alpha)
			set(&ac.SPRT.Beta, s.Beta)
		}
		set(&ac.AcceptScore, a.AcceptScore)
		set(&ac.MaxPlies, a.MaxPlies)
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("loop: %s: %s", source, strings.TrimPrefix(err.Error(), "loop: config: "))
	}
	return c, nil
}
