package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/stats"
)

// Alpha is the significance level the analysis reports at.
const Alpha = 0.05

// Num is a number of the analysis. It is written to JSON as null when it is
// not finite (the interval of a single game, a p-value with no pairs), since
// JSON has no NaN or infinity; null reads back as NaN.
type Num float64

// MarshalJSON writes finite numbers as JSON numbers, others as null.
func (x Num) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number, or null as NaN.
func (x *Num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*x = Num(math.NaN())
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	*x = Num(f)
	return nil
}

// Rate is a proportion with its 95% Wilson interval.
type Rate struct {
	// Count is the number of games counted; for a score, the points (a
	// draw is half a point).
	Count Num `json:"count"`
	N     int `json:"n"`
	Rate  Num `json:"rate"`
	Lo    Num `json:"lo"`
	Hi    Num `json:"hi"`
}

// Mean is a sample mean with its 95% t interval.
type Mean struct {
	N    int `json:"n"`
	Mean Num `json:"mean"`
	SD   Num `json:"sd"`
	Lo   Num `json:"lo"`
	Hi   Num `json:"hi"`
}

// Diff is a difference B − A estimated from the pairs: the mean of the
// per-pair differences with its 95% interval and two-sided tests of no
// difference.
type Diff struct {
	Mean Num `json:"mean"`
	SE   Num `json:"se"`
	Lo   Num `json:"lo"`
	Hi   Num `json:"hi"`
	// Test is "paired z" (normal approximation: rates and the score) or
	// "paired t" (Student's t on N−1 degrees of freedom: lengths); Stat is
	// its statistic and DF t's degrees of freedom.
	Test string `json:"test"`
	Stat Num    `json:"stat"`
	DF   int    `json:"df,omitempty"`
	// P is the test's p-value. Where every pair differs by the same
	// nonzero amount (SE 0) the approximation would claim certainty, and
	// P is the exact test's instead.
	P Num `json:"p"`
	// BHigher and BLower count the pairs whose B value is above and below
	// their A value; ExactP is the exact sign test on them (McNemar's exact
	// test for a rate).
	BHigher int    `json:"b_higher"`
	BLower  int    `json:"b_lower"`
	Exact   string `json:"exact_test"`
	ExactP  Num    `json:"exact_p"`
	// Significant is P < Alpha, and for the score and the rates ExactP <
	// Alpha too: on a few pairs the z test overstates its case (4 pairs
	// of which 3 differ alike give z's p 0.003 and McNemar's 0.25), while
	// the exact test holds at any size. For lengths the t test alone
	// decides; the sign test beside it is a check that ignores magnitude.
	Significant bool `json:"significant"`
}

// SetStats are one rule set's games, from the first mover's view.
type SetStats struct {
	Rules string `json:"rules"` // name@hash
	Games int    `json:"games"`
	// Score is the first mover's mean score. Its Wilson interval treats
	// points as successes, which overstates a draw's variance: with draws
	// it is conservative.
	Score  Rate `json:"score"`
	Wins   Rate `json:"wins"`
	Draws  Rate `json:"draws"`
	Losses Rate `json:"losses"`
	// Length is in plies, openings included; Passes counts janggi passes.
	Length Mean `json:"length"`
	Passes Mean `json:"passes"`
	// Reasons are the ends' shares by rules.Termination label, every label
	// either rule set saw.
	Reasons map[string]Rate `json:"reasons"`
}

// Diffs are the differences B − A.
type Diffs struct {
	Score   Diff            `json:"score"`
	Wins    Diff            `json:"wins"`
	Draws   Diff            `json:"draws"`
	Losses  Diff            `json:"losses"`
	Length  Diff            `json:"length"`
	Passes  Diff            `json:"passes"`
	Reasons map[string]Diff `json:"reasons"`
}

// Analysis is an experiment's result over its complete pairs.
type Analysis struct {
	Game string `json:"game"`
	// FirstMover and SecondMover are the sides' names: red and black, or
	// cho and han.
	FirstMover  string `json:"first_mover"`
	SecondMover string `json:"second_mover"`
	Player      string `json:"player"`
	// PlayerB, when set, played B's games (Player A's).
	PlayerB      string `json:"player_b,omitempty"`
	Seed         uint64 `json:"seed"`
	OpeningPlies int    `json:"opening_plies"`
	// Pairs counts the game indices played under both rule sets: the
	// games analysed. Unpaired counts games whose partner is not recorded
	// yet, left out so that A and B are compared on the same indices.
	Pairs    int      `json:"pairs"`
	Unpaired int      `json:"unpaired"`
	A        SetStats `json:"a"`
	B        SetStats `json:"b"`
	Diff     Diffs    `json:"diff"`
}

