package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/cluster"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/ladder"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/nn/gnet"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/stats"
	"github.com/palace-chess/palace/train"
)

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		text  string
		width int
		want  string
	}{
		{"games 3/10  Elo +12 ± 40", 0, "games 3/10  Elo +12 ± 40"}, // not a terminal: whole
		{"games 3/10  Elo +12 ± 40", 80, "games 3/10  Elo +12 ± 40"},
		{"games 3/10  Elo +12 ± 40", 21, "games 3/10  Elo +12 "},
		{"games 3/10  Elo +12 ± 40", 22, "games 3/10  Elo +12 ±"}, // a rune is one column
		{"abc", 4, "abc"},
		{"abcd", 4, "abc"}, // the last column stays free: no wrap
		{"abc", 1, ""},
	} {
		if got := cut(tc.text, tc.width); got != tc.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tc.text, tc.width, got, tc.want)
		}
	}
}

// On a status line: redrawn in place and cut to the width; a log line
// clears it first, and the end leaves the last one on a line of its own.
func TestStatusLine(t *testing.T) {
	var b strings.Builder
	s := newStatus(&b, true, true)
	s.width = func() int { return 12 }
	s.logLine("header")
	s.draw("games 1/4  W-D-L 1-0-0")
	s.update("games 2/4  W-D-L 1-1-0")
	s.logLine("loop", slog.Int("gen", 2), freeText("promoted"))
	s.draw("games 3/4")
	s.end()
	s.end() // ended once
	want := "header\n\rgames 1/4  \x1b[K\rgames 2/4  \x1b[K\r\x1b[Kloop gen=2 promoted\n\rgames 3/4\x1b[K\n"
	if got := b.String(); got != want {
		t.Errorf("status line:\n got %q\nwant %q", got, want)
	}
}

// Not on a terminal: log lines only, whole, with no escapes; --progress
// none shows nothing.
func TestStatusLog(t *testing.T) {
	var b strings.Builder
	s := newStatus(&b, true, false)
	s.width = func() int { return 12 }
	s.logLine("header")
	s.draw("not drawn")
	s.update("games 1/4  W-D-L 1-0-0")
	s.end()
	// A distributed run's lines, stamped.
	l := clusterLog{s}
	l.printf("trainer", "one")
	l.event(cluster.Event{Kind: cluster.EventComplete, Role: "trainer", Generation: 2})
	stamp := `\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`
	want := regexp.MustCompile(`^header\ngames 1/4  W-D-L 1-0-0\n` + stamp + ` trainer: one\n` + stamp + ` trainer: run complete: 2 generations\n$`)
	if got := b.String(); !want.MatchString(got) {
		t.Errorf("log lines:\n got %q\nwant %s", got, want)
	}
	b.Reset()
	none := newStatus(&b, false, true)
	none.logLine("x")
	none.update("y")
	none.draw("z")
	none.end()
	clusterLog{none}.printf("trainer", "one")
	if b.Len() != 0 {
		t.Errorf("--progress none wrote %q", b.String())
	}
}

