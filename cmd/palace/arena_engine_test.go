package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/engine"
	"github.com/palace-chess/palace/gamerec"
)

// fakeEngineEnv makes the test binary, started as an engine, a fake
// engine (fakeEngine) instead of the tests; its first argument is the
// fault.
const fakeEngineEnv = "PALACE_FAKE_ENGINE"

func TestMain(m *testing.M) {
	if os.Getenv(fakeEngineEnv) == "1" && len(os.Args) > 1 {
		os.Exit(fakeEngine(os.Args[1]))
	}
	if os.Getenv(asPalaceEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// fakeEngine is palace's own engine behind a filter that injects a fault
// at the first go of a position at least PLY plies into the game (mode
// FAULT@PLY): hang (no answer, not even to stop), crash (exit status 3),
// illegal (bestmove a1i10, a rook that cannot go there), slow (a 300 ms
// pause before the search).
func fakeEngine(mode string) int {
	fault, at, _ := strings.Cut(mode, "@")
	from, err := strconv.Atoi(at)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fake engine: mode %q: want FAULT@PLY\n", mode)
		return 2
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- engine.New(engine.Options{}).Run(context.Background(), pr, os.Stdout) }()
	plies := 0
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "position":
			plies = 0
			for i, w := range f {
				if w == "moves" {
					plies = len(f) - i - 1
				}
			}
		case len(f) > 0 && f[0] == "go" && plies >= from:
			switch fault {
			case "hang":
				time.Sleep(time.Hour)
			case "crash":
				fmt.Fprintln(os.Stderr, "fake engine: crashing on purpose")
				return 3
			case "illegal":
				fmt.Println("bestmove a1i10")
				continue
			case "slow":
				time.Sleep(300 * time.Millisecond)
			}
		}
		fmt.Fprintln(pw, line)
	}
	pw.Close()
	if err := <-done; err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// A hung, a crashed and an illegal-moving engine lose their games on
// forfeit; the match goes on, with a fresh process for each game after a
// crash or hang.
func TestArenaEngineFaults(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeEngineEnv, "1")
	for _, tc := range []struct{ fault, limits, want string }{
		{"hang", "nodes=4,timeout=1s", "no answer to go within 1s"}, // 1 s: the bound is the start-up handshake's too, slow under -race on a loaded machine
		{"crash", "nodes=4", "exit status 3"},
		{"illegal", "nodes=4", "illegal: palace dev: bestmove a1i10"},
		{"slow", "tc=0.2+0.01", "out of time"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			dir := t.TempDir()
			records := filepath.Join(dir, "match.jsonl")
			spec := "uci:" + exe + ",arg=" + tc.fault + "@4," + tc.limits + ",log=" + filepath.Join(dir, "engine.log")
			start := time.Now()
			out, err := arenaRun(t, "--max-plies", "30", "--pairs", "2", "--concurrency", "2", "--player", spec, "--player", "random",
				"--records", records, "--progress", "none")
			if err != nil {
				t.Fatalf("arena: %v\n%s", err, out)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("the match took %v", d)
			}
			h, recs, err := arena.ReadRecords(records)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 4 {
				t.Fatalf("%d games recorded, want 4\n%s", len(recs), out)
			}
			for _, r := range recs {
				if r.Reason != "forfeit" || r.Score != 0 || !strings.HasPrefix(r.Forfeit, h.A+": ") || !strings.Contains(r.Forfeit, tc.want) {
					t.Errorf("pair %d game %d: %s %s, score %v, forfeit %q; want A's forfeit saying %q", r.Pair, r.Game, r.Result, r.Reason, r.Score, r.Forfeit, tc.want)
				}
			}
			if !strings.Contains(out, "W-D-L        0-0-4") {
				t.Errorf("summary:\n%s", out)
			}
			if tc.fault == "slow" {
				for _, r := range recs {
					if r.ClockA == nil || !r.ClockA.Flagged || r.ClockA.LeftMS != 0 || r.ClockB != nil {
						t.Errorf("pair %d game %d: clocks %+v and %+v; want A's flagged with nothing left, B without one", r.Pair, r.Game, r.ClockA, r.ClockB)
					}
				}
				if !strings.Contains(out, "A's clock    4 games, 4 lost on time") {
					t.Errorf("summary without A's clock:\n%s", out)
				}
			}
		})
	}
}

