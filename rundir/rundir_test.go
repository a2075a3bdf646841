package rundir_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/experiment"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/rundir"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/store"
)

// TestCollect reads a games file, a self-play directory and a directory
// holding both, in order, with the self-play games' network IDs.
func TestCollect(t *testing.T) {
	t.Setenv("PALACE_BLAS", "off")
	root := t.TempDir()
	xq, jg := rules.MustPreset("xiangqi"), rules.MustPreset("janggi")
	cho, _ := rules.ParseJanggiSetup("masangsangma")
	han, _ := rules.ParseJanggiSetup("sangmamasang")
	games := []gamerec.Game{
		{Source: "a.pgn", Index: 1, RuleSet: xq.String(), Line: gamerec.Line{StartFEN: xq.StartFEN()},
			End: gamerec.End{Result: gamerec.WhiteWins, Reason: gamerec.ReasonResignation}},
		{Source: "b.gib", Index: 3, RuleSet: jg.String(), Setup: "masangsangma,sangmamasang",
			Line: gamerec.Line{StartFEN: rules.JanggiSetupFEN(cho, han)}, End: gamerec.End{Result: gamerec.Unknown, Reason: gamerec.ReasonUnfinished}},
	}
	hdr, _ := gamerec.NewHeader(games, map[string]*rules.RuleSet{xq.String(): xq, jg.String(): jg})
	if err := gamerec.Write(filepath.Join(root, "imported.jsonl"), hdr, games); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "other.jsonl"), []byte(`{"stage":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := selfplay.DefaultConfig()
	cfg.GamesPerShard, cfg.MaxPlies = 2, 12
	job := selfplay.Job{Output: filepath.Join(root, "sp"), Rules: cfg.RuleSet(xq), Games: 5, Seed: 1,
		RandomNetwork: selfplay.RandomNetwork{Config: model.Config{Blocks: 1, Filters: 8, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}, Seed: 3}}
	cfg.Search.Simulations, cfg.Search.CheapSimulations, cfg.Search.GumbelK = 4, 2, 2
	opt := selfplay.Options{CodeVersion: "test", Evaluator: func() (nn.Evaluator, string, error) {
		return nn.NewRandom(encode.InputSize, encode.PolicySize(), 5), "random-5", nil
	}}
	if _, err := selfplay.Run(context.Background(), cfg, job, opt); err != nil {
		t.Fatal(err)
	}
	// Debris of a crash: a games file the manifest does not list.
	if err := os.WriteFile(filepath.Join(job.Output, "shard-000099.games.jsonl"), []byte("junk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := rundir.Collect([]string{root}, func(g *gamerec.Game, rs *rules.RuleSet) error {
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
	if err := rundir.Collect([]string{root}, func(*gamerec.Game, *rules.RuleSet) error { return stop }); err != stop {
		t.Errorf("fn's error: %v", err)
	}
	if err := rundir.Collect([]string{filepath.Join(root, "missing")}, func(*gamerec.Game, *rules.RuleSet) error { return nil }); err == nil {
		t.Error("a missing path collected")
	}
	if err := rundir.Collect([]string{filepath.Join(root, "other.jsonl")}, func(*gamerec.Game, *rules.RuleSet) error { return nil }); err == nil || !strings.Contains(err.Error(), "other.jsonl") {
		t.Errorf("a file of another format: %v", err)
	}
}

// TestCollectRun walks a finished two-generation run: its games in
// generation order, each tagged with the generation of the network that
// played it, by metrics.jsonl; without it, best.json still names the best
// network's generation.
func TestCollectRun(t *testing.T) {
	t.Setenv("PALACE_BLAS", "off")
	dir := t.TempDir()
	st, err := store.NewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := loop.ParseConfig([]byte(looptest.TinyYAML), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	if err := loop.Run(context.Background(), st, c, loop.Options{CodeVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	if k := rundir.Kind(dir); k != rundir.KindRun {
		t.Fatalf("Kind of a run directory: %q", k)
	}
	if k := rundir.Kind(filepath.Join(dir, rundir.SelfplayKey(0))); k != rundir.KindSelfplay {
		t.Fatalf("Kind of a self-play directory: %q", k)
	}
	// What each generation's self-play played with, from the metrics.
	_, _, metrics := looptest.CheckRun(t, dir, c)
	played := map[int]string{}
	for _, m := range metrics {
		if m.Stage == loop.StageSelfplay {
			played[m.Generation] = m.Network
		}
	}
	var best rundir.Best
	data, _ := os.ReadFile(filepath.Join(dir, rundir.BestKey))
	if err := json.Unmarshal(data, &best); err != nil {
		t.Fatal(err)
	}
	collect := func() (tags []string) {
		t.Helper()
		if err := rundir.Collect([]string{dir}, func(g *gamerec.Game, rs *rules.RuleSet) error {
			tag := "-"
			if g.Generation != nil {
				tag = rundir.NetKey(*g.Generation)
			}
			tags = append(tags, fmt.Sprintf("%s:%s", filepath.Base(filepath.Dir(g.Source)), tag))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return tags
	}
	tags := collect()
	if len(tags) != 2*c.Selfplay.Games {
		t.Fatalf("collected %d games, want %d", len(tags), 2*c.Selfplay.Games)
	}
	for i, tag := range tags {
		gen := i / c.Selfplay.Games
		if want := fmt.Sprintf("gen-%04d:%s", gen, played[gen]); tag != want {
			t.Errorf("game %d: %s, want %s", i, tag, want)
		}
	}
	// Without the metrics only the best network's games are placed.
	if err := os.Remove(filepath.Join(dir, rundir.MetricsKey)); err != nil {
		t.Fatal(err)
	}
	for i, tag := range collect() {
		gen := i / c.Selfplay.Games
		want := fmt.Sprintf("gen-%04d:-", gen)
		if played[gen] == best.Key {
			want = fmt.Sprintf("gen-%04d:%s", gen, best.Key)
		}
		if tag != want {
			t.Errorf("without metrics, game %d: %s, want %s", i, tag, want)
		}
	}
}

// A directory's match and experiment record files are read as games,
// each under the rule set it was played under and named by its file and
// place; other JSON lines files (metrics) are passed over.
func TestCollectRecords(t *testing.T) {
	dir := t.TempDir()
	// A match record file as palace wrote it before records were
	// gamerec.Records: a ladder calibration rung.
	match, err := os.ReadFile("../ladder/calibration/xiangqi/check-10/rung-1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "match.jsonl"), match, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics.jsonl"), []byte(`{"generation":1,"stage":"train"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := rules.ParseRuleSet([]byte("base: xiangqi\nname: short\nmaxPlies: 20\n"), "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := rules.ParseRuleSet([]byte("base: xiangqi\nname: shorter\nmaxPlies: 16\n"), "b.yaml")
	if err != nil {
		t.Fatal(err)
	}
	exp := filepath.Join(dir, "exp.jsonl")
	if _, err := experiment.Run(context.Background(), experiment.Config{A: a, B: b, Player: arena.Random{},
		Settings: arena.Settings{Pairs: 2, OpeningPlies: 2}, Seed: 1, Records: exp}); err != nil {
		t.Fatal(err)
	}
	var got []string
	err = rundir.Collect([]string{dir}, func(g *gamerec.Game, rs *rules.RuleSet) error {
		if _, err := g.Replay(rs); err != nil {
			return err
		}
		got = append(got, fmt.Sprintf("%s %s %s", g.Where(), rs.Name, g.Tags["Rules"]))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{exp + " game 1 short A", exp + " game 2 shorter B", exp + " game 3 short A", exp + " game 4 shorter B",
		filepath.Join(dir, "match.jsonl") + " game 1 xiangqi "}
	if len(got) != 4+80 || !slices.Equal(got[:5], want) {
		t.Errorf("collected %d games: %q…, want %q…", len(got), got[:min(5, len(got))], want)
	}
	for name, want := range map[string]bool{"exp.jsonl": true, "match.jsonl": true, "metrics.jsonl": false} {
		if rundir.IsGamesFile(filepath.Join(dir, name)) != want {
			t.Errorf("IsGamesFile(%s) is %t", name, !want)
		}
	}
}
