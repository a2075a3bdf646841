package rules

import (
	"fmt"
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

// benchPositions is every 7th position of 10 random games under the preset
// name, with each one's legal moves: the positions the root lookahead
// benchmarks judge.
func benchPositions(name string) ([]*Game, [][]Move) {
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
	return gs, legal
}

// WinsWith against the long way (Play, Result, Undo) on every legal move of
// every position of random games: the root lookahead's work. One op is one
// move judged.
func BenchmarkWinsWith(b *testing.B) {
	for _, name := range []string{"xiangqi", "janggi"} {
		gs, legal := benchPositions(name)
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

// WinningMove finds what WinsWith and GivesCheck, asked of each move in
// turn, find: on every legal move alone and on the whole list, with and
// without checksOnly, along random games under every preset (and under
// each with a short move limit and length cap) that lean to captures, so
// that thin endgames, where a quiet move may stalemate, come up, to
// shuttling, so that repetitions do, and to bikjang.
func TestWinningMoveMatchesWinsWith(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 26))
	wins := map[Termination]int{}
	moves := 0
	// janggiclassic with bikjang claims too: the one rule set where a
	// move into bikjang ends the game.
	claim := *MustPreset("janggiclassic")
	claim.Name, claim.BikjangClaim = "janggiclassic+claim", true
	if err := claim.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, name := range append(PresetNames(), claim.Name) {
		for _, short := range []bool{false, true} {
			rs := &claim
			if name != claim.Name {
				rs = MustPreset(name)
			}
			if short {
				c := *rs
				c.MoveLimit, c.MaxPlies = min(max(c.MoveLimit, 1), 16), 60
				rs = &c
			}
			for game := range 16 {
				g, err := NewGame(rs, rs.StartFEN())
				if err != nil {
					t.Fatal(err)
				}
				var hist []Move
				for ply := 0; ply < 300 && !g.Result().Over(); ply++ {
					legal := g.LegalMoves(nil)
					first, firstCheck := NoMove, NoMove
					for _, m := range legal {
						won, check, r := playedResult(g, m)
						if won {
							wins[r.Reason]++
							if first == NoMove {
								first = m
							}
							if check && firstCheck == NoMove {
								firstCheck = m
							}
						}
						for _, checksOnly := range []bool{false, true} {
							want := won && (check || !checksOnly)
							if got, ok := g.WinningMove([]Move{m}, checksOnly); ok != want || ok && got != m {
								t.Fatalf("%s, game %d, %s after %v: WinningMove([%v], %v) = %v, %v; Play and Result say %v (check %v)",
									rs.Name, game, g.pos.FEN(), hist, m, checksOnly, got, ok, r, check)
							}
						}
						moves++
					}
					for _, c := range []struct {
						checksOnly bool
						want       Move
					}{{false, first}, {true, firstCheck}} {
						if got, ok := g.WinningMove(legal, c.checksOnly); got != c.want || ok != (c.want != NoMove) {
							t.Fatalf("%s, %s: WinningMove(legal, %v) = %v, %v; want %v", rs.Name, g.pos.FEN(), c.checksOnly, got, ok, c.want)
						}
					}
					m := legal[rng.IntN(len(legal))]
					switch roll := rng.IntN(5); {
					case roll == 4: // a move into bikjang, when there is one
						for _, i := range rng.Perm(len(legal)) {
							g.Play(legal[i])
							facing := g.Position().InBikjang()
							g.Undo()
							if facing {
								m = legal[i]
								break
							}
						}
					case roll == 0 && len(hist) >= 2: // back and forth
						if back := reverseMove(hist[len(hist)-2]); !hist[len(hist)-2].IsPass() && g.IsLegal(back) {
							m = back
						}
					case roll <= 2: // a capture, when there is one
						for _, i := range rng.Perm(len(legal)) {
							if !legal[i].IsPass() && g.pos.Board(legal[i].To()) != NoPiece {
								m = legal[i]
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
	t.Logf("%d moves; wins by reason: %v", moves, wins)
	if wins[Checkmate] == 0 || wins[Stalemate] == 0 {
		t.Fatalf("wins by %v only: the games reach too few ends to test", wins)
	}
}

// randomSparseFEN places both generals in their palaces and a few other
// pieces anywhere (pieces of the side not to move, few, so that it is
// often nearly out of moves); the caller keeps what ParseFEN accepts.
func randomSparseFEN(rng *rand.Rand) string {
	board := generalsBoard(rng)
	side := "wb"[rng.IntN(2)]
	place := func(upper bool, n int, from string) {
		for range n {
			s := Square(rng.IntN(Squares))
			if board[s] != 0 {
				continue
			}
			c := from[rng.IntN(len(from))]
			if !upper {
				c += 'a' - 'A'
			}
			board[s] = c
		}
	}
	place(side == 'w', 3+rng.IntN(6), "RRCCNNPA") // the side to move
	place(side == 'b', 1+rng.IntN(2), "AENNRPP")  // the other side
	return boardFEN(&board) + " " + string(side) + " - - 0 1"
}

// generalsBoard is a board (FEN letters, 0 for empty) holding only the two
// generals, each on a random square of its palace.
func generalsBoard(rng *rand.Rand) [Squares]byte {
	var board [Squares]byte
	palace := func(black bool) Square {
		r := rng.IntN(3)
		if black {
			r += 7
		}
		return SquareAt(3+rng.IntN(3), r)
	}
	board[palace(false)], board[palace(true)] = 'K', 'k'
	return board
}

// boardFEN is a FEN's piece placement for board (FEN letters, 0 for empty).
func boardFEN(board *[Squares]byte) string {
	var sb []byte
	for r := Ranks - 1; r >= 0; r-- {
		empty := 0
		for f := range Files {
			c := board[SquareAt(f, r)]
			if c == 0 {
				empty++
				continue
			}
			if empty > 0 {
				sb = append(sb, byte('0'+empty))
				empty = 0
			}
			sb = append(sb, c)
		}
		if empty > 0 {
			sb = append(sb, byte('0'+empty))
		}
		if r > 0 {
			sb = append(sb, '/')
		}
	}
	return string(sb)
}

// mobileAfter's claim, on random sparse positions under every preset: after
// any legal move ending on one of its squares that leaves the opponent out
// of check and out of bikjang, the opponent has a legal move. The
// positions are thin enough that moves leaving it none come up (some
// thousands), among them moves that block or take the one piece that could
// move.
func TestMobileAfter(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	stuck, judged := 0, 0
	for _, name := range PresetNames() {
		rs := MustPreset(name)
		n := 100000 // xiangqi's; janggi's passes leave a move whatever happens
		if rs.Game == Janggi {
			n = 5000
		}
		for range n {
			p, err := ParseFEN(randomSparseFEN(rng), rs)
			if err != nil {
				continue
			}
			mobile := p.mobileAfter()
			for _, m := range p.LegalMoves(nil) {
				u := p.MakeMove(m)
				quiet := !p.InCheck() && !p.InBikjang()
				has := p.HasLegalMove()
				p.UnmakeMove(m, u)
				if !quiet {
					continue
				}
				if !has {
					stuck++
				}
				if mobile.Has(m.To()) && !m.IsPass() {
					judged++
					if !has {
						t.Fatalf("%s, %s: after %v the opponent has no legal move, but mobileAfter holds %v", name, p.FEN(), m, m.To())
					}
				}
			}
		}
	}
	t.Logf("%d quiet moves judged by mobileAfter; %d quiet moves leave the opponent no move", judged, stuck)
	if stuck < 100 || judged < 100000 {
		t.Fatalf("%d moves leave the opponent no move, %d judged: too few to test", stuck, judged)
	}
}

// WinningMove against asking WinsWith (and GivesCheck, with checksOnly) of
// each move in turn, on the positions BenchmarkWinsWith uses: every
// legal move judged (the lists where one wins stop early either way). One
// op is one position's moves; ns/move is per move.
func BenchmarkWinningMove(b *testing.B) {
	for _, name := range []string{"xiangqi", "janggi"} {
		gs, legal := benchPositions(name)
		for _, checksOnly := range []bool{false, true} {
			for _, way := range []string{"each", "winningmove"} {
				b.Run(fmt.Sprintf("%s/checksonly=%v/%s", name, checksOnly, way), func(b *testing.B) {
					b.ReportAllocs()
					n := 0
					for b.Loop() {
						for i, g := range gs {
							if way == "each" {
								for _, m := range legal[i] {
									if (!checksOnly || g.GivesCheck(m)) && g.WinsWith(m) {
										break
									}
								}
							} else {
								g.WinningMove(legal[i], checksOnly)
							}
							n += len(legal[i])
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/move")
				})
			}
		}
	}
}
