package openings

import (
	"sort"

	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
)

// Cell counts games: how many, those with an unknown result, and W/D/L of
// the others from one side's view.
type Cell struct {
	Games    int
	Unscored int
	WDL      stats.WDL
}

// Scored is the number of games with a known result.
func (c Cell) Scored() int { return c.WDL.Games() }

// Score is the mean score (W + D/2)/scored and its 95% Wilson interval;
// ok is false when no game has a known result.
func (c Cell) Score() (score float64, ci stats.Interval, ok bool) {
	return scoreOf(c.WDL)
}

func scoreOf(w stats.WDL) (float64, stats.Interval, bool) {
	n := w.Games()
	if n == 0 {
		return 0, stats.Interval{}, false
	}
	return w.Score(), stats.Wilson(float64(w.Wins)+float64(w.Draws)/2, n, stats.Z95), true
}

func (c *Cell) plus(o Cell) {
	c.Games += o.Games
	c.Unscored += o.Unscored
	c.WDL.Wins += o.WDL.Wins
	c.WDL.Draws += o.WDL.Draws
	c.WDL.Losses += o.WDL.Losses
}

// SetupMatrix is the janggi games of one rule set by start setup: Cells
// [cho][han] in rules.JanggiSetup order, W/D/L from Cho's view.
type SetupMatrix struct {
	RuleSet string
	Cells   [4][4]Cell
	// Other counts the rule set's games that started from some other
	// position (not in the cells).
	Other int
}

func (m *SetupMatrix) add(setup, res int) {
	c := &m.Cells[setup/4][setup%4]
	c.Games++
	switch res {
	case whiteWins:
		c.WDL.Wins++
	case draw:
		c.WDL.Draws++
	case blackWins:
		c.WDL.Losses++
	default:
		c.Unscored++
	}
}

// Cho is the row total of Cho's setup cho: all its games, whatever Han's.
func (m *SetupMatrix) Cho(cho rules.JanggiSetup) Cell {
	var c Cell
	for h := range 4 {
		c.plus(m.Cells[cho][h])
	}
	return c
}

// Han is the column total of Han's setup han.
func (m *SetupMatrix) Han(han rules.JanggiSetup) Cell {
	var c Cell
	for h := range 4 {
		c.plus(m.Cells[h][han])
	}
	return c
}

// Total is every game of the matrix.
func (m *SetupMatrix) Total() Cell {
	var c Cell
	for i := range 4 {
		c.plus(m.Cho(rules.JanggiSetup(i)))
	}
	return c
}

// Setups is one matrix per janggi rule set of the tree, by name.
func (t *Tree) Setups() []*SetupMatrix {
	var ms []*SetupMatrix
	for _, m := range t.setups {
		c := *m // a copy: the tree stays read-only
		ms = append(ms, &c)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].RuleSet < ms[j].RuleSet })
	return ms
}
