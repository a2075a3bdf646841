package openings

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/selfplay"
)

// A self-play directory read through rundir.Collect gives a tree of
// exactly the games played, each janggi game in its setup's cell.
func TestSelfplayDirectory(t *testing.T) {
	const games = 7
	cfg := selfplay.DefaultConfig()
	run := t.TempDir()
	cfg.ConcurrentGames, cfg.GamesPerShard, cfg.MaxPlies, cfg.CacheEntries = 3, 3, 16, 1024
	cfg.Search.Simulations, cfg.Search.CheapSimulations, cfg.Search.GumbelK = 4, 2, 2
	job := selfplay.Job{Output: filepath.Join(run, "selfplay", "gen-0000"), Rules: cfg.RuleSet(rules.MustPreset("janggi")), Games: games, Seed: 5}
	st, err := selfplay.Run(context.Background(), cfg, job, selfplay.Options{
		Evaluator: func() (nn.Evaluator, string, error) {
			return nn.NewUniform(encode.InputSize, encode.PolicySize()), "uniform", nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Played != games {
		t.Fatalf("played %d games, want %d", st.Played, games)
	}
	tree, err := Build([]string{job.Output}, Filter{Depth: 6})
	if err != nil {
		t.Fatal(err)
	}
	if tree.Games() != games {
		t.Errorf("tree of %d games, want %d", tree.Games(), games)
	}
	v, err := tree.View()
	if err != nil {
		t.Fatal(err)
	}
	roots := 0
	for _, r := range v.Roots {
		p := &v.Positions[r]
		roots += p.Games
		if p.Setup == "" || p.Unscored != 0 || p.White.Games() != p.Games {
			t.Errorf("root %s: setup %q, %d games, %d unscored, W/D/L %+v", p.FEN, p.Setup, p.Games, p.Unscored, p.White)
		}
	}
	ms := tree.Setups()
	if roots != games || len(ms) != 1 || ms[0].Total().Games != games || ms[0].Other != 0 {
		t.Errorf("roots hold %d games, matrices %d", roots, len(ms))
	}
	// The capped rule set (max_plies 16) is part of the name@hash.
	if rs := tree.RuleSets(); len(rs) != 1 || rs[0] == rules.MustPreset("janggi").String() {
		t.Errorf("rule sets %v", rs)
	}
	// A generation filter leaves every game out: a bare self-play
	// directory does not know its network's generation.
	tree, err = Build([]string{job.Output}, Filter{Generations: &Generations{0, -1}})
	if err != nil || tree.Games() != 0 || tree.Skipped().Generation != games {
		t.Errorf("generation filter: %v, %d games, skipped %+v", err, tree.Games(), tree.Skipped())
	}

	// Made a run directory (palace run's layout: state.json, metrics
	// naming the network of generation 0's self-play), the games are
	// generation 0's.
	writeFile(t, filepath.Join(run, "state.json"), `{}`)
	writeFile(t, filepath.Join(run, "metrics.jsonl"), `{"generation":0,"stage":"selfplay","network":"nets/gen-0000.palnet"}`+"\n")
	for _, tc := range []struct {
		gens Generations
		want int
	}{{Generations{0, 0}, games}, {Generations{0, -1}, games}, {Generations{1, -1}, 0}} {
		tree, err := Build([]string{run}, Filter{Generations: &tc.gens})
		if err != nil || tree.Games() != tc.want || tree.Skipped().Generation != games-tc.want {
			t.Errorf("run directory, generations %s: %v, %d games, skipped %+v; want %d", tc.gens, err, tree.Games(), tree.Skipped(), tc.want)
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
