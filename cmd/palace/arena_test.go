package main

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn/model"
)

// arenaRun runs palace arena, returning its output and error.
func arenaRun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := runArena(args, strings.NewReader(""), &stdout, &stderr)
	return stdout.String() + stderr.String(), err
}

func TestArenaRandomVsUniformResumes(t *testing.T) {
	records := filepath.Join(t.TempDir(), "match.jsonl")
	args := []string{"--rules", "xiangqi", "--max-plies", "40", "--pairs", "2", "--openings", "2",
		"--player", "random", "--player", "uniform,sims=8", "--records", records, "--progress", "log", "--concurrency", "2"}
	out, err := arenaRun(t, args...)
	if err != nil {
		t.Fatalf("arena: %v\n%s", err, out)
	}
	for _, want := range []string{"match finished", "random", "uniform/sims=8", "W-D-L", "pentanomial", "Elo", "LOS", "first mover", records, "games 4/4"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	h, recs, err := arena.ReadRecords(records)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || h.A != "random" || h.B != "uniform/sims=8" {
		t.Fatalf("records: %d games, players %s vs %s; want 4 games, random vs uniform/sims=8", len(recs), h.A, h.B)
	}
	for _, r := range recs {
		if r.Plies+2 > 40 {
			t.Errorf("pair %d game %d: %d plies after the opening, over the cap of 40", r.Pair, r.Game, r.Plies)
		}
	}

	// Again: the match is complete, nothing is played.
	out2, err := arenaRun(t, args...)
	if err != nil {
		t.Fatalf("arena again: %v\n%s", err, out2)
	}
	if !strings.Contains(out2, "0 played now, 4 before") {
		t.Errorf("resumed run does not say it played nothing:\n%s", out2)
	}
	_, recs2, err := arena.ReadRecords(records)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(recs, recs2) {
		t.Errorf("the resumed run changed the records:\n%v\n%v", recs, recs2)
	}

	// The spec by its new names (nodes= for sims=) is the same player:
	// the match resumes, nothing more to play.
	renamed := slices.Clone(args)
	renamed[slices.Index(renamed, "uniform,sims=8")] = "uniform,nodes=8,draw-score=0"
	if out, err := arenaRun(t, renamed...); err != nil || !strings.Contains(out, "0 played now, 4 before") {
		t.Errorf("uniform,nodes=8,draw-score=0 resuming uniform,sims=8's match: %v\n%s", err, out)
	}

	// Another match into the same file is refused.
	var other []string
	for _, a := range args {
		if a == "uniform,sims=8" {
			a = "uniform,sims=4"
		}
		other = append(other, a)
	}
	if out, err := arenaRun(t, other...); err == nil || !strings.Contains(err.Error(), "another match") {
		t.Errorf("another match in the same records: err %v, want a refusal\n%s", err, out)
	}
}

func TestArenaBadFlags(t *testing.T) {
	records := filepath.Join(t.TempDir(), "match.jsonl")
	for _, tc := range []struct {
		args  []string
		usage bool
		want  []string
	}{
		{[]string{"--player", "foo", "--player", "random"}, true, []string{`"foo"`, "unknown player"}},
		{[]string{"--player", "net:/nonexistent", "--player", "random"}, false, []string{"net:/nonexistent"}},
		{[]string{"--player", "random"}, true, []string{"exactly twice", "got 1"}},
		{[]string{"--player", "random", "--player", "random", "--sprt", "5,0"}, true, []string{"--sprt", "elo0 5 is not below elo1 0"}},
		{[]string{"--player", "random", "--player", "random", "--sprt", "x"}, true, []string{"ELO0,ELO1"}},
		{[]string{"--player", "uniform,sims=0", "--player", "random"}, true, []string{"sims=0"}},
		{[]string{"--player", "random,sims=8", "--player", "random"}, true, []string{"random takes no options"}},
		{[]string{"--player", "uniform,cache=8", "--player", "random"}, true, []string{`no option "cache"`}},
		{[]string{"--player", "net:missing.palnet", "--player", "random"}, false, []string{"missing.palnet"}},
		{[]string{"--player", "uniform,draw=-2", "--player", "random"}, true, []string{"draw=-2", "[-1, 1]"}},
		{[]string{"--player", "uniform,draw=x", "--player", "random"}, true, []string{"draw=x"}},
		{[]string{"--player", "uniform,draw-score=-2", "--player", "random"}, true, []string{"draw-score=-2", "[-1, 1]"}},
		{[]string{"--player", "uniform,nodes=8,sims=8", "--player", "random"}, true, []string{"nodes and sims are the same option"}},
		{[]string{"--player", "uniform,draw=0.1,draw-score=0.1", "--player", "random"}, true, []string{"draw and draw-score are the same option"}},
		{[]string{"--player", "uniform,lookahead=yes", "--player", "random"}, true, []string{"lookahead=yes", "0 (off) or 1 (on)"}},
		{[]string{"--player", "random,draw=-0.1", "--player", "random"}, true, []string{"random takes no options"}},
		{[]string{"--player", "random", "--player", "random", "--alpha", "0.1"}, true, []string{"--sprt"}},
		{[]string{"--player", "random", "--player", "random", "--progress", "fancy"}, true, []string{"fancy"}},
		{[]string{"--player", "uci:", "--player", "random"}, true, []string{"engine program"}},
		{[]string{"--player", "uci:fsf", "--player", "random"}, true, []string{"limit", "nodes=N"}},
		{[]string{"--player", "uci:fsf,nodes=0", "--player", "random"}, true, []string{"nodes=0"}},
		{[]string{"--player", "uci:fsf,movetime=100,tc=10", "--player", "random"}, true, []string{"do not go together"}},
		{[]string{"--player", "uci:fsf,nodes=1,tc=x", "--player", "random"}, true, []string{"tc=x", "SEC[+INC]"}},
		{[]string{"--player", "uci:fsf,nodes=1,protocol=xboard", "--player", "random"}, true, []string{"protocol=xboard"}},
		{[]string{"--player", "uci:fsf,nodes=1,notation=iccs", "--player", "random"}, true, []string{"notation=iccs"}},
		{[]string{"--player", "uci:fsf,nodes=1,timeout=soon", "--player", "random"}, true, []string{"timeout=soon"}},
		{[]string{"--player", "uci:fsf,nodes=1,nodes=2", "--player", "random"}, true, []string{"nodes given twice"}},
		{[]string{"--player", "uci:fsf,nodes=1,option.Hash=1,option.hash=2", "--player", "random"}, true, []string{"option hash given twice"}},
		{[]string{"--player", "uci:fsf,nodes=1,sims=2", "--player", "random"}, true, []string{`uci has no option "sims"`}},
		{[]string{"--player", "uci:/nonexistent/engine,nodes=1", "--player", "random"}, false, []string{"/nonexistent/engine"}},
		// An engine that never answers uci is given its timeout, not 30 s.
		{[]string{"--player", "uci:/bin/cat,nodes=1,timeout=1s", "--player", "random"}, false, []string{"no answer to uci within 1s"}},
		// Numbers that would exhaust memory or never end are refused
		// before anything is allocated or played.
		{[]string{"--player", "net:x,cache=100000000000", "--player", "random"}, true, []string{"cache=100000000000", "0 to 16777216"}},
		{[]string{"--player", "net:x,evaluators=100000000", "--player", "random"}, true, []string{"evaluators=100000000", "1 to 256"}},
		{[]string{"--player", "uniform,sims=1000000000", "--player", "random"}, true, []string{"sims=1000000000"}},
		{[]string{"--player", "random", "--player", "random", "--openings", "1000000000000"}, true, []string{"--openings", "never be played"}},
		{[]string{"--player", "random", "--player", "random", "--pairs", "1000000000000"}, true, []string{"--pairs", "at most"}},
		{[]string{"--player", "random", "--player", "random", "--concurrency", "100000000"}, true, []string{"--concurrency 100000000: want at most 16384"}},
	} {
		out, err := arenaRun(t, append(tc.args, "--records", records)...)
		if err == nil {
			t.Errorf("%q: no error\n%s", tc.args, out)
			continue
		}
		checkCommandError(t, tc.args, err, tc.usage, tc.want)
	}
}

// checkCommandError checks a refused command line's error: a usage error
// or not, as usage says, mentioning every one of want.
func checkCommandError(t *testing.T, args []string, err error, usage bool, want []string) {
	t.Helper()
	if got := errors.As(err, new(usageError)); got != usage {
		t.Errorf("%q: usage error %v, want %v: %v", args, got, usage, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q: error %q does not mention %q", args, err, w)
		}
	}
}

// tinyCheckpoints writes a random 1×8 network to dir as tiny.ckpt, and
// the same weights marked with the next encoding version, which palace
// refuses, as old.ckpt.
func tinyCheckpoints(t *testing.T, dir string) (w *model.Weights, path, old string) {
	t.Helper()
	w, err := model.NewRandom(model.Config{Planes: encode.Planes, PolicySize: encode.PolicySize(), Blocks: 1, Filters: 8,
		PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}, 1)
	if err != nil {
		t.Fatal(err)
	}
	path, old = filepath.Join(dir, "tiny.ckpt"), filepath.Join(dir, "old.ckpt")
	if err := (&model.Checkpoint{Weights: w, EncodingVersion: encode.Version}).Save(path); err != nil {
		t.Fatal(err)
	}
	if err := (&model.Checkpoint{Weights: w, EncodingVersion: encode.Version + 1}).Save(old); err != nil {
		t.Fatal(err)
	}
	return w, path, old
}

func TestArenaNetworkPlayer(t *testing.T) {
	dir := t.TempDir()
	w, path, old := tinyCheckpoints(t, dir)
	records := filepath.Join(dir, "match.jsonl")
	out, err := arenaRun(t, "--max-plies", "20", "--pairs", "1", "--player", "net:"+path+",sims=4,evaluators=1,cache=1024",
		"--player", "random", "--records", records, "--progress", "none", "--sprt", "0,10")
	if err != nil {
		t.Fatalf("arena: %v\n%s", err, out)
	}
	name := "net:" + w.ID() + "/sims=4"
	for _, want := range []string{name, "SPRT", "LLR", "games        2 of at most 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	h, recs, err := arena.ReadRecords(records)
	if err != nil {
		t.Fatal(err)
	}
	if h.A != name || len(recs) != 2 {
		t.Errorf("records: A %s with %d games, want %s with 2", h.A, len(recs), name)
	}

	// A checkpoint for another encoding is refused.
	if _, err := arenaRun(t, "--player", "net:"+old, "--player", "random", "--records", filepath.Join(dir, "old.jsonl")); err == nil || !strings.Contains(err.Error(), "encoding version") {
		t.Errorf("a checkpoint of another encoding: err %v, want an encoding version error", err)
	}
}
