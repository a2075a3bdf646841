package stats

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
)

// Ratings on one logistic Elo scale for many players at once, from the
// games between them: the maximum-likelihood Bradley–Terry fit (the model
// behind BayesElo and Ordo), a draw counting half a win and half a loss.
// Some players' ratings can be held fixed (the anchor of a scale at 0, or
// every rung of a calibrated ladder when one more player is rated on it).

// RatedGame is one game of a rating fit: players A and B (indices), A's
// score (0, 0.5 or 1) and the cluster it belongs to. Games of one cluster
// (the two games of an opening pair) are not independent; the intervals
// account for it.
type RatedGame struct {
	A, B    int
	Score   float64
	Cluster int
}

// RatingFit is a fit's result: each player's rating and its 95% interval
// (a fixed player's interval is its rating).
type RatingFit struct {
	Elo []float64
	CI  []Interval
	// SE is each rating's standard error (0 for a fixed one).
	SE []float64
}

// eloScale is d/dx of the logistic score at Elo difference x: p(1−p)·c.
var eloScale = math.Ln10 / 400

// chi2Half95 is half the 95% quantile of χ² with one degree of freedom:
// the log-likelihood drop that bounds a 95% profile interval.
const chi2Half95 = 3.841458820694124 / 2

// FitRatings fits the ratings of n players to games by maximum likelihood.
// start holds the fixed players' ratings (and is otherwise ignored);
// fixed[i] holds player i's rating at start[i]. At least one player must be
// fixed, since the games only decide differences.
//
// The intervals are Wald intervals from a cluster-robust (sandwich)
// covariance: the observed information for the shape of the likelihood,
// the spread of the clusters' scores for the noise, so that draws (which
// make a game less noisy than a win-or-loss coin) and the correlation of a
// pair's two games are both counted as they are.
//
// A free player whose games, with those of the players only it connects
// to the fixed ones, leave the likelihood no maximum (it won or lost every
// game) gets an error, except in the one-free-player case, where the
// rating is ±Inf and its finite bound is the likelihood-ratio bound.
func FitRatings(n int, games []RatedGame, start []float64, fixed []bool) (RatingFit, error) {
	if len(start) != n || len(fixed) != n {
		return RatingFit{}, fmt.Errorf("stats: %d players, %d starting ratings, %d fixed flags", n, len(start), len(fixed))
	}
	var free []int
	index := make([]int, n) // player → position among the free ones, or -1
	for i := range n {
		index[i] = -1
		if !fixed[i] {
			index[i] = len(free)
			free = append(free, i)
		} else if math.IsNaN(start[i]) || math.IsInf(start[i], 0) {
			return RatingFit{}, fmt.Errorf("stats: fixed player %d has rating %v", i, start[i])
		}
	}
	if len(free) == n {
		return RatingFit{}, errors.New("stats: no player is fixed; the games decide only differences")
	}
	for k, g := range games {
		if g.A < 0 || g.A >= n || g.B < 0 || g.B >= n || g.A == g.B {
			return RatingFit{}, fmt.Errorf("stats: game %d between players %d and %d of %d", k, g.A, g.B, n)
		}
		if !(g.Score == 0 || g.Score == 0.5 || g.Score == 1) {
			return RatingFit{}, fmt.Errorf("stats: game %d scores %v, want 0, 0.5 or 1", k, g.Score)
		}
	}
	r := make([]float64, n)
	for i := range n {
		if fixed[i] {
			r[i] = start[i]
		}
	}
	fit := RatingFit{Elo: r, CI: make([]Interval, n), SE: make([]float64, n)}
	if len(free) == 0 {
		for i := range n {
			fit.CI[i] = Interval{r[i], r[i]}
		}
		return fit, nil
	}
	// Every free player needs games, and a path of games to a fixed one.
	if err := checkConnected(n, games, fixed); err != nil {
		return RatingFit{}, err
	}
	if len(free) == 1 {
		if inf, ok := oneSided(free[0], games); ok {
			return oneFreeAtInfinity(fit, free[0], inf, games)
		}
	}
	m := len(free)
	grad := make([]float64, m)
	hess := make([][]float64, m)
	for i := range hess {
		hess[i] = make([]float64, m)
	}
	converged := false
	for iter := 0; iter < 1000 && !converged; iter++ {
		clear(grad)
		for i := range hess {
			clear(hess[i])
		}
		for _, g := range games {
			p := ScoreFromElo(r[g.A] - r[g.B])
			resid, w := eloScale*(g.Score-p), eloScale*eloScale*p*(1-p)
			a, b := index[g.A], index[g.B]
			if a >= 0 {
				grad[a] += resid
				hess[a][a] += w
			}
			if b >= 0 {
				grad[b] -= resid
				hess[b][b] += w
			}
			if a >= 0 && b >= 0 {
				hess[a][b] -= w
				hess[b][a] -= w
			}
		}
		step, err := solve(hess, grad)
		if err != nil {
			// The information vanished: some ratings ran off to
			// infinity.
			return RatingFit{}, noMaximum(r, free)
		}
		// Newton on a concave likelihood, each step capped so that a
		// far start cannot overshoot into the flat tails.
		largest := 0.0
		for _, d := range step {
			largest = math.Max(largest, math.Abs(d))
		}
		scale := 1.0
		if largest > 200 {
			scale = 200 / largest
		}
		for k, i := range free {
			r[i] += scale * step[k]
		}
		converged = largest < 1e-9
	}
	for _, i := range free {
		if !converged || math.Abs(r[i]) > 5000 {
			return RatingFit{}, noMaximum(r, free)
		}
	}
	// Sandwich covariance: H⁻¹ J H⁻¹, J summed over clusters.
	inv, err := invert(hess)
	if err != nil {
		return RatingFit{}, err
	}
	clusters := map[int][]float64{}
	for _, g := range games {
		u := clusters[g.Cluster]
		if u == nil {
			u = make([]float64, m)
			clusters[g.Cluster] = u
		}
		resid := eloScale * (g.Score - ScoreFromElo(r[g.A]-r[g.B]))
		if a := index[g.A]; a >= 0 {
			u[a] += resid
		}
		if b := index[g.B]; b >= 0 {
			u[b] -= resid
		}
	}
	meat := make([][]float64, m)
	for i := range meat {
		meat[i] = make([]float64, m)
	}
	// In a fixed order: sums in map order would differ in the last bits
	// from run to run.
	for _, c := range slices.Sorted(maps.Keys(clusters)) {
		u := clusters[c]
		for i := range m {
			for j := range m {
				meat[i][j] += u[i] * u[j]
			}
		}
	}
	cov := mul(mul(inv, meat), inv)
	for i := range n {
		fit.CI[i] = Interval{r[i], r[i]}
	}
	for k, i := range free {
		se := math.Sqrt(math.Max(cov[k][k], 0))
		fit.SE[i] = se
		fit.CI[i] = Interval{r[i] - Z95*se, r[i] + Z95*se}
	}
	return fit, nil
}