func TestLineHandler(t *testing.T) {
	var b strings.Builder
	log := slog.New(&lineHandler{out: func(line []byte) { b.Write(line) }})
	log.With("run", "r1").WithGroup("g").Info("loop", "gen", 3, slog.Any("dir", quoted("/tmp/a b")), fixed("rate", 2.345, 1),
		freeText("start to step 40"))
	log.Debug("hidden")
	if got, want := b.String(), "loop run=r1 g.gen=3 g.dir=\"/tmp/a b\" g.rate=2.3 start to step 40\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Self-play's reports drawn: log lines with the counters, or one redrawn
// status line (the assertions of selfplay's TestProgress before the
// package stopped drawing).
func TestSelfplayProgress(t *testing.T) {
	cfg := func() (selfplay.Config, selfplay.Job) {
		c, j, err := selfplay.LoadConfig(tinySelfplayConfig(t, filepath.Join(t.TempDir(), "run"), "xiangqi", 4, 40, ""))
		if err != nil {
			t.Fatal(err)
		}
		c.GamesPerShard = 4
		return c, j
	}
	run := func(s *status) {
		t.Helper()
		opt := selfplay.Options{Progress: drawSelfplay(s), Interval: time.Hour, Evaluator: func() (nn.Evaluator, string, error) {
			return nn.NewRandom(encode.InputSize, encode.PolicySize(), 5), "random-5", nil
		}}
		c, j := cfg()
		_, err := selfplay.Run(context.Background(), c, j, opt)
		s.end()
		if err != nil {
			t.Fatal(err)
		}
	}
	var log strings.Builder
	run(newStatus(&log, true, false))
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "selfplay event=start dir=") || !strings.Contains(lines[0], " to_play=4 concurrent_games=3 ") ||
		!strings.HasPrefix(lines[1], "selfplay event=shard name=shard-000000.shard games=4 ") || !strings.HasPrefix(lines[2], "selfplay event=done ") {
		t.Errorf("log lines:\n%s", log.String())
	}
	for _, key := range []string{"positions_per_s=", "evals_per_s=", "mean_batch=", "cache_hit_rate=", "games_per_hour=", "complete=4 "} {
		if !strings.Contains(lines[2], key) {
			t.Errorf("the done line lacks %s: %s", key, lines[2])
		}
	}
	if !strings.Contains(lines[0], ` kernel="test evaluator"`) || !strings.Contains(lines[0], ` dir="`) || !strings.Contains(lines[0], " rule_set=xiangqi") {
		t.Errorf("start line: %s", lines[0])
	}
	var term strings.Builder
	run(newStatus(&term, true, true))
	out := term.String()
	if !strings.HasPrefix(out, "selfplay event=start ") || !strings.Contains(out, "\n\rgames ") || !strings.HasSuffix(out, "\x1b[K\n") || strings.Count(out, "\n") != 2 ||
		!strings.Contains(out, "games 4/4 (4 saved)") || !strings.Contains(out, "evals/s") {
		t.Errorf("status line: %q", out)
	}
}

// A run's reports drawn: what loop's display printed before loop stopped
// drawing.
func TestLoopView(t *testing.T) {
	events := []loop.Event{
		{Kind: loop.EventStage, Generation: 1, Stage: loop.StageSelfplay, Best: 0},
		{Kind: loop.EventSelfplay, Generation: 1, Stage: loop.StageSelfplay, Selfplay: selfplay.Event{Kind: selfplay.EventDone,
			Stats: selfplay.Stats{Target: 4, Before: 4, Elapsed: 2 * time.Second}}},
		{Kind: loop.EventStageDone, Generation: 1, Stage: loop.StageSelfplay},
		{Kind: loop.EventStage, Generation: 1, Stage: loop.StageTrain, Target: 40},
		{Kind: loop.EventTrain, Generation: 1, Stage: loop.StageTrain, Train: train.Progress{Step: 10, Target: 40}},
		{Kind: loop.EventGate, Generation: 1, Stage: loop.StageGate, Metric: loop.Metric{Generation: 1, Stage: loop.StageGate, Promoted: true, Reason: "gating off"}},
		{Kind: loop.EventComplete, Generation: 2},
	}
	const step10 = "step 10/40 loss 0.000 (policy 0.000 wdl 0.000) lr 0 0 samples/s window 0"
	var log strings.Builder
	s := newStatus(&log, true, false)
	v := &loopView{s: s}
	for _, e := range events {
		v.event(e)
	}
	s.end()
	lines := strings.Split(log.String(), "\n")
	if len(lines) != 6 || lines[0] != "loop gen=1 stage=selfplay start best gen 0" ||
		!strings.HasPrefix(lines[1], "loop gen=1 selfplay event=done elapsed_s=2.0 target=4 complete=4 ") ||
		lines[2] != "loop gen=1 stage=train start to step 40" || // the figures wait 10 s
		lines[3] != "loop gen 2 gate: promoted (gating off)" ||
		lines[4] != "loop run complete: 2 generations" || lines[5] != "" {
		t.Errorf("log lines:\n%s", log.String())
	}

	var term strings.Builder
	s = newStatus(&term, true, true)
	v = &loopView{s: s}
	for _, e := range events[3:] {
		v.event(e)
	}
	v.event(loop.Event{Kind: loop.EventTrain, Train: train.Progress{Step: 20, Target: 40, Losses: gnet.Losses{Total: 3.21, Policy: 2.1, WDL: 1.11},
		Rate: 0.02, SamplesPerS: 1234, Window: 1000}})
	s.end()
	want := "\rstart to step 40 | gen 1 train | to step 40\x1b[K\r" + step10 + " | gen 1 train | to step 40\x1b[K" +
		"\r\x1b[Kloop gen 2 gate: promoted (gating off)\nloop run complete: 2 generations\n" +
		"\rstep 20/40 loss 3.210 (policy 2.100 wdl 1.110) lr 0.02 1234 samples/s window 1000 | gen 1 train | gate gen 2 promoted | to step 40\x1b[K\n"
	if got := term.String(); got != want {
		t.Errorf("status line:\n got %q\nwant %q", got, want)
	}

	// At 100 columns the gate's figures show whole, though its players'
	// names are longer than the line (issue 50: the line was all prefix).
	term.Reset()
	s = newStatus(&term, true, true)
	s.width = func() int { return 100 }
	v = &loopView{s: s, lastGate: "gen 2 promoted"}
	long := "net:runs/quickstart-janggi/nets/gen-0003.palnet,sims=32"
	v.event(loop.Event{Kind: loop.EventStage, Generation: 3, Stage: loop.StageArena, Players: [2]string{long, long}})
	v.event(loop.Event{Kind: loop.EventArena, Arena: arena.Summary{Games: 12, WDL: stats.WDL{Wins: 5, Draws: 2, Losses: 5},
		Elo: stats.EloEstimate{CI: stats.Interval{Lo: -15, Hi: 15}}, LLR: 0.01, Lower: -2.94, Upper: 2.94}})
	figures := "12 games W/D/L 5/2/5 Elo 0 [-15, +15] LLR 0.01 [-2.94, 2.94]"
	s.end()
	if !strings.Contains(term.String(), "\r"+figures+" | gen 3 arena | gate gen 2 promoted | ") {
		t.Errorf("the gate's status line at 100 columns: %q", term.String())
	}
}

