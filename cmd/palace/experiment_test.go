package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/palace-chess/palace/experiment"
	"github.com/palace-chess/palace/loop/looptest"
)

// experimentRun runs palace experiment under ctx, returning its output and
// error. (The tests call the command directly: they do not depend on its
// entry in main.go's table.)
func experimentRun(t *testing.T, ctx context.Context, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := experimentCommand(ctx, args, &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

func experimentArgs(out string, games int, extra ...string) []string {
	return append([]string{"--rules-a", "janggi", "--rules-b", "janggiclassic", "--net", "uniform", "--sims", "4",
		"--games", strconv.Itoa(games), "--max-plies", "30", "--opening-plies", "2",
		"--seed", "3", "--concurrency", "2", "--out", out}, extra...)
}

// A small experiment end to end: the table, then a larger game count that
// plays only the new indices, then a rerun that plays nothing; every game
// is recorded once.
func TestExperimentResumes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "exp.jsonl")
	stdout, stderr, err := experimentRun(t, context.Background(), experimentArgs(out, 3, "--progress", "log")...)
	if err != nil {
		t.Fatalf("experiment: %v\n%s%s", err, stdout, stderr)
	}
	for _, want := range []string{
		"experiment: janggi@", "(A) vs janggiclassic@", "uniform/sims=4",
		"games 6/6  A: cho ", "experiment finished: 6 of 6 games (6 played now, 0 before)",
		"janggi at 30 plies (counted); janggiclassic at 30 plies (a draw)",
		"pairs   3", "A: janggi", "B: janggiclassic", "B − A", "cho score", "draws", "han wins", "length (plies)", "passes",
		"ends: ", "significant at 5%:", "exact p",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}

	stdout, _, err = experimentRun(t, context.Background(), experimentArgs(out, 6, "--progress", "none")...)
	if err != nil {
		t.Fatalf("extended: %v\n%s", err, stdout)
	}
	if !strings.Contains(stdout, "12 of 12 games (6 played now, 6 before)") || strings.Contains(stdout, "games 7/12") {
		t.Errorf("extending to 6 games:\n%s", stdout)
	}
	stdout, _, err = experimentRun(t, context.Background(), experimentArgs(out, 6, "--progress", "none")...)
	if err != nil || !strings.Contains(stdout, "(0 played now, 12 before)") {
		t.Errorf("rerun of a complete experiment: %v\n%s", err, stdout)
	}
	h, recs, err := experiment.ReadRecords(out)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range recs {
		key := strconv.Itoa(r.Index) + r.Rules
		if seen[key] {
			t.Errorf("game %d under %s recorded twice", r.Index, r.Rules)
		}
		seen[key] = true
	}
	if len(recs) != 12 || h.Player != "uniform/sims=4" || h.A.MaxPlies != 30 || h.B.MaxPlies != 30 || h.OpeningPlies != 2 {
		t.Errorf("%d records, header %+v", len(recs), h)
	}

	// The same file for another experiment is refused, with the way out.
	// (A flag is given once: the seed replaced, not given again.)
	another := experimentArgs(out, 6)
	another[slices.Index(another, "--seed")+1] = "4"
	_, _, err = experimentRun(t, context.Background(), another...)
	if err == nil || !strings.Contains(err.Error(), "holds another experiment") || !strings.Contains(err.Error(), "--out another file") {
		t.Errorf("another experiment in the same file: %v", err)
	}
}

