package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/gamerec"
)

// onePGN is a games file's worth of input: one legal xiangqi game.
const onePGN = `[Event "one"]
[Result "*"]

1. h2e2 h9g7 *
`

// outFixture is a directory holding x.pgn and its import, games.jsonl.
func outFixture(t *testing.T) (dir, pgnPath, games string) {
	t.Helper()
	dir = t.TempDir()
	pgnPath, games = filepath.Join(dir, "x.pgn"), filepath.Join(dir, "games.jsonl")
	if err := os.WriteFile(pgnPath, []byte(onePGN), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runPalace(t, "", "import", "--out", games, pgnPath); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	return dir, pgnPath, games
}

// unchanged fails t unless path still holds want.
func unchanged(t *testing.T, path string, want []byte) {
	t.Helper()
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s changed: %q (%v), want %q", path, got, err, want)
	}
}

// TestOutIsInput is issue 25's palace import --out x.pgn x.pgn, and its
// kin: an output that is one of the files read is refused before anything
// is written, however it is spelled.
func TestOutIsInput(t *testing.T) {
	dir, pgnPath, games := outFixture(t)
	gamesData, err := os.ReadFile(games)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if err := os.Link("x.pgn", "hard.pgn"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("x.pgn", "soft.pgn"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("sub", "y.pgn"), []byte(onePGN), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("n.palnet", []byte("a network"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "--out", "x.pgn", "x.pgn"}, "--out x.pgn is also an input; palace would overwrite what it reads"},
		{[]string{"import", "--out", "./x.pgn", pgnPath}, "--out ./x.pgn is also the input " + pgnPath},
		{[]string{"import", "--out", "hard.pgn", "x.pgn"}, "--out hard.pgn is also the input x.pgn"},
		{[]string{"import", "--out", "soft.pgn", "x.pgn"}, "--out soft.pgn is also the input x.pgn"},
		{[]string{"import", "--out", "sub/y.pgn", "sub"}, "--out sub/y.pgn is also an input"},
		{[]string{"export", "--out", "games.jsonl", "games.jsonl"}, "--out games.jsonl is also an input"},
		{[]string{"export", "--out", "games.jsonl", "."}, "--out games.jsonl is one of the games files read from ."},
		{[]string{"openings", "--out", "games.jsonl", "games.jsonl"}, "--out games.jsonl is also an input"},
		{[]string{"openings", "--chart", "x.png", "--out", "games.jsonl", dir}, "--out games.jsonl is one of the games files read from " + dir},
		{[]string{"train", "--games", "games.jsonl", "--out", "games.jsonl"}, "--out games.jsonl is also an input"},
		{[]string{"train", "--games", "games.jsonl", "--init", "n.palnet", "--out", "n.palnet"}, "--out n.palnet is also an input"},
	} {
		code, _, stderr := runPalace(t, "", c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	unchanged(t, "x.pgn", []byte(onePGN))
	unchanged(t, filepath.Join("sub", "y.pgn"), []byte(onePGN))
	unchanged(t, "games.jsonl", gamesData)
	unchanged(t, "n.palnet", []byte("a network"))
	if fi, err := os.Lstat("soft.pgn"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("soft.pgn is no longer a symlink")
	}

	// Beside the inputs, in a directory being read, is fine where it is
	// no games file: the PGN of a directory of games files, a new games
	// file imported from the PGN files of the current directory.
	if code, _, stderr := runPalace(t, "", "export", "--out", "all.pgn", "."); code != 0 {
		t.Errorf("export . --out all.pgn: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runPalace(t, "", "import", "--out", "again.jsonl", "."); code != 0 {
		t.Errorf("import . --out again.jsonl: exit %d: %s", code, stderr)
	}
}

// TestOutInRunDirectory: a run directory's files are all palace's state,
// so nothing read from one is written into it.
func TestOutInRunDirectory(t *testing.T) {
	_, _, games := outFixture(t)
	root := t.TempDir()
	run := filepath.Join(root, "run")
	sp := filepath.Join(run, "selfplay", "gen-0001")
	if err := os.MkdirAll(sp, 0o755); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(run, "state.json")
	if err := os.WriteFile(state, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sp, "manifest.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--out", state, run}, "--out " + state + " is inside " + run + ", a run directory being read"},
		{[]string{"export", "--out", filepath.Join(run, "new.pgn"), run}, "is inside " + run + ", a run directory"},
		{[]string{"export", "--out", filepath.Join(sp, "x.pgn"), root}, "is inside " + sp + ", a self-play directory being read"},
		{[]string{"openings", "--chart", filepath.Join(run, "c.png"), run}, "--chart " + filepath.Join(run, "c.png") + " is inside " + run},
		{[]string{"train", "--games", games, "--games", run, "--out", filepath.Join(run, "n.palnet")}, "is inside " + run},
	} {
		code, _, stderr := runPalace(t, "", c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	unchanged(t, state, []byte("{}\n"))
	if _, err := os.Stat(filepath.Join(run, "new.pgn")); err == nil {
		t.Errorf("a refused export wrote into the run directory")
	}
}

// TestOutThroughSymlink: --out a symlink writes its target and keeps
// the link (the crash-safe rename once replaced the link with a file).
func TestOutThroughSymlink(t *testing.T) {
	dir, pgnPath, _ := outFixture(t)
	target := filepath.Join(dir, "kept", "games.jsonl")
	if err := os.Mkdir(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(filepath.Join("kept", "games.jsonl"), link); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runPalace(t, "", "import", "--out", link, pgnPath); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is no longer a symlink", link)
	}
	f, err := gamerec.Read(target)
	if err != nil || len(f.Games) != 1 {
		t.Fatalf("the link's target: %v", err)
	}
	// A dangling link: its target is made.
	dangling := filepath.Join(dir, "dangling.pgn")
	if err := os.Symlink("made.pgn", dangling); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runPalace(t, "", "export", "--out", dangling, link); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "made.pgn")); err != nil || !strings.Contains(string(data), "1. Che3 Hg8 *") {
		t.Errorf("the dangling link's target: %q, %v", data, err)
	}
}

// TestOutDevice: --out /dev/null (or /dev/full) is refused, the device
// left a device; root, who could rename over it, tries a node of its own
// instead (TestOutSpecialFiles).
func TestOutDevice(t *testing.T) {
	_, pgnPath, games := outFixture(t)
	fi, err := os.Lstat("/dev/null")
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skip("no /dev/null here")
	}
	if os.Geteuid() == 0 {
		t.Skip("root: TestOutSpecialFiles tries a device node of its own")
	}
	for _, args := range [][]string{
		{"import", "--out", "/dev/null", pgnPath},
		{"export", "--out", "/dev/null", games},
		{"openings", "--out", "/dev/null", games},
	} {
		code, _, stderr := runPalace(t, "", args...)
		if code != 2 || !strings.Contains(stderr, "--out /dev/null is a device, not a regular file") {
			t.Errorf("%s: exit %d, %q", strings.Join(args, " "), code, stderr)
		}
	}
	if fi, err := os.Lstat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v %v", fi.Mode(), err)
	}
}
