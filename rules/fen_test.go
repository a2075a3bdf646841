package rules

import (
	"strings"
	"testing"
)

func TestParseFENErrors(t *testing.T) {
	xq := MustPreset("xiangqi")
	jg := MustPreset("janggi")
	for _, tc := range []struct {
		rs   *RuleSet
		fen  string
		want string
	}{
		{xq, "", "board: empty"},
		{xq, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w - - 0 1", "9 ranks"},
		{xq, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w - - 0 1", "rank 1 (\"RNBAKABN\"): 8 files"},
		{xq, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w - - 0 1", "more than 9 files"},
		{xq, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABXR w - - 0 1", "unknown piece letter 'X'"},
		{xq, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x - - 0 1", "field 2 (side to move)"},
		{xq, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w KQ - 0 1", "field 3"},
		{xq, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - x 1", "field 5 (half-move clock)"},
		{xq, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 -3", "field 6 (full-move number)"},
		{xq, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 extra", "7 fields"},
		// Counts are plain decimal numbers: a sign is no part of one.
		{xq, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - +1 1", `field 5 (half-move clock): "+1"`},
		{jg, "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - -0 1", `field 5 (half-move clock): "-0"`},
		{xq, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 +2", `field 6 (full-move number): "+2"`},
		{xq, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w - - 0 1", "no white general"},
		{xq, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBAKABNR w - - 0 1", "second white general"},
		{xq, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w - - 0 1", "no white general"},
		{xq, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/K8/RNBA1ABNR w - - 0 1", "white general on a2, outside its palace"},
		{xq, "3k5/9/9/9/9/9/9/9/9/3RK4 w - - 0 1", "the side not to move (black) is in check"},
		{jg, "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/K8/RNBA1ABNR w - - 0 1", "white general on a2, outside its palace"},
	} {
		_, err := ParseFEN(tc.fen, tc.rs)
		if err == nil {
			t.Errorf("%q: no error, want one containing %q", tc.fen, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %q, want it to contain %q", tc.fen, err, tc.want)
		}
		if !strings.HasPrefix(err.Error(), "rules: ") {
			t.Errorf("%q: error %q lacks the package prefix", tc.fen, err)
		}
	}
}

// A full-move number of 0 is read as 1, as Fairy-Stockfish reads it
// (XBoard and some sites write 0): accepted deliberately.
func TestFullmoveZero(t *testing.T) {
	p, err := ParseFEN("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 0", MustPreset("xiangqi"))
	if err != nil || p.FullmoveNumber() != 1 {
		t.Errorf("full-move number 0: %v, read as %d, want 1", err, p.FullmoveNumber())
	}
}

func TestParseFENDefaultsAndAliases(t *testing.T) {
	rs := MustPreset("xiangqi")
	p, err := ParseFEN("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR b", rs)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.FEN(), "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1"; got != want {
		t.Errorf("FEN() = %q, want %q", got, want)
	}
	if p.Key() != p.ComputeKey() {
		t.Error("key differs from recomputed key")
	}
}

func TestJanggiSetups(t *testing.T) {
	rs := MustPreset("janggi")
	if _, _, ok := JanggiSetupsOf(XiangqiStartFEN); ok {
		t.Error("JanggiSetupsOf named setups of the xiangqi start")
	}
	want := map[JanggiSetup]string{
		MaSangSangMa: "RNBA1ABNR", MaSangMaSang: "RNBA1ANBR", SangMaSangMa: "RBNA1ABNR", SangMaMaSang: "RBNA1ANBR",
	}
	for cho := MaSangSangMa; cho <= SangMaMaSang; cho++ {
		for han := MaSangSangMa; han <= SangMaMaSang; han++ {
			fen := JanggiSetupFEN(cho, han)
			if !strings.HasPrefix(fen, strings.ToLower(want[han])+"/") || !strings.Contains(fen, "/"+want[cho]+" w") {
				t.Errorf("JanggiSetupFEN(%v, %v) = %s", cho, han, fen)
			}
			g, err := NewGame(rs, fen)
			if err != nil {
				t.Fatal(err)
			}
			if n := g.Perft(2); n != 1024 {
				t.Errorf("%s: perft(2) = %d, want 1024", fen, n)
			}
			s, err := ParseJanggiSetup(cho.String())
			if err != nil || s != cho {
				t.Errorf("ParseJanggiSetup(%q) = %v, %v", cho.String(), s, err)
			}
			c, h, err := ParseJanggiSetups(cho.String() + "," + han.String())
			if err != nil || c != cho || h != han {
				t.Errorf("ParseJanggiSetups(%s,%s) = %v, %v, %v", cho, han, c, h, err)
			}
			if c, h, ok := JanggiSetupsOf(fen); !ok || c != cho || h != han {
				t.Errorf("JanggiSetupsOf(%s) = %v, %v, %v", fen, c, h, ok)
			}
		}
	}
	if _, err := ParseJanggiSetup("sangsang"); err == nil {
		t.Error("ParseJanggiSetup accepted a bad name")
	}
	for _, bad := range []string{"masangsangma", "masangsangma,", ",masangsangma", "masangsangma,sangsang"} {
		if _, _, err := ParseJanggiSetups(bad); err == nil {
			t.Errorf("ParseJanggiSetups(%q) accepted", bad)
		}
	}
}

func TestMoveText(t *testing.T) {
	for _, tc := range []struct {
		text string
		base RankBase
		from string
		to   string
	}{
		{"h3e3", Ranks1, "h3", "e3"},
		{"a10a9", Ranks1, "a10", "a9"},
		{"b10c8", Ranks1, "b10", "c8"},
		{"f10f10", Ranks1, "f10", "f10"},
		{"h2e2", Ranks0, "h3", "e3"},
		{"a9a8", Ranks0, "a10", "a9"},
		{"i0i1", Ranks0, "i1", "i2"},
	} {
		m, err := ParseMoveText(tc.text, tc.base)
		if err != nil {
			t.Errorf("ParseMoveText(%q): %v", tc.text, err)
			continue
		}
		if m.From().String() != tc.from || m.To().String() != tc.to {
			t.Errorf("ParseMoveText(%q) = %s%s, want %s%s", tc.text, m.From(), m.To(), tc.from, tc.to)
		}
		if got := m.Text(tc.base); got != tc.text {
			t.Errorf("Text(%q) = %q", tc.text, got)
		}
	}
	for _, bad := range []string{"", "e", "e2", "j1a1", "a11a1", "a0a1", "e2e2x", "a1-a2", "A1A2"} {
		if _, err := ParseMoveText(bad, Ranks1); err == nil {
			t.Errorf("ParseMoveText(%q) accepted", bad)
		}
	}
	if _, err := ParseMoveText("a9a10", Ranks0); err == nil {
		t.Error("ranks 0–9 accepted rank 10")
	}
}

func TestParseMoveChecksLegality(t *testing.T) {
	p, _ := ParseFEN(XiangqiStartFEN, MustPreset("xiangqi"))
	if _, err := p.ParseMove("h3e3", Ranks1); err != nil {
		t.Errorf("h3e3: %v", err)
	}
	if _, err := p.ParseMove("h3h9", Ranks1); err == nil || !strings.Contains(err.Error(), "illegal move") {
		t.Errorf("h3h9 (cannon cannot move onto a piece without a screen): %v", err)
	}
}

// Janggi bikjang: the side in bikjang must break it or pass; passing under
// bikjang (janggi, janggitraditional) leaves the opponent no move; in
// janggimodern facing generals mean nothing.
func TestBikjangMoves(t *testing.T) {
	fen := "4k4/9/9/9/9/9/9/9/4K4/R8 b - - 0 1" // generals face on file e
	for _, tc := range []struct {
		rules     string
		wantMoves string
		afterPass int // legal moves for White after Black passes
	}{
		// e10e9 keeps the generals facing: illegal under bikjang.
		{"janggi", "e10d10 e10e10 e10f10", 0},
		{"janggitraditional", "e10d10 e10e10 e10f10", 0},
		{"janggimodern", "e10d10 e10e10 e10e9 e10f10", -1},
		{"janggicasual", "e10d10 e10e10 e10e9 e10f10", -1},
	} {
		g, err := NewGame(MustPreset(tc.rules), fen)
		if err != nil {
			t.Fatal(err)
		}
		if got := SortedMoveText(g.LegalMoves(nil)); got != tc.wantMoves {
			t.Errorf("%s: moves %s, want %s", tc.rules, got, tc.wantMoves)
		}
		if _, err := g.PlayText("e10e10", Ranks1); err != nil {
			t.Fatal(err)
		}
		n := len(g.LegalMoves(nil))
		if tc.afterPass == 0 && n != 0 {
			t.Errorf("%s: pass under bikjang left White %d moves, want none", tc.rules, n)
		}
		if tc.afterPass < 0 && n == 0 {
			t.Errorf("%s: facing generals should not end the game", tc.rules)
		}
	}
}

func TestDoublePassLeavesNoMoves(t *testing.T) {
	g, _ := NewGame(MustPreset("janggimodern"), JanggiStartFEN)
	for _, m := range []string{"e2e2", "e9e9"} {
		if _, err := g.PlayText(m, Ranks1); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(g.LegalMoves(nil)); n != 0 {
		t.Errorf("after two passes: %d moves, want 0", n)
	}
	g.Undo()
	if n := len(g.LegalMoves(nil)); n == 0 {
		t.Error("after one pass the game should go on")
	}
}

func TestJanggiClassicPassOnlyWhenStuck(t *testing.T) {
	g, _ := NewGame(MustPreset("janggiclassic"), JanggiStartFEN)
	for _, m := range g.LegalMoves(nil) {
		if m.IsPass() {
			t.Fatal("janggiclassic offers a pass while other moves exist")
		}
	}
	// White's lone general on e1, not in check, every step attacked by the
	// chariots on d3 and f3: the pass is its only move.
	stuck := "3k5/9/9/9/9/9/9/3r1r3/9/4K4 w - - 0 1"
	g, err := NewGame(MustPreset("janggiclassic"), stuck)
	if err != nil {
		t.Fatal(err)
	}
	if got := SortedMoveText(g.LegalMoves(nil)); got != "e1e1" {
		t.Errorf("stuck general: moves %q, want only the pass e1e1", got)
	}
}

// Pieces other than the generals may stand where play could never bring
// them, as Fairy-Stockfish accepts (the reference corpus has such set-ups);
// they move by their usual rules.
func TestUnusualSetupsParse(t *testing.T) {
	for _, tc := range []struct{ rules, fen, moves string }{
		{"janggimodern", "5k3/9/9/9/9/5n3/9/3K4c/4AC3/3P2P2 b - - 0 1", ""},
		// A xiangqi advisor off the palace may only step into it; an
		// elephant across the river may only step back.
		{"xiangqi", "3k5/9/9/9/2B6/9/9/9/2A6/4K4 w - - 0 1", "c2d1 c2d3 c6a4 c6e4 e1e2 e1f1"},
		// Issue 47's: an advisor off its points, a soldier behind its
		// river line, in either game (the generals face: only they move).
		{"xiangqi", "a3k4/9/9/9/9/9/9/9/9/4K4 b", "e10d10 e10f10"},
		{"xiangqi", "4k4/9/9/9/9/9/9/9/9/P3K4 w", "e1d1 e1f1"},
		{"janggi", "4k4/9/9/9/9/9/9/9/9/P3K4 w", ""},
	} {
		p, err := ParseFEN(tc.fen, MustPreset(tc.rules))
		if err != nil {
			t.Errorf("%s: %v", tc.fen, err)
			continue
		}
		if tc.moves != "" {
			if got := SortedMoveText(p.LegalMoves(nil)); got != tc.moves {
				t.Errorf("%s: moves %s, want %s", tc.fen, got, tc.moves)
			}
		}
	}
}
