// Package stats holds the match statistics used to gate candidate networks
// and to summarise opening results: game and game-pair counts, logistic Elo
// with confidence intervals, the Wilson interval, and fishtest's generalized
// sequential probability ratio test (GSPRT).
//
// Scores are always from one player's view (the candidate's in the arena):
// 1 for a win, 0.5 for a draw, 0 for a loss.
package stats

import (
	"errors"
	"fmt"
	"math"
)

// Z95 is the two-sided 95% standard normal quantile, Φ⁻¹(0.975).
const Z95 = 1.959963984540054

// WDL counts games by result, from the first player's view.
type WDL struct{ Wins, Draws, Losses int }

// Games returns the number of games counted.
func (c WDL) Games() int { return c.Wins + c.Draws + c.Losses }

// Score returns the mean score (W + D/2)/N. With no games it returns 0.5,
// the neutral value, so that callers never see NaN.
func (c WDL) Score() float64 {
	n := c.Games()
	if n == 0 {
		return 0.5
	}
	return (float64(c.Wins) + float64(c.Draws)/2) / float64(n)
}

// trinomial returns the per-game score values and their counts, in
// ascending order of score, for the shared estimators.
func (c WDL) trinomial() ([]float64, []int) {
	return []float64{0, 0.5, 1}, []int{c.Losses, c.Draws, c.Wins}
}

// Pentanomial counts game pairs played from the same opening with colours
// swapped. Index k is the pair's score in half points, 0 to 4: 0 = lost
// both, 1 = a loss and a draw, 2 = a win and a loss or two draws, 3 = a win
// and a draw, 4 = won both. Counting pairs rather than games keeps the
// correlation between the two games of an opening out of the variance.
type Pentanomial [5]int

// Pairs returns the number of game pairs counted.
func (p Pentanomial) Pairs() int { return p[0] + p[1] + p[2] + p[3] + p[4] }

// Score returns the mean score per game, (Σ k·p[k]/4)/pairs. With no pairs
// it returns 0.5, the neutral value.
func (p Pentanomial) Score() float64 {
	n := p.Pairs()
	if n == 0 {
		return 0.5
	}
	sum := 0
	for k, c := range p {
		sum += k * c
	}
	return float64(sum) / (4 * float64(n))
}

// AddPair counts one game pair given both games' scores from the same
// player's view; see PairIndex.
func (p *Pentanomial) AddPair(first, second float64) error {
	k, err := PairIndex(first, second)
	if err != nil {
		return err
	}
	p[k]++
	return nil
}

// pentanomial returns the per-pair mean score values (0, 0.25, …, 1) and
// their counts for the shared estimators.
func (p Pentanomial) pentanomial() ([]float64, []int) {
	return []float64{0, 0.25, 0.5, 0.75, 1}, p[:]
}

// PairIndex returns the Pentanomial index of a game pair whose two games
// scored first and second, both from the same player's view. Each score
// must be exactly 0, 0.5 or 1.
func PairIndex(first, second float64) (int, error) {
	for _, s := range [2]float64{first, second} {
		if s != 0 && s != 0.5 && s != 1 {
			return 0, fmt.Errorf("stats: game score %v is not 0, 0.5 or 1", s)
		}
	}
	// Halves are exact in binary, so this product is an exact integer.
	return int(2 * (first + second)), nil
}

// EloFromScore returns the logistic Elo difference −400·log10(1/s − 1) that
// predicts mean score s. It is −Inf at s = 0, +Inf at s = 1 and NaN for s
// outside [0, 1].
func EloFromScore(s float64) float64 {
	switch {
	case !(s >= 0 && s <= 1):
		return math.NaN()
	case s == 0:
		return math.Inf(-1)
	case s == 1:
		return math.Inf(1)
	}
	return -400 * math.Log10(1/s-1)
}

// ScoreFromElo returns the mean score 1/(1 + 10^(−elo/400)) that a logistic
// Elo difference predicts; the inverse of EloFromScore.
func ScoreFromElo(elo float64) float64 {
	return 1 / (1 + math.Pow(10, -elo/400))
}

// Interval is a closed interval [Lo, Hi].
type Interval struct{ Lo, Hi float64 }

