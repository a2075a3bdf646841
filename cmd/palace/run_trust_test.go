package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/loop/looptest"
)

// What palace run believes of its inputs and its run directory (issue 47,
// items 4 to 11 and 19), through the command: each case a clear refusal
// (or, for a run reached through a link, none). Runs are started with
// --duration 1ns: checked, begun, and stopped before any game.
func TestRunTrust(t *testing.T) {
	dir := t.TempDir()
	config := func(name, over string) string {
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte(looptest.Merge(t, looptest.TinyYAML, over)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tiny := config("tiny", "")
	expect := func(what string, wantCode int, want string, args ...string) {
		t.Helper()
		code, _, errOut := runPalace(t, "", append([]string{"run", "--progress", "none"}, args...)...)
		if code != wantCode || !strings.Contains(errOut, want) {
			t.Errorf("%s: palace run %s: exit %d, %q; want exit %d and %q", what, strings.Join(args, " "), code, errOut, wantCode, want)
		}
	}

	// Item 19: an empty --dir is not runs/NAME; floats are not integers;
	// records are not accepted unused. Items 5 and 6: values that pass a
	// range check and break the run later.
	expect("an empty --dir", 2, "--dir is empty", "--config", tiny, "--dir", "")
	expect("an empty --config", 2, "--config is empty", "--config", "", "--dir", filepath.Join(dir, "r"))
	for _, tc := range []struct{ over, want string }{
		{"seed: 5.0", "seed: 5.0: want a whole number written as one (5)"},
		{"generations: 1e1", "generations: 1e1: want a whole number written as one (10)"},
		{"train: {records: /etc}", `records "/etc", records_generations 0 are never used with records_share 0`},
		{"arena: {sprt: {elo0: 1e308, elo1: 1.7e308}}", "elo bounds 1e+308, 1.7e+308 are too far out"},
		{"train: {samples_per_position: 1e300}", "samples_per_position 1e+300, want > 0 and ≤ 1000"},
	} {
		expect(tc.over, 1, tc.want, "--config", config("bad", tc.over), "--dir", filepath.Join(dir, "bad"))
	}

	// Item 4: a run directory reached through a link is that directory.
	real, link := filepath.Join(dir, "real"), filepath.Join(dir, "link")
	expect("a new run", 0, "", "--config", tiny, "--dir", real, "--duration", "1ns")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	expect("the run through a link", 0, "", "--dir", link, "--duration", "1ns")

	// Item 7: config.yaml edited in place.
	cfgFile := filepath.Join(real, "config.yaml")
	saved, _ := os.ReadFile(cfgFile)
	os.WriteFile(cfgFile, []byte(looptest.Merge(t, looptest.TinyYAML, "seed: 6\nnetwork: {blocks: 2}")), 0o644)
	expect("an edited config", 1, "config.yaml was edited since the run started (changed network.blocks, seed)", "--dir", real, "--duration", "1ns")
	os.WriteFile(cfgFile, saved, 0o644)

	// Item 10: a link out of the run directory.
	outside := filepath.Join(dir, "outside.jsonl")
	os.WriteFile(outside, nil, 0o644)
	metrics := filepath.Join(real, "metrics.jsonl")
	os.Symlink(outside, metrics)
	expect("metrics.jsonl linked outside", 1, metrics+" is a symbolic link to "+outside+", outside the run directory", "--dir", real, "--duration", "1ns")
	if b, _ := os.ReadFile(outside); len(b) != 0 {
		t.Errorf("the file outside was written: %q", b)
	}
	os.Remove(metrics)

	// Item 11: a line of metrics.jsonl that is not a metric.
	os.WriteFile(metrics, []byte(`{"garbage":1}`+"\n"), 0o644)
	expect("a garbage metrics line", 1, `metrics.jsonl line 1: not a metric: unknown keys "garbage"`, "--dir", real, "--duration", "1ns")
	os.Remove(metrics)
	expect("the run restored", 0, "", "--dir", real, "--duration", "1ns")
}
