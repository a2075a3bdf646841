package train

import (
	"math"
	"testing"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/rules"
)

// fillTiny plays g and fills b from its shards, sampled with seed.
func fillTiny(t *testing.T, b *batch, g TinyGames, seed uint64) {
	t.Helper()
	dir, capped := PlayTiny(t, g)
	s, err := datasets.NewSampler([]string{dir}, datasets.WithWindow(10, 0.65, 0.75), datasets.WithSeed(seed))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := b.fill(s, nil, 0, map[string]*rules.RuleSet{capped.String(): capped}); err != nil {
		t.Fatal(err)
	}
}

// The value target mixes the game's result and the search's WDL as asked,
// and cheap searches get no policy target.
func TestFillTargets(t *testing.T) {
	b := newBatch(64)
	b.searchWeight = 0.25
	fillTiny(t, b, TinyGames{Rules: "janggi", Games: 4, MaxPlies: 30, GamesPerShard: 4, ConcurrentGames: 4, Seed: 3, EvaluatorSeed: 5}, 1)
	ps := encode.PolicySize()
	full := 0
	for i, sm := range b.samples {
		var onehot [3]float32
		onehot[1-int(sm.Result)] = 1 // Win → 0, Draw → 1, Loss → 2
		q := sm.WDL
		sum := q[0] + q[1] + q[2]
		for j := range 3 {
			want := 0.75*onehot[j] + 0.25*q[j]/sum
			if got := b.wdl[i*3+j]; math.Abs(float64(got-want)) > 1e-6 {
				t.Fatalf("sample %d: WDL target %v, want %v from result %d and search %v", i, b.wdl[i*3:i*3+3], want, sm.Result, q)
			}
		}
		var psum float32
		for _, p := range b.policy[i*ps : (i+1)*ps] {
			psum += p
		}
		if sm.Full {
			full++
			if math.Abs(float64(psum-1)) > 1e-3 {
				t.Errorf("sample %d (full search): policy target sums to %v", i, psum)
			}
		} else if psum != 0 {
			t.Errorf("sample %d (cheap search): policy target sums to %v, want none", i, psum)
		}
	}
	if full == 0 || full == len(b.samples) {
		t.Errorf("%d of %d samples had full searches; want some of each", full, len(b.samples))
	}
}

// With draw_material_scale, a drawn game's value target leans to the side
// that ended ahead on material, by tanh(lead/scale)/2; decisive games and
// level draws keep their one-hot result. (Random play capped at 80 plies
// draws every game, nearly all of them with someone ahead.)
func TestFillDrawMaterial(t *testing.T) {
	b := newBatch(256)
	b.drawMaterialScale = 13
	fillTiny(t, b, TinyGames{Rules: "xiangqi", Games: 8, MaxPlies: 80, GamesPerShard: 8, ConcurrentGames: 8, Seed: 4, EvaluatorSeed: 6}, 2)
	leaning := 0
	for i, sm := range b.samples {
		var want [3]float32
		want[1-int(sm.Result)] = 1
		if d := sm.FinalMaterial; sm.Result == datasets.Draw && d != 0 {
			leaning++
			lean := float32(math.Tanh(math.Abs(float64(d))/13)) / 2
			want[1] = 1 - lean
			if d > 0 {
				want[0] = lean
			} else {
				want[2] = lean
			}
		}
		for j := range 3 {
			if got := b.wdl[i*3+j]; math.Abs(float64(got-want[j])) > 1e-6 {
				t.Fatalf("sample %d (result %s, final material %d): WDL target %v, want %v", i, sm.Result, sm.FinalMaterial, b.wdl[i*3:i*3+3], want)
			}
		}
	}
	if leaning == 0 {
		t.Errorf("none of %d samples was of a drawn game with a material lead: the test shows nothing", len(b.samples))
	}
}
