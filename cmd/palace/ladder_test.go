package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/ladder"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/stats"
	"github.com/palace-chess/palace/store"
)

func needFairyStockfish(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(ladder.DefaultEngine); err != nil {
		if os.Getenv("PALACE_REQUIRE_FSF") == "1" {
			t.Fatalf("PALACE_REQUIRE_FSF=1: %v", err)
		}
		t.Skipf("no Fairy-Stockfish: %v", err)
	}
}

// testScale calibrates a two-rung xiangqi scale with the command.
func testScale(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	scale := filepath.Join(dir, "scale.json")
	code, out, errOut := runPalace(t, "", "ladder", "calibrate", "--nodes", "1,30", "--below", "none", "--pairs", "1", "--dir", filepath.Join(dir, "records"),
		"--out", scale, "--progress", "none")
	if code != 0 {
		t.Fatalf("calibrate: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"scale xiangqi@", "Fairy-Stockfish", "30 nodes", "games    2", "rungs up to 2 apart"} {
		if !strings.Contains(out, want) {
			t.Errorf("calibrate's output lacks %q:\n%s", want, out)
		}
	}
	return scale
}

// A calibration's player rungs and span are checked before any game.
func TestLadderCalibrateRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--nodes", "1,30", "--span", "0"}, "--span 0"},
		{[]string{"--nodes", "1,30", "--span", "4"}, "--span 4"},
		{[]string{"--nodes", "1,30", "--below", "net:x.palnet"}, "no network or program"},
		{[]string{"--nodes", "1,30", "--below", "bogus"}, "unknown player"},
		{[]string{"--nodes", "1,30", "--below", "random", "--below", "random"}, "given twice"},
	} {
		args := append([]string{"ladder", "calibrate", "--work", filepath.Join(dir, "w"), "--out", filepath.Join(dir, "s.json"), "--progress", "none", "--engine", "/nonexistent/engine"}, c.args...)
		code, out, errOut := runPalace(t, "", args...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want an error saying %q\n%s%s", c.args, code, c.want, out, errOut)
		}
	}
}

