package openings

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
)

func intp(n int) *int { return &n }

// handGames are 12 short games chosen so that the tree has a
// transposition, unknown results, wins for both colours, several janggi
// setups (one named only by its start FEN) and two janggi rule sets.
// Every count below is worked out by hand in the comments of TestHandCounts.
func handGames(t testing.TB) ([]gamerec.Game, map[string]*rules.RuleSet) {
	t.Helper()
	xq, jg, jm := rules.MustPreset("xiangqi"), rules.MustPreset("janggi"), rules.MustPreset("janggimodern")
	sets := map[string]*rules.RuleSet{xq.String(): xq, jg.String(): jg, jm.String(): jm}
	setupFEN := func(c, h rules.JanggiSetup) string { return rules.JanggiSetupFEN(c, h) }
	x := func(moves, result, date string, gen *int) gamerec.Game {
		return gamerec.Game{RuleSet: xq.String(), Line: gamerec.Line{StartFEN: rules.XiangqiStartFEN, Moves: moves},
			Plies: len(strings.Fields(moves)), End: gamerec.End{Result: result, Reason: gamerec.ReasonRecorded}, Date: date, Generation: gen}
	}
	j := func(rs *rules.RuleSet, setup, fen, moves, result string) gamerec.Game {
		return gamerec.Game{RuleSet: rs.String(), Setup: setup, Line: gamerec.Line{StartFEN: fen, Moves: moves},
			Plies: len(strings.Fields(moves)), End: gamerec.End{Result: result, Reason: gamerec.ReasonRecorded}}
	}
	games := []gamerec.Game{
		// X1–X6, xiangqi. X3 reaches X1's position after 3 plies by
		// another order (b1c3 h10g8 h3e3), then plays X1's 4th move.
		x("h3e3 h10g8 b1c3 i10h10", "1-0", "2007.01.15", intp(1)),     // X1
		x("h3e3 h10g8 b1c3 b10c8", "0-1", "2007.??.??", intp(2)),      // X2
		x("b1c3 h10g8 h3e3 i10h10", "1/2-1/2", "2008.03.??", intp(3)), // X3
		x("h3e3 b10c8", "*", "", nil),                                 // X4
		x("c4c5 g7g6", "0-1", "????.??.??", nil),                      // X5
		x("h3e3 h10g8", "1-0", "2007.02.01", intp(7)),                 // X6
		// J1–J5, janggi; J4 names no setup, its FEN is sangmasangma,masangmasang's.
		j(jg, "masangsangma,masangsangma", setupFEN(rules.MaSangSangMa, rules.MaSangSangMa), "c4d4 c7d7", "1-0"),     // J1
		j(jg, "masangsangma,masangsangma", setupFEN(rules.MaSangSangMa, rules.MaSangSangMa), "c4d4 g7f7", "0-1"),     // J2
		j(jg, "sangmasangma,masangmasang", setupFEN(rules.SangMaSangMa, rules.MaSangMaSang), "c4d4 c7d7", "1/2-1/2"), // J3
		j(jg, "", setupFEN(rules.SangMaSangMa, rules.MaSangMaSang), "g4f4 g7f7", "1-0"),                              // J4
		j(jg, "masangsangma,masangsangma", setupFEN(rules.MaSangSangMa, rules.MaSangSangMa), "c4d4 c7d7 d4d5", "*"),  // J5
		// J6, janggimodern: the same start, another rule set.
		j(jm, "masangsangma,masangsangma", setupFEN(rules.MaSangSangMa, rules.MaSangSangMa), "c4d4", "1-0"), // J6
	}
	for i := range games {
		games[i].Source, games[i].Index = "hand.jsonl", i+1
	}
	return games, sets
}

// writeGames writes games to a games file and returns its path.
func writeGames(t testing.TB, games []gamerec.Game, sets map[string]*rules.RuleSet) string {
	t.Helper()
	hdr, err := gamerec.NewHeader(games, sets)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "games.jsonl")
	if err := gamerec.Write(path, hdr, games); err != nil {
		t.Fatal(err)
	}
	return path
}

