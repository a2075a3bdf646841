package openings

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/palace-chess/palace/gamerec"
)

// Filter says which games build a tree, how deep, and what a View shows.
//
// RuleSet, Generations, From, To and Depth are applied while building;
// MinGames, Position and Moves choose what a View of the tree lists.
type Filter struct {
	// RuleSet keeps the games under one rule set: a name ("janggi", every
	// hash of it) or name@hash (exactly that one). Empty: every rule set.
	RuleSet string
	// Generations keeps the self-play games of networks in a range of
	// generations; games whose generation is not known are left out
	// when it is set. Nil: every game.
	Generations *Generations
	// From and To keep the games played in a range of dates, each
	// YYYY, YYYY.MM or YYYY.MM.DD (dots or dashes): From is the first day
	// it names, To the last (To "2007" runs to 2007.12.31). A game's date
	// may be partial (PGN's "2007.??.??" is some day of 2007); a game is
	// kept only when every day its date may mean lies in the range, so a
	// game known only by its year is left out of a range that covers
	// part of that year. A game with no known year is left out when
	// either is set. Empty: no bound.
	From, To string
	// Depth is how many plies of each game are followed: positions up to
	// ply Depth from the game's start, moves at plies 1 to Depth. 0
	// follows whole games.
	Depth int
	// MinGames leaves out of a View the positions reached, and the moves
	// played, in fewer games (0 and 1 leave out nothing).
	MinGames int
	// Position is the FEN of the position whose subtree a View shows (in
	// every rule set where games reached it); empty: the games' start
	// positions.
	Position string
	// Moves are played (ranks 1–10, space-separated) from Position, or
	// from every start position when Position is empty, to reach the
	// positions a View shows. Start positions where the moves are not
	// legal, or lead nowhere the games went, are dropped.
	Moves string
}

// Generations is an inclusive range of network generations; Max < 0 means
// no upper bound.
type Generations struct{ Min, Max int }

func (g Generations) String() string {
	switch {
	case g.Max < 0:
		return fmt.Sprintf("%d-", g.Min)
	case g.Min == g.Max:
		return strconv.Itoa(g.Min)
	}
	return fmt.Sprintf("%d-%d", g.Min, g.Max)
}

func (g Generations) contains(n int) bool { return n >= g.Min && (g.Max < 0 || n <= g.Max) }

// ParseGenerations reads a range of generations: "A-B", "A" (just A) or
// "A-" (A and later), A and B whole numbers with A <= B.
func ParseGenerations(s string) (*Generations, error) {
	bad := func(why string) (*Generations, error) {
		return nil, fmt.Errorf("openings: generations %q: %s (want A-B, A or A-)", s, why)
	}
	lo, hi, ranged := strings.Cut(strings.TrimSpace(s), "-")
	a, err := strconv.Atoi(lo)
	if err != nil || a < 0 {
		return bad("the first generation is not a whole number")
	}
	g := &Generations{Min: a, Max: a}
	if !ranged {
		return g, nil
	}
	if hi == "" {
		g.Max = -1
		return g, nil
	}
	b, err := strconv.Atoi(hi)
	if err != nil || b < 0 {
		return bad("the last generation is not a whole number")
	}
	if b < a {
		return bad("the range is empty")
	}
	g.Max = b
	return g, nil
}

// day is a date as the number yyyymmdd; a partial date is a range of days.
type day int

// dayRange reads a date of up to three parts separated by dots, dashes or
// slashes, "??" (or "????") for an unknown part: the first and last day it
// may mean. An unknown month makes the day unknown too. ok is false when
// the year is unknown or the text is not a date.
func dayRange(s string) (lo, hi day, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, 0, false
	}
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '-' || r == '/' })
	if len(parts) == 0 || len(parts) > 3 {
		return 0, 0, false
	}
	num := func(i, digits, lo, hi int) (int, bool, bool) { // value, known, valid
		if i >= len(parts) || strings.Trim(parts[i], "?") == "" {
			return 0, false, true
		}
		if len(parts[i]) > digits {
			return 0, false, false
		}
		n, err := strconv.Atoi(parts[i])
		if err != nil || n < lo || n > hi {
			return 0, false, false
		}
		return n, true, true
	}
	y, yk, yv := num(0, 4, 1, 9999)
	m, mk, mv := num(1, 2, 1, 12)
	d, dk, dv := num(2, 2, 1, 31)
	if !yv || !mv || !dv || !yk {
		return 0, 0, false
	}
	switch {
	case !mk:
		return day(y*10000 + 101), day(y*10000 + 1231), true
	case !dk:
		return day(y*10000 + m*100 + 1), day(y*10000 + m*100 + 31), true
	}
	return day(y*10000 + m*100 + d), day(y*10000 + m*100 + d), true
}

