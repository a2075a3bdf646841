package gib

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/internal/gametest"
	"github.com/palace-chess/palace/rules"
)

// TestAppendMoveReadsBack: every legal move (passes included) of
// positions along random janggi games, written by AppendMove, is read by
// the record reader as the same squares, piece and side.
func TestAppendMoveReadsBack(t *testing.T) {
	rs := rules.MustPreset("janggi")
	rng := rand.New(rand.NewPCG(7, 9))
	moves := 0
	for game := 0; game < 20; game++ {
		g, err := rules.NewGame(rs, rs.StartFEN())
		if err != nil {
			t.Fatal(err)
		}
		for ply := 0; ply < 120 && !g.Result().Over(); ply++ {
			for _, m := range g.LegalMoves(nil) {
				text := string(AppendMove(nil, g, m))
				gm, msg := gibParseMove(gibToken{text: text})
				if msg != "" {
					t.Fatalf("%s: %s in %s: %s", text, m, g.Position().FEN(), msg)
				}
				if m.IsPass() {
					if !gm.pass {
						t.Fatalf("pass written %q, read as a move", text)
					}
					continue
				}
				pc := g.Position().Board(m.From())
				if gm.from != m.From() || gm.to != m.To() || gm.piece != pc.Type() {
					t.Fatalf("%s (%s) written %q, read %s-%s %s", m, pc.Type(), text, gm.from, gm.to, gm.piece)
				}
				moves++
			}
			gametest.Playout(rng, g, 1)
		}
	}
	if moves < 10000 {
		t.Fatalf("only %d moves checked", moves)
	}
	// Squares as the records number them: Cho's back rank is row 0,
	// Han's row 1; columns 1–9 from file a.
	g, _ := rules.NewGame(rs, rs.StartFEN())
	m, err := g.PlayText("a4a5", rules.Ranks1)
	if err != nil {
		t.Fatal(err)
	}
	g.Undo()
	if got := string(AppendMove(nil, g, m)); got != "71졸61" {
		t.Errorf("Cho's a-file soldier one up: %q, want 71졸61", got)
	}
}

// TestWriteReadsBack: games written by Write (every setup, passes, a
// handicap board, finished and unfinished games) import as the same
// start, moves, result, players and date.
func TestWriteReadsBack(t *testing.T) {
	rs := rules.MustPreset("janggi")
	rng := rand.New(rand.NewPCG(3, 5))
	var games []gamerec.Game
	for i := 0; i < 24; i++ {
		c, h := rules.JanggiSetup(i%4), rules.JanggiSetup(i/4%4)
		fen, setup := rules.JanggiSetupFEN(c, h), c.String()+","+h.String()
		if i == 23 { // a handicap board: Cho without a chariot
			fen, setup = strings.Replace(fen, "/R", "/1", 1), ""
		}
		g, err := rules.NewGame(rs, fen)
		if err != nil {
			t.Fatal(err)
		}
		gametest.Playout(rng, g, 20+rng.IntN(150))
		rec := gamerec.Game{RuleSet: rs.String(), Setup: setup, Line: gamerec.LineOf(g), Plies: g.Ply(), Date: "2026.12.06", White: "초 사람", Black: "palace"}
		rec.End = gamerec.End{Result: gamerec.Unknown, Reason: gamerec.ReasonUnfinished}
		if r := g.Result(); r.Over() {
			rec.End = gamerec.EndOf(r)
		}
		if g.Ply() == 0 {
			continue
		}
		games = append(games, rec)
	}
	var b strings.Builder
	if err := Write(&b, games, func(*gamerec.Game) *rules.RuleSet { return rs }); err != nil {
		t.Fatal(err)
	}
	back, errs, _ := Import([]byte(b.String()), "written.gib", gamerec.ImportOptions{})
	if len(errs) > 0 || len(back) != len(games) {
		t.Fatalf("%d of %d games read back, errors %v\n%s", len(back), len(games), errs, b.String())
	}
	for i := range games {
		w, g := &games[i], &back[i]
		if g.StartFEN != w.StartFEN || g.Moves != w.Moves || g.Setup != w.Setup || g.Result != w.Result ||
			g.White != w.White || g.Black != w.Black || g.Date != w.Date {
			t.Errorf("game %d read back as\n%+v\nwrote\n%+v", i+1, *g, *w)
		}
		if w.Result != gamerec.Unknown && g.Reason != w.Reason {
			t.Errorf("game %d: reason %q, wrote %q", i+1, g.Reason, w.Reason)
		}
	}
	if err := Write(&b, []gamerec.Game{{RuleSet: rules.MustPreset("xiangqi").String()}}, func(*gamerec.Game) *rules.RuleSet { return rules.MustPreset("xiangqi") }); err == nil {
		t.Error("a xiangqi game was written as .gib")
	}
}