func buildHand(t *testing.T, f Filter) *Tree {
	t.Helper()
	games, sets := handGames(t)
	tree, err := Build([]string{writeGames(t, games, sets)}, f)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// at is the view's first root after moves from the start positions.
func at(t *testing.T, tree *Tree, fen, moves string) *Position {
	t.Helper()
	v, err := tree.Select(fen, moves, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Roots) != 1 {
		t.Fatalf("%q: %d roots, want 1", moves, len(v.Roots))
	}
	return &v.Positions[v.Roots[0]]
}

type wantMove struct {
	move                     string
	count, w, d, l, unscored int
	scored                   bool
	score, lo, hi            float64 // hand-computed, 4 decimals
	wilsonSuccesses          float64
	wilsonN                  int
}

func checkMoves(t *testing.T, where string, p *Position, want []wantMove) {
	t.Helper()
	if len(p.Moves) != len(want) {
		var got []string
		for _, m := range p.Moves {
			got = append(got, m.Move)
		}
		t.Fatalf("%s: moves %v, want %d", where, got, len(want))
	}
	for i, w := range want {
		m := &p.Moves[i]
		if m.Move != w.move || m.Count != w.count || m.WDL != (stats.WDL{Wins: w.w, Draws: w.d, Losses: w.l}) || m.Unscored != w.unscored {
			t.Errorf("%s move %d: %s count %d W/D/L %+v unscored %d; want %s %d %d/%d/%d %d",
				where, i, m.Move, m.Count, m.WDL, m.Unscored, w.move, w.count, w.w, w.d, w.l, w.unscored)
		}
		s, ci, ok := m.Score()
		if ok != w.scored {
			t.Errorf("%s %s: scored %v, want %v", where, w.move, ok, w.scored)
			continue
		}
		if !ok {
			continue
		}
		ref := stats.Wilson(w.wilsonSuccesses, w.wilsonN, stats.Z95)
		if r4(s) != w.score || r4(ci.Lo) != w.lo || r4(ci.Hi) != w.hi || r4(ci.Lo) != r4(ref.Lo) || r4(ci.Hi) != r4(ref.Hi) {
			t.Errorf("%s %s: score %.4f [%.4f, %.4f]; want %.4f [%.4f, %.4f] (stats.Wilson: [%.4f, %.4f])",
				where, w.move, s, ci.Lo, ci.Hi, w.score, w.lo, w.hi, ref.Lo, ref.Hi)
		}
	}
}

func r4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func checkPosition(t *testing.T, where string, p *Position, games, w, d, l, unscored, ply int) {
	t.Helper()
	if p.Games != games || p.White != (stats.WDL{Wins: w, Draws: d, Losses: l}) || p.Unscored != unscored || p.Ply != ply {
		t.Errorf("%s: games %d White %+v unscored %d ply %d; want %d %d/%d/%d %d ply %d",
			where, p.Games, p.White, p.Unscored, p.Ply, games, w, d, l, unscored, ply)
	}
}

func TestHandCounts(t *testing.T) {
	tree := buildHand(t, Filter{})
	if tree.Games() != 12 || tree.Skipped().Total() != 0 {
		t.Fatalf("games %d, skipped %+v; want 12, none", tree.Games(), tree.Skipped())
	}
	xq := rules.MustPreset("xiangqi").String()

	// The xiangqi start: X1–X6. Red won X1 and X6, drew X3, lost X2 and
	// X5; X4 is unknown.
	root := at(t, tree, rules.XiangqiStartFEN, "")
	checkPosition(t, "xiangqi start", root, 6, 2, 1, 2, 1, 0)
	if root.RuleSet != xq || root.Side != rules.White {
		t.Errorf("root %s side %v", root.RuleSet, root.Side)
	}
	if tw := root.ToMove(); tw != root.White {
		t.Errorf("Red to move: ToMove %+v, want White's %+v", tw, root.White)
	}
	checkMoves(t, "xiangqi start", root, []wantMove{
		// h3e3: X1 (W), X2 (L), X4 (*), X6 (W) → 2/0/1 and 1 unscored: 2/3.
		{"h3e3", 4, 2, 0, 1, 1, true, 0.6667, 0.2077, 0.9385, 2, 3},
		// b1c3 and c4c5, one game each, ordered by text: X3 drawn, X5 lost.
		{"b1c3", 1, 0, 1, 0, 0, true, 0.5, 0.0546, 0.9454, 0.5, 1},
		{"c4c5", 1, 0, 0, 1, 0, true, 0, 0, 0.7935, 0, 1},
	})
	// Red's score at the root: (2 + 1/2)/5.
	if s, ci, _ := scoreOf(root.White); r4(s) != 0.5 || r4(ci.Lo) != 0.1704 || r4(ci.Hi) != 0.8296 {
		t.Errorf("root score %.4f [%.4f, %.4f], want 0.5 [0.1704, 0.8296]", s, ci.Lo, ci.Hi)
	}

	// After h3e3: X1, X2, X4, X6; Black to move, so the moves' W/D/L are
	// Black's: h10g8 lost X1 and X6, won X2.
	a := at(t, tree, "", "h3e3")
	checkPosition(t, "h3e3", a, 4, 2, 0, 1, 1, 1)
	if tm := a.ToMove(); tm != (stats.WDL{Wins: 1, Draws: 0, Losses: 2}) {
		t.Errorf("h3e3: Black's view %+v, want 1/0/2", tm)
	}
	checkMoves(t, "h3e3", a, []wantMove{
		{"h10g8", 3, 1, 0, 2, 0, true, 0.3333, 0.0615, 0.7923, 1, 3},
		{"b10c8", 1, 0, 0, 0, 1, false, 0, 0, 0, 0, 0}, // X4: unknown result, no score
	})
	// After h3e3 h10g8: X1, X2, X6; X6 ends there.
	b := at(t, tree, "", "h3e3 h10g8")
	checkPosition(t, "h3e3 h10g8", b, 3, 2, 0, 1, 0, 2)
	checkMoves(t, "h3e3 h10g8", b, []wantMove{{"b1c3", 2, 1, 0, 1, 0, true, 0.5, 0.0945, 0.9055, 1, 2}})

	// The transposition: h3e3 h10g8 b1c3 = b1c3 h10g8 h3e3, one node for
	// X1, X2 and X3 (W, L, D for Red).
	tp := at(t, tree, "", "h3e3 h10g8 b1c3")
	tp2 := at(t, tree, "", "b1c3 h10g8 h3e3")
	if tp.FEN != tp2.FEN {
		t.Errorf("transposition: %s and %s", tp.FEN, tp2.FEN)
	}
	checkPosition(t, "transposition", tp, 3, 1, 1, 1, 0, 3)
	checkMoves(t, "transposition", tp, []wantMove{
		// i10h10: X1 (Black lost) and X3 (drawn): 0.25 for Black.
		{"i10h10", 2, 0, 1, 1, 0, true, 0.25, 0.0267, 0.8021, 0.5, 2},
		{"b10c8", 1, 1, 0, 0, 0, true, 1, 0.2065, 1, 1, 1}, // X2, Black won
	})
	checkPosition(t, "after i10h10", at(t, tree, "", "b1c3 h10g8 h3e3 i10h10"), 2, 1, 1, 0, 0, 4)
	// The same position found by its FEN.
	checkPosition(t, "by FEN", at(t, tree, tp.FEN, ""), 3, 1, 1, 1, 0, 3)

	// Janggi, masangsangma against masangsangma: J1 (W), J2 (L), J5 (*).
	// The FEN is also janggimodern's start (J6): two roots, janggi first (3 games).
	v, err := tree.Select(rules.JanggiSetupFEN(rules.MaSangSangMa, rules.MaSangSangMa), "", 0)
	if err != nil || len(v.Roots) != 2 || v.Positions[v.Roots[1]].Games != 1 || !strings.HasPrefix(v.Positions[v.Roots[1]].RuleSet, "janggimodern@") {
		t.Fatalf("janggi start: %v, %d roots", err, len(v.Roots))
	}
	s00 := &v.Positions[v.Roots[0]]
	checkPosition(t, "janggi 0,0", s00, 3, 1, 0, 1, 1, 0)
	if s00.Setup != "masangsangma,masangsangma" {
		t.Errorf("setup %q", s00.Setup)
	}
	checkMoves(t, "janggi 0,0", s00, []wantMove{{"c4d4", 3, 1, 0, 1, 1, true, 0.5, 0.0945, 0.9055, 1, 2}})
	// After c4d4 (J1, J2, J5), Han to move: c7d7 lost J1, J5 unknown; g7f7 won J2.
	hanMoves := &v.Positions[s00.Moves[0].Next]
	checkMoves(t, "janggi 0,0 c4d4", hanMoves, []wantMove{
		{"c7d7", 2, 0, 0, 1, 1, true, 0, 0, 0.7935, 0, 1},
		{"g7f7", 1, 1, 0, 0, 0, true, 1, 0.2065, 1, 1, 1},
	})
	// sangmasangma,masangmasang: J3 by its tag, J4 by its FEN alone.
	s21 := at(t, tree, rules.JanggiSetupFEN(rules.SangMaSangMa, rules.MaSangMaSang), "")
	checkPosition(t, "janggi 2,1", s21, 2, 1, 1, 0, 0, 0)
	checkMoves(t, "janggi 2,1", s21, []wantMove{
		{"c4d4", 1, 0, 1, 0, 0, true, 0.5, 0.0546, 0.9454, 0.5, 1},
		{"g4f4", 1, 1, 0, 0, 0, true, 1, 0.2065, 1, 1, 1},
	})

	// All roots: xiangqi (6), janggi 0,0 (3), janggi 2,1 (2), janggimodern (1).
	all, err := tree.View()
	if err != nil {
		t.Fatal(err)
	}
	var rootGames []int
	for _, r := range all.Roots {
		rootGames = append(rootGames, all.Positions[r].Games)
	}
	if fmt.Sprint(rootGames) != "[6 3 2 1]" {
		t.Errorf("roots' games %v, want [6 3 2 1]", rootGames)
	}
	// The positions: xiangqi 11 (start; h3e3 and its 2 replies; the
	// transposition and its 2 replies; c4c5, c4c5 g7g6; b1c3, b1c3
	// h10g8), janggi 0,0 5 (start, c4d4, its 2 replies, d4d5), janggi
	// 2,1 5 (start, c4d4, c4d4 c7d7, g4f4, g4f4 g7f7), janggimodern 2.
	if tree.Positions() != 23 || len(all.Positions) != 23 {
		t.Errorf("positions %d, in the view %d; want 23", tree.Positions(), len(all.Positions))
	}
}

func TestHandSetups(t *testing.T) {
	tree := buildHand(t, Filter{})
	ms := tree.Setups()
	if len(ms) != 2 || !strings.HasPrefix(ms[0].RuleSet, "janggi@") || !strings.HasPrefix(ms[1].RuleSet, "janggimodern@") {
		t.Fatalf("matrices %v", ms)
	}
	m := ms[0]
	cell := func(c Cell, games, w, d, l, unscored int, score, lo, hi float64) {
		t.Helper()
		if c.Games != games || c.WDL != (stats.WDL{Wins: w, Draws: d, Losses: l}) || c.Unscored != unscored {
			t.Errorf("cell %+v; want %d games %d/%d/%d %d unscored", c, games, w, d, l, unscored)
		}
		s, ci, ok := c.Score()
		if !ok || r4(s) != score || r4(ci.Lo) != lo || r4(ci.Hi) != hi {
			t.Errorf("cell score %.4f [%.4f, %.4f]; want %.4f [%.4f, %.4f]", s, ci.Lo, ci.Hi, score, lo, hi)
		}
	}
	// J1 (W), J2 (L), J5 (*): 1/2 for Cho.
	cell(m.Cells[rules.MaSangSangMa][rules.MaSangSangMa], 3, 1, 0, 1, 1, 0.5, 0.0945, 0.9055)
	// J3 (D), J4 (W): 1.5/2.
	cell(m.Cells[rules.SangMaSangMa][rules.MaSangMaSang], 2, 1, 1, 0, 0, 0.75, 0.1979, 0.9733)
	for c := range 4 {
		for h := range 4 {
			if (c == 0 && h == 0) || (c == 2 && h == 1) {
				continue
			}
			if m.Cells[c][h] != (Cell{}) {
				t.Errorf("cell %d,%d: %+v, want empty", c, h, m.Cells[c][h])
			}
		}
	}
	cell(m.Cho(rules.MaSangSangMa), 3, 1, 0, 1, 1, 0.5, 0.0945, 0.9055)
	cell(m.Cho(rules.SangMaSangMa), 2, 1, 1, 0, 0, 0.75, 0.1979, 0.9733)
	cell(m.Han(rules.MaSangSangMa), 3, 1, 0, 1, 1, 0.5, 0.0945, 0.9055)
	cell(m.Han(rules.MaSangMaSang), 2, 1, 1, 0, 0, 0.75, 0.1979, 0.9733)
	// Five games, 2 W, 1 D, 1 L and J5 unknown: 2.5/4.
	cell(m.Total(), 5, 2, 1, 1, 1, 0.625, 0.2194, 0.9081)
	if m.Other != 0 || m.Cho(rules.MaSangMaSang).Games != 0 || m.Han(rules.SangMaMaSang).Games != 0 {
		t.Errorf("other %d, empty totals %+v %+v", m.Other, m.Cho(rules.MaSangMaSang), m.Han(rules.SangMaMaSang))
	}
	cell(ms[1].Cells[0][0], 1, 1, 0, 0, 0, 1, 0.2065, 1)
}

func TestFilters(t *testing.T) {
	// Only xiangqi: the 6 janggi games are left out.
	tree := buildHand(t, Filter{RuleSet: "xiangqi"})
	if tree.Games() != 6 || tree.Skipped() != (Skipped{RuleSet: 6}) || len(tree.Setups()) != 0 {
		t.Errorf("xiangqi: %d games, skipped %+v, %d matrices", tree.Games(), tree.Skipped(), len(tree.Setups()))
	}
	// name@hash is exact; "janggi" by name leaves janggimodern out.
	jm := rules.MustPreset("janggimodern").String()
	if tree := buildHand(t, Filter{RuleSet: jm}); tree.Games() != 1 {
		t.Errorf("%s: %d games, want 1", jm, tree.Games())
	}
	if tree := buildHand(t, Filter{RuleSet: "janggi"}); tree.Games() != 5 {
		t.Errorf("janggi: %d games, want 5", tree.Games())
	}
	if tree := buildHand(t, Filter{RuleSet: "janggi@0000000000000000"}); tree.Games() != 0 || tree.Skipped().RuleSet != 12 {
		t.Errorf("unknown hash: %d games", tree.Games())
	}

	// Generations 2-3: X2 and X3; X1 (1) and X6 (7) are outside, the
	// others have none.
	tree = buildHand(t, Filter{Generations: &Generations{2, 3}})
	if tree.Games() != 2 || tree.Skipped() != (Skipped{Generation: 10}) {
		t.Errorf("generations 2-3: %d games, skipped %+v", tree.Games(), tree.Skipped())
	}
	checkPosition(t, "generations 2-3", at(t, tree, "", "h3e3 h10g8 b1c3"), 2, 0, 1, 1, 0, 3)
	if tree := buildHand(t, Filter{Generations: &Generations{3, -1}}); tree.Games() != 2 { // X3, X6
		t.Errorf("generations 3-: %d games", tree.Games())
	}

	// Dates in 2007: X1 (2007.01.15), X2 (some day of 2007), X6 (2007.02.01).
	tree = buildHand(t, Filter{From: "2007", To: "2007"})
	if tree.Games() != 3 || tree.Skipped() != (Skipped{Date: 9}) {
		t.Errorf("2007: %d games, skipped %+v", tree.Games(), tree.Skipped())
	}
	// From 2007.02: X2 may be earlier, X1 is; X3 (March 2008) and X6 are in.
	tree = buildHand(t, Filter{From: "2007-02"})
	if tree.Games() != 2 {
		t.Errorf("from 2007-02: %d games, want 2", tree.Games())
	}
	checkPosition(t, "from 2007.02", at(t, tree, rules.XiangqiStartFEN, ""), 2, 1, 1, 0, 0, 0)
	// To 2008.03.15: March 2008 may be later; X1, X2, X6.
	if tree := buildHand(t, Filter{To: "2008.03.15"}); tree.Games() != 3 {
		t.Errorf("to 2008.03.15: %d games, want 3", tree.Games())
	}

	// Depth 2: nothing beyond ply 2, so h3e3 h10g8 lists no move.
	tree = buildHand(t, Filter{RuleSet: "xiangqi", Depth: 2})
	if p := at(t, tree, "", "h3e3 h10g8"); len(p.Moves) != 0 || p.Games != 3 {
		t.Errorf("depth 2: %d moves at ply 2, %d games", len(p.Moves), p.Games)
	}
	if _, err := tree.Select("", "h3e3 h10g8 b1c3", 0); err == nil || !strings.Contains(err.Error(), "within the first 2 plies") {
		t.Errorf("beyond the depth: %v", err)
	}
	// 8 positions: start, h3e3, its 2 replies, c4c5, c4c5 g7g6, b1c3, b1c3 h10g8.
	if tree.Positions() != 8 {
		t.Errorf("depth 2: %d positions, want 8", tree.Positions())
	}

	// At least 2 games: the main line only, down to the transposition's
	// i10h10 (X1, X3).
	tree = buildHand(t, Filter{RuleSet: "xiangqi", MinGames: 2})
	v, err := tree.View()
	if err != nil {
		t.Fatal(err)
	}
	var line []string
	for id := v.Roots[0]; len(v.Positions[id].Moves) > 0; id = v.Positions[id].Moves[0].Next {
		if len(v.Positions[id].Moves) != 1 {
			t.Errorf("min 2: %d moves at %s", len(v.Positions[id].Moves), v.Positions[id].FEN)
		}
		line = append(line, v.Positions[id].Moves[0].Move)
	}
	if got := strings.Join(line, " "); got != "h3e3 h10g8 b1c3 i10h10" || len(v.Positions) != 5 {
		t.Errorf("min 2: line %q, %d positions", got, len(v.Positions))
	}
}

func TestSelectErrors(t *testing.T) {
	tree := buildHand(t, Filter{})
	for _, tc := range []struct{ fen, moves, want string }{
		{"", "h3e4", "illegal"},
		{"", "h3e3 h10g8 a1a2 a10a9", "no game played move 3 (a1a2)"},
		{"", "h3e3 zz", "move 2"},
		{"not a fen", "", "bad FEN"},
		{"4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1", "", "no game reached"},
	} {
		if _, err := tree.Select(tc.fen, tc.moves, 0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Select(%q, %q): %v; want %q", tc.fen, tc.moves, err, tc.want)
		}
	}
	if _, err := tree.Select("", "", -1); err == nil {
		t.Error("negative minimum: no error")
	}
	// h3e3 is illegal in janggi (a cannon needs a screen): those roots
	// drop out, the xiangqi one stays.
	if v, err := tree.Select("", "h3e3", 0); err != nil || len(v.Roots) != 1 || v.Positions[v.Roots[0]].Games != 4 {
		t.Errorf("h3e3 from every root: %v", err)
	}
}

func TestBadRecords(t *testing.T) {
	games, sets := handGames(t)
	xq := rules.MustPreset("xiangqi").String()
	for _, tc := range []struct {
		g    gamerec.Game
		want string
	}{
		{gamerec.Game{RuleSet: xq, Line: gamerec.Line{StartFEN: rules.XiangqiStartFEN, Moves: "h3e3 h10h5"}, End: gamerec.End{Result: "1-0"}}, "ply 2: illegal move h10h5"},
		{gamerec.Game{RuleSet: xq, Line: gamerec.Line{StartFEN: rules.XiangqiStartFEN, Moves: "h3e3 x"}, End: gamerec.End{Result: "1-0"}}, "ply 2: rules: bad move"},
		{gamerec.Game{RuleSet: xq, Line: gamerec.Line{StartFEN: rules.XiangqiStartFEN, Moves: "h3e3"}, End: gamerec.End{Result: "2-0"}}, `result "2-0"`},
		{gamerec.Game{RuleSet: xq, Line: gamerec.Line{StartFEN: "nonsense", Moves: "h3e3"}, End: gamerec.End{Result: "1-0"}}, "bad FEN"},
		{gamerec.Game{RuleSet: xq, Setup: "masangsangma,masangsangma", Line: gamerec.Line{StartFEN: rules.XiangqiStartFEN}, End: gamerec.End{Result: "1-0"}}, "a xiangqi rule set"},
		{gamerec.Game{RuleSet: rules.MustPreset("janggi").String(), Setup: "masangsangma,sangmamasang", Line: gamerec.Line{StartFEN: rules.JanggiStartFEN}, End: gamerec.End{Result: "1-0"}}, "starts from"},
		{gamerec.Game{RuleSet: rules.MustPreset("janggi").String(), Setup: "masang", Line: gamerec.Line{StartFEN: rules.JanggiStartFEN}, End: gamerec.End{Result: "1-0"}}, "CHO,HAN"},
	} {
		bad := append(append([]gamerec.Game(nil), games[:3]...), tc.g)
		bad[3].Source, bad[3].Index = "bad.jsonl", 4
		_, err := Build([]string{writeGames(t, bad, sets)}, Filter{})
		if err == nil || !strings.Contains(err.Error(), "bad.jsonl game 4") || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrRecord) {
			t.Errorf("%+v: %v; want ErrRecord naming bad.jsonl game 4 and %q", tc.g, err, tc.want)
		}
	}
	// A Builder refuses games after an error: its tree holds part of one.
	b, _ := NewBuilder(Filter{})
	if err := b.Add(&gamerec.Game{RuleSet: xq, Line: gamerec.Line{StartFEN: rules.XiangqiStartFEN, Moves: "h3e3 h10h5"}, End: gamerec.End{Result: "*"}}, rules.MustPreset("xiangqi")); err == nil {
		t.Fatal("illegal move: no error")
	}
	if err := b.Add(&games[0], rules.MustPreset("xiangqi")); err == nil {
		t.Error("Add after an error: no error")
	}
	if _, err := Build([]string{filepath.Join(t.TempDir(), "missing.jsonl")}, Filter{}); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("missing file: %v", err)
	}
}

