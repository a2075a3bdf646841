package gamerec_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/selfplay"
)

// TestCollect reads a games file, a self-play directory and a directory
// holding both, in order, with the self-play games' network IDs.
func TestCollect(t *testing.T) {
	t.Setenv("PALACE_BLAS", "off")
	root := t.TempDir()
	games, sets := gamerec.SampleGames(t)
	hdr, _ := gamerec.NewHeader(games, sets)
	if err := gamerec.Write(filepath.Join(root, "imported.jsonl"), hdr, games); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "other.jsonl"), []byte(`{"stage":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := selfplay.DefaultConfig()
	cfg.Output = filepath.Join(root, "sp")
	cfg.Rules, cfg.Games, cfg.Seed, cfg.GamesPerShard, cfg.MaxPlies = "xiangqi", 5, 1, 2, 12
	cfg.RandomNetwork = selfplay.RandomNetwork{Blocks: 1, Filters: 8, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8, Seed: 3}
	cfg.Search.Simulations, cfg.Search.CheapSimulations, cfg.Search.GumbelK = 4, 2, 2
	opt := selfplay.Options{CodeVersion: "test", Evaluator: func() (nn.Evaluator, string, error) {
		return nn.NewRandom(encode.InputSize, encode.PolicySize(), 5), "random-5", nil
	}}
	if _, err := selfplay.Run(context.Background(), cfg, opt); err != nil {
		t.Fatal(err)
	}
	// Debris of a crash: a games file the manifest does not list.
	if err := os.WriteFile(filepath.Join(cfg.Output, "shard-000099.games.jsonl"), []byte("junk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := gamerec.Collect([]string{root}, func(g *gamerec.Game, rs *rules.RuleSet) error {
		if _, err := g.Replay(rs); err != nil {
			return err
		}
		if g.Network != "" && g.Date != time.Now().UTC().Format("2006.01.02") {
			t.Errorf("%s: self-play game dated %q, not today", g.Where(), g.Date)
		}
		got = append(got, filepath.Base(g.Source)+":"+g.Network+":"+g.Result)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 7 || got[0] != "a.pgn::1-0" || got[1] != "b.gib::*" || !strings.Contains(got[2], ":random-5:") {
		t.Errorf("collected %q", got)
	}
	stop := errors.New("stop")
	if err := gamerec.Collect([]string{root}, func(*gamerec.Game, *rules.RuleSet) error { return stop }); err != stop {
		t.Errorf("fn's error: %v", err)
	}
	if err := gamerec.Collect([]string{filepath.Join(root, "missing")}, func(*gamerec.Game, *rules.RuleSet) error { return nil }); err == nil {
		t.Error("a missing path collected")
	}
	if err := gamerec.Collect([]string{filepath.Join(root, "other.jsonl")}, func(*gamerec.Game, *rules.RuleSet) error { return nil }); err == nil || !strings.Contains(err.Error(), "other.jsonl") {
		t.Errorf("a file of another format: %v", err)
	}
}
