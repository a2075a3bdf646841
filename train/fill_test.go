package train

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn/gnet"
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
	b := newBatch(64, false)
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
	b := newBatch(256, false)
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

// With reply targets, each sample's is the search policy of its game's
// next position (the record whose last move is the sample's move, mirrored
// with it), masked by that position's legal moves; a game's last position
// has none.
func TestFillReplies(t *testing.T) {
	g := TinyGames{Rules: "xiangqi", Games: 4, MaxPlies: 24, GamesPerShard: 2, ConcurrentGames: 4, Seed: 5, EvaluatorSeed: 7}
	dir, capped := PlayTiny(t, g)
	type key struct {
		game uint64
		ply  int
	}
	next := map[key]datasets.Record{}
	m, err := datasets.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range m.Shards {
		r, err := datasets.Open(filepath.Join(dir, sh.Name))
		if err != nil {
			t.Fatal(err)
		}
		for rec, err := range r.Records() {
			if err != nil {
				t.Fatal(err)
			}
			next[key{rec.GameID, rec.Ply}] = *rec.Clone()
		}
		r.Close()
	}
	b := newBatch(256, true)
	b.maskIllegal = true
	s, err := datasets.NewSampler([]string{dir}, datasets.WithWindow(10, 0.65, 0.75), datasets.WithSeed(3), datasets.WithReplies())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := b.fill(s, nil, 0, map[string]*rules.RuleSet{capped.String(): capped}); err != nil {
		t.Fatal(err)
	}
	ps := encode.PolicySize()
	with, without, mirrored := 0, 0, 0
	for i, sm := range b.samples {
		row := b.reply[i*ps : (i+1)*ps]
		want, ok := next[key{sm.GameID, sm.Ply + 1}]
		if ok != sm.HasReply {
			t.Fatalf("sample %d (game %d ply %d): reply %v, the games have one: %v", i, sm.GameID, sm.Ply, sm.HasReply, ok)
		}
		if !ok {
			without++
			if slices.ContainsFunc(row, func(v float32) bool { return v != 0 }) {
				t.Errorf("sample %d: a reply target without a reply", i)
			}
			continue
		}
		with++
		if sm.Mirrored {
			mirrored++
			want = *want.Clone() // the map's copy keeps its own policy
			want.Mirror()
		}
		if sm.Reply.History[0].Move != sm.Move || sm.Reply.Board != want.Board {
			t.Fatalf("sample %d: reply after %v, with %v last; want the game's next position", i, sm.Move, sm.Reply.History[0].Move)
		}
		legal, sum := 0, float32(0)
		for _, e := range want.Policy {
			if row[e.Index] < 0 {
				t.Fatalf("sample %d: the reply's legal move %d marked illegal", i, e.Index)
			}
			legal++
			sum += row[e.Index]
		}
		illegal := 0
		for _, v := range row {
			if v == gnet.IllegalTarget {
				illegal++
			}
		}
		if math.Abs(float64(sum-1)) > 1e-3 || illegal != ps-legal {
			t.Errorf("sample %d: reply target sums to %v over %d legal moves, %d slots marked illegal of %d", i, sum, legal, illegal, ps)
		}
	}
	if with == 0 || without == 0 || mirrored == 0 {
		t.Errorf("%d samples with a reply (%d mirrored), %d without: want some of each", with, mirrored, without)
	}
}
