package datasets

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/internal/gametest"
	"github.com/palace-chess/palace/rules"
)

func planeDiff(a, b []float32) int {
	for k := range a {
		if a[k] != b[k] {
			return k
		}
	}
	return -1
}

// The planes EncodeRecord builds from a record (after the record has been
// through its byte format) are encode.Encode's for the game position it
// was taken from, over random games of several rule sets with passes,
// checks, bikjang, repetitions, counting and length caps.
func TestEncodeRecordMatchesEncode(t *testing.T) {
	sets := []*rules.RuleSet{
		rules.MustPreset("xiangqi"), rules.MustPreset("janggi"), rules.MustPreset("janggimodern"),
		rules.MustPreset("janggiclassic"), cappedRules(t, "janggi", 120), cappedRules(t, "xiangqi", 90),
		// Repetitions end games at the third occurrence; a longer rule lets
		// positions repeated twice be played on.
		yamlRules(t, "base: janggi\nrepetition: 6\n"), yamlRules(t, "base: xiangqi\nrepetition: 5\nperpetualCheckLoses: false\nchaseRule: false\n"),
	}
	games := 40
	if testing.Short() {
		games = 6
	}
	want := make([]float32, encode.InputSize)
	got := make([]float32, encode.InputSize)
	var n, passes, reps1, reps2, checks, bikjang, passLegal int
	for si, rs := range sets {
		rng := rand.New(rand.NewPCG(uint64(si), 7))
		for range games {
			playRandom(rs, rng, 250, func(g *rules.Game, legal []rules.Move, _ rules.Move) {
				if err := encode.Encode(g, legal, want); err != nil {
					t.Fatal(err)
				}
				var r Record
				r.SetPosition(g, legal)
				q := quantised(t, &r)
				if err := EncodeRecord(&q, rs, got); err != nil {
					t.Fatalf("%s ply %d: %v", rs.Name, g.Ply(), err)
				}
				if k := planeDiff(want, got); k >= 0 {
					t.Fatalf("%s %s ply %d: plane %d square %d is %v, encode.Encode says %v",
						rs, g.Position().FEN(), g.Ply(), k/rules.Squares, k%rules.Squares, got[k], want[k])
				}
				n++
				if g.LastMoveWasPass() {
					passes++
				}
				if g.Repetitions() >= 1 {
					reps1++
				}
				if g.Repetitions() >= 2 {
					reps2++
				}
				if g.InCheck() {
					checks++
				}
				if g.Position().InBikjang() {
					bikjang++
				}
				if r.PassLegal {
					passLegal++
				}
			})
		}
	}
	t.Logf("%d positions: %d after a pass, %d repeated, %d repeated twice, %d in check, %d in bikjang, %d with a legal pass",
		n, passes, reps1, reps2, checks, bikjang, passLegal)
	if passes == 0 || reps1 == 0 || reps2 == 0 || checks == 0 || bikjang == 0 || passLegal == 0 {
		t.Errorf("the games missed a case the encoder reads")
	}
}

// A mirrored record encodes to the mirrored planes, its policy is the
// original's through encode.MirrorIndex, and both are what encode gives
// for the mirrored game (its root mirrored, its moves mirrored); its
// policy covers exactly the mirrored game's legal moves.
func TestMirrorRecord(t *testing.T) {
	games := 6
	if testing.Short() {
		games = 2
	}
	a := make([]float32, encode.InputSize)
	b := make([]float32, encode.InputSize)
	c := make([]float32, encode.InputSize)
	var probs []float32
	for si, name := range []string{"xiangqi", "janggi", "janggimodern"} {
		rs := rules.MustPreset(name)
		rng := rand.New(rand.NewPCG(uint64(si), 11))
		for range games {
			mg, err := rules.NewGame(rs, gametest.MirrorFEN(rs.StartFEN()))
			if err != nil {
				t.Fatal(err)
			}
			playRandom(rs, rng, 200, func(g *rules.Game, legal []rules.Move, played rules.Move) {
				var r Record
				r.SetPosition(g, legal)
				r.Move = played
				probs = softmaxPolicy(rng, len(legal), probs)
				if err := r.SetPolicy(legal, probs); err != nil {
					t.Fatal(err)
				}
				if err := EncodeRecord(&r, rs, a); err != nil {
					t.Fatal(err)
				}
				m := r.Clone()
				m.Mirror()
				if err := EncodeRecord(m, rs, b); err != nil {
					t.Fatal(err)
				}
				if err := encode.MirrorPlanes(a, a); err != nil {
					t.Fatal(err)
				}
				if k := planeDiff(a, b); k >= 0 {
					t.Fatalf("%s ply %d: mirrored record's planes differ from the mirrored planes at %d", name, g.Ply(), k)
				}
				mlegal := mg.LegalMoves(nil)
				if err := encode.Encode(mg, mlegal, c); err != nil {
					t.Fatal(err)
				}
				if k := planeDiff(b, c); k >= 0 {
					t.Fatalf("%s ply %d: mirrored record's planes differ from the mirrored game's at %d", name, g.Ply(), k)
				}
				var want []PolicyEntry
				for _, e := range r.Policy {
					want = append(want, PolicyEntry{uint16(encode.MirrorIndex(int(e.Index))), e.P})
				}
				slices.SortFunc(want, func(x, y PolicyEntry) int { return int(x.Index) - int(y.Index) })
				if !slices.Equal(want, m.Policy) {
					t.Fatalf("%s ply %d: mirrored policy %v, want %v", name, g.Ply(), m.Policy, want)
				}
				var legalIdx []uint16
				for _, x := range mlegal {
					legalIdx = append(legalIdx, uint16(encode.MoveIndex(x, mg.Position().SideToMove())))
				}
				slices.Sort(legalIdx)
				for i, e := range m.Policy {
					if i >= len(legalIdx) || e.Index != legalIdx[i] {
						t.Fatalf("%s ply %d: mirrored policy slots are not the mirrored game's legal moves", name, g.Ply())
					}
				}
				if m.Move != mirrorMove(played) || !slices.Contains(mlegal, m.Move) {
					t.Fatalf("%s ply %d: mirrored move %s is not legal in the mirrored game", name, g.Ply(), m.Move)
				}
				m.Mirror()
				if d := sameRecord(m, &r); d != "" {
					t.Fatalf("mirroring twice changed the record: %s", d)
				}
				mg.Play(mirrorMove(played))
			})
		}
	}
}