// filterDate reads a From or To bound: no unknown parts allowed.
func filterDate(name, s string) (lo, hi day, err error) {
	lo, hi, ok := dayRange(s)
	// A bound is typed, not read from a record: it must be a date that
	// exists (not 2024.02.30) and begin with its year (-1 is not year 1).
	if ok && lo == hi {
		y, m, d := int(lo)/10000, int(lo)/100%100, int(lo)%100
		ok = time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Day() == d
	}
	if !ok || strings.Contains(s, "?") || s[0] < '0' || s[0] > '9' {
		return 0, 0, fmt.Errorf("openings: %s date %q: want YYYY, YYYY.MM or YYYY.MM.DD, a day that exists", name, s)
	}
	return lo, hi, nil
}

// gameFilter is a Filter's build-time part, checked and parsed.
type gameFilter struct {
	ruleSet string
	exact   bool // ruleSet is name@hash
	gens    *Generations
	dated   bool
	from    day // 0: none
	to      day // 0: none
}

// Skipped counts the games a filter left out, by the first reason that
// applied.
type Skipped struct {
	RuleSet    int `json:"rule_set"`
	Generation int `json:"generation"`
	Date       int `json:"date"`
}

// Total is the number of games left out.
func (s Skipped) Total() int { return s.RuleSet + s.Generation + s.Date }

// Validate checks the filter's fields.
func (f *Filter) Validate() error {
	_, err := f.compile()
	return err
}

func (f *Filter) compile() (gameFilter, error) {
	var gf gameFilter
	if f.Depth < 0 {
		return gf, fmt.Errorf("openings: depth %d: want 0 (whole games) or more plies", f.Depth)
	}
	if f.MinGames < 0 {
		return gf, fmt.Errorf("openings: minimum games %d: want 0 or more", f.MinGames)
	}
	if g := f.Generations; g != nil && (g.Min < 0 || (g.Max >= 0 && g.Max < g.Min)) {
		return gf, fmt.Errorf("openings: generations %d to %d: not a range", g.Min, g.Max)
	}
	gf.gens = f.Generations
	if rs := strings.TrimSpace(f.RuleSet); rs != "" {
		name, hash, exact := strings.Cut(rs, "@")
		if name == "" || (exact && hash == "") {
			return gf, fmt.Errorf("openings: rule set %q: want NAME or NAME@HASH", f.RuleSet)
		}
		gf.ruleSet, gf.exact = rs, exact
	}
	if f.From != "" {
		lo, _, err := filterDate("from", f.From)
		if err != nil {
			return gf, err
		}
		gf.from, gf.dated = lo, true
	}
	if f.To != "" {
		_, hi, err := filterDate("to", f.To)
		if err != nil {
			return gf, err
		}
		gf.to, gf.dated = hi, true
	}
	if gf.from != 0 && gf.to != 0 && gf.to < gf.from {
		return gf, fmt.Errorf("openings: dates from %s to %s: the range is empty", f.From, f.To)
	}
	return gf, nil
}

// keep reports whether g passes the filter, counting it in s if not.
func (gf *gameFilter) keep(g *gamerec.Game, s *Skipped) bool {
	if gf.ruleSet != "" {
		name := g.RuleSet
		if !gf.exact {
			name, _, _ = strings.Cut(name, "@")
		}
		if name != gf.ruleSet {
			s.RuleSet++
			return false
		}
	}
	if gf.gens != nil && (g.Generation == nil || !gf.gens.contains(*g.Generation)) {
		s.Generation++
		return false
	}
	if gf.dated {
		lo, hi, ok := dayRange(g.Date)
		if !ok || (gf.from != 0 && lo < gf.from) || (gf.to != 0 && hi > gf.to) {
			s.Date++
			return false
		}
	}
	return true
}
