package stats

import "math"

// The statistics of paired comparisons: an experiment plays game i under
// two settings with the same opening and seed, so the per-pair differences
// are the observations, and their spread (not the spread of each setting's
// own results) decides how sure a difference is.

// MeanEstimate is a sample mean with its 95% confidence interval and the
// two-sided test of a zero mean.
type MeanEstimate struct {
	N    int
	Mean float64
	// SD is the sample standard deviation (divided by N−1); SE = SD/√N.
	SD, SE float64
	CI     Interval
	// Stat is Mean/SE: z under the normal approximation, t under
	// Student's; DF is t's degrees of freedom (N−1), 0 for z.
	Stat float64
	DF   int
	// P is the two-sided p-value of the hypothesis that the true mean is 0.
	P float64
}

// MeanZ estimates the mean of xs with the normal approximation: Mean ±
// Z95·SE, and P = 2(1 − Φ(|Mean/SE|)). Applied to the per-pair differences
// of two settings it is the paired test of the difference (for 0/1 values,
// the asymptotic McNemar test with the sample variance).
//
// Degenerate samples: with no values every field is NaN; with one, SD, SE,
// Stat and P are NaN and the interval is (−Inf, +Inf). When every value is
// the same (SE = 0) the interval is that value alone, Stat is 0 and P 1 for
// a zero mean, else Stat is ±Inf and P is 0: the normal approximation then
// claims certainty it does not have, so check SignTest too.
func MeanZ(xs []float64) MeanEstimate {
	e := moments1(xs)
	if e.N < 2 {
		return e
	}
	return e.finish(Z95, phiTwoSided(e.Stat))
}

// MeanT estimates the mean of xs with Student's t distribution on N−1
// degrees of freedom: Mean ± t(0.975, N−1)·SE, and the two-sided p-value of
// t = Mean/SE. It assumes roughly normal values (or enough of them); applied
// to per-pair differences it is the paired t test. Degenerate samples are
// as for MeanZ.
func MeanT(xs []float64) MeanEstimate {
	e := moments1(xs)
	if e.N < 2 {
		return e
	}
	e.DF = e.N - 1
	df := float64(e.DF)
	return e.finish(StudentTQuantile(0.975, df), studentTwoSided(e.Stat, df))
}

