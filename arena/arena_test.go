package arena_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
)

func capped(t *testing.T, name string, plies int) *rules.RuleSet {
	t.Helper()
	rs, err := rules.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	c := *rs
	c.MaxPlies = plies
	return &c
}

// broken answers every move with an error: it loses every game on forfeit.
type broken struct{}

func (broken) Name() string                        { return "broken" }
func (broken) NewGame(uint64) (arena.Mover, error) { return broken{}, nil }
func (broken) Move(context.Context, *rules.Game) (rules.Move, error) {
	return rules.NoMove, errors.New("engine died")
}
func (broken) Close() {}

func TestRandomOpenings(t *testing.T) {
	for _, name := range []string{"xiangqi", "janggi"} {
		rs := capped(t, name, 0)
		a, err := arena.RandomOpenings(rs, 20, 2, 5)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := arena.RandomOpenings(rs, 20, 2, 5)
		seen := map[string]bool{}
		for i, o := range a {
			if o.Name != b[i].Name {
				t.Fatalf("%s: openings differ between calls with one seed: %s, %s", name, o.Name, b[i].Name)
			}
			if seen[o.Name] {
				t.Errorf("%s: opening %s twice", name, o.Name)
			}
			seen[o.Name] = true
			g, err := o.Game(rs)
			if err != nil || g.Ply() != 2 {
				t.Errorf("%s: opening %s: %v", name, o.Name, err)
			}
		}
		if name == "janggi" && a[0].FEN == a[1].FEN {
			t.Errorf("janggi openings 0 and 1 share a setup: %s", a[0].FEN)
		}
	}
}

func TestMatchDecidesAndResumes(t *testing.T) {
	rs := capped(t, "xiangqi", 60)
	ops, err := arena.RandomOpenings(rs, 8, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.jsonl")
	sprt := &stats.SPRT{Elo0: 0, Elo1: 100, Alpha: 0.05, Beta: 0.05}
	m := arena.Match{RuleSet: rs, Openings: ops, A: arena.Random{}, B: broken{}, Pairs: 50, SPRT: sprt,
		Concurrency: 3, Records: path, Seed: 4}
	ctx, cancel := context.WithCancel(context.Background())
	m.Progress = func(s arena.Summary) {
		if s.Games >= 3 {
			cancel()
		}
	}
	if _, err := arena.Play(ctx, m); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled match: %v", err)
	}
	// A torn last line, as kill -9 in the middle of a write leaves.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"pair":7,"game":1,"sco`)
	f.Close()
	m.Progress = nil
	sum, err := arena.Play(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Decision != stats.AcceptH1 || !sum.Done || sum.WDL.Losses != 0 || sum.WDL.Draws != 0 {
		t.Fatalf("summary %+v, want A accepted with wins only", sum)
	}
	if sum.Pentanomial[4] != sum.Pentanomial.Pairs() || sum.Games != 2*sum.Pentanomial.Pairs() {
		t.Errorf("pentanomial %v over %d games", sum.Pentanomial, sum.Games)
	}
	h, recs, err := arena.ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	if h.A != "random" || h.B != "broken" || len(recs) < sum.Games {
		t.Errorf("header %+v, %d records for %d games", h, len(recs), sum.Games)
	}
	for _, r := range recs {
		if r.Reason != "forfeit" || !strings.Contains(r.Forfeit, "broken: engine died") || r.Score != 1 {
			t.Errorf("record %+v", r)
		}
	}
	// Played again, a decided match plays nothing.
	again, err := arena.Play(context.Background(), m)
	if err != nil || again.Games != sum.Games {
		t.Errorf("replayed decided match: %v, %d games, want %d", err, again.Games, sum.Games)
	}
	// Another match in the same file is refused.
	m.B = arena.Random{}
	if _, err := arena.Play(context.Background(), m); err == nil || !strings.Contains(err.Error(), "another match") {
		t.Errorf("a different match over the records: %v", err)
	}
}

func TestSearchBeatsRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("plays full games")
	}
	rs := capped(t, "janggi", 80) // counting decides capped games: material tells
	ops, err := arena.RandomOpenings(rs, 4, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := mcts.PlayParams(24)
	srch, err := arena.NewSearch("uniform-24", p, func() (nn.Evaluator, error) {
		return nn.NewUniform(encode.InputSize, encode.PolicySize()), nil
	}, arena.SearchOptions{Evaluators: 1, CacheEntries: 1 << 14})
	if err != nil {
		t.Fatal(err)
	}
	m := arena.Match{RuleSet: rs, Openings: ops, A: srch, B: arena.Random{}, Pairs: 4, Concurrency: 4,
		Records: filepath.Join(t.TempDir(), "m.jsonl"), Seed: 2}
	sum, err := arena.Play(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", sum)
	if sum.Games != 8 || !sum.Done || sum.WDL.Wins <= sum.WDL.Losses {
		t.Fatalf("%d games, done %v, W/D/L %v: want 8 games and more wins than losses", sum.Games, sum.Done, sum.WDL)
	}
}
