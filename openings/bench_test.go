package openings

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// randomGames plays n seeded random games of each game (janggi from
// random setups), each to its end or maxPlies, as game records.
func randomGames(n, maxPlies int) ([]gamerec.Game, map[string]*rules.RuleSet) {
	xq, jg := rules.MustPreset("xiangqi"), rules.MustPreset("janggi")
	sets := map[string]*rules.RuleSet{xq.String(): xq, jg.String(): jg}
	rng := rand.New(rand.NewPCG(3, 4))
	var games []gamerec.Game
	buf := make([]rules.Move, 0, rules.MaxMoves)
	for i := range 2 * n {
		rs, fen, setup := xq, rules.XiangqiStartFEN, ""
		if i%2 == 1 {
			c, h := rules.JanggiSetup(rng.IntN(4)), rules.JanggiSetup(rng.IntN(4))
			rs, fen, setup = jg, rules.JanggiSetupFEN(c, h), c.String()+","+h.String()
		}
		g, err := rules.NewGame(rs, fen)
		if err != nil {
			panic(err)
		}
		var text []byte
		for ply := 0; ply < maxPlies && !g.Result().Over(); ply++ {
			buf = g.LegalMoves(buf[:0])
			m := buf[rng.IntN(len(buf))]
			g.Play(m)
			if ply > 0 {
				text = append(text, ' ')
			}
			text = m.AppendText(text, rules.Ranks1)
		}
		r := [...]string{gamerec.WhiteWins, gamerec.Draw, gamerec.BlackWins, gamerec.Unknown}[rng.IntN(4)]
		games = append(games, gamerec.Game{Source: "random", Index: i + 1, RuleSet: rs.String(), Setup: setup,
			Line: gamerec.Line{StartFEN: fen, Moves: string(text)}, Plies: g.Ply(), End: gamerec.End{Result: r}})
	}
	return games, sets
}

var bench struct {
	once      sync.Once
	games     []gamerec.Game
	sets      map[string]*rules.RuleSet
	positions int
}

// benchGames are the benchmark's games: 1000 of each game of up to 200
// plies (about 0.4 M positions); PALACE_OPENINGS_BENCH_GAMES sets another
// number per game.
func benchGames() ([]gamerec.Game, map[string]*rules.RuleSet, int) {
	bench.once.Do(func() {
		n := 1000
		if s := os.Getenv("PALACE_OPENINGS_BENCH_GAMES"); s != "" {
			if k, err := strconv.Atoi(s); err == nil && k > 0 {
				n = k
			}
		}
		bench.games, bench.sets = randomGames(n, 200)
		for i := range bench.games {
			bench.positions += bench.games[i].Plies + 1
		}
	})
	return bench.games, bench.sets, bench.positions
}

// BenchmarkBuild builds a whole-game tree from random playouts, where
// nearly every position is new: the worst case for the tree's maps.
func BenchmarkBuild(b *testing.B) {
	games, sets, positions := benchGames()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		bd, err := NewBuilder(Filter{})
		if err != nil {
			b.Fatal(err)
		}
		for i := range games {
			if err := bd.Add(&games[i], sets[games[i].RuleSet]); err != nil {
				b.Fatal(err)
			}
		}
		if bd.Tree().Games() != len(games) {
			b.Fatal("games lost")
		}
	}
	b.ReportMetric(float64(positions)*float64(b.N)/b.Elapsed().Seconds(), "positions/s")
	b.ReportMetric(float64(positions), "positions/op")
}

// Replaying into a tree that already holds the games allocates nothing:
// the per-position work is allocation-free.
func TestAddAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	games, sets := randomGames(20, 120)
	bd, err := NewBuilder(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	add := func() {
		for i := range games {
			if err := bd.Add(&games[i], sets[games[i].RuleSet]); err != nil {
				t.Fatal(err)
			}
		}
	}
	add()
	if n := testing.AllocsPerRun(5, add); n != 0 {
		t.Errorf("%v allocations replaying %d known games, want 0", n, len(games))
	}
	// Each game counts once per pass: 7 passes (one, then AllocsPerRun's
	// warm-up and 5 runs).
	v, err := bd.Tree().View()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, r := range v.Roots {
		total += v.Positions[r].Games
	}
	if total != 7*len(games) || bd.Tree().Games() != total {
		t.Errorf("roots count %d games, tree %d; want %d", total, bd.Tree().Games(), 7*len(games))
	}
	if !strings.HasPrefix(v.Positions[v.Roots[0]].RuleSet, "janggi@") && !strings.HasPrefix(v.Positions[v.Roots[0]].RuleSet, "xiangqi@") {
		t.Errorf("root %s", v.Positions[v.Roots[0]].RuleSet)
	}
}

// Over random games of both kinds, every listed position's FEN leads back
// to its own node, and the counts agree with each other.
func TestRandomTreeConsistency(t *testing.T) {
	games, sets := randomGames(30, 80)
	tree := buildFrom(t, games, sets, Filter{Depth: 40})
	v, err := tree.View()
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Positions) != tree.Positions() || tree.Games() != len(games) {
		t.Fatalf("view of %d positions, tree %d; %d games", len(v.Positions), tree.Positions(), tree.Games())
	}
	rsIndex := map[string]int{}
	for i, name := range tree.rsNames {
		rsIndex[name] = i
	}
	for id := range v.Positions {
		p := &v.Positions[id]
		pos, err := rules.ParseFEN(p.FEN, sets[p.RuleSet])
		if err != nil {
			t.Fatal(err)
		}
		n, ok := tree.index[nodeKey{pos.Key(), uint64(rsIndex[p.RuleSet])}]
		if !ok || int(tree.nodes[n].games) != p.Games || pos.SideToMove() != p.Side {
			t.Fatalf("position %d (%s): node %v %v", id, p.FEN, n, ok)
		}
		if want, _ := tree.position(n); want.FEN() != p.FEN {
			t.Errorf("position %d: FEN %s, its first path gives %s", id, p.FEN, want.FEN())
		}
		if p.White.Games()+p.Unscored != p.Games {
			t.Errorf("position %d: W/D/L %+v + %d unscored != %d games", id, p.White, p.Unscored, p.Games)
		}
		for _, m := range p.Moves {
			next := &v.Positions[m.Next]
			if m.WDL.Games()+m.Unscored != m.Count || next.Games < m.Count || next.Ply > p.Ply+1 || next.Side == p.Side {
				t.Errorf("position %d move %s: %+v leads to %d games at ply %d", id, m.Move, m, next.Games, next.Ply)
			}
		}
	}
}
