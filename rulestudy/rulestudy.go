// Package rulestudy trains a player per rule set for a rule experiment:
// the loop run under rule set A and under rule set B from one start and
// one config, each to the same budget of the loop's own stage time, so
// that each rule set's games are played by a network that learnt it.
//
// A study's runs are ordinary run directories, and the budget is counted
// from their recorded metrics (self-play, training and gates; ladders,
// a measurement, left out), not from a wall clock: a killed study resumes
// where it stopped, and a larger budget later trains on from there.
package rulestudy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/store"
)

// rulesLine is a config's top-level rules key.
var rulesLine = regexp.MustCompile(`(?m)^rules:[^\n]*$`)

// WithRules is the config text with its top-level rules key set to
// ruleSet (a preset name or a rule-set YAML file's path): the one
// difference between a study's two runs.
func WithRules(config []byte, ruleSet string) ([]byte, error) {
	if n := len(rulesLine.FindAll(config, -1)); n != 1 {
		return nil, fmt.Errorf("rulestudy: the training config has %d top-level rules keys, want 1", n)
	}
	return rulesLine.ReplaceAll(config, []byte("rules: "+ruleSet)), nil
}

// Spent is the stage time a run has recorded: its self-play, training
// and gates (a stage cut short by a kill is redone and counted once).
func Spent(st store.Store) (time.Duration, error) {
	ms, err := loop.ReadMetrics(st)
	if err != nil {
		return 0, err
	}
	var s float64
	for _, m := range ms {
		if m.Stage != loop.StageLadder {
			s += m.Seconds
		}
	}
	return time.Duration(s * float64(time.Second)), nil
}

// Train runs the loop in dir under config (YAML; source names it in
// errors) until its recorded stage time reaches budget, resuming a run
// that dir holds, and returns the path of the network that was its best
// when it reached budget (BestAt) and the time it had spent then. A run
// started with another config is refused.
func Train(ctx context.Context, dir string, config []byte, source string, budget time.Duration, opt loop.Options) (best string, spent time.Duration, err error) {
	st, err := store.NewDir(dir)
	if err != nil {
		return "", 0, err
	}
	saved, err := st.Read(loop.ConfigKey)
	switch {
	case err == nil:
		if !bytes.Equal(saved, config) {
			return "", 0, fmt.Errorf("rulestudy: %s was started with another configuration; give the study another directory", dir)
		}
	case errors.Is(err, store.ErrNotExist):
		if other := atomicfile.OtherFiles(dir, "run.lock"); len(other) > 0 {
			return "", 0, fmt.Errorf("rulestudy: %s is not a run and holds other files (%v)", dir, other)
		}
		if err := st.Write(loop.ConfigKey, config); err != nil {
			return "", 0, err
		}
	default:
		return "", 0, err
	}
	cfg, err := loop.ParseConfig(config, source)
	if err != nil {
		return "", 0, err
	}
	cfg.Generations = 0 // the budget ends it
	if spent, err = Spent(st); err != nil {
		return "", 0, err
	}
	if spent < budget {
		var stopErr error
		opt.StopAfter = func(loop.State) bool {
			s, err := Spent(st)
			if err != nil {
				stopErr = err
				return true
			}
			return s >= budget
		}
		if err := loop.Run(ctx, st, cfg, opt); err != nil {
			return "", 0, err
		}
		if stopErr != nil {
			return "", 0, stopErr
		}
		if err := ctx.Err(); err != nil {
			return "", 0, err
		}
		if spent, err = Spent(st); err != nil {
			return "", 0, err
		}
	}
	key, at, err := BestAt(st, budget)
	if err != nil {
		return "", 0, err
	}
	return st.Local(key), at, nil
}

// BestAt is the key of the network that was the run's best when its
// recorded stage time first reached budget, and that time: the player a
// study trained to budget, even when the run has since trained on past
// it (a study resumed after its larger budget, or a run driven further
// by hand). A run that never reached budget gives its best now and its
// time so far.
func BestAt(st store.Store, budget time.Duration) (key string, at time.Duration, err error) {
	ms, err := loop.ReadMetrics(st)
	if err != nil {
		return "", 0, err
	}
	var s float64
	for _, m := range ms {
		switch {
		case m.Stage == loop.StageSelfplay && m.Network != "":
			key = m.Network // self-play plays with the best
		case m.Stage == loop.StageGate && m.Promoted:
			key = m.Network
		}
		if m.Stage != loop.StageLadder {
			s += m.Seconds
		}
		if at = time.Duration(s * float64(time.Second)); at >= budget && key != "" {
			return key, at, nil
		}
	}
	b, err := loop.BestOf(st)
	if err != nil {
		return "", 0, err
	}
	return b.Key, at, nil
}
