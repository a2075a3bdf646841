package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/pgn"
	"github.com/palace-chess/palace/rules"
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

// TestImportWildCollections: palace import on collections as they come:
// Kakao records that ignore bikjang, stray bytes between games, a result
// the rules contradict, duplicates whose results disagree; the summary
// says what became of every record.
func TestImportWildCollections(t *testing.T) {
	dir := t.TempDir()
	// Cho's e4 and Han's e7 soldiers step aside, the generals face each
	// other, and Cho moves a chariot instead of breaking bikjang.
	kakao := "[대국장소 \"장기 for Kakao\"]\n[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n[대국결과 \"초 승리\"]\n\n1. 75졸74 <0> 2. 45병44 <0> 3. 01차91 <0>\n" +
		"\xff\xff\n[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n[대국결과 \"한 승리\"]\n\n1. 79졸78 2. 41병42\n"
	if err := os.WriteFile(filepath.Join(dir, "kakao.gib"), []byte(kakao), 0o644); err != nil {
		t.Fatal(err)
	}
	// A mate (the xqdb sample's game 7, Red mates on ply 43) recorded as
	// Black's win, then the same game recorded right, then again with
	// another result.
	xq, err := os.ReadFile("../../pgn/testdata/xqdb_sample15/xqdb_sample15_iccs.pgn")
	if err != nil {
		t.Fatal(err)
	}
	read, _ := pgn.Read(xq, "x", pgn.Options{})
	var moves []string
	for _, m := range read[6].Moves {
		moves = append(moves, m.Text)
	}
	mate := strings.Join(moves, " ")
	records := "[Result \"0-1\"]\n" + mate + "\n\n[Result \"1-0\"]\n" + mate + "\n\n[Result \"1-0\"]\n1. h2e2 h9g7 2. h0g2\n\n[Result \"0-1\"]\n1. h2e2 h9g7 2. h0g2\n"
	if err := os.WriteFile(filepath.Join(dir, "mates.pgn"), []byte(records), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "games.jsonl")
	code, stdout, stderr := runPalace(t, "", "import", "--out", out, dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"kakao.gib game 1, line 6: move 3 \"01차91\": a1a2 is not legal",
		"illegal under janggi only because of bikjang",
		"the record imports with --rules janggimodern",
		"kakao.gib game 1, line 7: stray bytes skipped",
		"mates.pgn game 1, line 1: result corrected: the record says 0-1, the rules end the game 1-0 checkmate",
		"mates.pgn game 2: duplicate of " + filepath.Join(dir, "mates.pgn") + " game 1, skipped",
		"mates.pgn game 4: duplicate of " + filepath.Join(dir, "mates.pgn") + " game 3 with a different result (0-1, there 1-0), skipped",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, want := range []string{
		"records imported duplicates  refused corrected  file\n",
		"       2        1          0        1         0  " + filepath.Join(dir, "kakao.gib") + "\n",
		"       4        2          2        0         1  " + filepath.Join(dir, "mates.pgn") + "\n",
		"refused: 1 (bad move 1)\n",
		"duplicates skipped: 2 (1 with a different recorded result)\n",
		"imported with changes (records): result corrected 1, stray bytes skipped 1\n",
		"imported 3 games from 2 files",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	// Under the rule set Kakao plays, every record imports, recorded
	// with it.
	code, stdout, stderr = runPalace(t, "", "import", "--rules", "janggimodern", "--out", out, filepath.Join(dir, "kakao.gib"))
	if code != 0 || !strings.Contains(stdout, "imported 2 games from 1 files") || strings.Contains(stdout, "refused:") {
		t.Fatalf("--rules janggimodern: exit %d\n%s%s", code, stdout, stderr)
	}
	f, err := gamerec.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	modern := rules.MustPreset("janggimodern")
	for i := range f.Games {
		if g := &f.Games[i]; g.RuleSet != modern.String() {
			t.Errorf("game %d under %s", i, g.RuleSet)
		} else if _, err := g.Replay(f.RuleSet(g)); err != nil {
			t.Error(err)
		}
	}
	// --strict refuses the contradicted result, and fails.
	code, stdout, stderr = runPalace(t, "", "import", "--strict", "--out", out, filepath.Join(dir, "mates.pgn"))
	if code != 1 || !strings.Contains(stderr, "bad result: the rules end the game 1-0 checkmate, the record says 0-1") ||
		!strings.Contains(stdout, "refused: 1 (bad result 1)") {
		t.Errorf("--strict: exit %d\n%s%s", code, stdout, stderr)
	}
	// The rule set of the other game, or none palace knows.
	code, _, stderr = runPalace(t, "", "import", "--rules", "xiangqi", "--out", out, filepath.Join(dir, "kakao.gib"))
	if code != 1 || !strings.Contains(stderr, "rule set xiangqi is for xiangqi; .gib records are janggi") {
		t.Errorf("--rules xiangqi on .gib: exit %d, %s", code, stderr)
	}
	if code, _, stderr = runPalace(t, "", "import", "--rules", "nope", "--out", out, dir); code != 2 || !strings.Contains(stderr, "--rules") {
		t.Errorf("--rules nope: exit %d, %s", code, stderr)
	}
}

// TestImportBinaryFormats: XQStudio's .xqf and CCBridge's .cbr and .cbl
// through palace import, found in a directory by extension and, named
// otherwise, by their signatures.
func TestImportBinaryFormats(t *testing.T) {
	dir := t.TempDir()
	for _, src := range []string{"../../xqf/testdata/encrypted_v18.xqf", "../../xqf/testdata/endgame_v10.xqf",
		"../../ccbridge/testdata/le_1997.cbr", "../../ccbridge/testdata/two_games.cbl"} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(src)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "games.jsonl")
	code, stdout, stderr := runPalace(t, "", "import", "--out", out, dir)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	// The library's second game is the .cbr's.
	for _, want := range []string{"imported 4 games from 4 files", "duplicates skipped: 1\n",
		"imported with changes (records): comments dropped 2, variations dropped 1\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	f, err := gamerec.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	players := map[string]bool{}
	for i := range f.Games {
		g := &f.Games[i]
		if _, err := g.Replay(f.RuleSet(g)); err != nil {
			t.Error(err)
		}
		players[g.White+"-"+g.Black] = true
	}
	for _, want := range []string{"赵国荣-柯永庆", "LE Thien Vi-BI BingJian", "LIU DianZhong-LIU DaHua"} {
		if !players[want] {
			t.Errorf("no game of %s: %v", want, players)
		}
	}
	// Named otherwise, each is told by its signature.
	for _, name := range []string{"encrypted_v18.xqf", "two_games.cbl"} {
		data, _ := os.ReadFile(filepath.Join(dir, name))
		renamed := filepath.Join(t.TempDir(), "download.bin")
		if err := os.WriteFile(renamed, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if code, stdout, stderr := runPalace(t, "", "import", "--out", out, renamed); code != 0 || !strings.Contains(stdout, "imported") {
			t.Errorf("%s as download.bin: exit %d %s%s", name, code, stdout, stderr)
		}
	}
	// A broken file is reported by name and reason, the others import.
	if err := os.WriteFile(filepath.Join(dir, "cut.xqf"), []byte("XQ\x12"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runPalace(t, "", "import", "--out", out, dir)
	if code != 0 || !strings.Contains(stderr, "xqf: "+filepath.Join(dir, "cut.xqf")+": truncated") || !strings.Contains(stdout, "refused: 1 (malformed record 1)") {
		t.Errorf("truncated .xqf: exit %d\n%s%s", code, stdout, stderr)
	}
}

// palace arena's record file imports as a collection: found in a
// directory walk beside a games file that is not (a games file needs no
// import), its games replaying; the games file named on its own is
// refused with a word on what reads it.
func TestImportMatchRecords(t *testing.T) {
	dir := t.TempDir()
	records := filepath.Join(dir, "match.jsonl")
	code, stdout, stderr := runPalace(t, "", "arena", "--rules", "xiangqi", "--player", "random", "--player", "random",
		"--pairs", "2", "--opening-plies", "2", "--records", records)
	if code != 0 {
		t.Fatalf("arena: exit %d: %s%s", code, stdout, stderr)
	}
	out := filepath.Join(dir, "games.jsonl")
	code, stdout, stderr = runPalace(t, "", "import", "--out", out, dir)
	if code != 0 || !strings.Contains(stdout, "imported 4 games from 1 files") {
		t.Fatalf("import: exit %d: %s%s", code, stdout, stderr)
	}
	f, err := gamerec.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Games {
		g := &f.Games[i]
		if _, err := g.Replay(f.RuleSet(g)); err != nil {
			t.Error(err)
		}
		if g.White != "random" || g.Black != "random" || g.Tags["Opening"] == "" {
			t.Errorf("game %d: %+v", i, g)
		}
	}
	// Now the directory holds a games file too: the walk skips it.
	if code, stdout, stderr = runPalace(t, "", "import", "--out", filepath.Join(t.TempDir(), "again.jsonl"), dir); code != 0 || !strings.Contains(stdout, "imported 4 games from 1 files") {
		t.Errorf("import beside a games file: exit %d: %s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runPalace(t, "", "import", "--out", filepath.Join(t.TempDir(), "x.jsonl"), out)
	if code == 0 || !strings.Contains(stderr, "not a match record file") {
		t.Errorf("a games file: exit %d: %s%s", code, stdout, stderr)
	}
}

// A temporary file that a killed import, export or openings left beside
// its --out is removed by the next run of the command (issue 47: they
// stayed for good); another file's is not.
func TestOutStaleTempFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	pgnIn := filepath.Join(dir, "in.pgn")
	os.WriteFile(pgnIn, []byte("[Event \"ok\"]\n[Result \"*\"]\n\n1. h2e2 h9g7 *\n"), 0o644)
	games := filepath.Join(dir, "g.jsonl")
	pgnOut := filepath.Join(dir, "out.pgn")
	tree := filepath.Join(dir, "tree.json")
	other := filepath.Join(dir, ".notes.txt.tmp-abc")
	os.WriteFile(other, nil, 0o644)
	for _, tc := range []struct {
		out  string
		args []string
	}{
		{games, []string{"import", "--out", games, pgnIn}},
		{pgnOut, []string{"export", games, "--out", pgnOut}},
		{tree, []string{"openings", games, "--format", "json", "--out", tree}},
	} {
		stale := filepath.Join(dir, "."+filepath.Base(tc.out)+".tmp-1a2b3c")
		os.WriteFile(stale, []byte("half of a killed write"), 0o644)
		if code, _, stderr := runPalace(t, "", tc.args...); code != 0 {
			t.Fatalf("palace %s: exit %d: %s", strings.Join(tc.args, " "), code, stderr)
		}
		if _, err := os.Stat(stale); err == nil {
			t.Errorf("palace %s left the killed write's %s", strings.Join(tc.args, " "), stale)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another file's temporary file was removed: %v", err)
	}
}
