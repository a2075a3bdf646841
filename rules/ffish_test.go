package rules

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/palace-chess/palace/internal/ffishtest"
)

// ffishOracle runs scripts/ffish-oracle.js over lines of
// VARIANT<TAB>FEN<TAB>MOVES and returns its output lines.
func ffishOracle(t *testing.T, lines []string) []string {
	t.Helper()
	return ffishtest.Run(t, "ffish-oracle.js", nil, "", lines)
}

// randomEndgame plays a game from root until palace says it is over or
// maxPlies pass. Moves lean towards shuttling (so that repetitions, and
// with them perpetual checks, chases and janggimodern's shuttle rule,
// happen often), captures, checks and, in janggi, passes.
func randomEndgame(rng *rand.Rand, g *Game, maxPlies int) {
	buf := make([]Move, 0, MaxMoves)
	var history []Move
	for ply := 0; ply < maxPlies && !g.Result().Over(); ply++ {
		buf = g.LegalMoves(buf[:0])
		if len(buf) == 0 {
			break
		}
		m := buf[rng.IntN(len(buf))]
		pos := g.Position()
		switch roll := rng.IntN(20); {
		case roll < 9 && len(history) >= 2: // undo our own last move
			if back := reverseMove(history[len(history)-2]); g.IsLegal(back) {
				m = back
			}
		case roll < 11 && len(history) >= 1: // chase the piece the opponent just moved
			for _, i := range rng.Perm(len(buf)) {
				if attacksAfter(pos, buf[i], history[len(history)-1].To()) {
					m = buf[i]
					break
				}
			}
		case roll < 12: // a move after which the moved piece attacks something
			for _, i := range rng.Perm(len(buf)) {
				if attacksAfter(pos, buf[i], NoSquare) {
					m = buf[i]
					break
				}
			}
		case roll < 13: // a capture
			for _, i := range rng.Perm(len(buf)) {
				if !buf[i].IsPass() && pos.Board(buf[i].To()) != NoPiece {
					m = buf[i]
					break
				}
			}
		case roll < 14: // a check
			for _, i := range rng.Perm(len(buf)) {
				u := pos.MakeMove(buf[i])
				check := pos.InCheck()
				pos.UnmakeMove(buf[i], u)
				if check {
					m = buf[i]
					break
				}
			}
		case roll == 14 && buf[len(buf)-1].IsPass():
			m = buf[len(buf)-1]
		}
		if m.IsPass() && rng.IntN(4) != 0 && len(buf) > 1 {
			m = buf[rng.IntN(len(buf)-1)] // passes are the last move; keep them rare
		}
		g.Play(m)
		history = append(history, m)
	}
}

// attacksAfter reports whether the piece m moves could capture something
// (the piece on target, unless target is NoSquare) after m.
func attacksAfter(pos *Position, m Move, target Square) bool {
	if m.IsPass() {
		return false
	}
	var buf [MaxMoves]Move
	u := pos.MakeMove(m)
	pos.side = pos.side.Other()
	found := false
	for _, c := range pos.appendPieceMoves(buf[:0], m.To()) {
		if pos.Board(c.To()) != NoPiece && (target == NoSquare || c.To() == target) {
			found = true
			break
		}
	}
	pos.side = pos.side.Other()
	pos.UnmakeMove(m, u)
	return found
}

// chaseCycle looks for a piece of the side to move that can attack an
// enemy piece, which can flee, after which the attacker can attack it
// again; then it plays that four-ply cycle until the game ends. It reports
// false, having played nothing, when the position has no such cycle.
func chaseCycle(rng *rand.Rand, g *Game) bool {
	pos := g.Position()
	legal := func() []Move { return g.LegalMoves(nil) }
	attacks := func(from, target Square) bool {
		// Whether the piece on from could capture on target, the side to move being its owner's.
		var buf [MaxMoves]Move
		for _, c := range pos.appendPieceMoves(buf[:0], from) {
			if c.To() == target {
				return true
			}
		}
		return false
	}
	for _, i := range rng.Perm(len(legal())) {
		m1 := legal()[i]
		if m1.IsPass() {
			continue
		}
		g.Play(m1)
		// The opponent's pieces the mover now attacks.
		pos.side = pos.side.Other()
		var targets []Square
		for s := pos.Occupied(pos.side.Other()); !s.Empty(); {
			q := s.popLowest()
			if t := pos.Board(q).Type(); t != King && attacks(m1.To(), q) {
				targets = append(targets, q)
			}
		}
		pos.side = pos.side.Other()
		for _, q := range targets {
			for _, flee := range legal() {
				if flee.From() != q {
					continue
				}
				g.Play(flee)
				for _, follow := range legal() {
					if follow.From() != m1.To() || follow.To() == flee.To() {
						continue
					}
					g.Play(follow)
					pos.side = pos.side.Other()
					hit := attacks(follow.To(), flee.To())
					pos.side = pos.side.Other()
					if !hit {
						g.Undo()
						continue
					}
					cycle := []Move{reverseMove(flee), reverseMove(follow), flee, follow}
					for k := 0; k < 16 && !g.Result().Over(); k++ {
						if !g.IsLegal(cycle[k%4]) {
							break
						}
						g.Play(cycle[k%4])
					}
					return true
				}
				g.Undo()
			}
		}
		g.Undo()
	}
	return false
}