// Interrupted (Ctrl-C cancels the context), the command reports what it
// has and says how to resume; the next run finishes the games.
func TestExperimentInterrupted(t *testing.T) {
	out := filepath.Join(t.TempDir(), "exp.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stdout, _, err := experimentRun(t, ctx, experimentArgs(out, 2, "--progress", "none")...)
	if err == nil || !strings.Contains(err.Error(), "interrupted; 0 of 4 games recorded") || !strings.Contains(err.Error(), "run the same command again") {
		t.Fatalf("interrupted: %v\n%s", err, stdout)
	}
	if !strings.Contains(stdout, "experiment interrupted") || !strings.Contains(stdout, "no game has been played under both rule sets yet") {
		t.Errorf("interrupted output:\n%s", stdout)
	}
	stdout, _, err = experimentRun(t, context.Background(), experimentArgs(out, 2, "--progress", "none")...)
	if err != nil || !strings.Contains(stdout, "4 of 4 games (4 played now, 0 before)") {
		t.Errorf("resumed: %v\n%s", err, stdout)
	}
}

func TestExperimentJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "exp.jsonl")
	stdout, stderr, err := experimentRun(t, context.Background(), experimentArgs(out, 2, "--json", "--progress", "log")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var doc struct {
		Records  string `json:"records"`
		Recorded int    `json:"recorded"`
		Pairs    int    `json:"pairs"`
		RulesA   struct {
			ID       string `json:"id"`
			MaxPlies int    `json:"maxPlies"`
		} `json:"rules_a"`
		A struct {
			Rules  string `json:"rules"`
			Length struct {
				N int `json:"n"`
			} `json:"length"`
		} `json:"a"`
		Diff struct {
			Draws experiment.Diff `json:"draws"`
		} `json:"diff"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not the JSON document (%v):\n%s", err, stdout)
	}
	if doc.Records != out || doc.Recorded != 4 || doc.Pairs != 2 || doc.RulesA.MaxPlies != 30 || doc.A.Rules != doc.RulesA.ID ||
		doc.A.Length.N != 2 || doc.Diff.Draws.Test != "paired z" {
		t.Errorf("JSON document: %+v", doc)
	}
	// Progress went to stderr, leaving stdout to the document.
	if !strings.Contains(stderr, "games 4/4") {
		t.Errorf("progress on stderr: %q", stderr)
	}
}

func TestExperimentBadFlags(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "exp.jsonl")
	yaml := filepath.Join(dir, "x.yaml")
	if err := os.WriteFile(yaml, []byte("base: xiangqi\nmaxPlies: 50\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := func(change ...string) []string {
		args := []string{"--rules-a", "janggi", "--rules-b", "janggiclassic", "--net", "uniform", "--out", out}
		for i := 0; i+1 < len(change); i += 2 {
			replaced := false
			for j := 0; j+1 < len(args); j += 2 {
				if args[j] == change[i] {
					args[j+1], replaced = change[i+1], true
				}
			}
			if !replaced {
				args = append(args, change[i], change[i+1])
			}
		}
		return args
	}
	for _, tc := range []struct {
		args  []string
		usage bool
		want  []string
	}{
		{[]string{"--net", "uniform", "--out", out}, true, []string{"--rules-a and --rules-b"}},
		{base("--net", ""), true, []string{"--net"}},
		{base("--out", ""), true, []string{"--out"}},
		{base("--games", "0"), true, []string{"--games 0"}},
		{base("--nodes", "0"), true, []string{"--nodes 0"}},
		{base("--max-plies", "-1"), true, []string{"--max-plies -1"}},
		{base("--opening-plies", "-2"), true, []string{"--opening-plies -2"}},
		{base("--concurrency", "0"), true, []string{"--concurrency 0"}},
		{base("--games", "1000000000000"), true, []string{"--games 1000000000000: want at most 1048576"}},
		{base("--concurrency", "100000000"), true, []string{"--concurrency 100000000: want at most 16384"}},
		{base("--evaluators", "100000000"), true, []string{"--evaluators 100000000: want at most 256"}},
		{base("--cache", "100000000000"), true, []string{"--cache 100000000000: want at most 16777216"}},
		{base("--progress", "fancy"), true, []string{"fancy"}},
		{base("--bogus", "1"), true, []string{"bogus"}},
		{base("--rules-b", "xiangqi"), true, []string{"janggi is for janggi and xiangqi for xiangqi", "same game"}},
		{base("--rules-b", yaml), true, []string{"xiangqi-custom", "same game"}},
		{base("--rules-b", "jangi"), false, []string{"--rules-b", `"jangi"`, "janggiclassic"}},
		{base("--rules-a", filepath.Join(dir, "missing.yaml")), false, []string{"--rules-a", "missing.yaml"}},
		{base("--net", "/nonexistent/net.palnet"), false, []string{"--net /nonexistent/net.palnet"}},
	} {
		stdout, _, err := experimentRun(t, context.Background(), tc.args...)
		if err == nil {
			t.Errorf("%q: no error\n%s", tc.args, stdout)
			continue
		}
		checkCommandError(t, tc.args, err, tc.usage, tc.want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a refused command line created the record file")
	}
}

// The other players: a network checkpoint (refused for another encoding)
// and the random evaluator, by its name and by its old one.
func TestExperimentPlayers(t *testing.T) {
	dir := t.TempDir()
	w, path, old := tinyCheckpoints(t, dir)
	for _, tc := range []struct{ net, name string }{
		{path, "net:" + w.ID() + "/sims=2"},
		{"random-evaluator", "random-evaluator/sims=2"},
		{"random", "random-evaluator/sims=2"}, // the old name: the same player
	} {
		out := filepath.Join(dir, strings.ReplaceAll(tc.name, "/", "_")+".jsonl")
		stdout, _, err := experimentRun(t, context.Background(), "--rules-a", "xiangqi", "--rules-b", "xiangqi",
			"--net", tc.net, "--sims", "2", "--games", "1", "--max-plies", "12", "--evaluators", "1", "--cache", "1024",
			"--out", out, "--progress", "none")
		if err != nil {
			t.Fatalf("--net %s: %v\n%s", tc.net, err, stdout)
		}
		h, recs, err := experiment.ReadRecords(out)
		if err != nil {
			t.Fatal(err)
		}
		if h.Player != tc.name || len(recs) != 2 || !strings.Contains(stdout, "red score") {
			t.Errorf("--net %s: player %s, %d games; want %s, 2\n%s", tc.net, h.Player, len(recs), tc.name, stdout)
		}
	}
	if _, _, err := experimentRun(t, context.Background(), "--rules-a", "xiangqi", "--rules-b", "xiangqi", "--net", old,
		"--out", filepath.Join(dir, "old.jsonl")); err == nil || !strings.Contains(err.Error(), "encoding version") {
		t.Errorf("a checkpoint of another encoding: %v", err)
	}
}

// TestExperimentReport: --report writes the report's files, the methods
// paragraph naming both rule sets by hash, and a directory holding other
// files is refused before any game.
func TestExperimentReport(t *testing.T) {
	dir := t.TempDir()
	out, report := filepath.Join(dir, "exp.jsonl"), filepath.Join(dir, "report")
	_, stderr, err := experimentRun(t, context.Background(), experimentArgs(out, 4, "--report", report)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, f := range []string{experiment.ReportMarkdown, experiment.ReportJSON, experiment.ReportOutcomes, experiment.ReportEnds} {
		if info, err := os.Stat(filepath.Join(report, f)); err != nil || info.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(report, experiment.ReportMarkdown))
	h, _, err := experiment.ReadRecords(out)
	if err != nil {
		t.Fatal(err)
	}
	a, b, _ := h.RuleSets()
	for _, want := range []string{"## Methods", a.String(), b.String(), "Each of 4 game indices", "McNemar", "| draws |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644)
	if _, _, err := experimentRun(t, context.Background(), experimentArgs(filepath.Join(dir, "exp2.jsonl"), 2, "--report", other)...); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("a report directory holding another file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "exp2.jsonl")); err == nil {
		t.Error("the refused experiment played games")
	}
}

// TestExperimentPlayerPerRuleSet: --net-b plays B's games; the record,
// the analysis and the report name both players.
func TestExperimentPlayerPerRuleSet(t *testing.T) {
	dir := t.TempDir()
	out, report := filepath.Join(dir, "exp.jsonl"), filepath.Join(dir, "report")
	stdout, stderr, err := experimentRun(t, context.Background(), append(experimentArgs(out, 2, "--json", "--report", report), "--net-b", "random-evaluator")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var doc struct {
		Player  string `json:"player"`
		PlayerB string `json:"player_b"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || !strings.HasPrefix(doc.PlayerB, "random-evaluator") || doc.Player == doc.PlayerB {
		t.Fatalf("players %+v (%v)", doc, err)
	}
	md, _ := os.ReadFile(filepath.Join(report, experiment.ReportMarkdown))
	if !strings.Contains(string(md), "a player per rule set") {
		t.Errorf("the report does not say B had its own player:\n%s", md)
	}
	// Resumed with another B player, the record is refused.
	if _, _, err := experimentRun(t, context.Background(), experimentArgs(out, 2)...); err == nil || !strings.Contains(err.Error(), "B's player") {
		t.Errorf("resumed without --net-b: %v", err)
	}
}

// TestExperimentTrain: --train trains a player per rule set to each
// budget (two run directories), plays the experiment at each with the
// two networks, and compares the budgets; the same command again trains
// and plays nothing more.
func TestExperimentTrain(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(cfg, []byte(looptest.TinyYAML), 0o644)
	ruleB := filepath.Join(dir, "long.yaml")
	os.WriteFile(ruleB, []byte("base: xiangqi\nmaxPlies: 300\n"), 0o644)
	out, report := filepath.Join(dir, "exp.jsonl"), filepath.Join(dir, "report")
	args := []string{"--rules-a", "xiangqi", "--rules-b", ruleB, "--train", "1ns,2ns", "--train-config", cfg, "--nodes", "4",
		"--games", "2", "--max-plies", "30", "--seed", "3", "--concurrency", "2", "--out", out, "--report", report, "--progress", "none"}
	stdout, stderr, err := experimentRun(t, context.Background(), args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, f := range []string{"exp-1ns.jsonl", "exp-2ns.jsonl", "exp.train/A/metrics.jsonl", "exp.train/B/metrics.jsonl",
		"report/1ns/report.md", "report/2ns/report.md", "report/sensitivity.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	h, _, err := experiment.ReadRecords(filepath.Join(dir, "exp-2ns.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.Player, "gen-0000") && !strings.Contains(h.Player, "net") || h.PlayerB == "" {
		t.Errorf("players %q and %q", h.Player, h.PlayerB)
	}
	if !strings.Contains(stdout, "as the players get stronger") {
		t.Errorf("no comparison across budgets:\n%s", stdout)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report", "2ns", "report.md"))
	if !strings.Contains(string(md), "The two players were each trained by palace's loop under its own rule set") || !strings.Contains(string(md), "to 2ns of the loop's stage time") {
		t.Errorf("the report's methods do not say how the players were trained:\n%s", md)
	}
	cfgB, _ := os.ReadFile(filepath.Join(dir, "exp.train", "B", "config.yaml"))
	if !strings.Contains(string(cfgB), "rules: "+ruleB) {
		t.Errorf("B's run config:\n%s", cfgB)
	}
	stdout, stderr, err = experimentRun(t, context.Background(), args...)
	if err != nil || !strings.Contains(stdout, "0 played now") || strings.Contains(stdout, "2 played now") {
		t.Errorf("the same command again: %v\n%s\n%s", err, stdout, stderr)
	}
	if _, _, err := experimentRun(t, context.Background(), append(args, "--net", "uniform")...); err == nil {
		t.Error("--train with --net was taken")
	}
}
