package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/openings"
	"github.com/palace-chess/palace/rules"
)

// openingsCLI runs palace openings through run once the command is
// registered, else runOpenings with run's exit statuses.
func openingsCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	if _, ok := commands["openings"]; ok {
		return runPalace(t, "", append([]string{"openings"}, args...)...)
	}
	var out, errOut bytes.Buffer
	err := runOpenings(args, strings.NewReader(""), &out, &errOut)
	code := 0
	switch {
	case err == nil:
	case errors.As(err, new(usageError)):
		errOut.WriteString("palace openings: " + err.Error() + "\n")
		code = 2
	default:
		errOut.WriteString("palace openings: " + err.Error() + "\n")
		code = 1
	}
	return code, out.String(), errOut.String()
}

// openingsGames writes a games file: five xiangqi games (Red wins two,
// loses one, draws one, one unknown) and three janggi games.
//
//  1. h3e3 h10g8  1-0   2020.05.01  generation 1
//  2. h3e3 h10g8  0-1   2020.06.??  generation 2
//  3. h3e3 b10c8  1/2   2021.01.01  generation 3
//  4. h3e3 b10c8  1-0   (no date)
//  5. c4c5        *
//     6–8. janggi masangsangma,masangsangma c4d4 (1-0, 0-1); sangmamasang,masangmasang g4f4 (1-0)
//
// At the xiangqi start: h3e3 in 4 games, Red 2 W 1 D 1 L: score 0.625,
// Wilson(2.5, 4) = [0.2194, 0.9081]; c4c5 in 1, unscored.
func openingsGames(t *testing.T) string {
	t.Helper()
	xq, jg := rules.MustPreset("xiangqi"), rules.MustPreset("janggi")
	gen := func(n int) *int { return &n }
	x := func(moves, result, date string, g *int) gamerec.Game {
		return gamerec.Game{RuleSet: xq.String(), Line: gamerec.Line{StartFEN: rules.XiangqiStartFEN, Moves: moves}, Plies: len(strings.Fields(moves)),
			End: gamerec.End{Result: result, Reason: gamerec.ReasonRecorded}, Date: date, Generation: g}
	}
	j := func(c, h rules.JanggiSetup, moves, result string) gamerec.Game {
		return gamerec.Game{RuleSet: jg.String(), Setup: c.String() + "," + h.String(), Line: gamerec.Line{StartFEN: rules.JanggiSetupFEN(c, h), Moves: moves},
			Plies: len(strings.Fields(moves)), End: gamerec.End{Result: result, Reason: gamerec.ReasonRecorded}}
	}
	games := []gamerec.Game{
		x("h3e3 h10g8", "1-0", "2020.05.01", gen(1)),
		x("h3e3 h10g8", "0-1", "2020.06.??", gen(2)),
		x("h3e3 b10c8", "1/2-1/2", "2021.01.01", gen(3)),
		x("h3e3 b10c8", "1-0", "", nil),
		x("c4c5", "*", "", nil),
		j(rules.MaSangSangMa, rules.MaSangSangMa, "c4d4", "1-0"),
		j(rules.MaSangSangMa, rules.MaSangSangMa, "c4d4", "0-1"),
		j(rules.SangMaMaSang, rules.MaSangMaSang, "g4f4", "1-0"),
	}
	hdr, err := gamerec.NewHeader(games, map[string]*rules.RuleSet{xq.String(): xq, jg.String(): jg})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "games.jsonl")
	if err := gamerec.Write(path, hdr, games); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOpeningsTable(t *testing.T) {
	path := openingsGames(t)
	code, out, errOut := openingsCLI(t, path, "--rules", "xiangqi")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"5 games (xiangqi@", "first 10 plies", "left out: 3 games by rule set, 0 by generation, 0 by date",
		"xiangqi@" + rules.MustPreset("xiangqi").Hash() + ", ply 0: " + rules.XiangqiStartFEN,
		"5 games, Red to move: Red wins 2, draws 1, Black wins 1 (Red's score 0.625 [0.219, 0.908]), 1 unscored",
		"move          games  share  W  D  L  unscored  score    95% interval\n",
		"1. h3e3           4  80.0%  2  1  1         0  0.625  [0.219, 0.908]\n",
		"  1... b10c8      2  50.0%  0  1  1         0  0.250  [0.027, 0.802]\n",
		"  1... h10g8      2  50.0%  1  0  1         0  0.500  [0.095, 0.905]\n",
		"1. c4c5           1  20.0%  0  0  0         1      -               -\n",
		"games with an unknown result (*) count in games and share only (unscored)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// Flags before the path, --top and --min-games.
	code, out, _ = openingsCLI(t, "--rules", "xiangqi", "--top", "1", "--min-games", "2", path)
	if code != 0 || !strings.Contains(out, "1. h3e3 ") || strings.Contains(out, "c4c5") || strings.Contains(out, "h10g8") {
		t.Errorf("--top 1 --min-games 2: exit %d:\n%s", code, out)
	}
	// The subtree after h3e3, and the same by FEN.
	code, out, _ = openingsCLI(t, path, "--moves", "h3e3")
	after := "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
	if code != 0 || !strings.Contains(out, "ply 1: "+after) || !strings.Contains(out, "\n1... b10c8 ") || strings.Contains(out, "janggi@") && strings.Contains(out, "ply 0") {
		t.Errorf("--moves h3e3: exit %d:\n%s", code, out)
	}
	code, out2, _ := openingsCLI(t, path, "--position", after)
	if code != 0 || out2 != out {
		t.Errorf("--position: exit %d, output differs from --moves:\n%s", code, out2)
	}
	// Generations 2-: games 2 and 3; dates in 2020: games 1 and 2.
	code, out, _ = openingsCLI(t, path, "--generations", "2-")
	if code != 0 || !strings.Contains(out, "2 games (xiangqi@") || !strings.Contains(out, "by generation") {
		t.Errorf("--generations 2-: exit %d:\n%s", code, out)
	}
	code, out, _ = openingsCLI(t, path, "--from", "2020", "--to", "2020.12")
	if code != 0 || !strings.Contains(out, "2 games (xiangqi@") || !strings.Contains(out, "1. h3e3           2  100.0%  1  0  1") {
		t.Errorf("--from 2020 --to 2020.12: exit %d:\n%s", code, out)
	}
	// --depth 1: the replies are not followed.
	code, out, _ = openingsCLI(t, path, "--depth", "1", "--rules", "xiangqi")
	if code != 0 || strings.Contains(out, "h10g8") || !strings.Contains(out, "first ply") {
		t.Errorf("--depth 1: exit %d:\n%s", code, out)
	}
}

