package rules

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomDenseFEN places both generals in their palaces and up to a dozen
// pieces of each side anywhere, soldiers and elephants included, so that
// pins, screens, blocked legs and palace lines come up on both sides; the
// caller keeps what ParseFEN accepts.
func randomDenseFEN(rng *rand.Rand) string {
	board := generalsBoard(rng)
	for _, upper := range []bool{true, false} {
		for range 2 + rng.IntN(11) {
			s := Square(rng.IntN(Squares))
			if board[s] != 0 {
				continue
			}
			c := "RRCCCNNNPPAE"[rng.IntN(12)]
			if !upper {
				c += 'a' - 'A'
			}
			board[s] = c
		}
	}
	return boardFEN(&board) + " " + string("wb"[rng.IntN(2)]) + " - - 0 1"
}

// checkAttackedThrough compares attackedThrough with the full attack test
// on every pseudo-legal move of p's side to move: for its own general, when
// it is in neither check nor bikjang and the move is not the general's
// (LegalMoves' and hasLegalMove's use), and for the other general after
// every legal move (attackAfter's and checkedBy's use); and LegalMoves and
// hasLegalMove with the full test on every move. It returns how many moves
// it compared.
func checkAttackedThrough(t *testing.T, name string, p *Position) int {
	t.Helper()
	us, them := p.side, p.side.Other()
	k := p.kings[us]
	quiet := !p.InCheck() && !p.InBikjang()
	n := 0
	for _, m := range p.appendPseudo(nil) {
		from, to := m.From(), m.To()
		moving, captured := p.board[from], p.board[to]
		if quiet && from != k {
			p.board[to], p.board[from] = moving, NoPiece
			fast := p.attackedThrough(k, from, to, them)
			full := p.squareAttackedForKing(k, them, true)
			p.board[from], p.board[to] = moving, captured
			if fast != full {
				t.Fatalf("%s, %s: after %v own general attacked: attackedThrough %v, full test %v", name, p.FEN(), m, fast, full)
			}
			if safe := p.safeAfter(m); safe != p.legalAfter(m, false) {
				t.Fatalf("%s, %s: %v: safeAfter %v, legalAfter %v", name, p.FEN(), m, safe, !safe)
			}
			n++
		}
		if !p.legalAfter(m, p.InBikjang()) {
			continue
		}
		u := p.MakeMove(m)
		fast := p.attackedThrough(p.kings[p.side], from, to, us)
		full := p.kingAttacked(p.side)
		if c := p.checkedBy(m); c != full {
			t.Fatalf("%s, %s: %v: checkedBy %v, full test %v", name, p.FEN(), m, c, full)
		}
		p.UnmakeMove(m, u)
		if fast != full {
			t.Fatalf("%s, %s: after %v other general attacked: attackedThrough %v, full test %v", name, p.FEN(), m, fast, full)
		}
		if c, _ := p.attackAfter(m, p.kings[them]); c != full {
			t.Fatalf("%s, %s: %v: attackAfter %v, full test %v", name, p.FEN(), m, c, full)
		}
		n++
	}
	// LegalMoves (exposure's shortcut) and hasLegalMove against the
	// attack test on every move.
	var want []Move
	bikjang := p.InBikjang()
	for _, m := range p.appendPseudo(nil) {
		if p.legalAfter(m, bikjang) {
			want = append(want, m)
		}
	}
	got := p.LegalMoves(nil)
	if len(got) > 0 && got[len(got)-1].IsPass() {
		got = got[:len(got)-1]
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s, %s: LegalMoves %v, want %v", name, p.FEN(), got, want)
	}
	if has := p.hasLegalMove(p.InCheck(), bikjang); has != (len(want) > 0) && p.rules.Pass == PassNever {
		t.Fatalf("%s, %s: hasLegalMove %v with moves %v", name, p.FEN(), has, want)
	}
	return n
}

// attackedThrough, the attack test that rescans only what a move changed,
// against the full test on random positions of every preset, sparse and
// dense, and along random games.
func TestAttackedThrough(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 2))
	n := 0
	for _, name := range PresetNames() {
		rs := MustPreset(name)
		for i := range 40000 {
			fen := randomDenseFEN(rng)
			if i%4 == 0 {
				fen = randomSparseFEN(rng)
			}
			p, err := ParseFEN(fen, rs)
			if err != nil {
				continue
			}
			n += checkAttackedThrough(t, name, &p)
		}
		for range 20 {
			g, err := NewGame(rs, rs.StartFEN())
			if err != nil {
				t.Fatal(err)
			}
			for ply := 0; ply < 200 && !g.Result().Over(); ply++ {
				n += checkAttackedThrough(t, name, &g.pos)
				moves := g.LegalMoves(nil)
				g.Play(moves[rng.IntN(len(moves))])
			}
		}
	}
	t.Logf("%d moves compared", n)
}
