package notation

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/palace-chess/palace/rules"
)

func TestDetect(t *testing.T) {
	cases := []struct {
		text string
		want Notation
	}{
		{"h2e2", ICCS}, {"H2-E2", ICCS}, {"ｈ２ｅ２", ICCS}, {"a0a9", ICCS},
		{"C2.5", WXF}, {"C2=5", WXF}, {"H8+7", WXF}, {"+P.6", WXF}, {"R+.3", WXF},
		{"C--1", WXF}, {"++.4", WXF}, {"3+.4", WXF}, {"33.4", WXF}, {"Ｃ２＝５", WXF}, {"＋Ｐ＝６", WXF},
		{"c2.5", WXF}, {"h8+7", WXF},
		{"炮二平五", Chinese}, {"馬８進７", Chinese}, {"马８进７", Chinese}, {"前卒進１", Chinese},
		{"前七進一", Chinese}, {"砲2平5", Chinese},
		{"Che3", SAN}, {"Rxa10", SAN}, {"e5", SAN}, {"Nc3+", SAN}, {"H1g3", SAN},
		{"", Unknown}, {"\uFFFD", Unknown}, {"1-0", Unknown}, {"!?", Unknown}, {"C2.0", Unknown},
		{"xyzzy", Unknown}, {"H1g3x", SAN},
	}
	for _, c := range cases {
		if got := Detect(c.text); got != c.want {
			t.Errorf("Detect(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// mustGame starts a xiangqi game from fen.
func mustGame(t testing.TB, fen string) *rules.Game {
	t.Helper()
	g, err := rules.NewGame(rules.MustPreset("xiangqi"), fen)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestErrors(t *testing.T) {
	g := mustGame(t, rules.XiangqiStartFEN)
	cases := []struct {
		text string
		kind error
		msg  string
	}{
		{"C2+8", ErrNoMatch, `notation: WXF "C2+8": no legal move matches`},
		{"h2h0", ErrNoMatch, `notation: ICCS "h2h0": no legal move matches`},
		{"炮一平五", ErrNoMatch, `notation: Chinese "炮一平五": no legal move matches`},
		{"C2x5", ErrSyntax, `notation: unknown "C2x5": unreadable move`},
		{"炮二平", ErrSyntax, `notation: Chinese "炮二平": unreadable move`},
	}
	for _, c := range cases {
		_, err := Parse(g, c.text)
		if !errors.Is(err, c.kind) || !strings.HasPrefix(err.Error(), c.msg) {
			t.Errorf("Parse(%q) = %v, want %v starting %q", c.text, err, c.kind, c.msg)
		}
	}
	// Two chariots on file 9 with no front/back mark: both can advance one.
	g = mustGame(t, "3k5/9/9/9/9/9/R8/9/R8/4K4 w - - 0 1")
	_, err := ParseWXF(g, "R9+1")
	var ne *Error
	if !errors.Is(err, ErrAmbiguous) || !errors.As(err, &ne) || !strings.Contains(ne.Detail, "a1a2") || !strings.Contains(ne.Detail, "a3a4") {
		t.Errorf("R9+1 with two chariots on file 9: %v, want ambiguous naming a1a2 and a3a4", err)
	}
}

// TestTandem checks front/back marks, pawns on two files and WXF's pawn
// numbering against moves worked out by hand.
func TestTandem(t *testing.T) {
	// Red: cannons e4 (front) and e2 (back); pawns c7, c6 (Red's file 7)
	// and g6, g5 (file 3). Black: horses b7 (front: nearer Red) and b9
	// (Black's file 2); pawns h3 (front) and h4 (Black's file 8).
	const two = "1n1k5/9/1nP6/2P3P2/6P2/4C2p1/7p1/4C4/9/4K4"
	// Red pawns c5…c9 (file 7) in front of the black general.
	const five = "2P6/2P1k4/2P6/2P6/2P6/9/9/9/9/3K5 w - - 0 1"
	const four = "2P6/2P1k4/2P6/2P6/9/9/9/9/9/3K5 w - - 0 1"
	const three = "2P6/2P1k4/2P6/6P2/6P2/9/9/9/9/3K5 w - - 0 1" // plus g6, g5: two files
	const threeOne = "2P6/2P1k4/2P6/9/9/9/9/9/9/3K5 w - - 0 1"
	cases := []struct {
		fen, iccs, wxf, trad, simp string
		alt                        []string // other spellings that must read the same
	}{
		{two + " w - - 0 1", "e4f4", "C+.4", "前炮平四", "前炮平四", []string{"+C.4", "C+=4", "＋Ｃ＝４", "炮前平四", "前砲平4"}},
		{two + " w - - 0 1", "e2e1", "C--1", "後炮退一", "后炮退一", []string{"-C-1"}},
		{two + " w - - 0 1", "c7c8", "7++1", "前七進一", "前七进一", []string{"前７進１"}},
		{two + " w - - 0 1", "c6d6", "7-.6", "後七平六", "后七平六", nil},
		{two + " w - - 0 1", "g6g7", "3++1", "前三進一", "前三进一", nil},
		{two + " w - - 0 1", "g5f5", "3-.4", "後三平四", "后三平四", nil},
		{two + " b - - 0 1", "b7c5", "H++3", "前馬進３", "前马进３", []string{"+H+3", "前馬進三"}},
		{two + " b - - 0 1", "b9d8", "H-+4", "後馬進４", "后马进４", []string{"-H+4"}},
		{two + " b - - 0 1", "h3h2", "P++1", "前卒進１", "前卒进１", []string{"+P+1"}},
		{two + " b - - 0 1", "h4g4", "P-.7", "後卒平７", "后卒平７", []string{"-P.7", "後兵平7"}},
		{five, "c9d9", "++.6", "一兵平六", "一兵平六", []string{"前兵平六"}},
		{five, "c8d8", "P+.6", "二兵平六", "二兵平六", []string{"+P.6"}},
		{five, "c7d7", "P7.6", "三兵平六", "三兵平六", []string{"中兵平六"}},
		{five, "c6d6", "P-.6", "四兵平六", "四兵平六", nil},
		{five, "c5d5", "--.6", "五兵平六", "五兵平六", []string{"後兵平六"}},
		{four, "c9d9", "++.6", "一兵平六", "一兵平六", nil},
		{four, "c8d8", "P+.6", "二兵平六", "二兵平六", nil},
		{four, "c7d7", "P-.6", "三兵平六", "三兵平六", nil},
		{four, "c6d6", "--.6", "四兵平六", "四兵平六", nil},
		{threeOne, "c9d9", "P+.6", "前兵平六", "前兵平六", nil},
		{threeOne, "c8d8", "P7.6", "中兵平六", "中兵平六", []string{"二兵平六"}},
		{threeOne, "c7d7", "P-.6", "後兵平六", "后兵平六", nil},
		{three, "c9d9", "7+.6", "前七平六", "前七平六", nil},
		{three, "c8d8", "77.6", "中七平六", "中七平六", nil},
		{three, "c7d7", "7-.6", "後七平六", "后七平六", nil},
		{three, "g6g7", "3++1", "前三進一", "前三进一", nil},
		{three, "g5f5", "3-.4", "後三平四", "后三平四", nil},
	}
	for _, c := range cases {
		g := mustGame(t, c.fen)
		want, err := ParseICCS(g, c.iccs)
		if err != nil {
			t.Fatalf("%s: %v", c.fen, err)
		}
		if got := string(AppendWXF(nil, g, want)); got != c.wxf {
			t.Errorf("%s %s: AppendWXF = %s, want %s", c.fen, c.iccs, got, c.wxf)
		}
		if got := string(AppendChinese(nil, g, want, false)); got != c.trad {
			t.Errorf("%s %s: AppendChinese = %s, want %s", c.fen, c.iccs, got, c.trad)
		}
		if got := string(AppendChinese(nil, g, want, true)); got != c.simp {
			t.Errorf("%s %s: AppendChinese simplified = %s, want %s", c.fen, c.iccs, got, c.simp)
		}
		for _, text := range append([]string{c.wxf, c.trad, c.simp}, c.alt...) {
			if m, err := Parse(g, text); err != nil || m != want {
				t.Errorf("%s: Parse(%s) = %v, %v; want %s", c.fen, text, m.Text(rules.Ranks0), err, c.iccs)
			}
		}
	}
}

// bruteMatches is spec.matches the slow way, the oracle it is checked
// against: every legal move, kept if sp describes it.
func bruteMatches(g *rules.Game, sp *spec) []rules.Move {
	var buf [rules.MaxMoves]rules.Move
	var out []rules.Move
	pos := g.Position()
	side := pos.SideToMove()
	for _, m := range g.LegalMoves(buf[:0]) {
		pc := pos.Board(m.From())
		switch t := pc.Type(); {
		case m.IsPass(),
			sp.piece != rules.NoPieceType && t != sp.piece,
			sp.piece == rules.NoPieceType && t != rules.Soldier,
			sp.file != 0 && ownFile(side, m.From().File()) != sp.file:
			continue
		}
		if dir, num := describe(side, m); dir != sp.dir || num != sp.num {
			continue
		}
		if i, k := tandem(pos, pc, m.From()); sp.mark != markNone && !sp.mark.picks(sp.nth, i, k) {
			continue
		}
		out = append(out, m)
	}
	if len(out) > 1 && sp.mark == markNone && sp.file != 0 {
		var mid []rules.Move
		for _, m := range out {
			if i, k := tandem(pos, pos.Board(m.From()), m.From()); k%2 == 1 && i == k/2 {
				mid = append(mid, m)
			}
		}
		if len(mid) > 0 {
			out = mid
		}
	}
	return out
}

// checkMatches compares spec.matches with the oracle for every way of
// naming every legal move of g's position.
func checkMatches(t *testing.T, g *rules.Game) {
	t.Helper()
	var buf [rules.MaxMoves]rules.Move
	pos := g.Position()
	for _, m := range g.LegalMoves(buf[:0]) {
		if m.IsPass() {
			continue
		}
		var specs []spec
		for _, wxf := range []bool{true, false} {
			ws := writeSpecs(pos, m, wxf)
			specs = append(specs, ws[:]...)
		}
		plain := specs[1]
		for _, mk := range []mark{markFront, markBack, markMiddle, markWXFFront, markWXFBack, markFirst, markLast} {
			sp := plain
			sp.mark, sp.file = mk, 0
			specs = append(specs, sp)
		}
		for _, sp := range specs {
			var mb [8]rules.Move
			got, want := sp.matches(mb[:0], g), bruteMatches(g, &sp)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: spec %+v matches %v, legal moves say %v", pos.FEN(), sp, got, want)
			}
		}
	}
}

// roundTrip checks that every legal move of g's position reads back from
// its WXF, Chinese (both scripts) and ICCS forms, and counts the tandem
// forms it saw.
func roundTrip(t *testing.T, g *rules.Game, seen map[string]int) {
	t.Helper()
	checkMatches(t, g)
	var buf [rules.MaxMoves]rules.Move
	var text []byte
	for _, m := range g.LegalMoves(buf[:0]) {
		if m.IsPass() {
			continue
		}
		for _, n := range []Notation{ICCS, WXF, Chinese, Chinese + 10} {
			text = text[:0]
			switch n {
			case ICCS:
				text = AppendICCS(text, m)
			case WXF:
				if _, unique, _ := pickSpec(g, m, true); !unique {
					if g.Rules().Game != rules.Janggi {
						t.Fatalf("%s: no WXF names %s alone", g.Position().FEN(), m.Text(rules.Ranks0))
					}
					seen["janggi unnameable"]++
					continue
				}
				text = AppendWXF(text, g, m)
				if c := text[0]; c == '+' || c == '-' || isDigit(c) || text[1] == '+' || text[1] == '-' {
					seen["wxf "+string(text[:2])]++
				}
			case Chinese:
				if _, unique, _ := pickSpec(g, m, false); !unique {
					if g.Rules().Game != rules.Janggi {
						t.Fatalf("%s: no Chinese notation names %s alone", g.Position().FEN(), m.Text(rules.Ranks0))
					}
					continue
				}
				text = AppendChinese(text, g, m, false)
			default:
				if _, unique, _ := pickSpec(g, m, false); !unique {
					continue
				}
				text = AppendChinese(text, g, m, true)
				n = Chinese
			}
			if d := Detect(string(text)); d != n {
				t.Fatalf("%s: Detect(%s) = %v, want %v", g.Position().FEN(), text, d, n)
			}
			got, err := Parse(g, string(text))
			if err != nil || got != m {
				t.Fatalf("%s: %s written %s reads back as %s, %v", g.Position().FEN(), m.Text(rules.Ranks0), text, got.Text(rules.Ranks0), err)
			}
		}
	}
}

var iccsMove = regexp.MustCompile(`\b[a-i][0-9][a-i][0-9]\b`)

// TestRoundTripSamples round-trips every legal move of every third
// position of the xqdb sample games (pgn/testdata holds the ICCS file).
func TestRoundTripSamples(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "pgn", "testdata", "xqdb_sample15", "xqdb_sample15_iccs.pgn"))
	if err != nil {
		t.Skip(err)
	}
	seen := map[string]int{}
	positions := 0
	step := 3 // odd, so that Red's and Black's moves both come up
	if testing.Short() {
		step = 9
	}
	for _, game := range strings.Split(string(data), "[Event")[1:] {
		g := mustGame(t, rules.XiangqiStartFEN)
		for i, tok := range iccsMove.FindAllString(game, -1) {
			if i%step == 0 {
				roundTrip(t, g, seen)
				positions++
			}
			m, err := ParseICCS(g, tok)
			if err != nil {
				t.Fatal(err)
			}
			g.Play(m)
		}
	}
	t.Logf("%d positions, tandem forms %v", positions, seen)
}

// TestRoundTripPlayouts round-trips every legal move of positions from
// random playouts that favour pawn moves, so that pawns pile up on files.
func TestRoundTripPlayouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	seen := map[string]int{}
	games := 24
	if testing.Short() {
		games = 6
	}
	var buf [rules.MaxMoves]rules.Move
	for range games {
		g := mustGame(t, rules.XiangqiStartFEN)
		for ply := 0; ply < 250 && !g.Result().Over(); ply++ {
			if ply%3 == 0 {
				roundTrip(t, g, seen)
			}
			moves := g.LegalMoves(buf[:0])
			m := moves[rng.IntN(len(moves))]
			for range 3 { // prefer pawn moves that keep material on the board
				if pos := g.Position(); pos.Board(m.From()).Type() == rules.Soldier && pos.Board(m.To()) == rules.NoPiece {
					break
				}
				m = moves[rng.IntN(len(moves))]
			}
			g.Play(m)
		}
	}
	t.Logf("tandem forms %v", seen)
	// Janggi: the same notations on its board (palace diagonals, its
	// elephant), from every setup. Some moves there have no unambiguous
	// name: along the file and onto a palace diagonal can read alike.
	janggiSeen := map[string]int{}
	defer func() { t.Logf("janggi: tandem forms %v", janggiSeen) }()
	for i := range games / 2 {
		cho, han := rules.JanggiSetup(i%4), rules.JanggiSetup(i/4%4)
		g, err := rules.NewGame(rules.MustPreset("janggi"), rules.JanggiSetupFEN(cho, han))
		if err != nil {
			t.Fatal(err)
		}
		for ply := 0; ply < 200 && !g.Result().Over(); ply++ {
			if ply%3 == 0 {
				roundTrip(t, g, janggiSeen)
			}
			moves := g.LegalMoves(buf[:0])
			g.Play(moves[rng.IntN(len(moves))])
		}
	}
	multi := 0 // pawns doubled on two files: 3+.4, 33.4
	for form, n := range seen {
		if c := form[len("wxf ")]; c >= '1' && c <= '9' {
			multi += n
		}
	}
	// The short run's six games see tandem pawns on one file only.
	if seen["wxf P+"] == 0 || seen["wxf P-"] == 0 || multi == 0 && !testing.Short() {
		t.Errorf("tandem forms %v: the playouts no longer cover tandem pawns", seen)
	}
}

// FuzzParse: any text either resolves to a legal move that reads back
// from its WXF and Chinese forms, or fails with an *Error; nothing panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"h2e2", "C2.5", "Ｃ２＝５", "+P.6", "++.4", "3+.4", "33.4", "炮二平五", "前七進一", "一兵平六",
		"馬８進７", "H2-E2", "Che3", "", "\xff", "前前前前", "C2.5+++"} {
		f.Add(s)
	}
	fens := []string{rules.XiangqiStartFEN, "1n1k5/9/1nP6/2P3P2/6P2/4C2p1/7p1/4C4/9/4K4 w - - 0 1",
		"1n1k5/9/1nP6/2P3P2/6P2/4C2p1/7p1/4C4/9/4K4 b - - 0 1", "2P6/2P1k4/2P6/2P6/2P6/9/9/9/9/3K5 w - - 0 1"}
	f.Fuzz(func(t *testing.T, text string) {
		for _, fen := range fens {
			g := mustGame(t, fen)
			m, err := Parse(g, text)
			if err != nil {
				if Detect(text) != SAN {
					var e *Error
					if !errors.As(err, &e) {
						t.Fatalf("%q: error %v is not an *Error", text, err)
					}
				}
				continue
			}
			if !g.IsLegal(m) {
				t.Fatalf("%q: %v is not legal in %s", text, m, fen)
			}
			for _, w := range []string{string(AppendWXF(nil, g, m)), string(AppendChinese(nil, g, m, false))} {
				if back, err := Parse(g, w); err != nil || back != m {
					t.Fatalf("%q in %s: %v written %s reads %v, %v", text, fen, m, w, back, err)
				}
			}
		}
	})
}
