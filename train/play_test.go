package train

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/selfplay"
)

// TinyGames is a short self-play run for the trainer's tests (exported
// here so that the external tests share it).
type TinyGames struct {
	Rules                          string // a preset
	Games, MaxPlies                int
	GamesPerShard, ConcurrentGames int
	Seed                           uint64 // the self-play run's
	EvaluatorSeed                  uint64 // the random evaluator's
}

// PlayTiny plays g with a random evaluator into a new shard directory and
// returns it with the rule set capped as the games were.
func PlayTiny(t *testing.T, g TinyGames) (string, *rules.RuleSet) {
	t.Helper()
	c := selfplay.DefaultConfig()
	c.ConcurrentGames, c.GamesPerShard, c.MaxPlies, c.CacheEntries = g.ConcurrentGames, g.GamesPerShard, g.MaxPlies, 4096
	c.Search.Simulations, c.Search.CheapSimulations, c.Search.GumbelK = 8, 2, 4
	rs, err := rules.Preset(g.Rules)
	if err != nil {
		t.Fatal(err)
	}
	job := selfplay.Job{Output: filepath.Join(t.TempDir(), "sp"), Rules: c.RuleSet(rs), Games: g.Games, Seed: g.Seed}
	opt := selfplay.Options{Evaluator: func() (nn.Evaluator, string, error) {
		return nn.NewRandom(encode.InputSize, encode.PolicySize(), g.EvaluatorSeed), fmt.Sprintf("random-%d", g.EvaluatorSeed), nil
	}}
	if _, err := selfplay.Run(context.Background(), c, job, opt); err != nil {
		t.Fatal(err)
	}
	return job.Output, job.Rules
}
