package train

import (
	"errors"
	"fmt"

	"github.com/palace-chess/palace/internal/yamlconf"
	"github.com/palace-chess/palace/nn/model"
)

// GamesConfig is a supervised job's configuration (palace train --games):
// the network's shape and first weights, the trainer, and how long to
// train. Which games, and the split, are the data's (GameFilter).
type GamesConfig struct {
	Seed uint64 // the batches' and the split's randomness
	// Network is the shape of a network trained from scratch, and
	// NetworkSeed its random first weights.
	Network     model.Config
	NetworkSeed uint64
	Train       Config
	// Epochs is how many times each training position is drawn on
	// average; EvalEvery the steps between held-out evaluations (0: at
	// the end only).
	Epochs    float64
	EvalEvery int64
}

// gamesConfigFile is GamesConfig's YAML form, decoded over the defaults.
type gamesConfigFile struct {
	Seed      uint64           `yaml:"seed"`
	Network   gamesNetworkFile `yaml:"network"`
	Train     Config           `yaml:"train"`
	Epochs    float64          `yaml:"epochs"`
	EvalEvery int64            `yaml:"eval_every"`
}

type gamesNetworkFile struct {
	model.Config `yaml:",inline"`
	Seed         uint64 `yaml:"seed"`
}

var gamesSectionNames = map[string]string{
	"train.gamesConfigFile":  "the config",
	"train.gamesNetworkFile": "network",
	"train.configFile":       "train",
	"train.windowFile":       "window",
}

// DefaultGamesConfig is the configuration of palace train --games without
// a config file: configs/train-games.yaml states the same values.
func DefaultGamesConfig() GamesConfig {
	t := DefaultConfig()
	t.Batch = 256
	t.Schedule.Kind, t.Schedule.Rate, t.Schedule.Warmup, t.Schedule.Min = "cosine", 0.05, 200, 0.0005
	t.L2 = 3e-5
	t.LabelSmoothing = 0.05
	t.CheckpointEvery = 500
	net := model.DefaultConfig()
	net.Blocks = 4
	return GamesConfig{Seed: 1, Network: net, NetworkSeed: 1, Train: t, Epochs: 4, EvalEvery: 1000}
}

// Validate reports every setting that cannot work.
func (c *GamesConfig) Validate() error {
	var errs []error
	if err := c.Network.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("network: %w", err))
	}
	cfg := SuperviseConfig(c.Train, 1, 1) // a length for a cosine schedule without one
	if err := cfg.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Train.Records != "" || c.Train.RecordsShare != 0 || c.Train.RecordsGenerations != 0 {
		errs = append(errs, errors.New("train: records, records_share and records_generations are a self-play run's (here every position is a record's)"))
	}
	if !(c.Epochs > 0 && c.Epochs <= MaxEpochs) {
		errs = append(errs, fmt.Errorf("epochs %v, want more than 0 and at most %d", c.Epochs, MaxEpochs))
	}
	if c.EvalEvery < 0 {
		errs = append(errs, fmt.Errorf("eval_every %d, want ≥ 0 (0: at the end only)", c.EvalEvery))
	}
	if len(errs) > 0 {
		return fmt.Errorf("train: games config: %w", errors.Join(errs...))
	}
	return nil
}

// LoadGamesConfig reads a supervised job's YAML configuration.
func LoadGamesConfig(path string) (GamesConfig, error) {
	return yamlconf.Load("train", path, ParseGamesConfig)
}

// MaxEpochs bounds a job's passes over its positions: more would not end
// (and the step count would overflow).
const MaxEpochs = 10000

// ParseGamesConfig reads a YAML configuration over DefaultGamesConfig and
// validates it; unknown keys are errors, and source names the input.
func ParseGamesConfig(data []byte, source string) (GamesConfig, error) {
	c := DefaultGamesConfig()
	f := gamesConfigFile{Seed: c.Seed, Network: gamesNetworkFile{Config: c.Network, Seed: c.NetworkSeed}, Train: c.Train,
		Epochs: c.Epochs, EvalEvery: c.EvalEvery}
	if err := yamlconf.Decode(data, &f, gamesSectionNames); err != nil {
		return GamesConfig{}, fmt.Errorf("train: %s: %w", source, err)
	}
	c = GamesConfig{Seed: f.Seed, Network: f.Network.Config, NetworkSeed: f.Network.Seed, Train: f.Train, Epochs: f.Epochs, EvalEvery: f.EvalEvery}
	if err := c.Validate(); err != nil {
		return GamesConfig{}, fmt.Errorf("train: %s: %w", source, err)
	}
	return c, nil
}
