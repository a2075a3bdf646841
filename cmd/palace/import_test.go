package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/gamerec"
)

// sampleDir copies the real-game samples (the pgn and gib packages' test
// data, copies of ../shared/data/games) into one directory, with a file
// of broken records beside them.
func sampleDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, src := range []string{
		"../../pgn/testdata/ccpd_sample", "../../pgn/testdata/xqdb_sample15",
		"../../gib/testdata/donga_ilbo_1937.gib",
	} {
		err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || strings.HasSuffix(path, ".md") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, filepath.Base(src)+"-"+filepath.Base(path)), data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// broken holds three games: good, an illegal move, good (the last with
// stray bytes in a comment and Black to move).
const broken = `[Event "ok"]
[Result "*"]

1. h2e2 h9g7 *

[Event "illegal"]
[Result "1-0"]

1. h2e2 h9h1 1-0

[Event "black first"]
[FEN "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"]
[Result "0-1"]

1... h7e7 {` + "\xff\xfe" + `} 2. h0g2 0-1
`

func TestImportExport(t *testing.T) {
	dir := sampleDir(t)
	if err := os.WriteFile(filepath.Join(dir, "broken.pgn"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "games.jsonl")
	code, stdout, stderr := runPalace(t, "", "import", dir, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 40 CCPD + 15 xqdb games (the other two notations' copies are
	// duplicates but for xqdb game 2, whose ICCS file differs at ply
	// 71) + 1 gib + 2 good broken.pgn games.
	if !strings.Contains(stdout, "imported 59 games from 45 files") || !strings.Contains(stdout, "1 records not imported, 29 duplicates") {
		t.Errorf("stdout %q", stdout)
	}
	if !strings.Contains(stderr, "broken.pgn: game 2 (line 9)") || !strings.Contains(stderr, `"h9h1"`) {
		t.Errorf("the illegal move is not reported with file, game and line:\n%s", stderr)
	}
	f, err := gamerec.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Games) != 59 {
		t.Fatalf("%d games", len(f.Games))
	}
	events := map[string]bool{}
	for i := range f.Games {
		g := &f.Games[i]
		if _, err := g.Replay(f.RuleSet(g)); err != nil {
			t.Error(err)
		}
		if strings.HasSuffix(g.Source, "broken.pgn") {
			events[g.Tags["Event"]] = true
		}
	}
	if !events["ok"] || !events["black first"] || events["illegal"] {
		t.Errorf("broken.pgn's games: %v", events)
	}

	code, _, stderr = runPalace(t, "", "import", "--strict", "--out", filepath.Join(t.TempDir(), "s.jsonl"), dir)
	if code != 1 || !strings.Contains(stderr, "1 records could not be imported (--strict)") {
		t.Errorf("--strict: exit %d, %s", code, stderr)
	}

	// Export, import the export: the same games, moves and results.
	pgnPath := filepath.Join(t.TempDir(), "all.pgn")
	if code, _, stderr := runPalace(t, "", "export", out, "--out", pgnPath); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	again := filepath.Join(t.TempDir(), "again.jsonl")
	if code, stdout, stderr := runPalace(t, "", "import", "--duplicates", "keep", "--out", again, pgnPath); code != 0 || !strings.Contains(stdout, "imported 59 games") {
		t.Fatalf("re-import: exit %d: %s %s", code, stdout, stderr)
	}
	g2, err := gamerec.Read(again)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Games {
		a, b := &f.Games[i], &g2.Games[i]
		if a.RuleSet != b.RuleSet || a.StartFEN != b.StartFEN || a.Moves != b.Moves || a.Result != b.Result {
			t.Errorf("%s: exported and re-imported as %s: %s %s / %s %s", a.Where(), b.Where(), a.Result, a.Moves, b.Result, b.Moves)
		}
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import"}, "at least one file"},
		{[]string{"import", "--format", "sgf", dir}, "--format"},
		{[]string{"import", "--encoding", "latin9", dir}, "encoding"},
		{[]string{"import", "--duplicates", "maybe", dir}, "--duplicates"},
		{[]string{"export"}, "at least one"},
		{[]string{"export", out, "--rules", "nope"}, "no game is under it; the games are under janggi@"},
	} {
		if code, _, stderr := runPalace(t, "", c.args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %s", c.args, code, stderr)
		}
	}
	if code, _, stderr := runPalace(t, "", "import", filepath.Join(dir, "missing.pgn")); code != 1 || !strings.Contains(stderr, "missing.pgn") {
		t.Errorf("missing file: exit %d, %s", code, stderr)
	}
}
