package openings

import (
	"testing"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// TestMatcherAgreesWithTheTree: for every position and move of a tree,
// the games the matcher picks out are as many as the tree counts there,
// transpositions, filters and depth included.
func TestMatcherAgreesWithTheTree(t *testing.T) {
	hand, handSets := handGames(t)
	random, randomSets := randomGames(20, 40)
	cases := []struct {
		name  string
		games []gamerec.Game
		sets  map[string]*rules.RuleSet
		f     Filter
	}{
		{"hand, whole games", hand, handSets, Filter{}},
		{"hand, 3 plies, xiangqi, 2007", hand, handSets, Filter{Depth: 3, RuleSet: "xiangqi", From: "2007", To: "2007"}},
		{"hand, generations 1-3", hand, handSets, Filter{Generations: &Generations{Min: 1, Max: 3}}},
		{"random, 12 plies", random, randomSets, Filter{Depth: 12}},
	}
	for _, c := range cases {
		tree := buildFrom(t, c.games, c.sets, c.f)
		v, err := tree.View()
		if err != nil {
			t.Fatal(err)
		}
		count := func(ruleSet, fen, move string) int {
			m, err := c.f.Matcher(ruleSet, fen, move)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for i := range c.games {
				g := &c.games[i]
				ok, err := m.Match(g, c.sets[g.RuleSet])
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					n++
				}
			}
			return n
		}
		checked := 0
		for id := range v.Positions {
			p := &v.Positions[id]
			if got := count(p.RuleSet, p.FEN, ""); got != p.Games {
				t.Errorf("%s: position %d (%s): %d games matched, the tree counts %d", c.name, id, p.FEN, got, p.Games)
			}
			for _, mv := range p.Moves {
				if got := count(p.RuleSet, p.FEN, mv.Move); got != mv.Count {
					t.Errorf("%s: position %d move %s: %d games matched, the tree counts %d", c.name, id, mv.Move, got, mv.Count)
				}
			}
			if checked++; checked == 300 {
				break
			}
		}
	}
	var f Filter
	if _, err := f.Matcher("xiangqi@x", rules.XiangqiStartFEN, "z9"); err == nil {
		t.Error("a bad move was taken")
	}
}

// TestExploreIsSelectOneMoveDeep: Explore lists the same roots, moves and
// counts as Select, and the positions the moves lead to without theirs.
func TestExploreIsSelectOneMoveDeep(t *testing.T) {
	games, sets := randomGames(20, 40)
	tree := buildFrom(t, games, sets, Filter{Depth: 10})
	whole, err := tree.View()
	if err != nil {
		t.Fatal(err)
	}
	first := &whole.Positions[whole.Roots[0]]
	for _, sel := range []struct{ fen, moves string }{{"", ""}, {first.FEN, first.Moves[0].Move}, {"", first.Moves[1].Move}} {
		full, err1 := tree.Select(sel.fen, sel.moves, 1)
		one, err2 := tree.Explore(sel.fen, sel.moves, 1)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if len(full.Roots) != len(one.Roots) {
			t.Fatalf("%v: %d roots, Explore %d", sel, len(full.Roots), len(one.Roots))
		}
		for k := range full.Roots {
			a, b := &full.Positions[full.Roots[k]], &one.Positions[one.Roots[k]]
			if a.FEN != b.FEN || a.Games != b.Games || len(a.Moves) != len(b.Moves) {
				t.Fatalf("%v root %d differs", sel, k)
			}
			for i := range a.Moves {
				ma, mb := a.Moves[i], b.Moves[i]
				if ma.Move != mb.Move || ma.Count != mb.Count || ma.WDL != mb.WDL ||
					full.Positions[ma.Next].FEN != one.Positions[mb.Next].FEN || len(one.Positions[mb.Next].Moves) != 0 {
					t.Fatalf("%v root %d move %s differs", sel, k, ma.Move)
				}
			}
		}
		if tree.RuleSet(full.Positions[full.Roots[0]].RuleSet) == nil || tree.RuleSet("nope@0") != nil {
			t.Error("RuleSet does not find the tree's rule sets")
		}
	}
}