func TestOpeningsCSVAndJSON(t *testing.T) {
	path := openingsGames(t)
	code, out, errOut := openingsCLI(t, path, "--format", "csv", "--rules", "xiangqi")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// Start: h3e3, c4c5; after h3e3: b10c8, h10g8.
	if len(recs) != 5 || strings.Join(recs[0], ",") != strings.Join(openings.CSVHeader, ",") {
		t.Fatalf("csv: %d rows, header %v", len(recs), recs[0])
	}
	xq := rules.MustPreset("xiangqi").String()
	for i, want := range []string{
		rules.XiangqiStartFEN + ",0,h3e3,4,0.8000,2,1,1,0,0.6250,0.2194,0.9081," + xq,
		rules.XiangqiStartFEN + ",0,c4c5,1,0.2000,0,0,0,1,,,," + xq,
	} {
		if got := strings.Join(recs[i+1], ","); got != want {
			t.Errorf("csv row %d: %s\nwant %s", i+1, got, want)
		}
	}

	// JSON to a file: the same document as on stdout.
	file := filepath.Join(t.TempDir(), "tree.json")
	code, out, errOut = openingsCLI(t, path, "--format", "json", "--out", file)
	if code != 0 || out != "" || !strings.Contains(errOut, "wrote "+file) {
		t.Fatalf("--out: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, stdout, _ := openingsCLI(t, path, "--format", "json")
	if string(data) != stdout {
		t.Error("--out's JSON differs from stdout's")
	}
	var doc struct {
		Format    string
		Games     int
		Roots     []int
		Positions []struct {
			FEN      string
			RuleSet  string `json:"rule_set"`
			Games    int
			Unscored int
			White    struct{ Wins, Draws, Losses int }
			Moves    []struct {
				Move     string
				Count    int
				Score    *float64
				Next     int
				Unscored int
			}
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Format != openings.JSONFormat || doc.Games != 8 || len(doc.Roots) != 3 {
		t.Fatalf("json: format %q, %d games, %d roots", doc.Format, doc.Games, len(doc.Roots))
	}
	root := doc.Positions[doc.Roots[0]]
	if root.Games != 5 || root.Unscored != 1 || root.White.Wins != 2 || len(root.Moves) != 2 || root.Moves[0].Move != "h3e3" ||
		root.Moves[0].Count != 4 || *root.Moves[0].Score != 0.625 || root.Moves[1].Score != nil || root.Moves[1].Unscored != 1 {
		t.Errorf("json root: %+v", root)
	}
	if next := doc.Positions[root.Moves[0].Next]; next.Games != 4 || len(next.Moves) != 2 {
		t.Errorf("json after h3e3: %+v", next)
	}
}

func TestOpeningsChart(t *testing.T) {
	path := openingsGames(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{path, "--chart", filepath.Join(dir, "moves.png")},
		{path, "--setups", "--chart", filepath.Join(dir, "setups.png")},
	} {
		pngPath := args[len(args)-1]
		code, _, errOut := openingsCLI(t, args...)
		if code != 0 || !strings.Contains(errOut, "chart "+pngPath) {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		f, err := os.Open(pngPath)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() < 100 || img.Bounds().Dy() < 100 {
			t.Errorf("%s: not a PNG chart: %v", pngPath, err)
		}
	}
	// Nothing to chart (no game passes the filter): an error, no file.
	empty := filepath.Join(dir, "empty.png")
	if code, _, errOut := openingsCLI(t, path, "--rules", "janggimodern", "--chart", empty); code != 1 || !strings.Contains(errOut, "no game passes the filters: 8 left out by rule set") {
		t.Errorf("empty chart: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(empty); err == nil {
		t.Error("empty chart written")
	}
}

func TestOpeningsSetups(t *testing.T) {
	path := openingsGames(t)
	code, out, errOut := openingsCLI(t, path, "--setups")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"janggi@" + rules.MustPreset("janggi").Hash() + ": 3 games from the janggi setups (0 unscored)",
		"masangsangma  masangsangma      2  1  0  1         0        0.500  [0.095, 0.905]\n",
		"sangmamasang  masangmasang      1  1  0  0         0        1.000  [0.207, 1.000]\n",
		"all           all               3  2  0  1         0        0.667  [0.208, 0.939]\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("setups table lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = openingsCLI(t, path, "--setups", "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(recs) != 1+25 {
		t.Fatalf("setups csv: exit %d, %v, %d rows", code, err, len(recs))
	}
	if got := strings.Join(recs[1][1:], ","); got != "masangsangma,masangsangma,2,1,0,1,0,0.5000,0.0945,0.9055" {
		t.Errorf("setups csv row 1: %s", got)
	}
	code, out, _ = openingsCLI(t, path, "--setups", "--format", "json")
	var doc struct {
		Format   string
		Matrices []struct {
			Cells [4][4]struct{ Games, Wins int }
			Total struct{ Games int }
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Format != openings.SetupsJSONFormat || len(doc.Matrices) != 1 ||
		doc.Matrices[0].Cells[0][0].Games != 2 || doc.Matrices[0].Cells[3][1].Wins != 1 || doc.Matrices[0].Total.Games != 3 {
		t.Errorf("setups json: exit %d: %s", code, out)
	}
}

func TestOpeningsSelfplayDir(t *testing.T) {
	if testing.Short() {
		t.Skip("plays self-play games")
	}
	dir := selfplayDir(t) // 4 xiangqi games
	code, out, errOut := openingsCLI(t, "--format", "json", "--depth", "4", dir)
	var doc struct{ Games int }
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Games != 4 {
		t.Errorf("self-play directory: exit %d, %s, %s", code, errOut, out)
	}
}

func TestOpeningsErrors(t *testing.T) {
	path := openingsGames(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "want at least one PATH"},
		{[]string{path, "--format", "xml"}, "--format"},
		{[]string{path, "--generations", "x"}, "generations"},
		{[]string{path, "--generations", "5-2"}, "empty"},
		{[]string{path, "--from", "2020.13"}, "from date"},
		{[]string{path, "--from", "2021", "--to", "2020"}, "empty"},
		{[]string{path, "--to", "soon"}, "to date"},
		{[]string{path, "--chart", "x.svg"}, "PNG"},
		{[]string{path, "--top", "-1"}, "--top"},
		{[]string{path, "--depth", "-1"}, "--depth"},
		{[]string{path, "--min-games", "-1"}, "--min-games"},
		{[]string{path, "--moves", "h3e3 zz"}, "move 2"},
		{[]string{path, "--position", "nonsense"}, "--position"},
		{[]string{path, "--setups", "--moves", "h3e3"}, "--setups"},
		{[]string{path, "--rules", "@x"}, "rule set"},
		{[]string{path, "--bogus"}, "bogus"},
	} {
		code, _, errOut := openingsCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	if code, _, errOut := openingsCLI(t, path, missing); code != 1 || !strings.Contains(errOut, missing) {
		t.Errorf("missing path: exit %d, %q", code, errOut)
	}
	notGames := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notGames, []byte("hello\n"), 0o644)
	if code, _, errOut := openingsCLI(t, notGames); code != 1 || !strings.Contains(errOut, notGames) {
		t.Errorf("not a games file: exit %d, %q", code, errOut)
	}
	// Moves no game played, and an illegal one: errors, exit 1.
	if code, _, errOut := openingsCLI(t, path, "--moves", "h3e3 a10a9"); code != 1 || !strings.Contains(errOut, "no game played move 2 (a10a9)") {
		t.Errorf("unplayed move: exit %d, %q", code, errOut)
	}
	if code, _, errOut := openingsCLI(t, path, "--rules", "xiangqi", "--moves", "h3e4"); code != 1 || !strings.Contains(errOut, "illegal") {
		t.Errorf("illegal move: exit %d, %q", code, errOut)
	}
	// -h prints the usage and succeeds.
	var out, errOut bytes.Buffer
	if err := runOpenings([]string{"-h"}, nil, &out, &errOut); !errors.Is(err, flag.ErrHelp) || !strings.Contains(errOut.String(), "usage: palace openings") {
		t.Errorf("-h: %v, %q", err, errOut.String())
	}
}
