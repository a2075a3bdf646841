package experiment

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// fourPairs are four pairs and one unpaired game, small enough to work out
// every figure by hand:
//
//	index  A                        B
//	0      1-0 checkmate 10, 0 pass  draw length-cap 11, 1 pass
//	1      draw repetition 20        0-1 checkmate 19
//	2      0-1 checkmate 30, 1 pass  draw length-cap 31, 1 pass
//	3      1-0 checkmate 40          draw length-cap 41, 2 passes
//	4      1-0 checkmate 50          (not played)
func fourPairs() (Header, []GameRecord) {
	h := Header{Kind: recordSpec.Kind, A: rules.MustPreset("janggi"),
		B: rules.MustPreset("janggiclassic"), Player: "p", OpeningPlies: 0, Seed: 1}
	g := func(i int, side, result, reason string, plies, passes int) GameRecord {
		return GameRecord{Index: i, Rules: side, Record: gamerec.Record{End: gamerec.End{Result: result, Reason: reason}, Plies: plies}, Passes: passes}
	}
	return h, []GameRecord{
		g(0, "A", "1-0", "checkmate", 10, 0), g(0, "B", "1/2-1/2", "length-cap", 11, 1),
		g(1, "B", "0-1", "checkmate", 19, 0), g(1, "A", "1/2-1/2", "repetition", 20, 0),
		g(2, "A", "0-1", "checkmate", 30, 1), g(2, "B", "1/2-1/2", "length-cap", 31, 1),
		g(4, "A", "1-0", "checkmate", 50, 0),
		g(3, "A", "1-0", "checkmate", 40, 0), g(3, "B", "1/2-1/2", "length-cap", 41, 2),
	}
}

func closeTo(got Num, want float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(float64(got))
	}
	return math.Abs(float64(got)-want) <= 1e-12*math.Max(1, math.Abs(want))
}

func checkDiff(t *testing.T, name string, d Diff, mean, se, lo, hi, stat, p float64, higher, lower int, exactP float64, sig bool) {
	t.Helper()
	if !closeTo(d.Mean, mean) || !closeTo(d.SE, se) || !closeTo(d.Lo, lo) || !closeTo(d.Hi, hi) || !closeTo(d.Stat, stat) ||
		!closeTo(d.P, p) || d.BHigher != higher || d.BLower != lower || !closeTo(d.ExactP, exactP) || d.Significant != sig {
		t.Errorf("%s: %+v\nwant mean %v SE %v [%v, %v] stat %v p %v, %d higher %d lower, exact p %v, significant %v",
			name, d, mean, se, lo, hi, stat, p, higher, lower, exactP, sig)
	}
}

