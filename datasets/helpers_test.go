package datasets

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/palace-chess/palace/rules"
)

// cappedRules is a preset with a length cap, which the encoder's
// game-length feature reads.
func cappedRules(t testing.TB, base string, plies int) *rules.RuleSet {
	return yamlRules(t, fmt.Sprintf("base: %s\nmaxPlies: %d\n", base, plies))
}

func yamlRules(t testing.TB, yaml string) *rules.RuleSet {
	t.Helper()
	rs, err := rules.ParseRuleSet([]byte(yaml), "test")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// playRandom plays a seeded random game under rs from its start and
// calls fn at each position before its move. Some games shuttle (play
// back their own last move whenever they can), so that repetitions and
// the repetition ends come up; janggi games pass now and then.
func playRandom(rs *rules.RuleSet, rng *rand.Rand, maxPlies int, fn func(g *rules.Game, legal []rules.Move, played rules.Move)) *rules.Game {
	return playRandomGame(rs, rng, maxPlies, rng.IntN(2) == 0, fn)
}

func playRandomGame(rs *rules.RuleSet, rng *rand.Rand, maxPlies int, shuttle bool, fn func(g *rules.Game, legal []rules.Move, played rules.Move)) *rules.Game {
	g, err := rules.NewGame(rs, rs.StartFEN())
	if err != nil {
		panic(err)
	}
	var buf []rules.Move
	var hist []rules.Move
	for ply := 0; ply < maxPlies && !g.Result().Over(); ply++ {
		legal := g.LegalMoves(buf[:0])
		buf = legal
		m := legal[rng.IntN(len(legal))]
		if shuttle && len(hist) >= 2 && rng.IntN(8) != 0 {
			back := hist[len(hist)-2]
			if rev := rules.NewMove(back.To(), back.From()); !back.IsPass() && slices.Contains(legal, rev) {
				m = rev
			}
		}
		if rng.IntN(8) == 0 {
			for _, x := range legal {
				if x.IsPass() {
					m = x
				}
			}
		}
		fn(g, legal, m)
		g.Play(m)
		hist = append(hist, m)
	}
	return g
}

// softmaxPolicy is a search-like target: softmax of random logits, a few
// moves taking most of the mass.
func softmaxPolicy(rng *rand.Rand, n int, dst []float32) []float32 {
	dst = dst[:0]
	var sum float64
	for range n {
		v := math.Exp(rng.NormFloat64() * 2)
		dst = append(dst, float32(v))
		sum += v
	}
	for i := range dst {
		dst[i] = float32(float64(dst[i]) / sum)
	}
	return dst
}

// makeRecords plays random games under rs until n records are made, with
// search-like targets and each game's result.
func makeRecords(rs *rules.RuleSet, seed uint64, n int) []Record {
	return makeGameRecords(rs, seed, n, true)
}

func makeGameRecords(rs *rules.RuleSet, seed uint64, n int, shuttles bool) []Record {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []Record
	var probs []float32
	for id := uint64(seed << 20); len(out) < n; id++ {
		first := len(out)
		g := playRandomGame(rs, rng, 300, shuttles && rng.IntN(2) == 0, func(g *rules.Game, legal []rules.Move, played rules.Move) {
			var r Record
			r.SetPosition(g, legal)
			probs = softmaxPolicy(rng, len(legal), probs)
			if err := r.SetPolicy(legal, probs); err != nil {
				panic(err)
			}
			r.GameID = id
			r.Move = played
			r.Value = rng.Float32()*2 - 1
			w, l := rng.Float32(), rng.Float32()
			r.WDL = [3]float32{w / 2, 1 - w/2 - l/2, l / 2}
			r.Full = rng.IntN(4) == 0
			out = append(out, r)
		})
		res := g.Result()
		for i := first; i < len(out); i++ {
			r := &out[i]
			r.FinalMaterial = g.Position().MaterialBalance(r.Side)
			switch {
			case res.Outcome == rules.Draw || !res.Over():
				r.Result = Draw
			case (res.Outcome == rules.WhiteWins) == (r.Side == rules.White):
				r.Result = Win
			default:
				r.Result = Loss
			}
		}
	}
	return out[:n]
}

// quantised is r as the format keeps it.
func quantised(t testing.TB, r *Record) Record {
	t.Helper()
	b, err := appendRecord(nil, r)
	if err != nil {
		t.Fatalf("record of game %d ply %d: %v", r.GameID, r.Ply, err)
	}
	var q Record
	if err := decodeRecord(b, &q, FormatVersion); err != nil {
		t.Fatalf("decoding record of game %d ply %d: %v", r.GameID, r.Ply, err)
	}
	return q
}

// sameRecord reports how a and b differ, or "".
func sameRecord(a, b *Record) string {
	x, y := *a, *b
	x.Policy, y.Policy = nil, nil
	if !reflect.DeepEqual(x, y) {
		return fmt.Sprintf("fields differ:\n%+v\n%+v", x, y)
	}
	if !slices.Equal(a.Policy, b.Policy) {
		return fmt.Sprintf("policies differ:\n%v\n%v", a.Policy, b.Policy)
	}
	return ""
}

func testHeader(rs *rules.RuleSet) Header {
	h := NewHeader(rs)
	h.NetworkID, h.ConfigHash, h.CodeVersion, h.Seeds = "net0", "cfg0", "test", []uint64{1, math.MaxUint64}
	return h
}

// writeShard writes recs to a shard at path.
func writeShard(t testing.TB, path string, rs *rules.RuleSet, recs []Record, opts ...Option) ShardInfo {
	t.Helper()
	w, err := NewWriter(path, testHeader(rs), opts...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			w.Abort()
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Info()
}

// readAll opens a shard from bytes and decodes every record.
func readAll(data []byte, name string) (int, error) {
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), name)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, err := range r.Records() {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// listDir is the directory's file names, hidden ones included.
func listDir(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Clean(path))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
