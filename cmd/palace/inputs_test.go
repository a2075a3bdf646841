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
		{[]string{"openings", empty}, 1, "no games in " + empty},
		{[]string{"openings", "--from", "2024.02.30", empty}, 2, `from date "2024.02.30"`},
		{[]string{"openings", "--from", "-1", empty}, 2, `from date "-1"`},
		{[]string{"train", "--games", empty, "--out", filepath.Join(empty, "n.palnet"), "--after", "2024.13"}, 2, `after "2024.13"`},
	} {
		code, _, errOut := runPalace(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("palace %s: exit %d, %q; want exit %d and %q", strings.Join(tc.args, " "), code, errOut, tc.code, tc.want)
		}
	}
}
