package encode

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/internal/gametest"
	"github.com/palace-chess/palace/rules"
)

// positions yields the reference move-list positions and positions from
// seeded random games under every preset.
func positions(t testing.TB, fn func(g *rules.Game)) {
	t.Helper()
	for _, tc := range []struct{ file, rules string }{
		{"xiangqi-moves-public.tsv", "xiangqi"},
		{"janggi-moves-public.tsv", "janggi"},
	} {
		f, err := os.Open(filepath.Join("..", "testdata", "perft", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fen, _, _ := strings.Cut(sc.Text(), "\t")
			g, err := rules.NewGame(rules.MustPreset(tc.rules), fen)
			if err != nil {
				t.Fatal(err)
			}
			fn(g)
		}
		f.Close()
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, name := range rules.PresetNames() {
		rs := rules.MustPreset(name)
		for i := 0; i < 6; i++ {
			g, _ := rules.NewGame(rs, rs.StartFEN())
			for ply := 0; ply < 150 && !g.Result().Over(); ply++ {
				fn(g)
				moves := g.LegalMoves(nil)
				g.Play(moves[rng.IntN(len(moves))])
			}
		}
	}
}

func TestEveryLegalMoveHasASlot(t *testing.T) {
	if PolicySize() < 2000 || PolicySize() > 4000 {
		t.Errorf("PolicySize() = %d, outside the expected 2000–4000", PolicySize())
	}
	count := 0
	positions(t, func(g *rules.Game) {
		pos := g.Position()
		side := pos.SideToMove()
		seen := map[int]bool{}
		for _, m := range g.LegalMoves(nil) {
			i := MoveIndex(m, side)
			if i < 0 {
				t.Fatalf("%s: legal move %s has no policy slot", pos.FEN(), m)
			}
			if seen[i] {
				t.Fatalf("%s: two legal moves share slot %d", pos.FEN(), i)
			}
			seen[i] = true
			back, ok := IndexMove(i, side, pos.KingSquare(side))
			if !ok || back != m {
				t.Fatalf("%s: slot %d decodes to %s, want %s", pos.FEN(), i, back, m)
			}
			count++
		}
	})
	if count == 0 {
		t.Fatal("no moves checked")
	}
}

// Mirroring the planes and the policy of a position gives the planes and
// the policy of the mirrored position.
func TestMirror(t *testing.T) {
	for i := 0; i < PolicySize(); i++ {
		j := MirrorIndex(i)
		if j < 0 || MirrorIndex(j) != i {
			t.Fatalf("MirrorIndex is not an involution at %d (→ %d)", i, j)
		}
	}
	a := make([]float32, InputSize)
	b := make([]float32, InputSize)
	m := make([]float32, InputSize)
	positions(t, func(g *rules.Game) {
		if g.Ply() > 0 {
			return // the mirrored game would need the mirrored history: roots only
		}
		pos := g.Position()
		mg, err := rules.NewGame(g.Rules(), gametest.MirrorFEN(pos.FEN()))
		if err != nil {
			t.Fatal(err)
		}
		legal, mlegal := g.LegalMoves(nil), mg.LegalMoves(nil)
		if err := Encode(g, legal, a); err != nil {
			t.Fatal(err)
		}
		if err := Encode(mg, mlegal, b); err != nil {
			t.Fatal(err)
		}
		copy(m, a)
		if err := MirrorPlanes(m, m); err != nil {
			t.Fatal(err)
		}
		for k := range m {
			if m[k] != b[k] {
				t.Fatalf("%s: mirrored planes differ from the mirrored position's at %d", pos.FEN(), k)
			}
		}
		want := map[int]bool{}
		for _, i := range LegalIndices(mlegal, mg.Position().SideToMove(), nil) {
			want[int(i)] = true
		}
		for _, i := range LegalIndices(legal, pos.SideToMove(), nil) {
			if !want[MirrorIndex(int(i))] {
				t.Fatalf("%s: mirror of slot %d is not legal in the mirrored position", pos.FEN(), i)
			}
		}
	})
}

func plane(planes []float32, p int) []float32 { return planes[p*rules.Squares:][:rules.Squares] }

func TestEncodeStart(t *testing.T) {
	for _, name := range []string{"xiangqi", "janggi"} {
		rs := rules.MustPreset(name)
		g, _ := rules.NewGame(rs, rs.StartFEN())
		buf := make([]float32, InputSize)
		if err := Encode(g, g.LegalMoves(nil), buf); err != nil {
			t.Fatal(err)
		}
		kingSq := rules.SquareAt(4, 0)
		if name == "janggi" {
			kingSq = rules.SquareAt(4, 1)
		}
		if plane(buf, 0)[kingSq] != 1 { // own general, own frame
			t.Errorf("%s: own general not on %s", name, kingSq)
		}
		// Opponent's general, seen from White: rank 10 (xiangqi) or 9.
		oppKing := rules.SquareAt(4, 9)
		if name == "janggi" {
			oppKing = rules.SquareAt(4, 8)
		}
		if plane(buf, 7)[oppKing] != 1 {
			t.Errorf("%s: opponent's general not on %s", name, oppKing)
		}
		// After one move, Black's view puts Black's general at the bottom.
		g.Play(g.LegalMoves(nil)[0])
		if err := Encode(g, g.LegalMoves(nil), buf); err != nil {
			t.Fatal(err)
		}
		if plane(buf, 0)[kingSq] != 1 {
			t.Errorf("%s: Black's general not at the bottom of its own frame", name)
		}
		if plane(buf, HistorySteps*piecePlanes+featBlackToMove)[0] != 1 {
			t.Errorf("%s: Black to move not marked", name)
		}
		// History: one step back, the mover's piece stood elsewhere.
		same := true
		for k := 0; k < piecePlanes*rules.Squares; k++ {
			if buf[k] != buf[piecePlanes*rules.Squares+k] {
				same = false
			}
		}
		if same {
			t.Errorf("%s: the previous position's planes equal the current ones", name)
		}
		if v := plane(buf, HistorySteps*piecePlanes+featOnes)[89]; v != 1 {
			t.Errorf("%s: ones plane holds %v", name, v)
		}
	}
}

func TestEncodeFeatures(t *testing.T) {
	// Janggi, Black to move in bikjang: pass legal, bikjang set, counting
	// margin: Black has nothing but 1.5 against White's chariot, 13.
	g, _ := rules.NewGame(rules.MustPreset("janggi"), "4k4/9/9/9/9/9/9/9/4K4/R8 b - - 0 1")
	buf := make([]float32, InputSize)
	if err := Encode(g, g.LegalMoves(nil), buf); err != nil {
		t.Fatal(err)
	}
	f := func(i int) float32 { return plane(buf, HistorySteps*piecePlanes+i)[40] }
	if f(featPassLegal) != 1 || f(featBikjang) != 1 || f(featJanggi) != 1 || f(featCounting) != 1 {
		t.Errorf("pass %v bikjang %v janggi %v counting %v", f(featPassLegal), f(featBikjang), f(featJanggi), f(featCounting))
	}
	if want := float32(-13+1.5) / 40; f(featCountMargin) != want {
		t.Errorf("count margin %v, want %v", f(featCountMargin), want)
	}
	if f(featChaseRule) != 0 || f(featFacingBikjang) != 1 {
		t.Errorf("rule planes: chase %v bikjang %v", f(featChaseRule), f(featFacingBikjang))
	}
	if err := Encode(g, nil, buf[:10]); err == nil {
		t.Error("a short destination was accepted")
	}
	// Xiangqi has no counting, but its networks see the material margin
	// too: Black to move, with nothing against a chariot and a horse
	// (13 + 5).
	g, err := rules.NewGame(rules.MustPreset("xiangqi"), "3k5/9/9/9/9/9/9/9/4K4/R3N4 b - - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	if err := Encode(g, g.LegalMoves(nil), buf); err != nil {
		t.Fatal(err)
	}
	if f(featCounting) != 0 || f(featCountMargin) != float32(-18)/40 {
		t.Errorf("xiangqi: counting %v, margin %v, want 0 and %v", f(featCounting), f(featCountMargin), float32(-18)/40)
	}
}

func BenchmarkEncode(b *testing.B) {
	rs := rules.MustPreset("xiangqi")
	g, _ := rules.NewGame(rs, "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1")
	for _, m := range []string{"i10i9", "b10b9", "i9i10", "b9b10"} {
		if _, err := g.PlayText(m, rules.Ranks1); err != nil {
			b.Fatal(err)
		}
	}
	legal := g.LegalMoves(nil)
	buf := make([]float32, InputSize)
	b.ReportAllocs()
	for b.Loop() {
		if err := Encode(g, legal, buf); err != nil {
			b.Fatal(err)
		}
	}
}

// Key separates what the planes separate: the same position reached along
// different recent histories has different keys, the same history the same.
func TestKey(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	a, _ := rules.NewGame(rs, rs.StartFEN())
	b, _ := rules.NewGame(rs, rs.StartFEN())
	for _, m := range []string{"h1g3", "h10g8", "b1c3"} {
		a.PlayText(m, rules.Ranks1)
	}
	for _, m := range []string{"b1c3", "h10g8", "h1g3"} {
		b.PlayText(m, rules.Ranks1)
	}
	if a.Position().Key() != b.Position().Key() {
		t.Fatal("the two move orders should reach the same position")
	}
	if Key(a) == Key(b) {
		t.Error("different histories share an encoder key")
	}
	c, _ := rules.NewGame(rs, rs.StartFEN())
	for _, m := range []string{"h1g3", "h10g8", "b1c3"} {
		c.PlayText(m, rules.Ranks1)
	}
	if Key(a) != Key(c) {
		t.Error("the same history gave different keys")
	}
}

func TestKeyAllocatesNothing(t *testing.T) {
	rs := rules.MustPreset("janggi")
	g, _ := rules.NewGame(rs, rs.StartFEN())
	Key(g)
	if n := testing.AllocsPerRun(100, func() { Key(g) }); n != 0 {
		t.Errorf("Key allocates %v times per call", n)
	}
}

// The material margin plane counts what rules counts, in positions of
// random games of both games with captures along the way.
func TestMaterialMarginMatchesRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	seen := map[int]bool{}
	for _, preset := range []string{"xiangqi", "janggi"} {
		rs := rules.MustPreset(preset)
		for game := range 20 {
			g, err := rules.NewGame(rs, rs.StartFEN())
			if err != nil {
				t.Fatal(err)
			}
			gametest.Playout(rng, g, 10+game*8)
			pos := g.Position()
			board := pos.Pieces()
			for _, side := range []rules.Color{rules.White, rules.Black} {
				got, want := materialMargin(&board, side), pos.MaterialBalance(side)
				if got != want {
					t.Fatalf("%s, %v's view: margin %d, rules says %d", pos.FEN(), side, got, want)
				}
				seen[got] = true
			}
		}
	}
	if len(seen) < 5 {
		t.Fatalf("only margins %v seen: the games captured too little to test", seen)
	}
}

// Encode over many different positions of random games (one op is one
// position), where the pieces fall as they do in self-play, not the same
// way every time as in BenchmarkEncode.
func BenchmarkEncodeGames(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	rs := rules.MustPreset("xiangqi")
	var games []*rules.Game
	var legal [][]rules.Move
	for i := range 256 {
		g, _ := rules.NewGame(rs, rs.StartFEN())
		gametest.Playout(rng, g, 4+i%80)
		if g.Result().Over() {
			continue
		}
		games, legal = append(games, g), append(legal, g.LegalMoves(nil))
	}
	buf := make([]float32, InputSize)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := Encode(games[i], legal[i], buf); err != nil {
			b.Fatal(err)
		}
		i = (i + 1) % len(games)
	}
}

