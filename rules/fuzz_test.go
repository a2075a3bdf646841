package rules

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedFENs adds every FEN of the move-list tables to a fuzz corpus.
func seedFENs(f *testing.F, add func(fen string)) {
	for _, name := range []string{"xiangqi-moves-public.tsv", "janggi-moves-public.tsv"} {
		file, err := os.Open(filepath.Join("..", "testdata", "perft", name))
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(file)
		for i := 0; sc.Scan(); i++ {
			if i%8 == 0 {
				fen, _, _ := strings.Cut(sc.Text(), "\t")
				add(fen)
			}
		}
		file.Close()
	}
}

var fuzzRuleSets = []string{"xiangqi", "janggi", "janggimodern", "janggiclassic"}

// FuzzFEN: no input panics the parser; what parses writes back to a FEN
// that parses to the same position, with a consistent key.
func FuzzFEN(f *testing.F) {
	seedFENs(f, func(fen string) { f.Add(fen, uint8(0)); f.Add(fen, uint8(1)) })
	f.Add("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR", uint8(0))
	f.Add("99999/9/9/9/9/9/9/9/9/9 w - - 0 1", uint8(2))
	f.Fuzz(func(t *testing.T, fen string, rsIndex uint8) {
		rs := MustPreset(fuzzRuleSets[int(rsIndex)%len(fuzzRuleSets)])
		p, err := ParseFEN(fen, rs)
		if err != nil {
			return
		}
		out := p.FEN()
		q, err := ParseFEN(out, rs)
		if err != nil {
			t.Fatalf("%q parsed, but its FEN %q does not: %v", fen, out, err)
		}
		if q != p {
			t.Fatalf("%q: round trip through %q changed the position", fen, out)
		}
		if p.Key() != p.ComputeKey() {
			t.Fatalf("%q: key %x, recomputed %x", fen, p.Key(), p.ComputeKey())
		}
	})
}

// FuzzMakeUnmake plays the moves the fuzz bytes choose: every make keeps
// the incremental key equal to a recomputed one, and unmaking every move
// restores the exact starting position.
func FuzzMakeUnmake(f *testing.F) {
	seedFENs(f, func(fen string) { f.Add(fen, uint8(0), []byte{3, 1, 4, 1, 5, 9, 2, 6}) })
	f.Fuzz(func(t *testing.T, fen string, rsIndex uint8, choices []byte) {
		rs := MustPreset(fuzzRuleSets[int(rsIndex)%len(fuzzRuleSets)])
		g, err := NewGame(rs, fen)
		if err != nil {
			return
		}
		start := *g.Position()
		buf := make([]Move, 0, MaxMoves)
		for _, c := range choices {
			buf = g.LegalMoves(buf[:0])
			if len(buf) == 0 {
				break
			}
			m := buf[int(c)%len(buf)]
			g.Play(m)
			p := g.Position()
			if p.Key() != p.ComputeKey() {
				t.Fatalf("after %s: key %x, recomputed %x", SortedMoveText(g.Moves(nil)), p.Key(), p.ComputeKey())
			}
			if p.kingAttacked(p.SideToMove().Other()) {
				t.Fatalf("after %s: the mover left its general attacked", SortedMoveText(g.Moves(nil)))
			}
			if _, err := ParseFEN(p.FEN(), rs); err != nil {
				t.Fatalf("after %s: FEN %s does not parse: %v", g.Moves(nil), p.FEN(), err)
			}
		}
		for g.Undo() {
		}
		if *g.Position() != start {
			t.Fatalf("make/unmake of %v did not restore %s: got %s", choices, fen, g.Position().FEN())
		}
	})
}

// FuzzParseMoveText: no input panics the move parser; what parses writes
// back to the same text.
func FuzzParseMoveText(f *testing.F) {
	for _, s := range []string{"h3e3", "a10a9", "e2e2", "i0i9", "b10c8", "", "a", "z9z9", "a1a1a1", "a10a10"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, zeroBased bool) {
		base := Ranks1
		if zeroBased {
			base = Ranks0
		}
		m, err := ParseMoveText(text, base)
		if err != nil {
			return
		}
		back := m.Text(base)
		m2, err := ParseMoveText(back, base)
		if err != nil || m2 != m {
			t.Fatalf("%q parsed to %s, which reads back as %v, %v", text, back, m2, err)
		}
		if strings.TrimSpace(text) != back {
			t.Fatalf("%q parsed but writes as %q", text, back)
		}
	})
}

// FuzzCheckedBy: the quick check test after a move agrees with the full one.
func FuzzCheckedBy(f *testing.F) {
	seedFENs(f, func(fen string) { f.Add(fen, uint8(0), []byte{2, 7, 1, 8, 2, 8}) })
	f.Fuzz(func(t *testing.T, fen string, rsIndex uint8, choices []byte) {
		rs := MustPreset(fuzzRuleSets[int(rsIndex)%len(fuzzRuleSets)])
		g, err := NewGame(rs, fen)
		if err != nil {
			return
		}
		buf := make([]Move, 0, MaxMoves)
		for _, c := range choices {
			buf = g.LegalMoves(buf[:0])
			if len(buf) == 0 {
				return
			}
			g.Play(buf[int(c)%len(buf)])
			if quick, full := g.states[len(g.states)-1].inCheck, g.Position().InCheck(); quick != full {
				t.Fatalf("after %v from %s: quick check %v, full %v", g.Moves(nil), fen, quick, full)
			}
		}
	})
}
