package rules

import (
	"math/rand/v2"
	"testing"
)

// playedResult is what WinsWith and GivesCheck shortcut: m played, the
// game's Result and InCheck read, m taken back.
func playedResult(g *Game, m Move) (won, check bool, r Result) {
	mover := g.pos.side
	g.Play(m)
	r, check = g.Result(), g.InCheck()
	g.Undo()
	return r.Over() && r.Outcome == winFor(mover), check, r
}

// WinsWith and GivesCheck agree with Play, Result and InCheck on every
// legal move of positions along random games under every preset, and
// under each with a short move limit and length cap; the games shuttle
// often, so repetitions, perpetual checks and chases come up.
func TestWinsWithMatchesResult(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	wins := map[Termination]int{}
	moves, checks := 0, 0
	for _, name := range PresetNames() {
		for _, short := range []bool{false, true} {
			rs := MustPreset(name)
			if short {
				c := *rs
				c.MoveLimit, c.MaxPlies = min(max(c.MoveLimit, 1), 16), 60
				rs = &c
			}
			for game := range 12 {
				g, err := NewGame(rs, rs.StartFEN())
				if err != nil {
					t.Fatal(err)
				}
				var hist []Move
				for ply := 0; ply < 160 && !g.Result().Over(); ply++ {
					legal := g.LegalMoves(nil)
					for _, m := range legal {
						won, check, r := playedResult(g, m)
						if got := g.WinsWith(m); got != won {
							t.Fatalf("%s, game %d, %s after %v: WinsWith(%v) = %v, Play and Result say %v",
								rs.Name, game, g.pos.FEN(), hist, m, got, r)
						}
						if got := g.GivesCheck(m); got != check {
							t.Fatalf("%s, %s: GivesCheck(%v) = %v, InCheck after it %v", rs.Name, g.pos.FEN(), m, got, check)
						}
						moves++
						if check {
							checks++
						}
						if won {
							wins[r.Reason]++
						}
					}
					// Back and forth half the time (the move two plies
					// back reversed), else a random move, leaning to checks.
					m := legal[rng.IntN(len(legal))]
					if n := len(hist); n >= 2 && rng.IntN(2) == 0 {
						if back := NewMove(hist[n-2].To(), hist[n-2].From()); !hist[n-2].IsPass() && g.IsLegal(back) {
							m = back
						}
					} else if rng.IntN(3) == 0 {
						for _, c := range legal {
							if g.GivesCheck(c) {
								m = c
								break
							}
						}
					}
					g.Play(m)
					hist = append(hist, m)
				}
			}
		}
	}
	t.Logf("%d moves, %d checks; wins by reason: %v", moves, checks, wins)
	if wins[Checkmate] == 0 || len(wins) < 3 {
		t.Fatalf("wins by %v only: the games reach too few ends to test", wins)
	}
}

// WinsWith against the long way (Play, Result, Undo) on every legal move of
// every position of random games: the root lookahead's work. One op is one
// move judged.
func BenchmarkWinsWith(b *testing.B) {
	for _, name := range []string{"xiangqi", "janggi"} {
		rs, games := recordGames(name, 10)
		var gs []*Game
		for _, moves := range games {
			for ply := 0; ply < len(moves); ply += 7 {
				g, _ := NewGame(rs, rs.StartFEN())
				for _, m := range moves[:ply] {
					g.Play(m)
				}
				gs = append(gs, g)
			}
		}
		legal := make([][]Move, len(gs))
		for i, g := range gs {
			legal[i] = g.LegalMoves(nil)
		}
		for _, way := range []string{"played", "winswith"} {
			b.Run(name+"/"+way, func(b *testing.B) {
				b.ReportAllocs()
				n, wins := 0, 0
				for b.Loop() {
					for i, g := range gs {
						for _, m := range legal[i] {
							var won bool
							if way == "played" {
								won, _, _ = playedResult(g, m)
							} else {
								won = g.WinsWith(m)
							}
							if won {
								wins++
							}
							n++
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/move")
			})
		}
	}
}
