package rules

import (
	"math/rand/v2"
	"testing"
)

// Boards gives Ancestor's boards, and MoveBack the moves and captures
// between them, passes and captures included, and both stop at the root.
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
			// MoveBack: the move k+1 plies back and what it took from
			// the board before it.
			moves := g.Moves(nil)
			for k := 0; k <= ply+1; k++ {
				m, captured, ok := g.MoveBack(k)
				if ok != (k < ply) {
					t.Fatalf("%s ply %d: MoveBack(%d) ok %v", name, ply, k, ok)
				}
				if !ok {
					continue
				}
				before, _ := g.Ancestor(k + 1)
				want := NoPiece
				if !m.IsPass() {
					want = before.Board(m.To())
				}
				if m != moves[len(moves)-1-k] || captured != want {
					t.Fatalf("%s ply %d: MoveBack(%d) = %v, %v; want %v, %v", name, ply, k, m, captured, moves[len(moves)-1-k], want)
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
