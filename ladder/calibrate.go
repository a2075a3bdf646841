package ladder

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
	"github.com/palace-chess/palace/uci"
)

// Settings shared by calibrations and ratings.
type Settings struct {
	// Pairs is the number of game pairs of each match (a rung's, or a
	// calibration's neighbouring rungs').
	Pairs int
	// OpeningPlies random plies start each pair's opening, drawn from
	// Seed (one opening per pair, the same for every rung).
	OpeningPlies int
	Seed         uint64
	// Concurrency is the number of games played at once.
	Concurrency int
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
	switch {
	case s.Pairs < 1:
		return fmt.Errorf("ladder: %d pairs a match, want at least 1", s.Pairs)
	case s.OpeningPlies < 0:
		return fmt.Errorf("ladder: %d opening plies", s.OpeningPlies)
	case s.Dir == "":
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
	// Nodes are the rungs, increasing.
	Nodes []int
}

// Calibrate plays (or resumes) the matches between neighbouring rungs and
// fits the scale.
func Calibrate(ctx context.Context, c Calibration) (*Scale, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if c.RuleSet == nil || c.Program == "" {
		return nil, errors.New("ladder: a calibration needs a rule set and an engine")
	}
	if len(c.Nodes) < 2 {
		return nil, fmt.Errorf("ladder: %d rungs, want at least 2", len(c.Nodes))
	}
	for i, n := range c.Nodes {
		if n < 1 || (i > 0 && n <= c.Nodes[i-1]) {
			return nil, fmt.Errorf("ladder: rungs %v: want increasing node counts of at least 1", c.Nodes)
		}
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	ops, err := c.Openings(c.RuleSet)
	if err != nil {
		return nil, err
	}
	rungs := make([]*arena.UCIPlayer, len(c.Nodes))
	defer func() {
		for _, p := range rungs {
			if p != nil {
				p.Close()
			}
		}
	}()
	for i, n := range c.Nodes {
		p, err := arena.StartUCIPlayer(ctx, RungSpec(c.Program, n, c.Options), c.RuleSet)
		if err != nil {
			return nil, fmt.Errorf("ladder: rung %d: %w", n, err)
		}
		rungs[i] = p
	}
	id := rungs[0].EngineID()
	scale := &Scale{Format: ScaleFormat, Version: ScaleVersion, RuleSet: c.RuleSet.String(),
		Engine:       Engine{ID: id, Program: c.Program, Options: slices.Clone(c.Options)},
		OpeningPlies: c.OpeningPlies, Seed: c.Seed, CodeVersion: c.CodeVersion}
	matches := make([][]arena.GameRecord, len(c.Nodes)-1)
	for i := range matches {
		file := filepath.Join(c.Dir, CalibrationFile(c.Nodes[i], c.Nodes[i+1]))
		if _, matches[i], err = c.play(ctx, c.RuleSet, ops, rungs[i], rungs[i+1], file); err != nil {
			return nil, err
		}
	}
	if scale.Rungs, scale.Matches, err = FitCalibration(c.Nodes, c.Pairs, matches); err != nil {
		return nil, err
	}
	scale.Games = 2 * c.Pairs * len(matches)
	scale.Created = time.Now().UTC()
	return scale, nil
}

// CalibrationFile is the record file of the calibration match between
// rungs lower and upper.
func CalibrationFile(lower, upper int) string {
	return fmt.Sprintf("calibrate-%d-%d.jsonl", lower, upper)
}

// FitCalibration rates the rungs of nodes from matches[i], the finished
// match (pairs pairs) between rung i (A) and rung i+1: a Bradley–Terry fit
// over all the games, rung 0 at 0.
func FitCalibration(nodes []int, pairs int, matches [][]arena.GameRecord) ([]Rung, []Match, error) {
	if len(matches) != len(nodes)-1 {
		return nil, nil, fmt.Errorf("ladder: %d matches for %d rungs", len(matches), len(nodes))
	}
	var games []stats.RatedGame
	var out []Match
	for i, recs := range matches {
		sum := arena.Summarize(arena.Header{Pairs: pairs}, recs)
		if !sum.Done {
			return nil, nil, fmt.Errorf("ladder: the match of %d nodes against %d is not over (%d games)", nodes[i], nodes[i+1], sum.Games)
		}
		for _, r := range recs {
			games = append(games, stats.RatedGame{A: i, B: i + 1, Score: r.Score, Cluster: i*pairs + r.Pair})
		}
		out = append(out, Match{Lower: nodes[i], Upper: nodes[i+1], Pairs: pairs, WDL: sum.WDL, Pentanomial: sum.Pentanomial, Elo: sum.Elo})
	}
	fixed := make([]bool, len(nodes))
	fixed[0] = true
	fit, err := stats.FitRatings(len(nodes), games, make([]float64, len(nodes)), fixed)
	if err != nil {
		return nil, nil, fmt.Errorf("ladder: calibration: %w", err)
	}
	rungs := make([]Rung, len(nodes))
	for i, n := range nodes {
		rungs[i] = Rung{Nodes: n, Elo: stats.Number(fit.Elo[i]), Lo: stats.Number(fit.CI[i].Lo), Hi: stats.Number(fit.CI[i].Hi)}
	}
	return rungs, out, nil
}
