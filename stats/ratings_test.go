package stats

import (
	"math"
	"strings"
	"testing"
)

// games makes count games of a against b with a's scores taken in turn
// from scores, each its own cluster numbered from first.
func games(a, b int, first int, scores ...float64) []RatedGame {
	out := make([]RatedGame, len(scores))
	for i, s := range scores {
		out[i] = RatedGame{A: a, B: b, Score: s, Cluster: first + i}
	}
	return out
}

func repeat(s float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func nearFit(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol || math.IsNaN(got) {
		t.Errorf("%s = %.6f, want %.6f", what, got, want)
	}
}

// Two players: the maximum-likelihood difference is the logistic Elo of
// the score, and with independent games the sandwich variance is
// Σ(s−p)²/(n·p(1−p))² on the logit scale.
func TestFitRatingsTwoPlayers(t *testing.T) {
	// B scores 5 wins, 5 draws, 0 losses in 10 games: 0.75.
	scores := append(repeat(1, 5), repeat(0.5, 5)...)
	gs := games(1, 0, 0, scores...)
	fit, err := FitRatings(2, gs, []float64{0, 0}, []bool{true, false})
	if err != nil {
		t.Fatal(err)
	}
	want := 400 * math.Log10(3) // 190.85
	nearFit(t, "B", fit.Elo[1], want, 1e-6)
	nearFit(t, "A", fit.Elo[0], 0, 0)
	p := 0.75
	sum := 5*(1-p)*(1-p) + 5*(0.5-p)*(0.5-p)
	se := math.Sqrt(sum) / (10 * p * (1 - p)) / eloScale
	nearFit(t, "SE", fit.SE[1], se, 1e-6)
	nearFit(t, "lower bound", fit.CI[1].Lo, want-Z95*se, 1e-6)
	nearFit(t, "upper bound", fit.CI[1].Hi, want+Z95*se, 1e-6)
	if fit.CI[0] != (Interval{0, 0}) || fit.SE[0] != 0 {
		t.Errorf("fixed player's interval %v, SE %v", fit.CI[0], fit.SE[0])
	}

	// Without draws the sandwich is the Fisher information's variance:
	// 1/(n p(1−p)) on the logit scale.
	gs = games(1, 0, 0, append(repeat(1, 15), repeat(0, 5)...)...)
	fit, err = FitRatings(2, gs, []float64{0, 0}, []bool{true, false})
	if err != nil {
		t.Fatal(err)
	}
	nearFit(t, "B (15-5)", fit.Elo[1], want, 1e-6)
	nearFit(t, "SE (15-5)", fit.SE[1], 1/math.Sqrt(20*p*(1-p))/eloScale, 1e-6)

	// The fixed player's rating is where the scale starts.
	fit, err = FitRatings(2, gs, []float64{100, 0}, []bool{true, false})
	if err != nil {
		t.Fatal(err)
	}
	nearFit(t, "B over A at 100", fit.Elo[1], 100+want, 1e-6)
}

// Three players in a chain (A–B and B–C only): each link is a two-player
// fit; a consistent A–C result changes nothing; a cycle of equal results
// makes everyone equal.
func TestFitRatingsThreePlayers(t *testing.T) {
	step := 400 * math.Log10(3) // a 75% score
	chain := append(games(1, 0, 0, append(repeat(1, 3), 0)...), games(2, 1, 10, append(repeat(1, 3), 0)...)...)
	fixed := []bool{true, false, false}
	fit, err := FitRatings(3, chain, make([]float64, 3), fixed)
	if err != nil {
		t.Fatal(err)
	}
	nearFit(t, "B", fit.Elo[1], step, 1e-6)
	nearFit(t, "C", fit.Elo[2], 2*step, 1e-6)
	if !(fit.SE[2] > fit.SE[1]) {
		t.Errorf("C, two links from the anchor, has SE %v, not above B's %v", fit.SE[2], fit.SE[1])
	}

	// C scores 90% against A: odds 9 = 3·3, exactly the chain's.
	all := append(chain, games(2, 0, 20, append(repeat(1, 9), 0)...)...)
	fit, err = FitRatings(3, all, make([]float64, 3), fixed)
	if err != nil {
		t.Fatal(err)
	}
	nearFit(t, "B (consistent triangle)", fit.Elo[1], step, 1e-6)
	nearFit(t, "C (consistent triangle)", fit.Elo[2], 2*step, 1e-6)

	// A beats B, B beats C, C beats A, each 3–1: a perfect cycle.
	cycle := append(games(0, 1, 0, 1, 1, 1, 0), games(1, 2, 10, 1, 1, 1, 0)...)
	cycle = append(cycle, games(2, 0, 20, 1, 1, 1, 0)...)
	fit, err = FitRatings(3, cycle, make([]float64, 3), fixed)
	if err != nil {
		t.Fatal(err)
	}
	nearFit(t, "B (cycle)", fit.Elo[1], 0, 1e-6)
	nearFit(t, "C (cycle)", fit.Elo[2], 0, 1e-6)
}

// One player rated against fixed rungs, the ladder's case: its rating
// solves Σ(s − p) = 0 over the rungs.
func TestFitRatingsAgainstFixedRungs(t *testing.T) {
	// Rungs at 0 and 200; the player scores 3/4 against the first and 1/4
	// against the second: by symmetry it sits at 100.
	gs := append(games(2, 0, 0, 1, 1, 1, 0), games(2, 1, 10, 0, 0, 0, 1)...)
	fit, err := FitRatings(3, gs, []float64{0, 200, 0}, []bool{true, true, false})
	if err != nil {
		t.Fatal(err)
	}
	nearFit(t, "player", fit.Elo[2], 100, 1e-6)
	nearFit(t, "rung 1", fit.Elo[1], 200, 0)
}

// A player that won every game is +Inf, with the likelihood-ratio bound
// below it: n·log p(x − r) = −χ²/2.
func TestFitRatingsPerfectScore(t *testing.T) {
	gs := games(1, 0, 0, repeat(1, 10)...)
	fit, err := FitRatings(2, gs, []float64{100, 0}, []bool{true, false})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(fit.Elo[1], 1) || !math.IsInf(fit.CI[1].Hi, 1) {
		t.Fatalf("rating %v, interval %v: want +Inf above", fit.Elo[1], fit.CI[1])
	}
	want := 100 + EloFromScore(math.Exp(-chi2Half95/10))
	nearFit(t, "lower bound", fit.CI[1].Lo, want, 1e-6)

	// Lost every game, as the white side of the games too.
	gs = games(0, 1, 0, repeat(1, 10)...)
	fit, err = FitRatings(2, gs, []float64{100, 0}, []bool{true, false})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(fit.Elo[1], -1) || !math.IsInf(fit.CI[1].Lo, -1) {
		t.Fatalf("rating %v, interval %v: want -Inf below", fit.Elo[1], fit.CI[1])
	}
	nearFit(t, "upper bound", fit.CI[1].Hi, 100-EloFromScore(math.Exp(-chi2Half95/10)), 1e-6)
}

// The two games of a pair, scored 1 and 0 every time, say the players are
// equal with no noise at all: the clusters carry it, as pentanomial counts
// do. Counted as independent games, the same scores have noise.
func TestFitRatingsClusters(t *testing.T) {
	var paired, loose []RatedGame
	for p := range 10 {
		paired = append(paired, RatedGame{1, 0, 1, p}, RatedGame{1, 0, 0, p})
		loose = append(loose, RatedGame{1, 0, 1, 2 * p}, RatedGame{1, 0, 0, 2*p + 1})
	}
	fp, err := FitRatings(2, paired, []float64{0, 0}, []bool{true, false})
	if err != nil {
		t.Fatal(err)
	}
	fl, err := FitRatings(2, loose, []float64{0, 0}, []bool{true, false})
	if err != nil {
		t.Fatal(err)
	}
	nearFit(t, "paired rating", fp.Elo[1], 0, 1e-9)
	nearFit(t, "paired SE", fp.SE[1], 0, 1e-9)
	nearFit(t, "independent SE", fl.SE[1], 1/math.Sqrt(20*0.25)/eloScale, 1e-6)
}

func TestFitRatingsErrors(t *testing.T) {
	cases := []struct {
		name  string
		n     int
		games []RatedGame
		fixed []bool
		want  string
	}{
		{"nothing fixed", 2, games(0, 1, 0, 1, 0), []bool{false, false}, "no player is fixed"},
		{"no games", 3, games(0, 1, 0, 1, 0), []bool{true, false, false}, "player 2 has no games"},
		{"cut off", 4, append(games(0, 1, 0, 1, 0), games(2, 3, 5, 1, 0)...), []bool{true, false, false, false}, "player 2 has no games that link it"},
		{"bad score", 2, games(0, 1, 0, 0.7), []bool{true, false}, "scores 0.7"},
		{"self-play", 2, []RatedGame{{A: 1, B: 1, Score: 1}}, []bool{true, false}, "between players 1 and 1"},
		{"no maximum", 3, append(games(1, 0, 0, 1, 0), games(2, 1, 5, 1, 1)...), []bool{true, false, false}, "no maximum-likelihood fit"},
	}
	for _, c := range cases {
		_, err := FitRatings(c.n, c.games, make([]float64, c.n), c.fixed)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}