// A run's notices say what loop's own lines said before loop stopped
// writing words.
func TestLoopNotices(t *testing.T) {
	match := &arena.Summary{Games: 8, WDL: stats.WDL{Wins: 3, Draws: 4, Losses: 1},
		Elo: stats.EloEstimate{Elo: 87.6, CI: stats.Interval{Lo: -12.3, Hi: 190}}}
	rating := &ladder.Rating{Player: "gen3:0123456789abcdef/sims=32", Scale: "xiangqi/fairy-stockfish", Elo: 1234.4, Lo: 1100, Hi: 1350.6, Games: 40}
	for _, tc := range []struct {
		e    loop.Event
		want string
	}{
		{loop.Event{Kind: loop.EventEngineMissing, Program: "fairy-stockfish", Every: 2},
			"warning: the ladder's engine fairy-stockfish is not there, and the first rating (after 2 promotions) will fail: install it (Debian: apt-get install fairy-stockfish), set ladder.engine, or set ladder.every to 0"},
		{loop.Event{Kind: loop.EventDebris, Removed: 3, Dir: "runs/x"}, "removed 3 temporary files that killed writes left in runs/x"},
		{loop.Event{Kind: loop.EventConfigRecorded}, "recorded the digest of config.yaml in state.json: from now on a changed config is refused"},
		{loop.Event{Kind: loop.EventMoreSelfplay, Round: loop.SelfplayRound{Generation: 2, Positions: 99, MinRows: 100, Games: 5}},
			"gen 2: 99 positions, training starts at 100: another 5 games"},
		{loop.Event{Kind: loop.EventMatchNotOver, Generation: 2, Stage: loop.StageGate}, "gen 3 gate: the match in arena/gen-0003.jsonl is not over; playing its missing games"},
		{loop.Event{Kind: loop.EventGate, Generation: 2, Metric: loop.Metric{Promoted: false, Reason: "SPRT rejected", Match: match}},
			"gen 3 gate: kept the best (SPRT rejected): 8 games W/D/L 3/4/1 Elo +88 [-12, +190]"},
		{loop.Event{Kind: loop.EventGate, Generation: 0, Metric: loop.Metric{Promoted: true, Reason: "gating off"}}, "gen 1 gate: promoted (gating off)"},
		{loop.Event{Kind: loop.EventRated, Generation: 4, Metric: loop.Metric{Rating: rating, Seconds: 61.4}},
			"gen 4 ladder: gen3:0123456789abcdef/sims=32 rated +1234 [+1100, +1351] on xiangqi/fairy-stockfish (40 games, 61 s)"},
		{loop.Event{Kind: loop.EventComplete, Generation: 2}, "run complete: 2 generations"},
		{loop.Event{Kind: loop.EventStopped, Generation: 1, Stage: loop.StageTrain}, "stopped in generation 1, stage train; run again to resume"},
	} {
		if got := loopNotice(tc.e); got != tc.want {
			t.Errorf("event %d:\n got %q\nwant %q", tc.e.Kind, got, tc.want)
		}
	}
}