// noMaximum is the error of a fit whose likelihood has no maximum, naming
// the free player whose rating ran furthest.
func noMaximum(r []float64, free []int) error {
	far := free[0]
	for _, i := range free {
		if math.Abs(r[i]) > math.Abs(r[far]) {
			far = i
		}
	}
	return fmt.Errorf("stats: the ratings have no maximum-likelihood fit: player %d (and any it alone links to the rest) won or lost every game", far)
}

// oneSided tells whether player i won (+1) or lost (-1) every game it
// played.
func oneSided(i int, games []RatedGame) (int, bool) {
	wins, losses, played := 0, 0, 0
	for _, g := range games {
		var s float64
		switch i {
		case g.A:
			s = g.Score
		case g.B:
			s = 1 - g.Score
		default:
			continue
		}
		played++
		if s == 1 {
			wins++
		} else if s == 0 {
			losses++
		}
	}
	switch {
	case played > 0 && wins == played:
		return 1, true
	case played > 0 && losses == played:
		return -1, true
	}
	return 0, false
}

// oneFreeAtInfinity rates the one free player i, who won (sign +1) or lost
// (−1) every game: ±Inf, with the likelihood-ratio bound on the other side
// (where the log-likelihood has dropped χ²₁(95%)/2 from its supremum, 0).
func oneFreeAtInfinity(fit RatingFit, i, sign int, games []RatedGame) (RatingFit, error) {
	loglik := func(x float64) float64 {
		sum := 0.0
		for _, g := range games {
			switch i {
			case g.A:
				sum += math.Log(ScoreFromElo(float64(sign) * (x - fit.Elo[g.B])))
			case g.B:
				sum += math.Log(ScoreFromElo(float64(sign) * (x - fit.Elo[g.A])))
			}
		}
		return sum
	}
	// In x·sign the log-likelihood rises from −Inf to 0: bisect for
	// −chi2Half95.
	lo, hi := -20000.0, 20000.0
	f := func(y float64) float64 { return loglik(float64(sign)*y) + chi2Half95 }
	for range 200 {
		mid := (lo + hi) / 2
		if f(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	bound := float64(sign) * (lo + hi) / 2
	inf := math.Inf(sign)
	fit.Elo[i], fit.SE[i] = inf, math.Inf(1)
	if sign > 0 {
		fit.CI[i] = Interval{bound, inf}
	} else {
		fit.CI[i] = Interval{inf, bound}
	}
	for j := range fit.Elo {
		if j != i {
			fit.CI[j] = Interval{fit.Elo[j], fit.Elo[j]}
		}
	}
	return fit, nil
}

// checkConnected reports a free player without games, or cut off from
// every fixed player.
func checkConnected(n int, games []RatedGame, fixed []bool) error {
	adj := make([][]int, n)
	for _, g := range games {
		adj[g.A] = append(adj[g.A], g.B)
		adj[g.B] = append(adj[g.B], g.A)
	}
	seen := make([]bool, n)
	var queue []int
	for i := range n {
		if fixed[i] {
			seen[i] = true
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, j := range adj[i] {
			if !seen[j] {
				seen[j] = true
				queue = append(queue, j)
			}
		}
	}
	for i := range n {
		if !seen[i] {
			if len(adj[i]) == 0 {
				return fmt.Errorf("stats: player %d has no games", i)
			}
			return fmt.Errorf("stats: player %d has no games that link it to a fixed player", i)
		}
	}
	return nil
}

// solve returns x with a·x = b (a symmetric positive definite, small).
func solve(a [][]float64, b []float64) ([]float64, error) {
	inv, err := invert(a)
	if err != nil {
		return nil, err
	}
	x := make([]float64, len(b))
	for i := range inv {
		for j := range b {
			x[i] += inv[i][j] * b[j]
		}
	}
	return x, nil
}

// invert inverts a small matrix by Gauss–Jordan elimination with partial
// pivoting.
func invert(a [][]float64) ([][]float64, error) {
	n := len(a)
	m := make([][]float64, n)
	for i := range a {
		m[i] = make([]float64, 2*n)
		copy(m[i], a[i])
		m[i][n+i] = 1
	}
	for col := range n {
		pivot := col
		for row := col + 1; row < n; row++ {
			if math.Abs(m[row][col]) > math.Abs(m[pivot][col]) {
				pivot = row
			}
		}
		if math.Abs(m[pivot][col]) < 1e-300 {
			return nil, errors.New("stats: the rating fit's information matrix is singular (a player's games decide nothing)")
		}
		m[col], m[pivot] = m[pivot], m[col]
		d := m[col][col]
		for j := range m[col] {
			m[col][j] /= d
		}
		for row := range n {
			if row == col || m[row][col] == 0 {
				continue
			}
			f := m[row][col]
			for j := range m[row] {
				m[row][j] -= f * m[col][j]
			}
		}
	}
	out := make([][]float64, n)
	for i := range m {
		out[i] = m[i][n:]
	}
	return out, nil
}

func mul(a, b [][]float64) [][]float64 {
	n := len(a)
	out := make([][]float64, n)
	for i := range n {
		out[i] = make([]float64, len(b[0]))
		for k := range b {
			if a[i][k] == 0 {
				continue
			}
			for j := range b[0] {
				out[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return out
}
