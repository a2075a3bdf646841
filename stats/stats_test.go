package stats

import (
	"math"
	"strings"
	"testing"
)

// near reports whether got is within tol of want, treating equal infinities
// as near and NaN as never near.
func near(got, want, tol float64) bool {
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol
}

// sprt05 is the usual α = β = 0.05 test with the given logistic Elo bounds.
func sprt05(elo0, elo1 float64) SPRT { return SPRT{Elo0: elo0, Elo1: elo1, Alpha: 0.05, Beta: 0.05} }

func TestWDLGamesScore(t *testing.T) {
	tests := []struct {
		c     WDL
		games int
		score float64
	}{
		{WDL{}, 0, 0.5}, // documented neutral value, not NaN
		{WDL{6, 0, 4}, 10, 0.6},
		{WDL{1, 2, 1}, 4, 0.5},
		{WDL{3, 1, 0}, 4, 0.875},
		{WDL{0, 0, 7}, 7, 0},
	}
	for _, tt := range tests {
		if g := tt.c.Games(); g != tt.games {
			t.Errorf("%+v.Games() = %d, want %d", tt.c, g, tt.games)
		}
		if s := tt.c.Score(); !near(s, tt.score, 1e-15) {
			t.Errorf("%+v.Score() = %v, want %v", tt.c, s, tt.score)
		}
	}
}

func TestPentanomialPairsScore(t *testing.T) {
	tests := []struct {
		p     Pentanomial
		pairs int
		score float64
	}{
		{Pentanomial{}, 0, 0.5},
		{Pentanomial{0, 0, 0, 0, 3}, 3, 1},
		{Pentanomial{2, 0, 0, 0, 0}, 2, 0},
		{Pentanomial{1, 1, 1, 1, 1}, 5, 0.5},
		{Pentanomial{0, 0, 1, 1, 0}, 2, 0.625}, // (2+3)/8
	}
	for _, tt := range tests {
		if n := tt.p.Pairs(); n != tt.pairs {
			t.Errorf("%v.Pairs() = %d, want %d", tt.p, n, tt.pairs)
		}
		if s := tt.p.Score(); !near(s, tt.score, 1e-15) {
			t.Errorf("%v.Score() = %v, want %v", tt.p, s, tt.score)
		}
	}
}