// Write refuses records that are not well formed, saying why, and leaves
// the shard as it was.
func TestWriteRejects(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	base := makeRecords(rs, 5, 40)[30]
	cases := []struct {
		name, want string
		edit       func(r *Record)
	}{
		{"NaN value", "value", func(r *Record) { r.Value = float32(math.NaN()) }},
		{"value 1.5", "value", func(r *Record) { r.Value = 1.5 }},
		{"negative WDL", "WDL", func(r *Record) { r.WDL[1] = -0.5 }},
		{"probability 2", "probability", func(r *Record) { r.Policy[0].P = 2 }},
		{"unsorted policy", "increasing", func(r *Record) { r.Policy[0], r.Policy[1] = r.Policy[1], r.Policy[0] }},
		{"repeated index", "increasing", func(r *Record) { r.Policy[1].Index = r.Policy[0].Index }},
		{"index out of range", "out of range", func(r *Record) { r.Policy[len(r.Policy)-1].Index = uint16(encode.PolicySize()) }},
		{"bad piece", "piece value", func(r *Record) { r.Board[40] = 8 }},
		{"no general", "generals", func(r *Record) {
			for s, p := range r.Board {
				if p == rules.MakePiece(rules.Black, rules.King) {
					r.Board[s] = rules.NoPiece
				}
			}
		}},
		{"short history", "history", func(r *Record) { r.NumHistory = 1 }},
		{"history NoMove", "history move", func(r *Record) { r.History[0].Move = rules.NoMove }},
		{"move off the board", "move played", func(r *Record) { r.Move = rules.NewMove(95, 3) }},
		{"result 3", "result", func(r *Record) { r.Result = 3 }},
		{"result -2", "result", func(r *Record) { r.Result = -2 }},
		{"side 2", "side", func(r *Record) { r.Side = 2 }},
		{"repetitions 300", "repetition", func(r *Record) { r.Repetitions = 300 }},
	}
	w, err := NewWriter(t.TempDir()+"/x.shard", testHeader(rs))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, tc := range cases {
		r := base.Clone()
		tc.edit(r)
		err := w.Write(r)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "datasets: ") {
			t.Errorf("%s: Write = %v, want an error about %q", tc.name, err, tc.want)
		}
		if w.Records() != 0 || len(w.raw) != 0 {
			t.Fatalf("%s: a refused record changed the shard", tc.name)
		}
	}
	if err := w.Write(&base); err != nil {
		t.Fatal(err)
	}
}

// EncodeRecord refuses what would index outside the planes, never
// panicking on a record built by hand.
func TestEncodeRecordRejects(t *testing.T) {
	rs := rules.MustPreset("janggi")
	r := makeRecords(rs, 3, 10)[9]
	dst := make([]float32, encode.InputSize)
	if err := EncodeRecord(&r, rs, dst[:10]); err == nil {
		t.Error("short destination accepted")
	}
	if err := EncodeRecord(&r, nil, dst); err == nil {
		t.Error("nil rule set accepted")
	}
	bad := r.Clone()
	bad.History[1].Move = rules.NewMove(100, 3)
	if err := EncodeRecord(bad, rs, dst); err == nil {
		t.Error("history move off the board accepted")
	}
	bad = r.Clone()
	bad.NumHistory = 7
	if err := EncodeRecord(bad, rs, dst); err == nil {
		t.Error("history longer than the array accepted")
	}
}

func TestPolicyTarget(t *testing.T) {
	r := makeRecords(rules.MustPreset("xiangqi"), 9, 5)[4]
	q := quantised(t, &r)
	dst := make([]float32, encode.PolicySize())
	if err := q.PolicyTarget(dst); err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, v := range dst {
		sum += float64(v)
	}
	if math.Abs(sum-1) > 1e-5 {
		t.Errorf("dense target sums to %v", sum)
	}
	for _, e := range r.Policy {
		if math.Abs(float64(dst[e.Index]-e.P)) > 1e-4 {
			t.Errorf("slot %d: %v, want about %v", e.Index, dst[e.Index], e.P)
		}
	}
}