// EncodeState writes every float of its destination (it no longer clears
// it first): positions of random games under every preset encode the same
// into a buffer of garbage as into a zeroed one, to the bit.
func TestEncodeOverwritesEverything(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 3))
	clean, dirty := make([]float32, InputSize), make([]float32, InputSize)
	for _, name := range rules.PresetNames() {
		for _, capped := range []bool{false, true} {
			rs := rules.MustPreset(name)
			if capped {
				c := *rs
				c.MaxPlies = 300
				rs = &c
			}
			for game := range 8 {
				g, err := rules.NewGame(rs, rs.StartFEN())
				if err != nil {
					t.Fatal(err)
				}
				gametest.Playout(rng, g, game*10)
				legal := g.LegalMoves(nil)
				clear(clean)
				for i := range dirty {
					dirty[i] = float32(i%7) - 3.5
				}
				if err := Encode(g, legal, clean); err != nil {
					t.Fatal(err)
				}
				if err := Encode(g, legal, dirty); err != nil {
					t.Fatal(err)
				}
				for i := range clean {
					if math.Float32bits(clean[i]) != math.Float32bits(dirty[i]) {
						t.Fatalf("%s, %s: float %d (plane %d) is %v over garbage, %v over zeros", rs.Name, g.Position().FEN(), i, i/rules.Squares, dirty[i], clean[i])
					}
				}
			}
		}
	}
}

