package selfplay

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
)

// Self-play's own cost around the network: games of xiangqi (80 plies,
// self-play's default search) played by 4 workers (4 games each) through nn's hash-based
// Random evaluator, which costs next to nothing. One op is a run of 16
// games, its start (directory, lock, cache) included.
func BenchmarkRunZeroCost(b *testing.B) {
	c := testRun{Config: DefaultConfig()}
	c.Output = filepath.Join(b.TempDir(), "run")
	c.Seed, c.MaxPlies = 1, 80
	c.Rules = c.RuleSet(preset(b, "xiangqi", 0))
	c.ConcurrentGames, c.GamesPerShard, c.CacheEntries = 4, 16, 1<<16
	opt := Options{CodeVersion: "bench", Evaluator: func() (nn.Evaluator, string, error) {
		return nn.NewRandom(encode.InputSize, encode.PolicySize(), 5), "random-5", nil
	}}
	b.ReportAllocs()
	var positions int64
	for i := 0; b.Loop(); i++ {
		c.Output = filepath.Join(b.TempDir(), fmt.Sprint(i))
		c.Games = 16
		st, err := Run(context.Background(), c.Config, c.Job, opt)
		if err != nil {
			b.Fatal(err)
		}
		positions += st.Positions
	}
	b.ReportMetric(float64(positions)/b.Elapsed().Seconds(), "positions/s")
	b.ReportMetric(float64(b.N*16)/b.Elapsed().Seconds(), "games/s")
}