// EloEstimate is a logistic Elo estimate with its 95% confidence interval
// and the likelihood of superiority, LOS = P(true Elo > 0) under the normal
// approximation.
type EloEstimate struct {
	Elo float64
	CI  Interval
	LOS float64
}

// Elo estimates the Elo difference from the game counts. The interval is the
// normal approximation of the mean score, ŝ ± Z95·σ̂/√N with σ̂² the
// per-game score variance, mapped through EloFromScore.
//
// Score bounds are clamped to [0, 1] and so map to ±Inf rather than NaN:
// a perfect score (all wins) gives Elo = +Inf and CI = [+Inf, +Inf], a null
// score −Inf likewise, because the sample variance is then 0. The normal
// approximation is meaningless there and for small samples; use Wilson for
// a finite bound on the score instead. (fishtest instead clamps scores to
// [0.001, 0.999], which reports a finite but arbitrary ±1200 or so.) With no games the result is Elo 0,
// CI (−Inf, +Inf) and LOS 0.5. Negative counts give NaN fields.
func (c WDL) Elo() EloEstimate { return estimate(c.trinomial()) }

// Elo estimates the Elo difference from the pair counts as fishtest does:
// like WDL.Elo but with the variance of the per-pair mean score over the
// number of pairs, which accounts for the correlation between the two games
// of a pair (usually making the interval narrower). The same conventions
// for perfect scores, no pairs and negative counts apply.
func (p Pentanomial) Elo() EloEstimate { return estimate(p.pentanomial()) }

// estimate computes an EloEstimate for i.i.d. observations taking the given
// values with the given counts.
func estimate(values []float64, counts []int) EloEstimate {
	nan := math.NaN()
	n := 0
	for _, c := range counts {
		if c < 0 {
			return EloEstimate{nan, Interval{nan, nan}, nan}
		}
		n += c
	}
	if n == 0 {
		return EloEstimate{0, Interval{math.Inf(-1), math.Inf(1)}, 0.5}
	}
	mu, variance := moments(values, counts, float64(n))
	se := math.Sqrt(variance / float64(n))
	lo := clamp01(mu - Z95*se)
	hi := clamp01(mu + Z95*se)
	var los float64
	switch {
	case se > 0:
		los = phi((mu - 0.5) / se)
	case mu > 0.5: // no spread: the sign of the result is certain
		los = 1
	case mu < 0.5:
		los = 0
	default:
		los = 0.5
	}
	return EloEstimate{
		Elo: EloFromScore(mu),
		CI:  Interval{EloFromScore(lo), EloFromScore(hi)},
		LOS: los,
	}
}

// moments returns the mean and population variance of the counted values.
// The variance divides by n, not n−1, as fishtest does.
func moments(values []float64, counts []int, n float64) (mean, variance float64) {
	for i, c := range counts {
		mean += values[i] * float64(c)
	}
	mean /= n
	for i, c := range counts {
		d := values[i] - mean
		variance += d * d * float64(c)
	}
	return mean, variance / n
}

func clamp01(x float64) float64 { return math.Min(1, math.Max(0, x)) }

