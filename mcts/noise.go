package mcts

import (
	"math"
	"math/rand/v2"
)

// gammaSample draws from Gamma(a, 1) by Marsaglia and Tsang's method, with
// the boost a < 1: Gamma(a) = Gamma(a+1)·U^(1/a).
func gammaSample(r *rand.Rand, a float64) float64 {
	boost := 1.0
	if a < 1 {
		boost = math.Pow(1-r.Float64(), 1/a) // 1-U is in (0, 1]
		a++
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := 1 - r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return boost * d * v
		}
	}
}

// dirichlet fills dst with a draw from the symmetric Dirichlet(alpha). When
// every component underflows (tiny alpha), it puts all the mass on one
// uniformly chosen component, which is the distribution's limit.
func dirichlet(r *rand.Rand, alpha float64, dst []float64) {
	var sum float64
	for i := range dst {
		dst[i] = gammaSample(r, alpha)
		sum += dst[i]
	}
	if sum > 0 && !math.IsInf(sum, 0) {
		for i := range dst {
			dst[i] /= sum
		}
		return
	}
	clear(dst)
	dst[r.IntN(len(dst))] = 1
}

// gumbelSample draws from the standard Gumbel distribution.
func gumbelSample(r *rand.Rand) float64 {
	u := r.Float64()
	for u == 0 {
		u = r.Float64()
	}
	return -math.Log(-math.Log(u))
}