// checkingGame gives check whenever it can (avoiding a third occurrence of
// a position), so that xiangqi's check-lengthened move limit comes into play.
func checkingGame(rng *rand.Rand, g *Game, maxPlies int) {
	for ply := 0; ply < maxPlies && !g.Result().Over(); ply++ {
		moves := g.LegalMoves(nil)
		if len(moves) == 0 {
			return
		}
		m := moves[rng.IntN(len(moves))]
		for _, i := range rng.Perm(len(moves)) {
			g.Play(moves[i])
			ok := g.Position().InCheck() && g.Repetitions() < 1
			g.Undo()
			if ok {
				m = moves[i]
				break
			}
		}
		g.Play(m)
	}
}

// TestDifferentialFfishResults compares palace's results after every ply of
// random games, from the start and from the reference corpus's positions,
// with Fairy-Stockfish's (through ffish), with and without claims.
func TestDifferentialFfishResults(t *testing.T) {
	games := 150
	if testing.Short() {
		games = 20
	}
	if n, err := strconv.Atoi(os.Getenv("PALACE_FFISH_GAMES")); err == nil && n > 0 {
		games = n // a longer soak: PALACE_FFISH_GAMES=2000
	}
	type game struct {
		variant, root string
		moves         []Move
	}
	var all []game
	for _, variant := range []string{"xiangqi", "janggi", "janggitraditional", "janggimodern", "janggicasual"} {
		rs := MustPreset(variant)
		seed := uint64(7)
		if v, err := strconv.ParseUint(os.Getenv("PALACE_FFISH_SEED"), 10, 64); err == nil {
			seed = v
		}
		rng := rand.New(rand.NewPCG(seed, uint64(len(variant))))
		roots := corpusRoots(t, variant)
		n := games
		if variant == "xiangqi" {
			n *= 4 // the chase rule needs many tries to show up
		}
		for i := 0; i < n; i++ {
			root := roots[rng.IntN(len(roots))]
			g, err := NewGame(rs, root)
			if err != nil {
				t.Fatal(err)
			}
			if i%2 == 1 {
				// Chase cycles: a few random plies, then a piece that keeps
				// attacking one that keeps fleeing.
				randomEndgame(rng, g, rng.IntN(12))
				for tries := 0; tries < 10 && !g.Result().Over() && !chaseCycle(rng, g); tries++ {
					randomEndgame(rng, g, 1)
				}
			}
			if variant == "xiangqi" && i%4 == 2 {
				checkingGame(rng, g, 300) // the move limit lengthened by checks
			}
			randomEndgame(rng, g, 300)
			all = append(all, game{variant, root, g.Moves(nil)})
		}
	}
	lines := make([]string, len(all))
	for i, gm := range all {
		var b strings.Builder
		for j, m := range gm.moves {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(m.String())
		}
		lines[i] = gm.variant + "\t" + gm.root + "\t" + b.String()
	}
	answers := ffishOracle(t, lines)
	ends := map[string]int{}
	for i, gm := range all {
		want, wantFEN, _ := strings.Cut(answers[i], "\t")
		wantResults := strings.Fields(want)
		g, _ := NewGame(MustPreset(gm.variant), gm.root)
		for j := 0; j <= len(gm.moves); j++ {
			if j > 0 {
				g.Play(gm.moves[j-1])
			}
			r := g.Result()
			got := r.Score() + "/" + g.ImmediateResult().Score()
			if j >= len(wantResults) || got != wantResults[j] {
				w := "(missing)"
				if j < len(wantResults) {
					w = wantResults[j]
				}
				t.Fatalf("%s game %d after %d plies: palace %s (%s), ffish %s\nline: %s", gm.variant, i, j, got, r.Reason, w, lines[i])
			}
			if j == len(gm.moves) {
				ends[gm.variant+" "+r.Reason.String()]++
				if r.Reason == MoveLimit && g.Position().HalfmoveClock() > g.Rules().MoveLimit {
					ends[gm.variant+" n-move lengthened by checks"]++
				}
			}
		}
		if got := g.Position().FEN(); got != wantFEN {
			t.Fatalf("%s game %d: FEN %s, ffish %s", gm.variant, i, got, wantFEN)
		}
	}
	t.Logf("%d games agree ply by ply; final states: %v", len(all), fmt.Sprint(ends))
}

// corpusRoots is the start position plus every start FEN of the outcome
// corpus for variant: sparse boards, clocks near their limits.
func corpusRoots(t *testing.T, variant string) []string {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "outcomes", variant+"-public.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	roots := []string{MustPreset(variant).StartFEN()}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		roots = append(roots, strings.Split(line, "\t")[1])
	}
	return roots
}
