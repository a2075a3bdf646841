package openings

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/gib"
	"github.com/palace-chess/palace/pgn"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
)

// importedTree imports games with the real importers, writes them to a
// games file as `palace import` would, and builds a tree from it.
func importedTree(t *testing.T, games []gamerec.Game, f Filter) *Tree {
	t.Helper()
	sets := map[string]*rules.RuleSet{}
	for _, name := range rules.PresetNames() {
		rs := rules.MustPreset(name)
		sets[rs.String()] = rs
	}
	return buildFrom(t, games, sets, f)
}

func buildFrom(t *testing.T, games []gamerec.Game, sets map[string]*rules.RuleSet, f Filter) *Tree {
	t.Helper()
	tree, err := Build([]string{writeGames(t, games, sets)}, f)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// ccpdGames is the CCPD sample as its files say, read by hand (Big5):
// each file's first two moves in palace's text and its Result tag. Every
// game starts from the standard position; files 1–24 are dated 2007年1月,
// 25–40 2005.01.14–18 (ccpdDays).
//
// 炮二平五 h3e3 馬８進７ h10g8 炮８平５ h8e8 馬２進３ b10c8 兵七進一 c4c5
// 象３進５ c10e8 炮２平３ b8c8 相三進五 g1e3 兵三進一 g4g5 象７進５ g10e8
// 炮八平五 b3e3 馬二進三 h1g3 卒７進１ g7g6.
//
// By first move (1-0 / 1/2-1/2 / 0-1): h3e3 31 (9/13/9), of which h3e3
// h10g8 24 (6/11/7); c4c5 4 (2/2/0); g1e3 2 (2/0/0); g4g5, b3e3, h1g3 1
// each (draws). All 40: 13/18/9.
var ccpdGames = [40]struct{ first, second, result string }{
	{"h3e3", "h10g8", "1-0"}, {"h3e3", "h8e8", "1-0"}, {"h3e3", "h10g8", "0-1"}, {"c4c5", "c10e8", "1-0"},
	{"h3e3", "b10c8", "1-0"}, {"h3e3", "b10c8", "0-1"}, {"h3e3", "h10g8", "0-1"}, {"c4c5", "b8c8", "1/2-1/2"},
	{"g1e3", "b10c8", "1-0"}, {"h3e3", "h10g8", "1/2-1/2"}, {"h3e3", "h10g8", "1/2-1/2"}, {"g4g5", "g10e8", "1/2-1/2"},
	{"h3e3", "h10g8", "1/2-1/2"}, {"h3e3", "h10g8", "1/2-1/2"}, {"h3e3", "h10g8", "0-1"}, {"b3e3", "b10c8", "1/2-1/2"},
	{"h3e3", "b10c8", "1-0"}, {"h3e3", "h10g8", "1-0"}, {"h3e3", "h10g8", "1/2-1/2"}, {"c4c5", "b8c8", "1/2-1/2"},
	{"h3e3", "h10g8", "1/2-1/2"}, {"c4c5", "b8c8", "1-0"}, {"h3e3", "h8e8", "0-1"}, {"h3e3", "h10g8", "0-1"},
	{"h3e3", "h10g8", "1-0"}, {"h3e3", "h10g8", "1/2-1/2"}, {"h1g3", "g7g6", "1/2-1/2"}, {"h3e3", "h10g8", "0-1"},
	{"h3e3", "h10g8", "1-0"}, {"h3e3", "b10c8", "1/2-1/2"}, {"h3e3", "h10g8", "0-1"}, {"h3e3", "h10g8", "1/2-1/2"},
	{"h3e3", "h10g8", "1-0"}, {"h3e3", "h10g8", "0-1"}, {"h3e3", "b10c8", "1/2-1/2"}, {"g1e3", "g7g6", "1-0"},
	{"h3e3", "h10g8", "1/2-1/2"}, {"h3e3", "h10g8", "1/2-1/2"}, {"h3e3", "h10g8", "1-0"}, {"h3e3", "h10g8", "1/2-1/2"},
}

// ccpdDays are the days of January 2005 of files 25–40.
var ccpdDays = [16]int{18, 16, 17, 18, 16, 16, 17, 16, 16, 15, 15, 15, 17, 17, 17, 14}

// The table itself, against the counts above.
func TestCCPDTable(t *testing.T) {
	first := map[string][4]int{}
	for _, g := range ccpdGames {
		c := first[g.first]
		c[0]++
		c[1+resultOf(t, g.result)]++
		first[g.first] = c
	}
	for move, want := range map[string][4]int{"h3e3": {31, 9, 13, 9}, "c4c5": {4, 2, 2, 0}, "g1e3": {2, 2, 0, 0},
		"g4g5": {1, 0, 1, 0}, "b3e3": {1, 0, 1, 0}, "h1g3": {1, 0, 1, 0}} {
		if first[move] != want {
			t.Errorf("%s: %v, want %v", move, first[move], want)
		}
	}
}

func resultOf(t *testing.T, r string) int {
	t.Helper()
	i, err := resultIndex(r)
	if err != nil || i == unknown {
		t.Fatalf("result %q", r)
	}
	return i
}

// The CCPD sample imported by pgn: the tree's first two plies hold
// exactly the hand-read table's counts over the games pgn imports. (pgn
// leaves out the games palace's rules end before their last move — files
// 10 and 11, a perpetual chase and a repetition, both h3e3 h10g8 draws —
// unless told to cut them.)
func TestCCPDSample(t *testing.T) {
	dir := filepath.Join("..", "pgn", "testdata", "ccpd_sample")
	var games []gamerec.Game
	var kept []int // file numbers, 1-based
	for n := 1; n <= 40; n++ {
		path := filepath.Join(dir, fmt.Sprintf("%08d.pgn", n))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		gs, errs, _ := pgn.Import(data, path, pgn.Options{})
		for _, err := range errs {
			t.Logf("import: %v", err)
		}
		if len(gs)+len(errs) != 1 {
			t.Fatalf("%s: %d games, %d errors; want one game", path, len(gs), len(errs))
		}
		if len(gs) == 1 {
			games = append(games, gs[0])
			kept = append(kept, n)
		}
	}
	if len(games) < 38 {
		t.Fatalf("imported %d of 40 games", len(games))
	}

	// Expected counts over the imported games, from the table: the root,
	// each first move (Red's view) and each reply (Black's view).
	type count struct{ games, w, d, l int }
	add := func(c *count, res int, black bool) {
		c.games++
		if black && res != draw {
			res = 2 - res
		}
		switch res {
		case 0:
			c.w++
		case 1:
			c.d++
		default:
			c.l++
		}
	}
	var root count
	first, second := map[string]*count{}, map[string]*count{}
	for _, n := range kept {
		g := ccpdGames[n-1]
		res := resultOf(t, g.result)
		add(&root, res, false)
		for m, c := range map[string]map[string]*count{g.first: first, g.first + " " + g.second: second} {
			if c[m] == nil {
				c[m] = &count{}
			}
			add(c[m], res, m != g.first)
		}
	}
	if h := first["h3e3"]; len(kept) == 40 && (h.games != 31 || h.w != 9 || h.d != 13 || h.l != 9) {
		t.Errorf("all 40 imported, yet h3e3 %+v; want 31 9/13/9", h)
	}

	tree := importedTree(t, games, Filter{Depth: 2})
	start := at(t, tree, rules.XiangqiStartFEN, "")
	checkPosition(t, "ccpd start", start, root.games, root.w, root.d, root.l, 0, 0)
	moves := 0
	v, err := tree.Select(rules.XiangqiStartFEN, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range start.Moves {
		c := first[m.Move]
		if c == nil || m.Count != c.games || m.WDL != (stats.WDL{Wins: c.w, Draws: c.d, Losses: c.l}) {
			t.Errorf("%s: %d games %+v; want %+v", m.Move, m.Count, m.WDL, c)
		}
		p := &v.Positions[m.Next]
		for _, r := range p.Moves {
			c := second[m.Move+" "+r.Move]
			if c == nil || r.Count != c.games || r.WDL != (stats.WDL{Wins: c.w, Draws: c.d, Losses: c.l}) {
				t.Errorf("%s %s: %d games, Black's %+v; want %+v", m.Move, r.Move, r.Count, r.WDL, c)
			}
			moves++
		}
	}
	if len(start.Moves) != len(first) || moves != len(second) {
		t.Errorf("%d first moves and %d replies; want %d and %d", len(start.Moves), moves, len(first), len(second))
	}

	// Dates: pgn reads 2007年1月 as 2007.01.??, which lies wholly in
	// January 2007; 2005.01.16–17 holds 10 of the 2005 files.
	want2007, wantDays := 0, 0
	for _, n := range kept {
		if n <= 24 {
			want2007++
		} else if d := ccpdDays[n-25]; d == 16 || d == 17 {
			wantDays++
		}
	}
	if tree := importedTree(t, games, Filter{From: "2007.01", To: "2007.01", Depth: 1}); tree.Games() != want2007 {
		t.Errorf("January 2007: %d games, want %d", tree.Games(), want2007)
	}
	if tree := importedTree(t, games, Filter{From: "2005.01.16", To: "2005.01.17", Depth: 1}); tree.Games() != wantDays || wantDays != 10 {
		t.Errorf("2005.01.16–17: %d games, want %d (10)", tree.Games(), wantDays)
	}
}

// The 1937 newspaper game of the .gib sample: Cho 상마상마 (sangmasangma)
// against Han 상마마상 (sangmamasang), drawn (무승부).
func TestGIBSample(t *testing.T) {
	path := filepath.Join("..", "gib", "testdata", "donga_ilbo_1937.gib")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	games, errs, _ := gib.Import(data, path, gamerec.ImportOptions{})
	for _, err := range errs {
		t.Errorf("import: %v", err)
	}
	if len(games) != 1 {
		t.Fatalf("imported %d games, want 1", len(games))
	}
	tree := importedTree(t, games, Filter{Depth: 4})
	ms := tree.Setups()
	if len(ms) != 1 {
		t.Fatalf("%d setup matrices", len(ms))
	}
	if c := ms[0].Cells[rules.SangMaSangMa][rules.SangMaMaSang]; c.Games != 1 || c.WDL != (stats.WDL{Draws: 1}) || ms[0].Total().Games != 1 {
		t.Errorf("sangmasangma / sangmamasang: %+v, total %+v", c, ms[0].Total())
	}
	// Its first move, 71楚卒72: Cho's soldier from the 7th row's first
	// column to the second, a4 → b4.
	root := at(t, tree, rules.JanggiSetupFEN(rules.SangMaSangMa, rules.SangMaMaSang), "")
	if len(root.Moves) != 1 || root.Moves[0].Move != "a4b4" || root.Moves[0].WDL != (stats.WDL{Draws: 1}) {
		t.Errorf("first move %+v", root.Moves)
	}
}
