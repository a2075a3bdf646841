package rules

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

type perftCase struct {
	line  int
	fen   string
	depth int
	nodes uint64
}

func readPerftFile(t testing.TB, name string) []perftCase {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "perft", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []perftCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 3 {
			t.Fatalf("%s:%d: want 3 columns, got %d", name, n, len(cols))
		}
		d, err1 := strconv.Atoi(cols[1])
		nodes, err2 := strconv.ParseUint(cols[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s:%d: bad numbers", name, n)
		}
		cases = append(cases, perftCase{n, cols[0], d, nodes})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("%s: no cases", name)
	}
	return cases
}

// perftBudget is the largest expected count checked in the default run;
// `go test -short` checks depth 3 and below only, and PALACE_PERFT_FULL=1
// checks every line.
func perftBudget() uint64 {
	if os.Getenv("PALACE_PERFT_FULL") != "" {
		return 1 << 62
	}
	if testing.Short() {
		return 0
	}
	return 5_000_000
}

func TestPerftTables(t *testing.T) {
	for _, tc := range []struct{ file, rules string }{
		{"xiangqi-public.tsv", "xiangqi"},
		{"janggi-public.tsv", "janggi"},
		{"janggi-public.tsv", "janggitraditional"},
		{"janggimodern-public.tsv", "janggimodern"},
		{"janggimodern-public.tsv", "janggicasual"},
	} {
		t.Run(tc.rules, func(t *testing.T) {
			rs := MustPreset(tc.rules)
			checked, skipped := 0, 0
			for _, c := range readPerftFile(t, tc.file) {
				if c.depth > 3 && c.nodes > perftBudget() {
					skipped++
					continue
				}
				g, err := NewGame(rs, c.fen)
				if err != nil {
					t.Fatalf("%s:%d: %v", tc.file, c.line, err)
				}
				if got := g.Perft(c.depth); got != c.nodes {
					t.Errorf("%s:%d: perft(%d) of %s = %d, want %d", tc.file, c.line, c.depth, c.fen, got, c.nodes)
				}
				checked++
			}
			t.Logf("%s under %s: %d lines checked, %d deep lines left to PALACE_PERFT_FULL=1", tc.file, tc.rules, checked, skipped)
		})
	}
}

func TestLegalMoveTables(t *testing.T) {
	for _, tc := range []struct{ file, rules string }{
		{"xiangqi-moves-public.tsv", "xiangqi"},
		{"janggi-moves-public.tsv", "janggi"},
	} {
		t.Run(tc.rules, func(t *testing.T) {
			rs := MustPreset(tc.rules)
			f, err := os.Open(filepath.Join("..", "testdata", "perft", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			lines := 0
			for n := 1; sc.Scan(); n++ {
				fen, want, ok := strings.Cut(sc.Text(), "\t")
				if !ok {
					t.Fatalf("%s:%d: no tab", tc.file, n)
				}
				pos, err := ParseFEN(fen, rs)
				if err != nil {
					t.Fatalf("%s:%d: %v", tc.file, n, err)
				}
				legal := pos.LegalMoves(nil)
				if got := SortedMoveText(legal); got != want {
					t.Errorf("%s:%d: %s\n got  %s\n want %s", tc.file, n, fen, got, want)
				}
				if m, ok := isLegalDisagrees(pos.IsLegal, legal); ok {
					t.Errorf("%s:%d: %s: IsLegal(%s) disagrees with LegalMoves", tc.file, n, fen, m)
				}
				if got := pos.FEN(); got != fen {
					t.Errorf("%s:%d: FEN round trip: got %s", tc.file, n, got)
				}
				lines++
			}
			if lines == 0 {
				t.Fatal("no lines")
			}
		})
	}
}

// isLegalDisagrees finds a move, among every from–to pair of squares,
// that isLegal judges otherwise than membership in legal.
func isLegalDisagrees(isLegal func(Move) bool, legal []Move) (Move, bool) {
	in := map[Move]bool{}
	for _, m := range legal {
		in[m] = true
	}
	for from := Square(0); from < Squares; from++ {
		for to := Square(0); to < Squares; to++ {
			if m := NewMove(from, to); m != NoMove && isLegal(m) != in[m] {
				return m, true
			}
		}
	}
	return NoMove, false
}

// TestIsLegalAgreesInPlay checks IsLegal against LegalMoves along random
// games of every preset, where passes, bikjang and history-ended games
// occur, through Game as importers use it.
func TestIsLegalAgreesInPlay(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	games := 6
	if testing.Short() {
		games = 2
	}
	for _, name := range PresetNames() {
		rs := MustPreset(name)
		for i := 0; i < games; i++ {
			g, err := NewGame(rs, rs.StartFEN())
			if err != nil {
				t.Fatal(err)
			}
			for ply := 0; ply < 300 && !g.ImmediateResult().Over(); ply++ {
				legal := g.LegalMoves(nil)
				if m, ok := isLegalDisagrees(g.IsLegal, legal); ok {
					has := slices.Contains(legal, m)
					t.Fatalf("%s: %s: IsLegal(%s) = %t, LegalMoves has it: %t", name, g.Position().FEN(), m, !has, has)
				}
				if len(legal) == 0 {
					break
				}
				g.Play(legal[rng.IntN(len(legal))])
			}
			if g.Position().IsLegal(Move(0xffff)) || g.IsLegal(NoMove) {
				t.Fatal("an out-of-range move is legal")
			}
		}
	}
}

// PerftStop counts what Perft counts while stop says no, gives up once it
// says yes, and leaves the game as it found it either way.
func TestPerftStop(t *testing.T) {
	rs := MustPreset("xiangqi")
	g, err := NewGame(rs, rs.StartFEN())
	if err != nil {
		t.Fatal(err)
	}
	want := g.Perft(3)
	if got, ok := g.PerftStop(3, func() bool { return false }); got != want || !ok {
		t.Errorf("PerftStop(3, never) = %d, %v; want %d, true", got, ok, want)
	}
	if got, ok := g.PerftStop(0, func() bool { return true }); got != 1 || !ok {
		t.Errorf("PerftStop(0) = %d, %v; want 1, true (no node above the leaves to stop at)", got, ok)
	}
	asked := 0
	got, ok := g.PerftStop(3, func() bool { asked++; return asked > 5 })
	if got != 0 || ok {
		t.Errorf("PerftStop(3) stopped at the 6th question = %d, %v; want 0, false", got, ok)
	}
	if asked != 6 {
		t.Errorf("stop asked %d times after saying stop at the 6th, want 6", asked)
	}
	if fen := g.Position().FEN(); fen != rs.StartFEN() || g.Ply() != 0 {
		t.Errorf("after a stopped perft the game is at %s, ply %d", fen, g.Ply())
	}
}