// phi is the standard normal distribution function.
func phi(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// Wilson returns the Wilson score interval for a proportion with the given
// number of successes in n trials at normal quantile z (Z95 for 95%).
// Successes may be fractional, to count draws as halves. Unlike the normal
// approximation it stays inside [0, 1] and is informative at 0 or n
// successes. With n = 0 it returns [0, 1] (nothing is known); for n < 0,
// successes outside [0, n], or z negative or not finite it returns NaN
// bounds, since the signature has no error to report them with.
func Wilson(successes float64, n int, z float64) Interval {
	nf := float64(n)
	if n < 0 || !(successes >= 0 && successes <= nf) || !(z >= 0) || math.IsInf(z, 1) {
		return Interval{math.NaN(), math.NaN()}
	}
	if n == 0 {
		return Interval{0, 1}
	}
	p := successes / nf
	z2 := z * z
	den := 1 + z2/nf
	centre := (p + z2/(2*nf)) / den
	half := z / den * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	// Clamp away rounding below 0 or above 1 at p = 0 or 1.
	return Interval{clamp01(centre - half), clamp01(centre + half)}
}

// SPRT is a generalized sequential probability ratio test of H0: Elo = Elo0
// against H1: Elo = Elo1 (logistic Elo, Elo0 < Elo1), with Alpha the
// probability of accepting H1 when H0 holds and Beta that of accepting H0
// when H1 holds. It follows fishtest with logistic Elo bounds.
type SPRT struct{ Elo0, Elo1, Alpha, Beta float64 }

// Validate reports whether the test is well formed: Alpha and Beta in
// (0, 1) with Alpha + Beta < 1 (otherwise the lower bound is not below the
// upper one), and finite Elo0 < Elo1 whose expected scores are distinct
// and strictly between 0 and 1.
func (s SPRT) Validate() error {
	var errs []error
	if !(s.Alpha > 0 && s.Alpha < 1) {
		errs = append(errs, fmt.Errorf("stats: alpha %v is not in (0, 1)", s.Alpha))
	}
	if !(s.Beta > 0 && s.Beta < 1) {
		errs = append(errs, fmt.Errorf("stats: beta %v is not in (0, 1)", s.Beta))
	}
	if len(errs) == 0 && !(s.Alpha+s.Beta < 1) {
		errs = append(errs, fmt.Errorf("stats: alpha + beta = %v is not below 1", s.Alpha+s.Beta))
	}
	if math.IsNaN(s.Elo0) || math.IsInf(s.Elo0, 0) || math.IsNaN(s.Elo1) || math.IsInf(s.Elo1, 0) {
		errs = append(errs, fmt.Errorf("stats: elo bounds %v, %v are not finite", s.Elo0, s.Elo1))
	} else if !(s.Elo0 < s.Elo1) {
		errs = append(errs, fmt.Errorf("stats: elo0 %v is not below elo1 %v", s.Elo0, s.Elo1))
	} else if s0, s1 := ScoreFromElo(s.Elo0), ScoreFromElo(s.Elo1); !(s0 > 0 && s0 < s1 && s1 < 1) {
		// Bounds so far out that their scores round to 0, to 1 or to each
		// other make every LLR NaN or 0: the test could never decide.
		errs = append(errs, fmt.Errorf("stats: elo bounds %v, %v are too far out (their expected scores %v, %v must be distinct and strictly between 0 and 1)",
			s.Elo0, s.Elo1, s0, s1))
	}
	return errors.Join(errs...)
}

// Bounds returns the LLR thresholds log(β/(1−α)) and log((1−β)/α): at or
// below lower H0 is accepted, at or above upper H1 is. They are meaningful
// only for a test that passes Validate.
func (s SPRT) Bounds() (lower, upper float64) {
	return math.Log(s.Beta / (1 - s.Alpha)), math.Log((1 - s.Beta) / s.Alpha)
}

// regularization replaces empty counts in the LLR, as fishtest does: the
// constrained maximum-likelihood estimate needs positive frequencies at the
// lowest and highest score, and log p for an empty outcome is otherwise
// undefined. Its effect on non-empty data is negligible.
const regularization = 1e-3

// LLRPentanomial returns the generalized log-likelihood ratio of H1 against
// H0 for the pair counts; see LLRTrinomial. It is the statistic fishtest
// reports as "LLR" for pentanomial results.
func (s SPRT) LLRPentanomial(p Pentanomial) float64 {
	v, c := p.pentanomial()
	return s.llr(v, c)
}

// LLRTrinomial returns the generalized log-likelihood ratio of H1 against
// H0 for the game counts, treating games as independent.
//
// The method is Van den Bergh's, used by fishtest: each hypothesis fixes the
// mean score (s0, s1 = ScoreFromElo(Elo0), ScoreFromElo(Elo1)); for each the
// multinomial distribution of maximum likelihood under that mean constraint
// is found, and LLR = N·Σ p̂ᵢ log(pᵢ(s1)/pᵢ(s0)) over the empirical
// frequencies p̂ᵢ. Empty outcomes count as 0.001 (and N includes them), as in
// fishtest. With no games at all the LLR is 0; for an invalid test or
// negative counts it is NaN.
func (s SPRT) LLRTrinomial(c WDL) float64 {
	v, n := c.trinomial()
	return s.llr(v, n)
}

func (s SPRT) llr(values []float64, counts []int) float64 {
	if s.Validate() != nil {
		return math.NaN()
	}
	total := 0
	for _, c := range counts {
		if c < 0 {
			return math.NaN()
		}
		total += c
	}
	if total == 0 {
		return 0 // no evidence either way, rather than fishtest's tiny regularized value
	}
	freq := make([]float64, len(counts))
	n := 0.0
	for i, c := range counts {
		freq[i] = math.Max(float64(c), regularization)
		n += freq[i]
	}
	for i := range freq {
		freq[i] /= n
	}
	s0, s1 := ScoreFromElo(s.Elo0), ScoreFromElo(s.Elo1)
	t0, t1 := constrainedMLE(values, freq, s0), constrainedMLE(values, freq, s1)
	sum := 0.0
	for i, f := range freq {
		// pᵢ(s) = p̂ᵢ/(1 + θ(aᵢ − s)), so p̂ᵢ cancels in the ratio.
		sum += f * (math.Log1p(t0*(values[i]-s0)) - math.Log1p(t1*(values[i]-s1)))
	}
	return n * sum
}

// constrainedMLE returns the Lagrange multiplier θ for which the
// distribution pᵢ = freq[i]/(1 + θ(values[i] − s)) has mean s: the maximum
// likelihood distribution on the given values with mean s, given the
// empirical frequencies freq (all positive, summing to 1, values ascending
// with values[0] < s < values[last]).
//
// θ is the root of f(θ) = Σ freqᵢ(aᵢ − s)/(1 + θ(aᵢ − s)), which is strictly
// decreasing on the interval where every pᵢ is positive and runs from +∞ to
// −∞ across it, so bisection finds it without any starting guess.
func constrainedMLE(values, freq []float64, s float64) float64 {
	lo := -1 / (values[len(values)-1] - s)
	hi := 1 / (s - values[0])
	f := func(t float64) float64 {
		sum := 0.0
		for i, a := range values {
			sum += freq[i] * (a - s) / (1 + t*(a-s))
		}
		return sum
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if hi-lo <= 1e-15 || mid == lo || mid == hi {
			break
		}
		if f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

// Decision is the outcome of an SPRT after some games.
type Decision int

const (
	// Continue means neither bound has been reached: play more games.
	Continue Decision = iota
	// AcceptH0 means the lower bound was reached: reject the candidate.
	AcceptH0
	// AcceptH1 means the upper bound was reached: accept the candidate.
	AcceptH1
)

// String returns "continue", "accept H0" or "accept H1".
func (d Decision) String() string {
	switch d {
	case Continue:
		return "continue"
	case AcceptH0:
		return "accept H0"
	case AcceptH1:
		return "accept H1"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// Decide compares an LLR with the test's bounds: AcceptH1 at or above the
// upper bound, AcceptH0 at or below the lower one, Continue otherwise,
// including for a NaN LLR. An invalid test (see Validate) always gives
// Continue, so validate it before the match starts.
//
// These are Wald's plain bounds. fishtest also moves them inwards by a
// running estimate of the LLR's overshoot at each update (Siegmund), so it
// can stop a little earlier, e.g. accept at a printed LLR of 2.92 with
// bounds ±2.94; without that correction this test is marginally more
// conservative.
func (s SPRT) Decide(llr float64) Decision {
	if s.Validate() != nil {
		return Continue
	}
	lower, upper := s.Bounds()
	switch {
	case llr >= upper:
		return AcceptH1
	case llr <= lower:
		return AcceptH0
	}
	return Continue
}

// FormatElo writes an Elo difference rounded to a whole number with its
// sign ("+35", "-12", "0", "+inf"), never "-0".
func FormatElo(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "+inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	r := math.Round(x)
	if r == 0 {
		return "0"
	}
	return fmt.Sprintf("%+.0f", r)
}

// String writes the estimate with its interval: "+35 [+12, +58]".
func (e EloEstimate) String() string {
	return fmt.Sprintf("%s [%s, %s]", FormatElo(e.Elo), FormatElo(e.CI.Lo), FormatElo(e.CI.Hi))
}