func TestLadderCommand(t *testing.T) {
	needFairyStockfish(t)
	scale := testScale(t)
	code, out, errOut := runPalace(t, "", "ladder", "show", "--scale", scale)
	if code != 0 || !strings.Contains(out, "scale xiangqi@") || !strings.Contains(out, scale) {
		t.Errorf("show: exit %d\n%s%s", code, out, errOut)
	}
	dir := filepath.Join(t.TempDir(), "rating")
	code, out, errOut = runPalace(t, "", "ladder", "--player", "random", "--scale", scale, "--pairs", "1", "--dir", dir, "--progress", "log")
	if code != 0 {
		t.Fatalf("ladder: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"rating of random", "rung  ", "1 node", "rating  ", "(95%), ", dir} {
		if !strings.Contains(out, want) {
			t.Errorf("ladder's output lacks %q:\n%s", want, out)
		}
	}
	// Again, as JSON: nothing is played, the rating is the file's.
	code, out, errOut = runPalace(t, "", "ladder", "--player", "random", "--scale", scale, "--pairs", "1", "--dir", dir, "--json")
	if code != 0 {
		t.Fatalf("ladder --json: exit %d\n%s", code, errOut)
	}
	var r ladder.Rating
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Player != "random" || r.Games != 2*len(r.Rungs) {
		t.Errorf("--json printed %q (%v)", out, err)
	}
	file, err := ladder.ReadRating(dir)
	if err != nil || file.Elo != r.Elo {
		t.Errorf("rating file %+v, %v", file, err)
	}
	// Another player in the same directory is refused, naming the match.
	code, _, errOut = runPalace(t, "", "ladder", "--player", "uniform,sims=2", "--scale", scale, "--pairs", "1", "--dir", dir, "--progress", "none")
	if code == 0 || !strings.Contains(errOut, "players") {
		t.Errorf("another player in a used directory: exit %d, %s", code, errOut)
	}
}

func TestLadderUsage(t *testing.T) {
	for _, help := range [][]string{{"ladder", "help"}, {"ladder", "-h"}, {"ladder", "calibrate", "-h"}, {"ladder", "show", "--help"}} {
		code, _, errOut := runPalace(t, "", help...)
		if code != 0 || !strings.Contains(errOut, "usage: palace ladder") {
			t.Errorf("palace %s: exit %d, %q", strings.Join(help, " "), code, errOut)
		}
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"ladder"}, "--player SPEC"},
		{[]string{"ladder", "--player", "net:missing.palnet"}, "missing.palnet"},
		{[]string{"ladder", "--player", "random", "--pairs", "0"}, "--pairs 0"},
		{[]string{"ladder", "--player", "random", "--pairs", "1000000000000"}, "--pairs 1000000000000: want at most 1048576"},
		{[]string{"ladder", "--player", "random", "--rules", "janggimodern"}, "no built-in scale for janggimodern"},
		{[]string{"ladder", "--player", "random", "--scale", "/nonexistent.json"}, "nonexistent"},
		{[]string{"ladder", "calibrate"}, "--out FILE"},
		{[]string{"ladder", "calibrate", "--out", "x.json", "--nodes", "10"}, "two or more"},
		{[]string{"ladder", "calibrate", "--out", "x.json", "--nodes", "10,3"}, "increasing"},
		{[]string{"ladder", "calibrate", "--out", "x.json", "--option", "Hash"}, "NAME=VALUE"},
		{[]string{"ladder", "show", "--rules", "janggiclassic"}, "no built-in scale"},
	}
	for _, c := range cases {
		code, _, errOut := runPalace(t, "", c.args...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("palace %s: exit %d, %q; want an error saying %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}

// A ladder killed with SIGKILL mid-match resumes and ends with the same
// games and rating as one never killed.
func TestLadderKilledResumes(t *testing.T) {
	needFairyStockfish(t)
	if testing.Short() {
		t.Skip("builds palace")
	}
	scale := testScale(t)
	bin := palaceBinary(t)
	root := t.TempDir()
	args := func(dir string) []string {
		return []string{"ladder", "--player", "random", "--scale", scale, "--pairs", "4", "--concurrency", "1", "--dir", dir, "--progress", "log"}
	}
	whole, killed := filepath.Join(root, "whole"), filepath.Join(root, "killed")
	if code, out, errOut := runPalace(t, "", args(whole)...); code != 0 {
		t.Fatalf("ladder: exit %d\n%s%s", code, out, errOut)
	}
	cmd, _ := startPalace(t, bin, args(killed)...)
	records := filepath.Join(killed, "rung-1.jsonl")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if data, err := os.ReadFile(records); err == nil && strings.Count(string(data), "\n") >= 3 {
			break // the header and two games
		}
		if time.Now().After(deadline) {
			t.Fatal("no games recorded in 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(killed, ladder.ResultFile)); err == nil {
		t.Fatal("the killed ladder had finished: nothing to resume")
	}
	if code, out, errOut := runPalace(t, "", args(killed)...); code != 0 {
		t.Fatalf("resumed ladder: exit %d\n%s%s", code, out, errOut)
	}
	a, err := ladder.ReadRating(whole)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ladder.ReadRating(killed)
	if err != nil {
		t.Fatal(err)
	}
	if a.Elo != b.Elo || a.Lo != b.Lo || a.Hi != b.Hi || len(a.Rungs) != len(b.Rungs) {
		t.Errorf("resumed rating %+v, uninterrupted %+v", b, a)
	}
	for _, rr := range a.Rungs {
		name := filepath.Base(filepath.Join(whole, "rung-"+strconv.Itoa(rr.Nodes)+".jsonl"))
		_, ra, err1 := arena.ReadRecords(filepath.Join(whole, name))
		_, rb, err2 := arena.ReadRecords(filepath.Join(killed, name))
		if err1 != nil || err2 != nil || len(ra) != len(rb) {
			t.Fatalf("%s: %d and %d games (%v, %v)", name, len(ra), len(rb), err1, err2)
		}
		for i := range ra {
			if ra[i].Moves != rb[i].Moves || ra[i].Score != rb[i].Score || ra[i].Pair != rb[i].Pair || ra[i].Game != rb[i].Game {
				t.Errorf("%s: record %d differs after the kill", name, i)
			}
		}
	}
}

// writeRatedRun writes a run directory whose metrics hold self-play and
// ladder stages (elos at generations 1, 2, …), as palace run leaves them.
func writeRatedRun(t *testing.T, dir string, elos ...float64) {
	t.Helper()
	st, err := store.NewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := loop.WriteState(st, loop.State{Generation: len(elos), Stage: loop.StageSelfplay}); err != nil {
		t.Fatal(err)
	}
	for gen, elo := range elos {
		for _, m := range []loop.Metric{
			{Generation: gen, Stage: loop.StageSelfplay, Games: 100, Seconds: 1800},
			{Generation: gen, Stage: loop.StageTrain, Seconds: 1800},
			{Generation: gen, Stage: loop.StageLadder, Seconds: 999, Rating: &ladder.Rating{Player: "gen", Scale: "xiangqi@x, FSF",
				Elo: stats.Number(elo), Lo: stats.Number(elo - 50), Hi: stats.Number(elo + 50), Games: 20}},
		} {
			if err := loop.RecordMetric(st, m); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// palace report draws a run's ratings against hours and games, and
// several runs' on one chart.
func TestReportRatings(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "runA"), filepath.Join(root, "runB")
	writeRatedRun(t, a, 100, 250)
	writeRatedRun(t, b, 80, 120, 300)
	code, out, errOut := runPalace(t, "", "report", a)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, errOut)
	}
	// Hours leave the ladder's own time out: 1 h a generation.
	for _, want := range []string{"ladder ratings (xiangqi@x, FSF", "gen 1", "1.00", "+100", "[+50, +150]", "gen 2", "2.00", "200", "+250",
		filepath.Join(a, "report", "rating.png"), filepath.Join(a, "report", "rating-games.png")} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"rating.png", "rating-games.png"} {
		if st, err := os.Stat(filepath.Join(a, "report", f)); err != nil || st.Size() < 1000 {
			t.Errorf("%s: %v", f, err)
		}
	}
	out2 := filepath.Join(root, "compare")
	code, out, errOut = runPalace(t, "", "report", a, b, "--out", out2)
	if code != 0 {
		t.Fatalf("report of two runs: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"run " + a, "run " + b, "+300", filepath.Join(out2, "rating.png")} {
		if !strings.Contains(out, want) {
			t.Errorf("comparison lacks %q:\n%s", want, out)
		}
	}
	if code, _, errOut := runPalace(t, "", "report", a, root); code == 0 || !strings.Contains(errOut, "not a palace run") {
		t.Errorf("a non-run among the runs: exit %d, %s", code, errOut)
	}
}

// ladder --out and report --out refuse a directory holding files that
// are not theirs (issue 47: with /, they wrote into the root), before
// any work, and write nothing there; their own directories they take
// again.
func TestOutDirOnlyOwnFiles(t *testing.T) {
	root := t.TempDir()
	run := filepath.Join(root, "run")
	writeRatedRun(t, run, 100, 250)
	foreign := filepath.Join(root, "home")
	os.MkdirAll(filepath.Join(foreign, "sub"), 0o755)
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644)
	for _, args := range [][]string{
		{"ladder", "--player", "random", "--pairs", "1", "--out", foreign, "--progress", "none"},
		{"report", run, "--out", foreign},
		{"report", run, run, "--out", foreign},
	} {
		code, _, errOut := runPalace(t, "", args...)
		if code != 2 || !strings.Contains(errOut, "--out "+foreign+" holds files that are not this command's (notes.txt, sub)") {
			t.Errorf("palace %s: exit %d, %q", strings.Join(args, " "), code, errOut)
		}
	}
	if entries, _ := os.ReadDir(foreign); len(entries) != 2 {
		t.Errorf("the refused directory holds %d entries, want its 2", len(entries))
	}
	// Its own files (and a kill's temporary one) are no bar.
	charts := filepath.Join(root, "charts")
	for range 2 {
		if code, _, errOut := runPalace(t, "", "report", run, "--out", charts); code != 0 {
			t.Fatalf("report into its own directory: exit %d, %s", code, errOut)
		}
		os.WriteFile(filepath.Join(charts, ".elo.png.tmp-123abc"), nil, 0o644)
	}
	for _, name := range []string{"rating.json", "rung-10.jsonl", ".rung-10.jsonl.tmp-x1"} {
		if !isLadderFile(strings.TrimSuffix(strings.TrimPrefix(name, "."), ".tmp-x1")) {
			t.Errorf("%s is a ladder's own", name)
		}
	}
	for _, name := range []string{"rung-0.jsonl", "rung-010.jsonl", "rung-x.jsonl", "rating.json.bak"} {
		if isLadderFile(name) {
			t.Errorf("%s is not a ladder's own", name)
		}
	}
}