func TestAnalyzeByHand(t *testing.T) {
	h, recs := fourPairs()
	an := Analyze(h, recs)
	if an.Pairs != 4 || an.Unpaired != 1 || an.FirstMover != "cho" || an.SecondMover != "han" || an.Game != "janggi" {
		t.Fatalf("pairs %d, unpaired %d, sides %s/%s of %s; want 4, 1, cho/han of janggi", an.Pairs, an.Unpaired, an.FirstMover, an.SecondMover, an.Game)
	}
	if an.A.Rules != h.A.String() || an.B.Rules != h.B.String() {
		t.Errorf("rules %s, %s", an.A.Rules, an.B.Rules)
	}

	// Cho's score: A 1 + ½ + 0 + 1 = 2.5 of 4, B ½ + 0 + ½ + ½ = 1.5;
	// Wilson(2.5, 4) and Wilson(1.5, 4) worked from the formula.
	for _, tt := range []struct {
		name      string
		r         Rate
		count     float64
		lo, hi    float64
		rateWant  float64
		gamesWant int
	}{
		{"A score", an.A.Score, 2.5, 0.21942652006536284, 0.9081007708209878, 0.625, 4},
		{"B score", an.B.Score, 1.5, 0.09189922917901217, 0.7805734799346372, 0.375, 4},
		{"A wins", an.A.Wins, 2, math.NaN(), math.NaN(), 0.5, 4},
		{"A draws", an.A.Draws, 1, math.NaN(), math.NaN(), 0.25, 4},
		{"B draws", an.B.Draws, 3, 0.30064184258240184, 0.9544127391902995, 0.75, 4},
		{"B wins", an.B.Wins, 0, 0, 0.4898908364545973, 0, 4},
		{"A checkmates", an.A.Reasons["checkmate"], 3, 0.30064184258240184, 0.9544127391902995, 0.75, 4},
		{"B repetitions", an.B.Reasons["repetition"], 0, 0, 0.4898908364545973, 0, 4},
	} {
		r := tt.r
		if !closeTo(r.Count, tt.count) || r.N != tt.gamesWant || !closeTo(r.Rate, tt.rateWant) ||
			(!math.IsNaN(tt.lo) && (!closeTo(r.Lo, tt.lo) || !closeTo(r.Hi, tt.hi))) {
			t.Errorf("%s: %+v, want %v of %d = %v [%v, %v]", tt.name, r, tt.count, tt.gamesWant, tt.rateWant, tt.lo, tt.hi)
		}
	}
	if len(an.A.Reasons) != 3 || len(an.B.Reasons) != 3 || len(an.Diff.Reasons) != 3 {
		t.Errorf("reasons %v, %v: want checkmate, repetition and length-cap under both", an.A.Reasons, an.B.Reasons)
	}

	// Lengths 10, 20, 30, 40: mean 25, SD √(500/3), t(0.975, 3) = 3.18244630528371.
	sd := math.Sqrt(500.0 / 3)
	half := 3.1824463052837096 * sd / 2
	if l := an.A.Length; l.N != 4 || !closeTo(l.Mean, 25) || !closeTo(l.SD, sd) || !closeTo(l.Lo, 25-half) || !closeTo(l.Hi, 25+half) {
		t.Errorf("A's length %+v, want 25 ± %v (SD %v)", l, half, sd)
	}

	z := 1.959963984540054
	p1 := 0.3173105078629141 // 2(1 − Φ(1))
	// Score differences −½, −½, +½, −½: mean −¼, SD ½, SE ¼, z −1; one
	// pair up, three down: sign test 2·(1 + 3)/16 … of 4: 2·5/16 = 0.625.
	checkDiff(t, "score", an.Diff.Score, -0.25, 0.25, -0.25-0.25*z, -0.25+0.25*z, -1, p1, 1, 3, 0.625, false)
	// Draws 0,1,0,0 → 1,0,1,1: differences 1, −1, 1, 1: mean ½, SD 1,
	// SE ½, z 1; the upper bound 1.48 is clamped to 1. McNemar: 3 against 1.
	checkDiff(t, "draws", an.Diff.Draws, 0.5, 0.5, 0.5-0.5*z, 1, 1, p1, 3, 1, 0.625, false)
	if an.Diff.Draws.Exact != "McNemar exact" || an.Diff.Score.Exact != "sign" || an.Diff.Draws.Test != "paired z" {
		t.Errorf("tests named %q, %q, %q", an.Diff.Draws.Exact, an.Diff.Score.Exact, an.Diff.Draws.Test)
	}
	// Cho's wins 1,0,0,1 → none: differences −1, 0, 0, −1: mean −½, SD
	// √(1/3), SE √(1/3)/2, z = −√3, p = erfc(√(3/2)); the lower bound
	// −1.066 is clamped to −1.
	seW := math.Sqrt(1.0/3) / 2
	checkDiff(t, "wins", an.Diff.Wins, -0.5, seW, -1, -0.5+z*seW, -math.Sqrt(3), 0.08326451666355043, 0, 2, 0.5, false)
	// Lengths: differences 1, −1, 1, 1 again, now under t on 3 df:
	// p = 2/3 − √3/(2π).
	tq := 3.1824463052837096
	checkDiff(t, "length", an.Diff.Length, 0.5, 0.5, 0.5-0.5*tq, 0.5+0.5*tq, 1, 2.0/3-math.Sqrt(3)/(2*math.Pi), 3, 1, 0.625, false)
	if an.Diff.Length.DF != 3 || an.Diff.Length.Test != "paired t" {
		t.Errorf("length test %s on %d df, want paired t on 3", an.Diff.Length.Test, an.Diff.Length.DF)
	}
	// Passes 0,0,1,0 → 1,0,1,2: differences 1, 0, 0, 2: mean ¾, squared
	// deviations sum to 2.75, SD √(2.75/3), t = 1.5667 on 3 df, whose
	// two-sided p is I_{3/(3+t²)}(3/2, 1/2) (to 30 digits by mpmath).
	seP := math.Sqrt(2.75/3) / 2
	checkDiff(t, "passes", an.Diff.Passes, 0.75, seP, 0.75-tq*seP, 0.75+tq*seP, 0.75/seP, 0.21516994256955015, 2, 0, 0.5, false)
	// Repetitions 0,1,0,0 → none: mean −¼, SE ¼, z −1; sign test 0 against 1.
	checkDiff(t, "repetition", an.Diff.Reasons["repetition"], -0.25, 0.25, -0.25-0.25*z, -0.25+0.25*z, -1, p1, 0, 1, 1, false)
}

