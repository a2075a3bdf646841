package ladder

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
	"github.com/palace-chess/palace/uci"
)

// Settings shared by calibrations and ratings.
type Settings struct {
	// Settings are each match's (a rung's, or a calibration's
	// neighbouring rungs'): its pairs, the random plies of each pair's
	// opening, drawn from Seed (one opening per pair, the same for every
	// rung), and its games at once (0: 1).
	arena.Settings
	Seed uint64
	// Dir holds the matches' record files; a ladder run again with the
	// same Dir resumes.
	Dir         string
	CodeVersion string
	// Progress, when set, hears of every game, one call at a time.
	Progress func(Event)
}

// Event is a ladder's progress: a match started (Games 0) or a game of
// it finished.
type Event struct {
	// Match says who plays whom.
	Match string
	// Summary is the match's standings.
	Summary arena.Summary
	// Started marks the first report of a match.
	Started bool
}

// Check reports settings that cannot work.
func (s *Settings) Check() error {
	m := s.Settings
	m.Concurrency = max(m.Concurrency, 1)
	if err := m.Validate(); err != nil {
		return fmt.Errorf("ladder: %s", strings.TrimPrefix(err.Error(), "arena: "))
	}
	if s.Dir == "" {
		return errors.New("ladder: no directory for the records")
	}
	return nil
}

// Match is the match of a (the player rated, or the lower rung) against b
// under these settings, with the openings Openings gives: what Rate and
// Calibrate play with a record file, and what a driver that plays its
// pairs elsewhere (a cluster's workers, through arena.PlayPairs) plays.
func (s *Settings) Match(rs *rules.RuleSet, ops []arena.Opening, a, b arena.Player) arena.Match {
	return arena.Match{RuleSet: rs, Openings: ops, A: a, B: b, Pairs: s.Pairs, Concurrency: max(s.Concurrency, 1),
		Seed: s.Seed, CodeVersion: s.CodeVersion}
}

// play plays (or resumes, or just reads) the match of a against b with
// its records at file.
func (s *Settings) play(ctx context.Context, rs *rules.RuleSet, ops []arena.Opening, a, b arena.Player, file string) (arena.Summary, []arena.GameRecord, error) {
	m := s.Match(rs, ops, a, b)
	m.Records = file
	label := fmt.Sprintf("%s vs %s", a.Name(), b.Name())
	if s.Progress != nil {
		s.Progress(Event{Match: label, Started: true})
		m.Progress = func(sum arena.Summary) { s.Progress(Event{Match: label, Summary: sum}) }
	}
	sum, err := arena.Play(ctx, m)
	if err != nil {
		return sum, nil, fmt.Errorf("ladder: %s: %w", label, err)
	}
	_, recs, err := arena.ReadRecords(file)
	if err != nil {
		return sum, nil, fmt.Errorf("ladder: %w", err)
	}
	return sum, recs, nil
}

// Openings are the pairs' openings under rs: one a pair, the same for
// every match.
func (s *Settings) Openings(rs *rules.RuleSet) ([]arena.Opening, error) {
	ops, err := arena.RandomOpenings(rs, s.Pairs, s.OpeningPlies, s.Seed)
	if err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	return ops, nil
}

// Calibration is a scale to make: the engine, its rungs and the matches'
// settings.
type Calibration struct {
	Settings
	RuleSet *rules.RuleSet
	// Program is the engine; Options go to it by setoption.
	Program string
	Options []uci.OptionValue
	// Nodes are the engine's rungs, increasing.
	Nodes []int
	// Below are player rungs (arena specs: random or uniform[,...]) below
	// the engine's, weakest first.
	Below []string
	// Span: every two rungs at most Span apart play a match (0 or 1:
	// neighbours only).
	Span int
}

// Rungs are the calibration's rungs, unrated: the player rungs, then the
// engine's.
func (c *Calibration) Rungs() []Rung {
	var rungs []Rung
	for _, p := range c.Below {
		rungs = append(rungs, Rung{Player: p})
	}
	for _, n := range c.Nodes {
		rungs = append(rungs, Rung{Nodes: n})
	}
	return rungs
}

// Pairings are the pairs of rungs (indices into Rungs, the lower first)
// that play each other: every two at most span apart, nearest first.
func Pairings(rungs, span int) [][2]int {
	span = max(span, 1)
	var out [][2]int
	for d := 1; d <= span; d++ {
		for i := 0; i+d < rungs; i++ {
			out = append(out, [2]int{i, i + d})
		}
	}
	return out
}

