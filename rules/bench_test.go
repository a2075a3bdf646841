package rules

import (
	"math/rand/v2"
	"testing"
)

func benchPerft(b *testing.B, rules, fen string, depth int) {
	g, err := NewGame(MustPreset(rules), fen)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		nodes += g.Perft(depth)
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "leaves/s")
}

// The yardstick: Fairy-Stockfish counts about 10–12 M leaves/s per
// core here; scripts/perft-vs-fsf.sh measures both in one run.
func BenchmarkPerftXiangqiStart4(b *testing.B) { benchPerft(b, "xiangqi", XiangqiStartFEN, 4) }
func BenchmarkPerftJanggiStart4(b *testing.B)  { benchPerft(b, "janggi", JanggiStartFEN, 4) }

func BenchmarkPerftXiangqiMiddlegame(b *testing.B) {
	benchPerft(b, "xiangqi", "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1", 3)
}

func BenchmarkLegalMovesXiangqiStart(b *testing.B) {
	pos, _ := ParseFEN(XiangqiStartFEN, MustPreset("xiangqi"))
	buf := make([]Move, 0, MaxMoves)
	b.ReportAllocs()
	for b.Loop() {
		buf = pos.LegalMoves(buf[:0])
	}
}

func BenchmarkMakeUnmake(b *testing.B) {
	pos, _ := ParseFEN(XiangqiStartFEN, MustPreset("xiangqi"))
	moves := pos.LegalMoves(nil)
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range moves {
			u := pos.MakeMove(m)
			pos.UnmakeMove(m, u)
		}
	}
}

// recordGames plays seeded random games (to their end or 200 plies) for the
// adjudication benchmarks.
func recordGames(rules string, n int) (*RuleSet, [][]Move) {
	rs := MustPreset(rules)
	rng := rand.New(rand.NewPCG(11, 12))
	var games [][]Move
	for i := 0; i < n; i++ {
		g, _ := NewGame(rs, rs.StartFEN())
		for ply := 0; ply < 200 && !g.Result().Over(); ply++ {
			moves := g.LegalMoves(nil)
			g.Play(moves[rng.IntN(len(moves))])
		}
		games = append(games, g.Moves(nil))
	}
	return rs, games
}

// BenchmarkAdjudication measures, per ply of self-play-like games, what
// move generation costs and what the Game's history bookkeeping (Play's
// state plus Result) costs; MakeMove alone is the common part to subtract:
// overhead = (bookkeeping - makemove) / (legalmoves - makemove).
func BenchmarkAdjudication(b *testing.B) {
	for _, rules := range []string{"xiangqi", "janggi"} {
		rs, games := recordGames(rules, 20)
		plies := 0
		for _, g := range games {
			plies += len(g)
		}
		run := func(name string, perGame func(moves []Move)) {
			b.Run(rules+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					for _, moves := range games {
						perGame(moves)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*plies), "ns/ply")
			})
		}
		buf := make([]Move, 0, MaxMoves)
		root, _ := ParseFEN(rs.StartFEN(), rs)
		run("makemove", func(moves []Move) {
			pos := root
			for _, m := range moves {
				pos.MakeMove(m)
			}
		})
		run("legalmoves", func(moves []Move) {
			pos := root
			for _, m := range moves {
				buf = pos.LegalMoves(buf[:0])
				pos.MakeMove(m)
			}
		})
		g, _ := NewGame(rs, rs.StartFEN())
		run("bookkeeping", func(moves []Move) {
			g.Reset()
			for _, m := range moves {
				g.Play(m)
				_ = g.Result()
			}
		})
	}
}

// LegalMoves on the positions of random games the lookahead benchmarks
// use: one op is one position's moves.
func BenchmarkLegalMovesGames(b *testing.B) {
	benchGamesMoves(b, func(g *Game, buf []Move) []Move { return g.pos.LegalMoves(buf) })
}

// benchGamesMoves times legal, one position's move generation, on the
// positions of benchPositions' random games of both games.
func benchGamesMoves(b *testing.B, legal func(g *Game, buf []Move) []Move) {
	for _, name := range []string{"xiangqi", "janggi"} {
		gs, _ := benchPositions(name)
		b.Run(name, func(b *testing.B) {
			buf := make([]Move, 0, MaxMoves)
			b.ReportAllocs()
			for b.Loop() {
				for _, g := range gs {
					buf = legal(g, buf[:0])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(gs)), "ns/position")
		})
	}
}

// HasLegalMove after every legal move of the positions of random games,
// as the root lookahead's mate and stalemate tests ask it: one op is one
// position's moves.
func BenchmarkHasLegalMoveGames(b *testing.B) {
	for _, name := range []string{"xiangqi", "janggi"} {
		gs, legal := benchPositions(name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				for i, g := range gs {
					p := &g.pos
					for _, m := range legal[i] {
						u := p.MakeMove(m)
						p.HasLegalMove()
						p.UnmakeMove(m, u)
					}
					n += len(legal[i])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/move")
		})
	}
}

// Game.LegalMoves on the positions BenchmarkLegalMovesGames uses: the
// game's history rules on top of the position's moves. One op is one
// position's moves.
func BenchmarkGameLegalMoves(b *testing.B) {
	benchGamesMoves(b, (*Game).LegalMoves)
}
