package rules

import (
	"strings"
	"testing"
)

// Each game end on a small position, both sides of each rule. The results
// of the Fairy-Stockfish rule sets were confirmed with ffish
// (scripts/ffish-oracle.js); janggiclassic's are palace's own rules.
func TestGameEnds(t *testing.T) {
	const janggiStart = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1"
	for _, tc := range []struct {
		name, rules, fen, moves string
		want                    string // score and reason after the last move
	}{
		// Perpetual check: a one-sided checker loses; a mutual one draws.
		{"one-sided perpetual check", "xiangqi", "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1",
			"a1a10 e10e9 a10a9 e9e10 a9a10 e10e9 a10a9 e9e10 a9a10", "0-1 perpetual-check"},
		{"mutual perpetual check", "xiangqi", "1P7/P4c3/3k1a2C/9/5N3/9/9/4B4/9/5K3 b - - 3 2",
			"f8e9 f6g8 e9f8 g8f6 f8e9 f6g8 e9f8 g8f6", "1/2-1/2 perpetual-check"},
		// Perpetual chase: the chariot keeps attacking an unprotected horse
		// and loses; with the horse protected it is a plain repetition.
		{"one-sided chase", "xiangqi", "n4k3/9/9/9/9/9/9/9/2R6/3K5 w - - 0 1",
			"c2a2 a10c9 a2c2 c9a10 c2a2 a10c9 a2c2 c9a10", "0-1 perpetual-chase"},
		{"chase of a protected piece", "xiangqi", "n1r2k3/9/9/9/9/9/9/9/2R6/3K5 w - - 0 1",
			"c2a2 a10c9 a2c2 c9a10 c2a2 a10c9 a2c2 c9a10", "1/2-1/2 repetition"},
		{"mutual chase", "xiangqi", "3k5/5c3/3r1aN1C/9/9/9/9/9/4K4/5R3 w - - 2 2",
			"g8f6 f8e9 f6g8 e9f8 g8f6 f8e9 f6g8 e9f8", "1/2-1/2 perpetual-chase"},
		// Repetition: a draw, or counted in janggi (equal material: Han wins).
		{"xiangqi threefold", "xiangqi", XiangqiStartFEN,
			"h1g3 h10g8 g3h1 g8h10 h1g3 h10g8 g3h1 g8h10", "1/2-1/2 repetition"},
		{"janggi threefold counted", "janggi", janggiStart,
			"h1g3 h10g8 g3h1 g8h10 h1g3 h10g8 g3h1 g8h10", "0-1 repetition"},
		// Bikjang: Black passes under bikjang.
		{"bikjang counted", "janggi", "4k4/9/9/9/9/9/9/9/4K4/R8 b - - 0 1", "e10e10", "1-0 bikjang"},
		{"bikjang drawn", "janggitraditional", "4k4/9/9/9/9/9/9/9/4K4/R8 b - - 0 1", "e10e10", "1/2-1/2 bikjang"},
		{"no bikjang in janggimodern", "janggimodern", "4k4/9/9/9/9/9/9/9/4K4/R8 b - - 0 1", "e10e10", "* ongoing"},
		{"no bikjang in janggicasual", "janggicasual", "4k4/9/9/9/9/9/9/9/4K4/R8 b - - 0 1", "e10e10", "* ongoing"},
		{"classic: bikjang must be broken", "janggiclassic", "4k4/9/9/9/9/9/9/9/4K4/R8 b - - 0 1", "e10d10", "* ongoing"},
		{"classic: bikjang that cannot be broken draws", "janggiclassic", "4k4/9/9/9/9/9/9/9/3RKR3/9 b - - 0 1", "", "1/2-1/2 bikjang"},
		// Double pass, counted with Han's 1.5: 2 against 1.5 wins for Cho,
		// 3 against 2 + 1.5 loses.
		{"double pass, Cho ahead by 2", "janggi", "3k5/9/9/9/9/9/9/9/4K4/P8 w - - 0 1", "e2e2 d10d10", "1-0 double-pass"},
		{"double pass, Cho ahead by 1", "janggi", "3k5/9/9/9/9/9/9/9/4A4/4K2p1 w - - 0 1", "e1e1 d10d10", "0-1 double-pass"},
		{"double pass drawn", "janggicasual", "3k5/9/9/9/9/9/9/9/4K4/P8 w - - 0 1", "e2e2 d10d10", "1/2-1/2 double-pass"},
		// Shuttling one piece five times loses, a pass before the last
		// shuttle notwithstanding.
		{"shuttle", "janggimodern", janggiStart, "b1c3 i7i6 c3b1 i6i5 b1c3 i10i9 c3b1 i9i8 b1c3", "0-1 move-repetition"},
		{"shuttle past a pass", "janggimodern", janggiStart, "b1c3 i7i6 c3b1 i6i5 b1c3 i10i9 c3b1 e9e9 b1c3", "0-1 move-repetition"},
		{"four shuttles are allowed", "janggimodern", janggiStart, "b1c3 i7i6 c3b1 i6i5 b1c3 i10i9 c3b1", "* ongoing"},
		// Move limits.
		{"xiangqi 100 plies", "xiangqi", strings.Replace(XiangqiStartFEN, "0 1", "99 50", 1), "h3e3", "1/2-1/2 n-move"},
		{"janggi 100 plies counted", "janggi", strings.Replace(janggiStart, "0 1", "99 50", 1), "e2e2", "0-1 n-move"},
		{"janggimodern 200 plies", "janggimodern", strings.Replace(janggiStart, "0 1", "199 100", 1), "e2e2", "0-1 n-move"},
		{"janggimodern at 100 plies goes on", "janggimodern", strings.Replace(janggiStart, "0 1", "99 50", 1), "e2e2", "* ongoing"},
		// Material: only generals and palace-bound pieces left.
		{"xiangqi advisor only", "xiangqi", "3k5/9/9/9/9/9/9/9/4A4/3K5 w - - 0 1", "", "1/2-1/2 insufficient-material"},
		{"xiangqi cannon can mate", "xiangqi", "3k5/9/9/9/9/9/9/4C4/9/3K5 w - - 0 1", "", "* ongoing"},
		{"janggi guards only", "janggi", "3k5/4a4/9/9/9/9/9/9/4A4/3K5 w - - 0 1", "", "1/2-1/2 insufficient-material"},
		{"janggi elephant leaves its palace", "janggi", "3k5/9/9/9/9/9/9/4B4/9/3K5 w - - 0 1", "", "* ongoing"},
		// Mate and stalemate (xiangqi: stalemate loses).
		{"stalemate loses", "xiangqi", "3k5/R8/2P6/9/3P2N2/9/P3R4/4K4/9/2BA1A3 b - - 2 56", "", "1-0 stalemate"},
		{"checkmate", "xiangqi", "3k5/R8/9/9/9/9/9/9/4K4/1R7 w - - 0 1", "b1b10", "1-0 checkmate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := NewGame(MustPreset(tc.rules), tc.fen)
			if err != nil {
				t.Fatal(err)
			}
			for i, mv := range strings.Fields(tc.moves) {
				if r := g.Result(); r.Over() {
					t.Fatalf("over (%s) before move %d", r, i+1)
				}
				if _, err := g.PlayText(mv, Ranks1); err != nil {
					t.Fatalf("move %d: %v", i+1, err)
				}
			}
			if got := g.Result().String(); got != tc.want {
				t.Errorf("result %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCountingReportsBothCounts(t *testing.T) {
	g, _ := NewGame(MustPreset("janggi"), "3k5/9/9/9/9/9/9/9/4A4/4K2p1 w - - 0 1")
	g.PlayText("e1e1", Ranks1)
	g.PlayText("d10d10", Ranks1)
	r := g.Result()
	if !r.Counted || r.Count != [2]float64{3, 3.5} {
		t.Errorf("result %+v, want counted 3 against 3.5", r)
	}
}

func TestLengthCap(t *testing.T) {
	for _, tc := range []struct{ base, want string }{{"xiangqi", "1/2-1/2 length-cap"}, {"janggi", "0-1 length-cap"}} {
		rs, err := ParseRuleSet([]byte("base: "+tc.base+"\nmaxPlies: 4\n"), "cap.yaml")
		if err != nil {
			t.Fatal(err)
		}
		g, _ := NewGame(rs, rs.StartFEN())
		for i := 0; i < 4; i++ {
			if g.Result().Over() {
				t.Fatalf("%s: over after %d plies", tc.base, i)
			}
			g.Play(g.LegalMoves(nil)[0])
		}
		if got := g.Result().String(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.base, got, tc.want)
		}
	}
}

// janggiclassic: a side passes only when it has no other move, so two
// passes in a row mean neither side could move: a draw. (A position where
// both sides are stuck is hard to build, so the passes are played
// directly; the stuck pass itself is TestJanggiClassicPassOnlyWhenStuck.)
// With bikjangClaim, the side in bikjang takes the draw.
func TestJanggiClassicEnds(t *testing.T) {
	g, err := NewGame(MustPreset("janggiclassic"), "3k5/9/9/9/9/9/9/3r1r3/9/4K4 w - - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	g.Play(PassMove(g.Position().KingSquare(White)))
	g.Play(PassMove(g.Position().KingSquare(Black)))
	if got := g.Result().String(); got != "1/2-1/2 no-legal-moves" {
		t.Errorf("both sides passed: %q", got)
	}
	rs, err := ParseRuleSet([]byte("base: janggiclassic\nbikjangClaim: true\n"), "claim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g, _ = NewGame(rs, "4k4/9/9/9/9/9/9/9/4K4/R8 b - - 0 1")
	if got := g.Result().String(); got != "1/2-1/2 bikjang" {
		t.Errorf("bikjang claim: %q", got)
	}
	g, _ = NewGame(MustPreset("janggiclassic"), "4k4/9/9/9/9/9/9/9/4K4/R8 b - - 0 1")
	if got := g.Result().String(); got != "* ongoing" {
		t.Errorf("bikjang without the claim: %q", got)
	}
}

func TestAncestorAndRepetitions(t *testing.T) {
	g, _ := NewGame(MustPreset("xiangqi"), XiangqiStartFEN)
	for i, mv := range strings.Fields("h1g3 h10g8 g3h1 g8h10 h1g3") {
		if _, err := g.PlayText(mv, Ranks1); err != nil {
			t.Fatalf("move %d: %v", i+1, err)
		}
	}
	if got := g.Repetitions(); got != 1 {
		t.Errorf("Repetitions() = %d, want 1 (the position after h1g3 occurred once before)", got)
	}
	back, ok := g.Ancestor(5)
	if !ok || back.FEN() != XiangqiStartFEN {
		t.Errorf("Ancestor(5) = %s, %v; want the root", back.FEN(), ok)
	}
	if _, ok := g.Ancestor(6); ok {
		t.Error("Ancestor beyond the root reported ok")
	}
	if cur, _ := g.Ancestor(0); cur != *g.Position() {
		t.Error("Ancestor(0) differs from the position")
	}
}