// An engine on its own clock (tc) has it recorded with every game: what
// it was given (the base and an increment a move) and what it left, and
// the summary says how it used it.
func TestArenaEngineClock(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeEngineEnv, "1")
	dir := t.TempDir()
	records := filepath.Join(dir, "match.jsonl")
	spec := "uci:" + exe + ",arg=none@0,tc=2+0.05"
	out, err := arenaRun(t, "--max-plies", "20", "--pairs", "1", "--concurrency", "2", "--player", "random", "--player", spec,
		"--records", records, "--progress", "none")
	if err != nil {
		t.Fatalf("arena: %v\n%s", err, out)
	}
	_, recs, err := arena.ReadRecords(records)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d games recorded, want 2\n%s", len(recs), out)
	}
	for _, r := range recs {
		c := r.ClockB
		if r.Forfeit != "" || r.ClockA != nil || c == nil || c.Flagged {
			t.Fatalf("pair %d game %d: forfeit %q, clocks %+v and %+v; want B's alone, not flagged", r.Pair, r.Game, r.Forfeit, r.ClockA, c)
		}
		if extra := c.GivenMS - 2000; extra <= 0 || extra%50 != 0 || c.LeftMS <= 0 || c.LeftMS >= c.GivenMS {
			t.Errorf("pair %d game %d: B's clock %d ms left of %d given; want 2 s and 50 ms a move given, part of it used", r.Pair, r.Game, c.LeftMS, c.GivenMS)
		}
	}
	if !strings.Contains(out, "B's clock    2 games, 0 lost on time; left at the end: mean ") || strings.Contains(out, "A's clock") {
		t.Errorf("summary:\n%s", out)
	}
}

// palace uci, a process of its own, against Fairy-Stockfish: every game
// completes, with no forfeit, no illegal move and no complaint from
// either engine.
func TestArenaPalaceUCIVersusFairyStockfish(t *testing.T) {
	const fsf = "/usr/games/fairy-stockfish"
	if _, err := os.Stat(fsf); err != nil {
		if os.Getenv("PALACE_REQUIRE_FSF") == "1" {
			t.Fatalf("PALACE_REQUIRE_FSF=1: %v", err)
		}
		t.Skipf("no Fairy-Stockfish: %v", err)
	}
	if testing.Short() {
		t.Skip("builds palace")
	}
	bin := palaceBinary(t)
	for _, game := range []string{"xiangqi", "janggi"} {
		t.Run(game, func(t *testing.T) {
			dir := t.TempDir()
			records := filepath.Join(dir, "match.jsonl")
			palaceLog, fsfLog := filepath.Join(dir, "palace.log"), filepath.Join(dir, "fsf.log")
			out, err := arenaRun(t, "--rules", game, "--max-plies", "60", "--pairs", "2", "--concurrency", "2",
				"--player", "uci:"+bin+",arg=uci,nodes=16,log="+palaceLog,
				"--player", "uci:"+fsf+",nodes=100,option.Hash=8,log="+fsfLog,
				"--records", records, "--progress", "none")
			if err != nil {
				t.Fatalf("arena: %v\n%s", err, out)
			}
			h, recs, err := arena.ReadRecords(records)
			if err != nil {
				t.Fatal(err)
			}
			if h.A != "uci:palace uci/nodes=16" || h.B != "uci:fairy-stockfish/nodes=100/Hash=8" {
				t.Errorf("players %q and %q", h.A, h.B)
			}
			if len(recs) != 4 {
				t.Fatalf("%d games, want 4\n%s", len(recs), out)
			}
			for _, r := range recs {
				if r.Forfeit != "" || r.Reason == "forfeit" || r.Plies == 0 {
					t.Errorf("pair %d game %d: %s %s after %d plies, forfeit %q", r.Pair, r.Game, r.Result, r.Reason, r.Plies, r.Forfeit)
				}
				// Both engines score every position they move from.
				if len(r.Scores) != r.Plies || slices.Contains(r.Scores, gamerec.Score{}) {
					t.Errorf("pair %d game %d: scores %v for %d plies", r.Pair, r.Game, r.Scores, r.Plies)
				}
			}
			for _, log := range []string{palaceLog, fsfLog} {
				data, err := os.ReadFile(log)
				if err != nil {
					t.Fatal(err)
				}
				// The handshake's note on the network is the one note
				// expected (palace plays its built-in network here).
				text := strings.ReplaceAll(string(data), "info string uci: network: palace's built-in network", "")
				for _, bad := range []string{"info string uci:", "No such option", "Unknown command", "Illegal", "! uci:"} {
					if strings.Contains(text, bad) {
						t.Errorf("%s has %q", filepath.Base(log), bad)
					}
				}
				if want := "UCI_Variant value " + game; !strings.Contains(text, want) || !strings.Contains(text, "< bestmove") {
					t.Errorf("%s lacks %q or bestmoves", filepath.Base(log), want)
				}
				// Two games at a time: two processes, each reused.
				if strings.Contains(text, " [3] ") || strings.Count(text, "> ucinewgame") != 4 {
					t.Errorf("%s: more than two processes, or not 4 new games", filepath.Base(log))
				}
			}
			if !strings.Contains(out, "Fairy-Stockfish") || !strings.Contains(out, "UCI_Variant "+game) {
				t.Errorf("the summary does not describe the engines:\n%s", out)
			}
		})
	}
}