// Every pair differing alike: the z test's certainty gives way to the
// exact test's p, which with enough pairs is significant.
func TestAnalyzeUnanimous(t *testing.T) {
	h, _ := fourPairs()
	var recs []GameRecord
	for i := range 7 {
		recs = append(recs,
			GameRecord{Index: i, Rules: "A", Record: gamerec.Record{End: gamerec.End{Result: "1-0", Reason: "checkmate"}, Plies: 30}},
			GameRecord{Index: i, Rules: "B", Record: gamerec.Record{End: gamerec.End{Result: "1/2-1/2", Reason: "length-cap"}, Plies: 30}})
	}
	an := Analyze(h, recs)
	d := an.Diff.Draws
	if d.Mean != 1 || d.SE != 0 || d.P != d.ExactP || !closeTo(d.ExactP, 2.0/128) || !d.Significant {
		t.Errorf("draws in every B game, none under A: %+v; want p = the sign test's 2/2⁷ and significant", d)
	}
	if l := an.Diff.Length; l.Mean != 0 || l.P != 1 || l.Significant {
		t.Errorf("equal lengths: %+v, want p 1", l)
	}
}

func TestAnalysisJSON(t *testing.T) {
	h, recs := fourPairs()
	// One pair: no spread to estimate, so nulls where numbers cannot be.
	one := Analyze(h, recs[:2])
	data, err := json.Marshal(one)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"pairs":1`, `"sd":null`, `"p":null`, `"first_mover":"cho"`, `"reasons":{"checkmate":`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("JSON lacks %s: %s", want, data)
		}
	}
	var back Analysis
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Pairs != 1 || !math.IsNaN(float64(back.Diff.Length.P)) || back.A.Score.Rate != 1 {
		t.Errorf("read back: %+v", back)
	}
	full, err := json.Marshal(Analyze(h, recs))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(full), `"score":{"mean":-0.25,`) {
		t.Errorf("JSON of the four pairs: %s", full)
	}
}

func TestWriteText(t *testing.T) {
	h, recs := fourPairs()
	var b strings.Builder
	if err := Analyze(h, recs).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"A: janggi", "B: janggiclassic", "B − A", "exact p",
		"cho score", "0.625 [0.219, 0.908]", "0.375 [0.092, 0.781]", "-0.250 [-0.740, +0.240]", "0.317", "0.625",
		"draws", "25.0% [", "75.0% [30.1, 95.4]", "+50.0 [-48.0, +100.0] pts",
		"han wins", "length (plies)", "25.0 [4.5, 45.5]", "passes", "ends: checkmate", "ends: length-cap", "ends: repetition",
		"1 game without its pair left out", "significant at 5%:     nothing", "both are below 0.05",
		// z's p 0.003 alone, McNemar's 0.250: not significant.
		"+75.0 [+26.0, +100.0] pts  0.003  0.250\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	Analyze(h, recs[6:7]).WriteText(&b)
	if !strings.Contains(b.String(), "no game has been played under both rule sets yet") {
		t.Errorf("no pairs:\n%s", b.String())
	}
}
