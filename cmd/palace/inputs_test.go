package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A command given nothing to work on says so and fails, rather than
// report zeros that read as a result (issue 25's hostile pass: shard
// verify of an empty directory passed, export and openings of one printed
// nothing and exited 0), and a typed date that does not exist is refused.
func TestNothingToWorkOn(t *testing.T) {
	empty := t.TempDir()
	garbage := filepath.Join(t.TempDir(), "garbage.pgn")
	os.WriteFile(garbage, []byte("[Event \"x\"]\n\n1. zz99 *\n"), 0o644)
	run := t.TempDir()
	os.WriteFile(filepath.Join(run, "state.json"), []byte("{}"), 0o644)
	os.Mkdir(filepath.Join(run, "selfplay"), 0o755)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"shard", "verify", empty}, 1, "has no manifest.json: not a self-play directory"},
		{[]string{"shard", "verify", run}, 1, "a run's self-play directories are " + filepath.Join(run, "selfplay", "gen-NNNN")},
		{[]string{"export", empty}, 1, "no games in " + empty},
		{[]string{"import", garbage, "--out", filepath.Join(empty, "g.jsonl")}, 1, "no game could be imported from 1 files (1 records refused"},
		{[]string{"openings", empty}, 1, "no games in " + empty},
		{[]string{"openings", "--from", "2024.02.30", empty}, 2, `from date "2024.02.30"`},
		{[]string{"openings", "--from", "-1", empty}, 2, `from date "-1"`},
		{[]string{"train", "--games", empty, "--out", filepath.Join(empty, "n.palnet"), "--after", "2024.13"}, 2, `after "2024.13"`},
		{[]string{"train", "--games", empty, "--out", filepath.Join(empty, "n.palnet"), "--policy-from", "loser"}, 2, `policy from "loser": want all, winner or player:NAME`},
		{[]string{"train", "--games", empty, "--out", filepath.Join(empty, "n.palnet"), "--score-weight", "1.5"}, 2, "--score-weight 1.5: want 0 to 1"},
		{[]string{"train", "--games", empty, "--out", filepath.Join(empty, "n.palnet"), "--score-weight", "0.5", "--score-scale", "0"}, 2, "--score-scale 0"},
	} {
		code, _, errOut := runPalace(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("palace %s: exit %d, %q; want exit %d and %q", strings.Join(tc.args, " "), code, errOut, tc.code, tc.want)
		}
	}
}

// A new job goes into a new or empty directory, never into another job's
// (issue 25's hostile pass: palace run --dir of a self-play directory and
// palace train --work of a run wrote their files among its files); a
// network of the other game does not start a training; debris of a killed
// game-set build is cleared.
func TestJobsKeepToTheirDirectories(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other")
	os.Mkdir(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644)
	games := filepath.Join(dir, "games.jsonl")
	if code, _, errOut := runPalace(t, "", "import", "--out", games, "../../pgn/testdata/ccpd_sample"); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	shape := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(shape, []byte("blocks: 1\nfilters: 8\npolicy_channels: 2\nvalue_channels: 1\nvalue_hidden: 8\n"), 0o644)
	janggi := filepath.Join(dir, "janggi.palnet")
	if code, _, errOut := runPalace(t, "", "net", "init", "--config", shape, "--out", janggi, "--rules", "janggi"); code != 0 {
		t.Fatalf("net init: exit %d: %s", code, errOut)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--dir", other, "--generations", "1"}, 1, other + " is not a run (no config.yaml) and holds other files (notes.txt)"},
		{[]string{"selfplay", "--config", tinySelfplayConfig(t, other, "xiangqi", 2, 20, "")}, 1, other + " is not a self-play directory (no manifest.json) and holds other files (notes.txt)"},
		{[]string{"train", "--games", games, "--out", filepath.Join(dir, "n.palnet"), "--work", other}, 1, other + " is not a palace train job (no job.json) and holds other files (notes.txt)"},
		{[]string{"train", "--games", games, "--out", filepath.Join(dir, "n.palnet"), "--eval-every", "-2"}, 2, "--eval-every -2"},
		{[]string{"train", "--games", games, "--out", filepath.Join(dir, "x.palnet"), "--init", janggi}, 1, "initial network " + janggi + ": model: the network was made for janggi"},
	} {
		code, _, errOut := runPalace(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("palace %s: exit %d, %q; want exit %d and %q", strings.Join(tc.args, " "), code, errOut, tc.code, tc.want)
		}
	}
	if entries, _ := os.ReadDir(other); len(entries) != 1 {
		t.Errorf("the refused jobs left %d entries in %s, want only notes.txt", len(entries), other)
	}
	// A killed build's temporary directory goes when the next build starts.
	work := filepath.Join(dir, "y.palnet.work")
	debris := filepath.Join(work, ".gameset.tmp-123")
	os.MkdirAll(filepath.Join(debris, "train"), 0o755)
	os.WriteFile(filepath.Join(work, ".lock"), nil, 0o644)
	runPalace(t, "", "train", "--games", games, "--out", filepath.Join(dir, "y.palnet"), "--epochs", "0.01", "--eval-every", "0", "--progress", "none")
	if _, err := os.Stat(debris); err == nil {
		t.Errorf("%s is still there", debris)
	}
}