// An Encoder writes what Encode writes, to the bit, leaf after leaf: into
// one buffer, positions of random games under every preset, now a few
// plies on or back along one game (as a search's leaves follow each other,
// sides to move alike and not), now another game's or rule set's, and now
// and then into another buffer.
func TestEncoderMatchesEncode(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 4))
	var games []*rules.Game
	for _, name := range rules.PresetNames() {
		rs := rules.MustPreset(name)
		for range 4 {
			g, err := rules.NewGame(rs, rs.StartFEN())
			if err != nil {
				t.Fatal(err)
			}
			games = append(games, g)
		}
	}
	var enc Encoder
	bufs := [2][]float32{make([]float32, InputSize), make([]float32, InputSize)}
	want := make([]float32, InputSize)
	g := games[0]
	for range 6000 {
		switch roll := rng.IntN(20); {
		case roll == 0:
			g = games[rng.IntN(len(games))]
		case roll < 8 && g.Ply() > 0:
			for range 1 + rng.IntN(3) {
				g.Undo()
			}
		default:
			for range 1 + rng.IntN(3) {
				if legal := g.LegalMoves(nil); len(legal) > 0 && !g.Result().Over() {
					g.Play(legal[rng.IntN(len(legal))])
				}
			}
		}
		legal := g.LegalMoves(nil)
		buf := bufs[0]
		if rng.IntN(15) == 0 {
			buf = bufs[1]
		}
		if err := enc.Encode(g, legal, buf); err != nil {
			t.Fatal(err)
		}
		if err := Encode(g, legal, want); err != nil {
			t.Fatal(err)
		}
		for j := range want {
			if math.Float32bits(want[j]) != math.Float32bits(buf[j]) {
				t.Fatalf("%s %s: float %d (plane %d) is %v, Encode writes %v", g.Rules().Name, g.Position().FEN(), j, j/rules.Squares, buf[j], want[j])
			}
		}
	}
}