func TestFilterErrors(t *testing.T) {
	for _, f := range []Filter{
		{Depth: -1}, {MinGames: -2}, {RuleSet: "@abc"}, {RuleSet: "xiangqi@"},
		{From: "2007.13"}, {From: "2024.02.30"}, {From: "-1"}, {To: "2023.02.29"}, {To: "2007.??"}, {From: "yesterday"}, {From: "2008", To: "2007"},
		{Generations: &Generations{3, 2}}, {Generations: &Generations{-1, 2}},
	} {
		if err := f.Validate(); err == nil {
			t.Errorf("%+v: no error", f)
		}
		if _, err := Build(nil, f); err == nil {
			t.Errorf("Build %+v: no error", f)
		}
	}
	for s, want := range map[string]string{"2-5": "2-5", "4": "4", "3-": "3-", " 0-0 ": "0"} {
		g, err := ParseGenerations(s)
		if err != nil || g.String() != want {
			t.Errorf("ParseGenerations(%q) = %v, %v; want %s", s, g, err, want)
		}
	}
	for _, s := range []string{"", "a-b", "5-2", "-3", "1-2-3", "x"} {
		if _, err := ParseGenerations(s); err == nil {
			t.Errorf("ParseGenerations(%q): no error", s)
		}
	}
}