// Analyze compares the rule sets on the game indices recorded under both.
func Analyze(h Header, recs []GameRecord) Analysis {
	an := Analysis{FirstMover: "red", SecondMover: "black", Player: h.Player, PlayerB: h.PlayerB, Seed: h.Seed,
		OpeningPlies: h.OpeningPlies}
	if h.A != nil {
		an.Game = h.A.Game.String()
	}
	if an.Game == "janggi" {
		an.FirstMover, an.SecondMover = "cho", "han"
	}
	byIndex := arena.PairUp(recs, func(r *GameRecord) (int, int) { return r.Index, r.side() })
	var idx []int
	for i, p := range byIndex {
		if p[0] != nil && p[1] != nil {
			idx = append(idx, i)
		} else {
			an.Unpaired++
		}
	}
	slices.Sort(idx)
	an.Pairs = len(idx)

	// Per side, one value per pair in index order.
	type column [2][]float64
	var score, wins, draws, losses, length, passes column
	reasons := map[string]*column{}
	for _, i := range idx {
		for _, r := range byIndex[i] {
			if reasons[r.Reason] == nil {
				reasons[r.Reason] = &column{}
			}
		}
	}
	for _, i := range idx {
		for s, r := range byIndex[i] {
			sc := r.FirstMoverScore()
			score[s] = append(score[s], sc)
			wins[s] = append(wins[s], b2f(sc == 1))
			draws[s] = append(draws[s], b2f(sc == 0.5))
			losses[s] = append(losses[s], b2f(sc == 0))
			length[s] = append(length[s], float64(r.Plies))
			passes[s] = append(passes[s], float64(r.Passes))
			for label, c := range reasons {
				c[s] = append(c[s], b2f(r.Reason == label))
			}
		}
	}
	for s, ss := range []*SetStats{&an.A, &an.B} {
		ss.Rules = id(h.A)
		if s == 1 {
			ss.Rules = id(h.B)
		}
		ss.Games = an.Pairs
		ss.Score, ss.Wins, ss.Draws, ss.Losses = rate(score[s]), rate(wins[s]), rate(draws[s]), rate(losses[s])
		ss.Length, ss.Passes = mean(length[s]), mean(passes[s])
		ss.Reasons = map[string]Rate{}
		for label, c := range reasons {
			ss.Reasons[label] = rate(c[s])
		}
	}
	d := &an.Diff
	d.Score, d.Wins, d.Draws, d.Losses = pairedZ(score), pairedZ(wins), pairedZ(draws), pairedZ(losses)
	d.Length, d.Passes = pairedT(length), pairedT(passes)
	d.Reasons = map[string]Diff{}
	for label, c := range reasons {
		d.Reasons[label] = pairedZ(*c)
	}
	return an
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// rate is the share of xs (each 0, 1, or for a score 0.5) with its Wilson
// interval.
func rate(xs []float64) Rate {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	r := Rate{Count: Num(sum), N: len(xs), Rate: Num(math.NaN())}
	if len(xs) > 0 {
		r.Rate = Num(sum / float64(len(xs)))
	}
	ci := stats.Wilson(sum, len(xs), stats.Z95)
	r.Lo, r.Hi = Num(ci.Lo), Num(ci.Hi)
	return r
}

func mean(xs []float64) Mean {
	e := stats.MeanT(xs)
	return Mean{N: e.N, Mean: Num(e.Mean), SD: Num(e.SD), Lo: Num(e.CI.Lo), Hi: Num(e.CI.Hi)}
}

func pairedZ(c [2][]float64) Diff { return paired(c, stats.MeanZ, "paired z") }
func pairedT(c [2][]float64) Diff { return paired(c, stats.MeanT, "paired t") }

// paired estimates B − A from the per-pair differences of c (A's values,
// B's values, in pair order).
func paired(c [2][]float64, est func([]float64) stats.MeanEstimate, test string) Diff {
	d := make([]float64, len(c[0]))
	var higher, lower int
	for i := range d {
		d[i] = c[1][i] - c[0][i]
		switch {
		case d[i] > 0:
			higher++
		case d[i] < 0:
			lower++
		}
	}
	e := est(d)
	if test == "paired z" {
		// Shares and scores lie in [0, 1], so their differences in [−1, 1]:
		// the approximation's interval can overshoot.
		e.CI = stats.Interval{Lo: max(e.CI.Lo, -1), Hi: min(e.CI.Hi, 1)}
	}
	exact := stats.SignTest(higher, lower)
	p := e.P
	if e.SE == 0 && e.Mean != 0 {
		p = exact
	}
	name := "sign"
	if test == "paired z" && isBinary(c) {
		name = "McNemar exact"
	}
	sig := p < Alpha
	if test == "paired z" {
		sig = sig && exact < Alpha
	}
	return Diff{Mean: Num(e.Mean), SE: Num(e.SE), Lo: Num(e.CI.Lo), Hi: Num(e.CI.Hi), Test: test, Stat: Num(e.Stat),
		DF: e.DF, P: Num(p), BHigher: higher, BLower: lower, Exact: name, ExactP: Num(exact), Significant: sig}
}

func isBinary(c [2][]float64) bool {
	for _, xs := range c {
		for _, x := range xs {
			if x != 0 && x != 1 {
				return false
			}
		}
	}
	return true
}

// row is one line of the table.
type row struct {
	label string
	a, b  string
	d     Diff
	diff  string
}

// WriteText writes the analysis as a table for a terminal: each measure
// under A and B with its interval, the difference B − A with its interval
// and p-values, and which differences are significant.
func (an Analysis) WriteText(w io.Writer) error {
	var b strings.Builder
	if an.PlayerB != "" {
		fmt.Fprintf(&b, "  A       %s, played by %s\n  B       %s, played by %s\n", an.A.Rules, an.Player, an.B.Rules, an.PlayerB)
	} else {
		fmt.Fprintf(&b, "  A       %s\n  B       %s\n  player  %s (both sides)\n", an.A.Rules, an.B.Rules, an.Player)
	}
	fmt.Fprintf(&b, "  pairs   %d (game i under A and under B: the same opening, %d random plies, and seed)", an.Pairs, an.OpeningPlies)
	if an.Unpaired > 0 {
		fmt.Fprintf(&b, "; %s without its pair left out", plural(an.Unpaired, "game"))
	}
	b.WriteString("\n")
	if an.Pairs == 0 {
		b.WriteString("\nno game has been played under both rule sets yet\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	rows := an.rows()

	cells := [][]string{{"", "A: " + ruleName(an.A.Rules), "B: " + ruleName(an.B.Rules), "B − A", "p", "exact p", ""}}
	for _, r := range rows {
		mark := ""
		if r.d.Significant {
			mark = "*"
		}
		cells = append(cells, []string{r.label, r.a, r.b, r.diff, fmtP(r.d.P), fmtP(r.d.ExactP), mark})
	}
	widths := make([]int, len(cells[0]))
	for _, line := range cells {
		for k, c := range line {
			widths[k] = max(widths[k], len([]rune(c)))
		}
	}
	b.WriteString("\n")
	for _, line := range cells {
		var l strings.Builder
		l.WriteString("  ")
		for k, c := range line {
			l.WriteString(c)
			if k < len(line)-1 {
				l.WriteString(strings.Repeat(" ", widths[k]-len([]rune(c))+2))
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}

	var sig, not []string
	for _, r := range rows {
		if r.d.Significant {
			size, _, _ := strings.Cut(r.diff, " ")
			if strings.HasSuffix(r.diff, " pts") {
				size += " pts"
			}
			sig = append(sig, fmt.Sprintf("%s %s (p %s)", r.label, size, fmtP(r.d.P)))
		} else {
			not = append(not, r.label)
		}
	}
	b.WriteString("\n")
	if len(sig) > 0 {
		fmt.Fprintf(&b, "  significant at 5%%:     %s\n", strings.Join(sig, ", "))
	} else {
		b.WriteString("  significant at 5%:     nothing\n")
	}
	if len(not) > 0 {
		fmt.Fprintf(&b, "  not significant at 5%%: %s\n", strings.Join(not, ", "))
	}
	fmt.Fprintf(&b, "\n  95%% intervals: shares Wilson (the score's counts a draw as half a point), means Student's t.\n"+
		"  B − A from the %d pairs: score and shares by the paired z test and the exact test (McNemar's; the sign\n"+
		"  test for the score), significant (*) when both are below 0.05; length and passes by the paired t test\n"+
		"  (exact p: the sign test, for reference). Each row is tested on its own: of many rows, one in twenty\n"+
		"  shows p < 0.05 by chance.\n", an.Pairs)
	_, err := io.WriteString(w, b.String())
	return err
}

// rows are the analysis's measures, a row each, as WriteText and the
// report list them: the score, the shares, the length, passes in janggi,
// then the ends, the commonest first.
func (an Analysis) rows() []row {
	rows := []row{
		{label: an.FirstMover + " score", a: fmtScore(an.A.Score), b: fmtScore(an.B.Score), d: an.Diff.Score, diff: fmtDiff(an.Diff.Score, 1, "%+.3f", "")},
		pctRow(an.FirstMover+" wins", an.A.Wins, an.B.Wins, an.Diff.Wins),
		pctRow("draws", an.A.Draws, an.B.Draws, an.Diff.Draws),
		pctRow(an.SecondMover+" wins", an.A.Losses, an.B.Losses, an.Diff.Losses),
		{label: "length (plies)", a: fmtMean(an.A.Length), b: fmtMean(an.B.Length), d: an.Diff.Length, diff: fmtDiff(an.Diff.Length, 1, "%+.1f", "")},
	}
	if an.Game == "janggi" || an.A.Passes.Mean > 0 || an.B.Passes.Mean > 0 {
		rows = append(rows, row{label: "passes", a: fmtMean(an.A.Passes), b: fmtMean(an.B.Passes), d: an.Diff.Passes, diff: fmtDiff(an.Diff.Passes, 1, "%+.2f", "")})
	}
	labels := make([]string, 0, len(an.A.Reasons))
	for label := range an.A.Reasons {
		labels = append(labels, label)
	}
	// The commonest ends first.
	slices.SortFunc(labels, func(x, y string) int {
		nx := an.A.Reasons[x].Count + an.B.Reasons[x].Count
		ny := an.A.Reasons[y].Count + an.B.Reasons[y].Count
		if nx != ny {
			return int(ny - nx)
		}
		return strings.Compare(x, y)
	})
	for _, label := range labels {
		rows = append(rows, pctRow("ends: "+label, an.A.Reasons[label], an.B.Reasons[label], an.Diff.Reasons[label]))
	}
	return rows
}

func pctRow(label string, a, b Rate, d Diff) row {
	return row{label: label, a: fmtPct(a), b: fmtPct(b), d: d, diff: fmtDiff(d, 100, "%+.1f", " pts")}
}

// ruleName is the name of a name@hash.
func ruleName(id string) string {
	name, _, _ := strings.Cut(id, "@")
	return name
}

func finite(x Num) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }

// num writes x with format, or "–" when it is not finite.
func num(format string, x Num) string {
	if !finite(x) {
		return "–"
	}
	s := fmt.Sprintf(format, float64(x))
	if strings.Trim(s, "+-0.") == "" {
		s = strings.TrimLeft(s, "+-") // zero has no sign: never "-0.0"
	}
	return s
}

func fmtScore(r Rate) string {
	return fmt.Sprintf("%s [%s, %s]", num("%.3f", r.Rate), num("%.3f", r.Lo), num("%.3f", r.Hi))
}

func fmtPct(r Rate) string {
	return fmt.Sprintf("%s%% [%s, %s]", num("%.1f", r.Rate*100), num("%.1f", r.Lo*100), num("%.1f", r.Hi*100))
}

func fmtMean(m Mean) string {
	return fmt.Sprintf("%s [%s, %s]", num("%.1f", m.Mean), num("%.1f", m.Lo), num("%.1f", m.Hi))
}

func fmtDiff(d Diff, scale Num, format, unit string) string {
	return fmt.Sprintf("%s [%s, %s]%s", num(format, d.Mean*scale), num(format, d.Lo*scale), num(format, d.Hi*scale), unit)
}

func fmtP(p Num) string {
	switch {
	case !finite(p):
		return "–"
	case p < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", float64(p))
}

// plural writes n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