// Calibrate plays (or resumes) the matches between rungs up to c.Span
// apart and fits the scale.
func Calibrate(ctx context.Context, c Calibration) (*Scale, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if c.RuleSet == nil || c.Program == "" {
		return nil, errors.New("ladder: a calibration needs a rule set and an engine")
	}
	if len(c.Nodes) < 1 || len(c.Nodes)+len(c.Below) < 2 {
		return nil, fmt.Errorf("ladder: %d engine rungs and %d player rungs, want at least one engine rung and two in all", len(c.Nodes), len(c.Below))
	}
	for i, n := range c.Nodes {
		if n < 1 || (i > 0 && n <= c.Nodes[i-1]) {
			return nil, fmt.Errorf("ladder: rungs %v: want increasing node counts of at least 1", c.Nodes)
		}
	}
	for i, p := range c.Below {
		if err := checkPlayerRung(p); err != nil {
			return nil, fmt.Errorf("ladder: %w", err)
		}
		if slices.Contains(c.Below[:i], p) {
			return nil, fmt.Errorf("ladder: player rung %q given twice", p)
		}
	}
	if c.Span < 0 {
		return nil, fmt.Errorf("ladder: span %d, want at least 1", c.Span)
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	ops, err := c.Openings(c.RuleSet)
	if err != nil {
		return nil, err
	}
	unrated := c.Rungs()
	players := make([]arena.Player, len(unrated))
	defer func() {
		for _, p := range players {
			if cl, ok := p.(interface{ Close() }); ok {
				cl.Close()
			}
		}
	}()
	id := ""
	for i, r := range unrated {
		if r.Player != "" {
			ps, err := arena.ParsePlayer(r.Player)
			if err != nil {
				return nil, fmt.Errorf("ladder: %w", err)
			}
			if players[i], err = ps.StartPlayer(ctx, c.RuleSet); err != nil {
				return nil, fmt.Errorf("ladder: rung %s: %w", r.Label(), err)
			}
			continue
		}
		p, err := arena.StartUCIPlayer(ctx, RungSpec(c.Program, r.Nodes, c.Options), c.RuleSet)
		if err != nil {
			return nil, fmt.Errorf("ladder: rung %d: %w", r.Nodes, err)
		}
		players[i], id = p, p.EngineID()
	}
	span := max(c.Span, 1)
	scale := &Scale{Format: ScaleFormat, Version: ScaleVersion, RuleSet: c.RuleSet.String(),
		Engine:       Engine{ID: id, Program: c.Program, Options: slices.Clone(c.Options)},
		OpeningPlies: c.OpeningPlies, Seed: c.Seed, Span: span, CodeVersion: c.CodeVersion}
	var played []CalibrationMatch
	for _, pr := range Pairings(len(unrated), span) {
		i, j := pr[0], pr[1]
		file := filepath.Join(c.Dir, CalibrationFile(unrated[i], unrated[j]))
		_, recs, err := c.play(ctx, c.RuleSet, ops, players[i], players[j], file)
		if err != nil {
			return nil, err
		}
		played = append(played, CalibrationMatch{Lower: i, Upper: j, Records: recs})
	}
	if scale.Rungs, scale.Matches, err = FitCalibration(unrated, c.Pairs, played); err != nil {
		return nil, err
	}
	scale.Games = 2 * c.Pairs * len(played)
	scale.Created = time.Now().UTC()
	return scale, nil
}

// CalibrationFile is the record file of the calibration match between
// rungs lower and upper.
func CalibrationFile(lower, upper Rung) string {
	return fmt.Sprintf("calibrate-%s-%s.jsonl", lower.ID().fileName(), upper.ID().fileName())
}

// CalibrationMatch is a finished calibration match: rung Lower (A)
// against rung Upper, indices into the scale's rungs.
type CalibrationMatch struct {
	Lower, Upper int
	Records      []arena.GameRecord
}

// FitCalibration rates rungs (their Nodes and Player set, in the scale's
// order) from matches of pairs pairs each: a Bradley–Terry fit over all
// the games, the first engine rung at 0.
func FitCalibration(rungs []Rung, pairs int, matches []CalibrationMatch) ([]Rung, []Match, error) {
	anchor := slices.IndexFunc(rungs, func(r Rung) bool { return r.Player == "" })
	if anchor < 0 {
		return nil, nil, errors.New("ladder: a calibration without an engine rung")
	}
	var games []stats.RatedGame
	var out []Match
	for k, m := range matches {
		if m.Lower < 0 || m.Upper >= len(rungs) || m.Lower >= m.Upper {
			return nil, nil, fmt.Errorf("ladder: a match between rungs %d and %d of %d", m.Lower, m.Upper, len(rungs))
		}
		lo, up := rungs[m.Lower], rungs[m.Upper]
		sum := arena.Summarize(arena.Header{Pairs: pairs}, m.Records)
		if !sum.Done {
			return nil, nil, fmt.Errorf("ladder: the match of %s against %s is not over (%d games)", lo.Label(), up.Label(), sum.Games)
		}
		for _, r := range m.Records {
			games = append(games, stats.RatedGame{A: m.Lower, B: m.Upper, Score: r.Score, Cluster: k*pairs + r.Pair})
		}
		out = append(out, Match{Lower: lo.ID(), Upper: up.ID(), Pairs: pairs, WDL: sum.WDL, Pentanomial: sum.Pentanomial, Elo: sum.Elo})
	}
	fixed := make([]bool, len(rungs))
	fixed[anchor] = true
	fit, err := stats.FitRatings(len(rungs), games, make([]float64, len(rungs)), fixed)
	if err != nil {
		return nil, nil, fmt.Errorf("ladder: calibration: %w", err)
	}
	rated := make([]Rung, len(rungs))
	for i, r := range rungs {
		rated[i] = Rung{Nodes: r.Nodes, Player: r.Player, Elo: stats.Number(fit.Elo[i]), Lo: stats.Number(fit.CI[i].Lo), Hi: stats.Number(fit.CI[i].Hi)}
	}
	return rated, out, nil
}