func TestDayRange(t *testing.T) {
	for s, want := range map[string][3]int{
		"2007.01.15": {20070115, 20070115, 1},
		"2007.01.??": {20070101, 20070131, 1},
		"2007.??.??": {20070101, 20071231, 1},
		"2007.??.15": {20070101, 20071231, 1},
		"2007":       {20070101, 20071231, 1},
		"2007-3-9":   {20070309, 20070309, 1},
		"????.??.??": {0, 0, 0},
		"":           {0, 0, 0},
		"2007.13.01": {0, 0, 0},
		"2007年1月":    {0, 0, 0},
		"1.2.3.4":    {0, 0, 0},
	} {
		lo, hi, ok := dayRange(s)
		if int(lo) != want[0] || int(hi) != want[1] || ok != (want[2] == 1) {
			t.Errorf("dayRange(%q) = %d, %d, %v; want %v", s, lo, hi, ok, want)
		}
	}
}

// A record whose moves and plies disagree is damaged, and refused as every
// other reader of games files refuses it (issue 25's hostile pass: an
// edited plies count went into the tree unnoticed).
func TestAddRefusesMovesAndPliesThatDisagree(t *testing.T) {
	xq := rules.MustPreset("xiangqi")
	for _, depth := range []int{0, 1} {
		b, err := NewBuilder(Filter{Depth: depth})
		if err != nil {
			t.Fatal(err)
		}
		g := gamerec.Game{Index: 1, RuleSet: xq.String(), Line: gamerec.Line{StartFEN: rules.XiangqiStartFEN, Moves: "h3e3 h10g8"}, Plies: 3,
			End: gamerec.End{Result: gamerec.Draw}}
		if err := b.Add(&g, xq); err == nil || !strings.Contains(err.Error(), "2 moves, the record says 3 plies") {
			t.Errorf("depth %d: %v", depth, err)
		}
		b, _ = NewBuilder(Filter{Depth: depth})
		g.Plies = 2
		if err := b.Add(&g, xq); err != nil {
			t.Errorf("depth %d: %v", depth, err)
		}
	}
}

// A match's record file is read as games: a ladder calibration rung's
// (palace arena's format before records were gamerec.Records), each game
// from the start position with its two opening moves.
func TestBuildFromMatchRecords(t *testing.T) {
	path := "../ladder/calibration/xiangqi/check-10/rung-1.jsonl"
	_, recs, err := arena.ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	var w, d, l int
	for _, r := range recs {
		switch r.Result {
		case gamerec.WhiteWins:
			w++
		case gamerec.BlackWins:
			l++
		default:
			d++
		}
	}
	tree, err := Build([]string{path}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if tree.Games() != len(recs) || len(recs) != 80 {
		t.Errorf("%d games in the tree, %d recorded", tree.Games(), len(recs))
	}
	checkPosition(t, "root", at(t, tree, rules.XiangqiStartFEN, ""), 80, w, d, l, 0, 0)
}
