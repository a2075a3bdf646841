package mcts

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
)

func uniform() nn.Evaluator { return nn.NewUniform(encode.InputSize, encode.PolicySize()) }

func random(seed uint64) nn.Evaluator {
	return nn.NewRandom(encode.InputSize, encode.PolicySize(), seed)
}

func newGame(t testing.TB, rs *rules.RuleSet, fen string) *rules.Game {
	t.Helper()
	g, err := rules.NewGame(rs, fen)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func newSearch(t testing.TB, p Params, ev nn.Evaluator) *Search {
	t.Helper()
	s, err := New(p, ev)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// capped is a preset with a length cap, so random games end quickly.
func capped(t testing.TB, base string, plies int) *rules.RuleSet {
	t.Helper()
	rs, err := rules.ParseRuleSet(fmt.Appendf(nil, "base: %s\nmaxPlies: %d\n", base, plies), "test")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// flipFEN turns a position upside down with the colours swapped and the
// other side to move: the same problem for the other side. Both games'
// rules are symmetric under it.
func flipFEN(fen string) string {
	f := strings.Fields(fen)
	ranks := strings.Split(f[0], "/")
	for i, j := 0, len(ranks)-1; i < j; i, j = i+1, j-1 {
		ranks[i], ranks[j] = ranks[j], ranks[i]
	}
	board := []byte(strings.Join(ranks, "/"))
	for i, c := range board {
		switch {
		case c >= 'a' && c <= 'z':
			board[i] = c - 'a' + 'A'
		case c >= 'A' && c <= 'Z':
			board[i] = c - 'A' + 'a'
		}
	}
	side := "b"
	if len(f) > 1 && f[1] == "b" {
		side = "w"
	}
	return string(board) + " " + side + " - - 0 1"
}

// matesIn1 lists the moves that checkmate at once.
func matesIn1(g *rules.Game) []rules.Move {
	var out []rules.Move
	for _, m := range g.LegalMoves(nil) {
		g.Play(m)
		if r := g.Result(); r.Over() && r.Reason == rules.Checkmate {
			out = append(out, m)
		}
		g.Undo()
	}
	return out
}

// matesIn2 lists the moves after which every defence allows a mate in 1.
func matesIn2(g *rules.Game) []rules.Move {
	var out []rules.Move
	for _, m := range g.LegalMoves(nil) {
		g.Play(m)
		ok := !g.Result().Over()
		for _, d := range g.LegalMoves(nil) {
			if !ok {
				break
			}
			g.Play(d)
			ok = !g.Result().Over() && len(matesIn1(g)) > 0
			g.Undo()
		}
		g.Undo()
		if ok {
			out = append(out, m)
		}
	}
	return out
}

// checkResult checks what every Result must satisfy in position g: moves
// are exactly the legal ones; policy and prior are distributions over them;
// Best and the principal variation are playable; value and WDL agree.
func checkResult(t testing.TB, g *rules.Game, r *Result) {
	t.Helper()
	legal := g.LegalMoves(nil)
	if rules.SortedMoveText(legal) != rules.SortedMoveText(r.Moves) {
		t.Fatalf("%s: result moves %v, legal %v", g.Position().FEN(), r.Moves, legal)
	}
	// Every simulation's leaf lies between one ply and the deepest leaf.
	if r.LeafDepths < r.Simulations || r.LeafDepths > r.Simulations*r.Depth {
		t.Fatalf("leaf depths sum to %d over %d simulations of depth at most %d", r.LeafDepths, r.Simulations, r.Depth)
	}
	n := len(r.Moves)
	if len(r.Visits) != n || len(r.Policy) != n || len(r.Prior) != n || len(r.Q) != n {
		t.Fatalf("lengths: moves %d visits %d policy %d prior %d q %d", n, len(r.Visits), len(r.Policy), len(r.Prior), len(r.Q))
	}
	for _, d := range []struct {
		name string
		p    []float32
	}{{"policy", r.Policy}, {"prior", r.Prior}} {
		var sum float64
		for _, x := range d.p {
			if !(x >= 0 && x <= 1) {
				t.Fatalf("%s entry %v", d.name, x)
			}
			sum += float64(x)
		}
		if math.Abs(sum-1) > 1e-4 {
			t.Fatalf("%s sums to %v", d.name, sum)
		}
	}
	for i, q := range r.Q {
		if !(q >= -1 && q <= 1) {
			t.Fatalf("Q[%d] = %v", i, q)
		}
	}
	if !(r.Value >= -1 && r.Value <= 1) {
		t.Fatalf("value %v", r.Value)
	}
	w := r.WDL
	if math.Abs(float64(w[0]+w[1]+w[2]-1)) > 1e-4 || math.Abs(float64(w[0]-w[2]-r.Value)) > 1e-4 {
		t.Fatalf("WDL %v with value %v", w, r.Value)
	}
	if !g.IsLegal(r.Best) {
		t.Fatalf("%s: best move %v is illegal", g.Position().FEN(), r.Best)
	}
	for i, m := range r.PV {
		if !g.IsLegal(m) {
			t.Fatalf("%s: PV move %d (%v) illegal in %v", g.Position().FEN(), i, m, r.PV)
		}
		g.Play(m)
	}
	for range r.PV {
		g.Undo()
	}
	sum := 0
	for _, v := range r.Visits {
		sum += v
	}
	if sum < r.Simulations {
		t.Fatalf("visits sum to %d after %d simulations", sum, r.Simulations)
	}
}