// moments1 fills N, Mean, SD, SE and Stat; the rest is NaN until finish.
func moments1(xs []float64) MeanEstimate {
	nan := math.NaN()
	e := MeanEstimate{N: len(xs), Mean: nan, SD: nan, SE: nan, CI: Interval{nan, nan}, Stat: nan, P: nan}
	if e.N == 0 {
		return e
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	e.Mean = sum / float64(e.N)
	if e.N == 1 {
		e.CI = Interval{math.Inf(-1), math.Inf(1)}
		return e
	}
	// Two passes: the deviations from the mean, not Σx² − N·mean², which
	// cancels badly for long games' lengths.
	var ss float64
	for _, x := range xs {
		d := x - e.Mean
		ss += d * d
	}
	e.SD = math.Sqrt(ss / float64(e.N-1))
	e.SE = e.SD / math.Sqrt(float64(e.N))
	switch {
	case e.SE > 0:
		e.Stat = e.Mean / e.SE
	case e.Mean == 0:
		e.Stat = 0
	default:
		e.Stat = math.Copysign(math.Inf(1), e.Mean)
	}
	return e
}

// finish sets the interval from the quantile q and the p-value p.
func (e MeanEstimate) finish(q, p float64) MeanEstimate {
	e.CI = Interval{e.Mean - q*e.SE, e.Mean + q*e.SE}
	e.P = p
	return e
}

// phiTwoSided is 2(1 − Φ(|z|)), computed as erfc(|z|/√2) so small p-values
// keep their digits.
func phiTwoSided(z float64) float64 {
	if math.IsNaN(z) {
		return z
	}
	return math.Erfc(math.Abs(z) / math.Sqrt2)
}

// SignTest is the exact two-sided sign test: the probability, with every
// nonzero difference equally likely to go either way, of a split at least
// as uneven as plus against minus. Ties are left out before counting, as
// the test requires. On paired 0/1 outcomes (plus and minus are the
// discordant pairs) it is McNemar's exact test. With no nonzero difference
// it is 1; negative counts give NaN.
func SignTest(plus, minus int) float64 {
	if plus < 0 || minus < 0 {
		return math.NaN()
	}
	n := plus + minus
	k := min(plus, minus)
	if 2*k == n {
		return 1 // the most even split there is
	}
	// 2·P(X ≤ k) for X ~ Binomial(n, 1/2), summed in logs so that large n
	// neither overflows the binomial coefficients nor underflows 2⁻ⁿ.
	lgn, _ := math.Lgamma(float64(n) + 1)
	var tail float64
	for j := 0; j <= k; j++ {
		lj, _ := math.Lgamma(float64(j) + 1)
		lr, _ := math.Lgamma(float64(n-j) + 1)
		tail += math.Exp(lgn - lj - lr - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*tail)
}

// NormalCDF is the standard normal distribution function Φ(x).
func NormalCDF(x float64) float64 { return phi(x) }

// NormalQuantile is Φ⁻¹(p), the standard normal quantile: −Inf at 0, +Inf
// at 1, NaN outside [0, 1].
func NormalQuantile(p float64) float64 {
	if !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	if p == 0 || p == 1 {
		return -math.Sqrt2 * math.Erfcinv(2*p) // ∓Inf
	}
	if p > 0.5 {
		return -NormalQuantile(1 - p) // 1 − p is exact here; Φ(x) − p near 1 is not
	}
	// Φ⁻¹(p) = −√2·erfc⁻¹(2p); Go's erfc⁻¹ is good to about 1e-9 in the
	// tails, so polish with Halley steps on Φ(x) − p, whose Φ (through
	// erfc) keeps its digits there.
	x := -math.Sqrt2 * math.Erfcinv(2*p)
	for range 2 {
		pdf := math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
		if pdf == 0 {
			break
		}
		u := (phi(x) - p) / pdf
		x -= u / (1 + x*u/2)
	}
	return x
}

// StudentTCDF is the distribution function of Student's t with df degrees
// of freedom (df > 0, not necessarily whole; +Inf is the normal). NaN for
// df ≤ 0 or NaN arguments.
func StudentTCDF(t, df float64) float64 {
	switch {
	case math.IsNaN(t) || !(df > 0):
		return math.NaN()
	case math.IsInf(df, 1):
		return phi(t)
	case math.IsInf(t, 0):
		if t > 0 {
			return 1
		}
		return 0
	}
	// P(|T| > |t|) = I_x(df/2, 1/2) with x = df/(df + t²).
	tail := studentTwoSided(t, df) / 2
	if t > 0 {
		return 1 - tail
	}
	return tail
}

// studentTwoSided is P(|T| ≥ |t|) for t with df degrees of freedom.
func studentTwoSided(t, df float64) float64 {
	switch {
	case math.IsNaN(t) || !(df > 0):
		return math.NaN()
	case math.IsInf(t, 0):
		return 0
	case math.IsInf(df, 1):
		return phiTwoSided(t)
	}
	return regIncBeta(df/2, 0.5, df/(df+t*t))
}

// StudentTQuantile is the p quantile of Student's t with df degrees of
// freedom: the t with StudentTCDF(t, df) = p (t(0.975, df) is the factor of
// a 95% interval). −Inf at 0, +Inf at 1; NaN for p outside [0, 1] or
// df ≤ 0.
func StudentTQuantile(p, df float64) float64 {
	switch {
	case !(p >= 0 && p <= 1) || !(df > 0):
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	case p == 0.5:
		return 0
	case math.IsInf(df, 1):
		return NormalQuantile(p)
	case p < 0.5:
		return -StudentTQuantile(1-p, df)
	}
	// Bracket, then bisect: the distribution function is monotone and
	// cheap, and 200 halvings reach the last bit of a float64.
	lo, hi := 0.0, 1.0
	for StudentTCDF(hi, df) < p {
		lo, hi = hi, 2*hi
		if math.IsInf(hi, 1) {
			return hi
		}
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if StudentTCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

// regIncBeta is the regularized incomplete beta function I_x(a, b) for
// a, b > 0 and x in [0, 1], by its continued fraction (modified Lentz, as
// in Numerical Recipes' betai), taken on whichever side converges fast.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(a, b, x) / a
	}
	return 1 - front*betaFraction(b, a, 1-x)/b
}

// betaFraction evaluates the continued fraction of I_x(a, b).
func betaFraction(a, b, x float64) float64 {
	const (
		eps  = 1e-16
		tiny = 1e-300
	)
	guard := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c, d := 1.0, 1/guard(1-(a+b)*x/(a+1))
	h := d
	for m := 1; m <= 1000; m++ {
		mf := float64(m)
		m2 := 2 * mf
		num := mf * (b - mf) * x / ((a - 1 + m2) * (a + m2))
		d = 1 / guard(1+num*d)
		c = guard(1 + num/c)
		h *= d * c
		num = -(a + mf) * (a + b + mf) * x / ((a + m2) * (a + 1 + m2))
		d = 1 / guard(1+num*d)
		c = guard(1 + num/c)
		step := d * c
		h *= step
		if math.Abs(step-1) < eps {
			break
		}
	}
	return h
}
