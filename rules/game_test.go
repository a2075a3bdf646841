package rules

import (
	"math/rand/v2"
	"testing"
)

// Boards gives Ancestor's boards, passes and captures included, and stops
// at the root.
func TestBoardsMatchAncestor(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for _, name := range []string{"xiangqi", "janggi"} {
		rs := MustPreset(name)
		g, _ := NewGame(rs, rs.StartFEN())
		passes := 0
		for ply := 0; ply < 120 && !g.Result().Over(); ply++ {
			var dst [5][Squares]Piece
			n := g.Boards(dst[:])
			if want := min(len(dst), ply+1); n != want {
				t.Fatalf("%s ply %d: %d boards, want %d", name, ply, n, want)
			}
			for k := range n {
				anc, ok := g.Ancestor(k)
				if !ok || anc.Pieces() != dst[k] {
					t.Fatalf("%s ply %d: board %d back differs from Ancestor's", name, ply, k)
				}
			}
			legal := g.LegalMoves(nil)
			m := legal[rng.IntN(len(legal))]
			for _, c := range legal {
				if c.IsPass() && rng.IntN(4) == 0 {
					m = c
				}
			}
			if m.IsPass() {
				passes++
			}
			g.Play(m)
		}
		if name == "janggi" && passes == 0 {
			t.Fatal("the janggi game never passed: the test proves little")
		}
	}
}