// A search's leaves into one buffer, Encode against an Encoder: each root
// move of a middlegame, then each reply to a few of them, in turn (the
// sides to move alternate between the two halves). One op is one leaf.
func BenchmarkEncodeLeaves(b *testing.B) {
	rs := rules.MustPreset("xiangqi")
	g, _ := rules.NewGame(rs, "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1")
	var leaves [][]rules.Move
	for _, m := range g.LegalMoves(nil) {
		leaves = append(leaves, []rules.Move{m})
	}
	for _, m := range g.LegalMoves(nil)[:4] {
		g.Play(m)
		for _, r := range g.LegalMoves(nil) {
			leaves = append(leaves, []rules.Move{m, r})
		}
		g.Undo()
	}
	legal := make([][]rules.Move, len(leaves))
	for i, path := range leaves {
		for _, m := range path {
			g.Play(m)
		}
		legal[i] = g.LegalMoves(nil)
		for range path {
			g.Undo()
		}
	}
	buf := make([]float32, InputSize)
	for _, way := range []string{"encode", "encoder"} {
		b.Run(way, func(b *testing.B) {
			var enc Encoder
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				path := leaves[i%len(leaves)]
				for _, m := range path {
					g.Play(m)
				}
				var err error
				if way == "encode" {
					err = Encode(g, legal[i%len(leaves)], buf)
				} else {
					err = enc.Encode(g, legal[i%len(leaves)], buf)
				}
				if err != nil {
					b.Fatal(err)
				}
				for range path {
					g.Undo()
				}
				i++
			}
		})
	}
}
