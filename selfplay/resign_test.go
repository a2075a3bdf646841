package selfplay

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
)

// randomEvaluator plays the hash-based Random evaluator: values far from
// 0, so that sides resign.
func randomEvaluator(o Options) Options {
	o.Evaluator = func() (nn.Evaluator, string, error) {
		return nn.NewRandom(encode.InputSize, encode.PolicySize(), 5), "random-5", nil
	}
	return o
}

// Resignation ends a game at the resigning side's search, scored as its
// loss, and the directory verifies (palace shard verify: the record's
// end, the positions' results); played-out games only count the
// resignations they would have made; off, the games and their hash are
// resignation's absent.
func TestResign(t *testing.T) {
	run := func(resign Resign) (testRun, Stats) {
		cfg := tinyConfig(t, "xiangqi", 12)
		cfg.Resign = resign
		st, err := Run(context.Background(), cfg.Config, cfg.Job, randomEvaluator(Options{CodeVersion: "test"}))
		if err != nil {
			t.Fatal(err)
		}
		return cfg, st
	}
	off, offStats := run(DefaultConfig().Resign)
	on, onStats := run(Resign{Value: -0.2, Moves: 2})
	if offStats.Resigns.Resigned+offStats.Resigns.Would+offStats.Resigns.False != 0 {
		t.Errorf("resignation off: %+v", offStats)
	}
	if onStats.Resigns.Resigned == 0 || onStats.Resigns.Would != 0 {
		t.Fatalf("resign at -0.2: %d resigned, %d would have, want some and none", onStats.Resigns.Resigned, onStats.Resigns.Would)
	}
	if onStats.Positions != onStats.Plies {
		t.Errorf("%d positions recorded, %d plies", onStats.Positions, onStats.Plies)
	}
	if onStats.Plies >= offStats.Plies {
		t.Errorf("resigned games' plies %d, not fewer than the same games' %d played out", onStats.Plies, offStats.Plies)
	}
	offGames, onGames := checkDir(t, off), checkDir(t, on)
	rs := off.Rules
	records := readRecords(t, on.Output)
	resigned := 0
	for i, g := range onGames {
		if g.Reason != gamerec.ReasonResignation {
			if g.Moves != offGames[i].Moves || g.End != offGames[i].End {
				t.Errorf("game %d, not resigned, differs from the game without resignation", g.ID)
			}
			continue
		}
		resigned++
		// The game is the one played without resignation, cut where the
		// side resigned: the same seed, the same searches until then.
		if len(g.Moves) >= len(offGames[i].Moves) || offGames[i].Moves[:len(g.Moves)] != g.Moves {
			t.Errorf("game %d resigned after %d plies is not the start of the game played out (%d plies)", g.ID, g.Plies, offGames[i].Plies)
		}
		game, err := g.ReplayStrict(rs)
		if err != nil {
			t.Fatal(err)
		}
		loser := game.Position().SideToMove()
		for _, r := range records {
			if r.GameID != g.ID {
				continue
			}
			if r.Side == loser && r.Result != datasets.Loss || r.Side != loser && r.Result != datasets.Win {
				t.Errorf("game %d ply %d: result %s to %s, %s resigned", g.ID, r.Ply, r.Result, r.Side, loser)
			}
		}
	}
	if int64(resigned) != onStats.Resigns.Resigned {
		t.Errorf("%d games end in resignation, the stats say %d", resigned, onStats.Resigns.Resigned)
	}

	// Reanalysis scores a resigned game's positions as the game ended.
	type key struct {
		id  uint64
		ply int
	}
	result := map[key]datasets.Outcome{}
	for _, r := range records {
		result[key{r.GameID, r.Ply}] = r.Result
	}
	cfg := on.Config
	job := ReanalyseJob{Output: filepath.Join(t.TempDir(), "re"), Sources: []string{on.Output}, Rules: on.Rules, Positions: len(records), Seed: 3}
	if _, err := Reanalyse(context.Background(), cfg, job, randomEvaluator(Options{CodeVersion: "test"})); err != nil {
		t.Fatal(err)
	}
	for _, r := range readRecords(t, job.Output) {
		if want := result[key{r.GameID, r.Ply}]; r.Result != want {
			t.Errorf("reanalysed game %d ply %d: result %s, the game's %s", r.GameID, r.Ply, r.Result, want)
		}
	}

	// Every game played out: the same games as without resignation, the
	// would-be resignations counted.
	all, allStats := run(Resign{Value: -0.2, Moves: 2, Playthrough: 1})
	if allStats.Resigns.Resigned != 0 || allStats.Resigns.Would != onStats.Resigns.Resigned || allStats.Resigns.False > allStats.Resigns.Would {
		t.Errorf("played out: %d resigned, %d would have (%d false); want 0, %d", allStats.Resigns.Resigned, allStats.Resigns.Would, allStats.Resigns.False, onStats.Resigns.Resigned)
	}
	for i, g := range checkDir(t, all) {
		if g.Moves != offGames[i].Moves {
			t.Errorf("game %d played out differs from the game without resignation", g.ID)
		}
	}
	c := DefaultConfig()
	if a, b := gameHash(&c, &off.Job, "n"), gameHash(&on.Config, &off.Job, "n"); a == b {
		t.Errorf("resignation on and off hash alike: %s", a)
	}
	c = off.Config
	c.Resign = Resign{}
	if a, b := gameHash(&c, &off.Job, "n"), gameHash(&off.Config, &off.Job, "n"); a != b {
		t.Errorf("resignation off hashes %s and %s by its other settings", a, b)
	}
}

// A resigned game's record says who resigned: the side to move after its
// last move, before the rules end the game.
func TestReplayStrictResignation(t *testing.T) {
	rs, err := rules.Preset("xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	g, err := rules.NewGame(rs, rules.XiangqiStartFEN)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"h3e3", "h10g8", "h1g3"} {
		if _, err := g.PlayText(m, rules.Ranks1); err != nil {
			t.Fatal(err)
		}
	}
	rec := gamerec.Game{ID: 1}
	rec.SetMoves(g)
	for _, tc := range []struct {
		end gamerec.End
		ok  bool
	}{
		{gamerec.End{Result: "1-0", Reason: gamerec.ReasonResignation}, true}, // black to move resigned
		{gamerec.End{Result: "0-1", Reason: gamerec.ReasonResignation}, false},
		{gamerec.End{Result: "1/2-1/2", Reason: gamerec.ReasonResignation}, false},
		{gamerec.End{Result: "1-0", Reason: gamerec.ReasonRecorded}, false},
	} {
		rec.End = tc.end
		if _, err := rec.ReplayStrict(rs); (err == nil) != tc.ok {
			t.Errorf("%s %s: %v", tc.end.Result, tc.end.Reason, err)
		}
	}
}