func TestPairIndex(t *testing.T) {
	tests := []struct {
		first, second float64
		want          int
		wantErr       bool
	}{
		{0, 0, 0, false},
		{0, 0.5, 1, false},
		{0.5, 0, 1, false},
		{1, 0, 2, false},
		{0.5, 0.5, 2, false},
		{0.5, 1, 3, false},
		{1, 1, 4, false},
		{0.25, 1, 0, true},
		{1, -1, 0, true},
		{1.5, 0, 0, true},
		{math.NaN(), 0, 0, true},
	}
	for _, tt := range tests {
		got, err := PairIndex(tt.first, tt.second)
		if tt.wantErr {
			if err == nil || !strings.HasPrefix(err.Error(), "stats: ") {
				t.Errorf("PairIndex(%v, %v) error = %v, want a stats: error", tt.first, tt.second, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("PairIndex(%v, %v) = %d, %v, want %d", tt.first, tt.second, got, err, tt.want)
		}
	}
	var p Pentanomial
	if err := p.AddPair(1, 0.5); err != nil || p != (Pentanomial{0, 0, 0, 1, 0}) {
		t.Errorf("AddPair(1, 0.5) gave %v, %v", p, err)
	}
	if err := p.AddPair(2, 0); err == nil || p != (Pentanomial{0, 0, 0, 1, 0}) {
		t.Errorf("AddPair(2, 0) gave %v, %v; want an error and no change", p, err)
	}
}

func TestEloScore(t *testing.T) {
	tests := []struct{ score, elo float64 }{
		{0.5, 0},
		{0.6, 70.43650362227247}, // 400·log10(1.5)
		{0.75, 190.848501887865}, // 400·log10(3)
		{0.25, -190.848501887865},
		{0, math.Inf(-1)},
		{1, math.Inf(1)},
	}
	for _, tt := range tests {
		if e := EloFromScore(tt.score); !near(e, tt.elo, 1e-9) {
			t.Errorf("EloFromScore(%v) = %v, want %v", tt.score, e, tt.elo)
		}
		if s := ScoreFromElo(tt.elo); !near(s, tt.score, 1e-12) {
			t.Errorf("ScoreFromElo(%v) = %v, want %v", tt.elo, s, tt.score)
		}
	}
	for _, s := range []float64{-0.1, 1.1, math.NaN()} {
		if e := EloFromScore(s); !math.IsNaN(e) {
			t.Errorf("EloFromScore(%v) = %v, want NaN", s, e)
		}
	}
}

func TestWilson(t *testing.T) {
	// Hand-computed: centre (p + z²/2n)/(1 + z²/n) ± z/(1 + z²/n)·√(p(1−p)/n + z²/4n²).
	nan := math.NaN()
	tests := []struct {
		successes float64
		n         int
		z         float64
		want      Interval
	}{
		{5, 10, Z95, Interval{0.236593090512564, 0.7634069094874361}},
		{0, 10, Z95, Interval{0, 0.2775327998628892}},
		{10, 10, Z95, Interval{0.7224672001371107, 1}},
		{7.5, 10, Z95, Interval{0.4421814242785499, 0.9190521757900055}}, // draws as halves
		{60, 100, Z95, Interval{0.5020025867910618, 0.6905987135675411}},
		{3, 10, 0, Interval{0.3, 0.3}},
		{0, 0, Z95, Interval{0, 1}},
		{11, 10, Z95, Interval{nan, nan}},
		{-1, 10, Z95, Interval{nan, nan}},
		{0, -1, Z95, Interval{nan, nan}},
		{5, 10, -1, Interval{nan, nan}},
		{5, 10, math.Inf(1), Interval{nan, nan}},
	}
	for _, tt := range tests {
		got := Wilson(tt.successes, tt.n, tt.z)
		if math.IsNaN(tt.want.Lo) {
			if !math.IsNaN(got.Lo) || !math.IsNaN(got.Hi) {
				t.Errorf("Wilson(%v, %d, %v) = %v, want NaN bounds", tt.successes, tt.n, tt.z, got)
			}
			continue
		}
		if !near(got.Lo, tt.want.Lo, 1e-12) || !near(got.Hi, tt.want.Hi, 1e-12) {
			t.Errorf("Wilson(%v, %d, %v) = %v, want %v", tt.successes, tt.n, tt.z, got, tt.want)
		}
		if got.Lo < 0 || got.Hi > 1 {
			t.Errorf("Wilson(%v, %d, %v) = %v leaves [0, 1]", tt.successes, tt.n, tt.z, got)
		}
	}
}

func TestWDLElo(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name string
		c    WDL
		want EloEstimate
	}{
		// ŝ = 0.6, σ̂² = 0.14, se = √0.0014, mapped through EloFromScore by hand.
		{"60%", WDL{40, 40, 20}, EloEstimate{70.43650362227247, Interval{18.546239994354075, 125.65154217656935}, 0.996236842416771}},
		{"even", WDL{30, 40, 30}, EloEstimate{0, Interval{-53.157979780053225, 53.157979780053275}, 0.5}},
		{"no games", WDL{}, EloEstimate{0, Interval{-inf, inf}, 0.5}},
		{"all wins", WDL{5, 0, 0}, EloEstimate{inf, Interval{inf, inf}, 1}},
		{"all losses", WDL{0, 0, 5}, EloEstimate{-inf, Interval{-inf, -inf}, 0}},
		{"all draws", WDL{0, 8, 0}, EloEstimate{0, Interval{0, 0}, 0.5}},
		// The upper score bound 0.9999 + 1.96·0.0001 clamps to 1: +Inf, not NaN.
		{"clamped upper", WDL{9999, 0, 1}, EloEstimate{1599.982627352221, Interval{1411.4397552018127, inf}, 1}},
		{"clamped lower", WDL{1, 0, 9999}, EloEstimate{-1599.982627352221, Interval{-inf, -1411.4397552018127}, 0}},
	}
	for _, tt := range tests {
		got := tt.c.Elo()
		if !near(got.Elo, tt.want.Elo, 1e-6) || !near(got.CI.Lo, tt.want.CI.Lo, 1e-6) ||
			!near(got.CI.Hi, tt.want.CI.Hi, 1e-6) || !near(got.LOS, tt.want.LOS, 1e-9) {
			t.Errorf("%s: %+v.Elo() = %+v, want %+v", tt.name, tt.c, got, tt.want)
		}
	}
	nan := WDL{Wins: -1, Draws: 3}.Elo()
	if !math.IsNaN(nan.Elo) || !math.IsNaN(nan.CI.Lo) || !math.IsNaN(nan.LOS) {
		t.Errorf("negative counts: Elo() = %+v, want NaN fields", nan)
	}
}

// pairsOf counts the same game pairs both as games and as pairs.
func pairsOf(t *testing.T, pairs []struct {
	first, second float64
	n             int
}) (WDL, Pentanomial) {
	t.Helper()
	var c WDL
	var p Pentanomial
	count := func(s float64, n int) {
		switch s {
		case 1:
			c.Wins += n
		case 0.5:
			c.Draws += n
		default:
			c.Losses += n
		}
	}
	for _, pr := range pairs {
		k, err := PairIndex(pr.first, pr.second)
		if err != nil {
			t.Fatal(err)
		}
		p[k] += pr.n
		count(pr.first, pr.n)
		count(pr.second, pr.n)
	}
	return c, p
}

func TestPentanomialEloNarrowerWhenCorrelated(t *testing.T) {
	// Many pairs where each side wins its favourable colour: the games
	// vary a lot, the pair scores hardly at all.
	c, p := pairsOf(t, []struct {
		first, second float64
		n             int
	}{{1, 0, 40}, {1, 1, 10}, {0.5, 0.5, 20}, {1, 0.5, 15}, {0, 0.5, 10}, {0, 0, 5}})
	tri, pen := c.Elo(), p.Elo()
	if !near(tri.Elo, pen.Elo, 1e-9) {
		t.Errorf("point estimates differ: trinomial %v, pentanomial %v", tri.Elo, pen.Elo)
	}
	wt, wp := tri.CI.Hi-tri.CI.Lo, pen.CI.Hi-pen.CI.Lo
	if !(wp < 0.8*wt) {
		t.Errorf("pentanomial CI width %v not clearly narrower than trinomial %v", wp, wt)
	}
	if !(pen.LOS > tri.LOS) {
		t.Errorf("pentanomial LOS %v not above trinomial %v for a positive score", pen.LOS, tri.LOS)
	}
}

// Counts of 40000 independent games with P(L, D, W) = (0.25, 0.45, 0.30),
// and of the same games as 20000 pairs: the pair distribution is the
// convolution, e.g. P(2) = 2·0.25·0.30 + 0.45² = 0.3525.
var (
	indepWDL   = WDL{Wins: 12000, Draws: 18000, Losses: 10000}
	indepPenta = Pentanomial{1250, 4500, 7050, 5400, 1800}
)

func TestPentanomialEloMatchesTrinomialWhenIndependent(t *testing.T) {
	tri, pen := indepWDL.Elo(), indepPenta.Elo()
	// Independent games: the pair variance is half the game variance over
	// half as many samples, so the intervals coincide.
	if !near(pen.CI.Lo, tri.CI.Lo, 1e-9) || !near(pen.CI.Hi, tri.CI.Hi, 1e-9) || !near(pen.Elo, tri.Elo, 1e-9) {
		t.Errorf("independent games: pentanomial %+v, trinomial %+v", pen, tri)
	}
}

func TestSPRTValidate(t *testing.T) {
	tests := []struct {
		name string
		s    SPRT
		ok   bool
	}{
		{"fishtest STC", sprt05(0, 2), true},
		{"negative elo0", SPRT{-1.75, 0.25, 0.05, 0.05}, true},
		{"asymmetric", SPRT{0, 10, 0.01, 0.2}, true},
		{"alpha 0", SPRT{0, 5, 0, 0.05}, false},
		{"alpha 1", SPRT{0, 5, 1, 0.05}, false},
		{"alpha negative", SPRT{0, 5, -0.05, 0.05}, false},
		{"beta 1", SPRT{0, 5, 0.05, 1}, false},
		{"alpha NaN", SPRT{0, 5, math.NaN(), 0.05}, false},
		{"alpha + beta 1", SPRT{0, 5, 0.5, 0.5}, false},
		{"elo0 = elo1", sprt05(2, 2), false},
		{"elo0 > elo1", sprt05(5, 0), false},
		{"elo1 infinite", sprt05(0, math.Inf(1)), false},
		{"elo0 NaN", sprt05(math.NaN(), 5), false},
		{"zero value", SPRT{}, false},
		// Issue 47: finite bounds whose scores round to 1 (or 0, or to each
		// other) made every gate's LLR NaN.
		{"elo bounds past float range", sprt05(1e308, 1.7e308), false},
		{"both scores 0", sprt05(-1e6, -1e5), false},
		{"scores equal", sprt05(20000, 20001), false},
		{"far but distinct", sprt05(2000, 3000), true},
	}
	for _, tt := range tests {
		err := tt.s.Validate()
		if tt.ok != (err == nil) {
			t.Errorf("%s: Validate() = %v, want ok %v", tt.name, err, tt.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "stats: ") {
			t.Errorf("%s: error %q lacks the stats: prefix", tt.name, err)
		}
		if !tt.ok && !math.IsNaN(tt.s.LLRTrinomial(WDL{10, 10, 5})) {
			t.Errorf("%s: LLR of an invalid test is not NaN", tt.name)
		}
		if tt.ok {
			// A valid test's LLR is a number for any counts, however lopsided.
			for _, p := range []Pentanomial{{1, 0, 0, 0, 0}, {0, 0, 0, 0, 1}, {0, 0, 7, 0, 0}, {1e6, 0, 0, 0, 0}, {0, 0, 0, 0, 1e6}, {5, 3, 10, 2, 7}} {
				if llr := tt.s.LLRPentanomial(p); math.IsNaN(llr) || math.IsInf(llr, 0) {
					t.Errorf("%s: LLR of %v is %v", tt.name, p, llr)
				}
			}
		}
	}
}

func TestBounds(t *testing.T) {
	tests := []struct {
		alpha, beta  float64
		lower, upper float64
	}{
		{0.05, 0.05, -2.9444389791664403, 2.9444389791664403}, // ±log 19, fishtest's "(-2.94,2.94)"
		{0.05, 0.1, -2.251291798606495, 2.8903717578961645},
	}
	for _, tt := range tests {
		lo, hi := SPRT{0, 5, tt.alpha, tt.beta}.Bounds()
		if !near(lo, tt.lower, 1e-12) || !near(hi, tt.upper, 1e-12) {
			t.Errorf("Bounds(α=%v, β=%v) = %v, %v, want %v, %v", tt.alpha, tt.beta, lo, hi, tt.lower, tt.upper)
		}
	}
}

func TestLLRPublishedFishtest(t *testing.T) {
	// Stockfish commit "LMR for captures at allNodes not in PV" (closes
	// official-stockfish/Stockfish#3273, December 2020), as printed by
	// fishtest with logistic Elo bounds in braces:
	//   tests/view/5fe50b9d3932f79192d3973c
	//     LLR: 2.95 (-2.94,2.94) {-0.25,1.25}
	//     Total: 83128 W: 7606 L: 7368 D: 68154
	//     Ptnml(0-2): 292, 5905, 28939, 6129, 299
	//   tests/view/5fe552e43932f79192d39744
	//     LLR: 2.92 (-2.94,2.94) {0.25,1.25}
	//     Total: 13968 W: 568 L: 466 D: 12934
	//     Ptnml(0-2): 5, 418, 6043, 506, 12
	tests := []struct {
		name     string
		s        SPRT
		games    WDL
		pairs    Pentanomial
		printed  float64
		decision Decision
	}{
		{"STC", sprt05(-0.25, 1.25), WDL{7606, 68154, 7368}, Pentanomial{292, 5905, 28939, 6129, 299}, 2.95, AcceptH1},
		// fishtest accepted this one through its overshoot correction; the
		// plain bounds have not been reached yet.
		{"LTC", sprt05(0.25, 1.25), WDL{568, 12934, 466}, Pentanomial{5, 418, 6043, 506, 12}, 2.92, Continue},
	}
	for _, tt := range tests {
		if 2*tt.pairs.Pairs() != tt.games.Games() || math.Abs(tt.pairs.Score()-tt.games.Score()) > 1e-12 {
			t.Fatalf("%s: transcribed counts disagree: %v vs %+v", tt.name, tt.pairs, tt.games)
		}
		llr := tt.s.LLRPentanomial(tt.pairs)
		if !near(llr, tt.printed, 0.01) {
			t.Errorf("%s: LLRPentanomial = %.4f, fishtest printed %.2f", tt.name, llr, tt.printed)
		}
		if d := tt.s.Decide(llr); d != tt.decision {
			t.Errorf("%s: Decide(%.4f) = %v, want %v", tt.name, llr, d, tt.decision)
		}
		// The normal approximation agrees to within 2% at these sizes.
		if a := approxLLR(tt.s, tt.pairs.Score(), pairVariance(tt.pairs), tt.pairs.Pairs()); math.Abs(a-llr) > 0.02*math.Abs(llr) {
			t.Errorf("%s: LLR %.4f vs approximation %.4f", tt.name, llr, a)
		}
	}
}

// approxLLR is Van den Bergh's Brownian approximation of the GSPRT LLR,
// N·(s1 − s0)(2ŝ − s0 − s1)/(2σ̂²), with σ̂² the per-sample variance.
func approxLLR(s SPRT, mean, variance float64, n int) float64 {
	s0, s1 := ScoreFromElo(s.Elo0), ScoreFromElo(s.Elo1)
	return float64(n) * (s1 - s0) * (2*mean - s0 - s1) / (2 * variance)
}

func pairVariance(p Pentanomial) float64 {
	v, c := p.pentanomial()
	_, variance := moments(v, c, float64(p.Pairs()))
	return variance
}

func gameVariance(c WDL) float64 {
	v, n := c.trinomial()
	_, variance := moments(v, n, float64(c.Games()))
	return variance
}

func TestLLRIndependentGamesAndApproximation(t *testing.T) {
	for _, s := range []SPRT{sprt05(0, 5), sprt05(-0.25, 1.25), sprt05(0, 2), sprt05(-3, 1)} {
		tri := s.LLRTrinomial(indepWDL)
		pen := s.LLRPentanomial(indepPenta)
		// The two models see the same independent games, so they should
		// agree closely though not exactly: the constrained MLEs differ.
		if math.Abs(tri-pen) > 0.01*math.Abs(tri) {
			t.Errorf("%+v: trinomial LLR %.4f, pentanomial %.4f", s, tri, pen)
		}
		a := approxLLR(s, indepWDL.Score(), gameVariance(indepWDL), indepWDL.Games())
		if math.Abs(a-tri) > 0.02*math.Abs(tri) {
			t.Errorf("%+v: trinomial LLR %.4f, approximation %.4f", s, tri, a)
		}
	}
}

// bruteTrinomialLLR recomputes the trinomial LLR without the Lagrange
// multiplier: on values 0, ½, 1 a distribution with mean s is fixed by its
// draw probability d (pW = s − d/2, pL = 1 − s − d/2), so the constrained
// maximum likelihood is a 1-D concave maximisation, done by golden section.
func bruteTrinomialLLR(s SPRT, c WDL) float64 {
	f := []float64{float64(c.Losses), float64(c.Draws), float64(c.Wins)}
	n := 0.0
	for i := range f {
		f[i] = math.Max(f[i], 1e-3)
		n += f[i]
	}
	for i := range f {
		f[i] /= n
	}
	best := func(m float64) []float64 {
		p := func(d float64) []float64 { return []float64{1 - m - d/2, d, m - d/2} }
		ll := func(d float64) float64 {
			q := p(d)
			return f[0]*math.Log(q[0]) + f[1]*math.Log(q[1]) + f[2]*math.Log(q[2])
		}
		lo, hi := 0.0, 2*math.Min(m, 1-m)
		g := (math.Sqrt(5) - 1) / 2
		for range 300 {
			a, b := hi-g*(hi-lo), lo+g*(hi-lo)
			if ll(a) < ll(b) {
				lo = a
			} else {
				hi = b
			}
		}
		return p((lo + hi) / 2)
	}
	p0, p1 := best(ScoreFromElo(s.Elo0)), best(ScoreFromElo(s.Elo1))
	sum := 0.0
	for i := range f {
		sum += f[i] * math.Log(p1[i]/p0[i])
	}
	return n * sum
}

func TestLLRTrinomialAgainstDirectMaximisation(t *testing.T) {
	tests := []struct {
		s SPRT
		c WDL
	}{
		{sprt05(0, 5), WDL{120, 300, 100}},
		{sprt05(0, 5), WDL{100, 300, 120}},
		{sprt05(-0.25, 1.25), WDL{7606, 68154, 7368}},
		{sprt05(0, 50), WDL{30, 0, 20}},  // no draws: regularized
		{sprt05(0, 50), WDL{10, 0, 0}},   // all wins
		{sprt05(-50, 0), WDL{0, 3, 12}},  // no wins
		{sprt05(100, 300), WDL{1, 1, 1}}, // s0, s1 far from ŝ
	}
	for _, tt := range tests {
		got, want := tt.s.LLRTrinomial(tt.c), bruteTrinomialLLR(tt.s, tt.c)
		if math.IsNaN(got) || math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("%+v %+v: LLRTrinomial = %.9f, direct maximisation %.9f", tt.s, tt.c, got, want)
		}
	}
}

func TestConstrainedMLE(t *testing.T) {
	// Beyond the LLR: the returned distribution must sum to 1 and have the
	// requested mean, including means far from the sample's.
	values := []float64{0, 0.25, 0.5, 0.75, 1}
	freq := []float64{0.01, 0.2, 0.5, 0.25, 0.04}
	for _, s := range []float64{0.001, 0.3, 0.5, 0.52, 0.9, 0.999} {
		theta := constrainedMLE(values, freq, s)
		sum, mean := 0.0, 0.0
		for i, a := range values {
			p := freq[i] / (1 + theta*(a-s))
			if !(p > 0) {
				t.Fatalf("s=%v: p[%d] = %v", s, i, p)
			}
			sum += p
			mean += p * a
		}
		if !near(sum, 1, 1e-9) || !near(mean, s, 1e-9) {
			t.Errorf("s=%v: sum %v, mean %v", s, sum, mean)
		}
	}
}

func TestLLREdgeCases(t *testing.T) {
	s := sprt05(0, 5)
	if l := s.LLRTrinomial(WDL{}); l != 0 {
		t.Errorf("no games: LLRTrinomial = %v, want 0", l)
	}
	if l := s.LLRPentanomial(Pentanomial{}); l != 0 {
		t.Errorf("no pairs: LLRPentanomial = %v, want 0", l)
	}
	win, loss := s.LLRTrinomial(WDL{Wins: 20}), s.LLRTrinomial(WDL{Losses: 20})
	if !(win > 0) || math.IsInf(win, 0) || !(loss < 0) || math.IsInf(loss, 0) {
		t.Errorf("all wins / all losses: LLR %v / %v, want finite positive / negative", win, loss)
	}
	pwin := s.LLRPentanomial(Pentanomial{4: 10})
	if !(pwin > 0) || math.IsInf(pwin, 0) {
		t.Errorf("all pairs won: LLR %v, want finite positive", pwin)
	}
	// More wins, more evidence for H1.
	prev := math.Inf(-1)
	for w := 0; w <= 60; w += 10 {
		l := s.LLRTrinomial(WDL{Wins: w, Draws: 100, Losses: 30})
		if !(l > prev) {
			t.Errorf("LLR not increasing in wins: %v after %v at W=%d", l, prev, w)
		}
		prev = l
	}
	if l := s.LLRTrinomial(WDL{Wins: -1, Draws: 5}); !math.IsNaN(l) {
		t.Errorf("negative counts: LLR = %v, want NaN", l)
	}
	if l := s.LLRPentanomial(Pentanomial{1, -1, 3, 0, 0}); !math.IsNaN(l) {
		t.Errorf("negative counts: LLR = %v, want NaN", l)
	}
}

func TestDecide(t *testing.T) {
	s := sprt05(0, 2)
	lo, hi := s.Bounds()
	tests := []struct {
		llr  float64
		want Decision
	}{
		{0, Continue},
		{2.94, Continue},
		{hi, AcceptH1},
		{2.95, AcceptH1},
		{math.Inf(1), AcceptH1},
		{-2.94, Continue},
		{lo, AcceptH0},
		{-2.95, AcceptH0},
		{math.NaN(), Continue},
	}
	for _, tt := range tests {
		if d := s.Decide(tt.llr); d != tt.want {
			t.Errorf("Decide(%v) = %v, want %v", tt.llr, d, tt.want)
		}
	}
	if d := (SPRT{Elo0: 5, Elo1: 0, Alpha: 0.05, Beta: 0.05}).Decide(100); d != Continue {
		t.Errorf("invalid test: Decide(100) = %v, want continue", d)
	}
}

func TestDecisionString(t *testing.T) {
	for d, want := range map[Decision]string{
		Continue: "continue", AcceptH0: "accept H0", AcceptH1: "accept H1", Decision(7): "Decision(7)",
	} {
		if got := d.String(); got != want {
			t.Errorf("Decision(%d).String() = %q, want %q", int(d), got, want)
		}
	}
}

func TestFormatElo(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{{35.4, "+35"}, {-12.6, "-13"}, {-0.3, "0"}, {math.Copysign(0, -1), "0"}, {math.Inf(1), "+inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"}} {
		if got := FormatElo(tc.x); got != tc.want {
			t.Errorf("FormatElo(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

func TestEloEstimateString(t *testing.T) {
	e := EloEstimate{Elo: 35.2, CI: Interval{Lo: -0.2, Hi: math.Inf(1)}}
	if got := e.String(); got != "+35 [0, +inf]" {
		t.Errorf("%#v.String() = %q", e, got)
	}
}
