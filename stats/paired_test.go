package stats

import (
	"math"
	"testing"
)

// The reference values below are from tables (Student's t quantiles), from
// closed forms (the Cauchy and df = 2, 3 distributions, binomial sums) or
// worked by hand; none comes from this package.

func TestPairedNormalQuantile(t *testing.T) {
	for _, tt := range []struct{ p, want float64 }{
		{0.5, 0},
		{0.975, Z95},
		{0.025, -Z95},
		{0.995, 2.5758293035489008},
		{0.8413447460685429, 1}, // Φ(1)
		{1e-10, -6.3613409024040562},
		{0, math.Inf(-1)},
		{1, math.Inf(1)},
	} {
		if got := NormalQuantile(tt.p); !near(got, tt.want, 1e-13) {
			t.Errorf("NormalQuantile(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	for _, p := range []float64{-0.1, 1.1, math.NaN()} {
		if got := NormalQuantile(p); !math.IsNaN(got) {
			t.Errorf("NormalQuantile(%v) = %v, want NaN", p, got)
		}
	}
	if got := NormalCDF(Z95); !near(got, 0.975, 1e-15) {
		t.Errorf("NormalCDF(Z95) = %v, want 0.975", got)
	}
}

func TestPairedStudentT(t *testing.T) {
	// t(0.975, df): the familiar table, to every digit the table gives.
	for _, tt := range []struct{ df, want float64 }{
		{1, 12.706204736174705}, // tan(0.475π)
		{2, 4.3026527297494639}, // 0.95/√(2·0.975·0.025)
		{3, 3.1824463052837096},
		{5, 2.5705818356363155},
		{10, 2.2281388519862747},
		{30, 2.0422724563012383},
		{100, 1.9839715185235523},
		{math.Inf(1), Z95},
	} {
		got := StudentTQuantile(0.975, tt.df)
		if !near(got, tt.want, 1e-11*tt.want) {
			t.Errorf("StudentTQuantile(0.975, %v) = %.16g, want %.16g", tt.df, got, tt.want)
		}
		if back := StudentTCDF(got, tt.df); !near(back, 0.975, 1e-13) {
			t.Errorf("StudentTCDF(%v, %v) = %v, want 0.975", got, tt.df, back)
		}
		if lo := StudentTQuantile(0.025, tt.df); !near(lo, -got, 1e-12*tt.want) {
			t.Errorf("StudentTQuantile(0.025, %v) = %v, want %v", tt.df, lo, -got)
		}
	}
	if got := StudentTQuantile(0.995, 4); !near(got, 4.6040948713499932, 1e-11) {
		t.Errorf("StudentTQuantile(0.995, 4) = %v, want 4.604094871", got)
	}
	for _, tt := range []struct{ x, df, want float64 }{
		{1, 1, 0.75},                                   // Cauchy: 1/2 + atan(1)/π
		{2, 2, 0.5 + 2/(2*math.Sqrt(6))},               // df 2: 1/2 + t/(2√(2+t²))
		{-2, 2, 0.5 - 2/(2*math.Sqrt(6))},              //
		{0, 9, 0.5},                                    //
		{1, 3, 1 - (1.0/3 - math.Sqrt(3)/(4*math.Pi))}, // df 3 closed form at t = 1
		{1.5, 7, 0.91135075650501496},
		{-0.7, 2.5, 0.2717024715947741}, // fractional df
		{math.Inf(1), 4, 1},
		{math.Inf(-1), 4, 0},
		{1, math.Inf(1), NormalCDF(1)},
	} {
		if got := StudentTCDF(tt.x, tt.df); !near(got, tt.want, 1e-13) {
			t.Errorf("StudentTCDF(%v, %v) = %.16g, want %.16g", tt.x, tt.df, got, tt.want)
		}
	}
	for _, bad := range [][2]float64{{1, 0}, {1, -3}, {math.NaN(), 3}, {1, math.NaN()}} {
		if got := StudentTCDF(bad[0], bad[1]); !math.IsNaN(got) {
			t.Errorf("StudentTCDF(%v, %v) = %v, want NaN", bad[0], bad[1], got)
		}
	}
	for _, bad := range [][2]float64{{0.5, 0}, {-0.1, 3}, {1.5, 3}} {
		if got := StudentTQuantile(bad[0], bad[1]); !math.IsNaN(got) {
			t.Errorf("StudentTQuantile(%v, %v) = %v, want NaN", bad[0], bad[1], got)
		}
	}
	if StudentTQuantile(1, 3) != math.Inf(1) || StudentTQuantile(0, 3) != math.Inf(-1) || StudentTQuantile(0.5, 3) != 0 {
		t.Error("StudentTQuantile at 0, 1/2, 1: want -Inf, 0, +Inf")
	}
	// A small p-value keeps its digits: P(|T| > 3.2) on 50 df.
	if got := studentTwoSided(3.2, 50); !near(got, 0.0023880600171127627, 1e-15) {
		t.Errorf("studentTwoSided(3.2, 50) = %v, want 0.00238806", got)
	}
}

func TestPairedSignTest(t *testing.T) {
	for _, tt := range []struct {
		plus, minus int
		want        float64
	}{
		{2, 8, 2 * (1 + 10 + 45) / 1024.0}, // 0.109375
		{8, 2, 2 * (1 + 10 + 45) / 1024.0},
		{1, 9, 2 * 11 / 1024.0},
		{0, 5, 2 / 32.0},
		{3, 0, 2 / 8.0},
		{0, 10, 2 / 1024.0},
		{1, 1, 1},
		{5, 5, 1},
		{3, 4, 1}, // 2·P(X ≤ 3) of 7 is 1 exactly
		{0, 0, 1},
		{2, 3, 1},
		{3, 1, 2 * 5 / 16.0}, // 0.625
		// Large n: 2·P(X ≤ 450) for n = 1000, the binomial sum to 40 digits.
		{450, 550, 0.0017305360849763176},
	} {
		got := SignTest(tt.plus, tt.minus)
		if !near(got, tt.want, 1e-12*math.Max(tt.want, 1e-3)) {
			t.Errorf("SignTest(%d, %d) = %.16g, want %.16g", tt.plus, tt.minus, got, tt.want)
		}
	}
	if got := SignTest(-1, 3); !math.IsNaN(got) {
		t.Errorf("SignTest(-1, 3) = %v, want NaN", got)
	}
}

func TestPairedMeans(t *testing.T) {
	// Differences 1, −1, 1, 1: mean 1/2, squared deviations 1/4, 9/4, 1/4,
	// 1/4 summing to 3, so SD = √(3/3) = 1 and SE = 1/√4 = 1/2; the
	// statistic is 1.
	d := []float64{1, -1, 1, 1}
	z := MeanZ(d)
	if z.N != 4 || z.Mean != 0.5 || z.SD != 1 || z.SE != 0.5 || z.Stat != 1 || z.DF != 0 {
		t.Errorf("MeanZ(%v) = %+v, want N 4, mean 0.5, SD 1, SE 0.5, z 1", d, z)
	}
	if !near(z.P, 0.3173105078629141, 1e-15) { // 2(1 − Φ(1))
		t.Errorf("MeanZ(%v).P = %v, want 0.3173105078629141", d, z.P)
	}
	if !near(z.CI.Lo, 0.5-0.5*Z95, 1e-15) || !near(z.CI.Hi, 0.5+0.5*Z95, 1e-15) {
		t.Errorf("MeanZ(%v).CI = %v, want 0.5 ± 0.98", d, z.CI)
	}
	tt := MeanT(d)
	if tt.Mean != 0.5 || tt.SE != 0.5 || tt.Stat != 1 || tt.DF != 3 {
		t.Errorf("MeanT(%v) = %+v, want mean 0.5, SE 0.5, t 1 on 3 df", d, tt)
	}
	// On 3 df, P(|T| > 1) = 2/3 − √3/(2π) (the df-3 distribution's closed form).
	if want := 2.0/3 - math.Sqrt(3)/(2*math.Pi); !near(tt.P, want, 1e-14) {
		t.Errorf("MeanT(%v).P = %v, want %v", d, tt.P, want)
	}
	if half := 0.5 * 3.1824463052837096; !near(tt.CI.Lo, 0.5-half, 1e-12) || !near(tt.CI.Hi, 0.5+half, 1e-12) {
		t.Errorf("MeanT(%v).CI = %v, want 0.5 ± %v", d, tt.CI, half)
	}

	// Game lengths 10, 20, 30, 40: mean 25, SD √(500/3), and the t
	// interval 25 ± t(0.975, 3)·SD/2.
	lengths := MeanT([]float64{10, 20, 30, 40})
	sd := math.Sqrt(500.0 / 3)
	if !near(lengths.Mean, 25, 0) || !near(lengths.SD, sd, 1e-12) || !near(lengths.CI.Hi, 25+3.1824463052837096*sd/2, 1e-10) {
		t.Errorf("MeanT(10..40) = %+v, want mean 25, SD %v", lengths, sd)
	}

	// Lengths in the thousands: the two-pass variance keeps every digit
	// (Σx² − N·mean² would lose most of them to cancellation).
	big := MeanT([]float64{1e9 + 1, 1e9 + 2, 1e9 + 3})
	if big.SD != 1 {
		t.Errorf("SD of 1e9+1, +2, +3 = %v, want 1", big.SD)
	}
}

func TestPairedDegenerate(t *testing.T) {
	for _, f := range []func([]float64) MeanEstimate{MeanZ, MeanT} {
		if e := f(nil); e.N != 0 || !math.IsNaN(e.Mean) || !math.IsNaN(e.P) || !math.IsNaN(e.CI.Lo) {
			t.Errorf("no values: %+v, want NaN fields", e)
		}
		if e := f([]float64{3}); e.Mean != 3 || !math.IsNaN(e.SE) || !math.IsNaN(e.P) || !math.IsInf(e.CI.Lo, -1) || !math.IsInf(e.CI.Hi, 1) {
			t.Errorf("one value: %+v, want mean 3, NaN SE and P, an unbounded interval", e)
		}
		// Identical pairs (an A-vs-A experiment): no difference at all.
		if e := f([]float64{0, 0, 0}); e.Mean != 0 || e.SE != 0 || e.Stat != 0 || e.P != 1 || e.CI != (Interval{0, 0}) {
			t.Errorf("all zero: %+v, want mean 0, SE 0, stat 0, P 1", e)
		}
		// Every pair differs alike: the approximation says certain.
		if e := f([]float64{-1, -1, -1}); e.Mean != -1 || !math.IsInf(e.Stat, -1) || e.P != 0 {
			t.Errorf("all -1: %+v, want stat -Inf and P 0", e)
		}
	}
}
