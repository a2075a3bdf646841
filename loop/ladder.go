package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/internal/splitmix"
	"github.com/palace-chess/palace/ladder"
	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

// The ladder stage: after a gate, every Ladder.Every promotions, the new
// best network is rated on the absolute scale, so that a run's strength
// (and two runs') can be read against wall-clock time and games played.

// StageLadder follows the gate when the config has a ladder.
const StageLadder = "ladder"

// LadderKey is generation gen's ladder directory: the rung matches'
// record files and rating.json.
func LadderKey(gen int) string { return fmt.Sprintf("ladder/gen-%04d", gen) }

// LadderRatingKey is generation gen's rating.
func LadderRatingKey(gen int) string { return LadderKey(gen) + "/" + ladder.ResultFile }

// LadderDue says whether generation gen's ladder stage rates a network:
// its gate promoted the candidate (best is now generation gen+1), and
// that was a multiple of Ladder.Every promotions (the metrics count them).
func (s *Stages) LadderDue(gen int, best Best) (bool, error) {
	every := s.Config.Ladder.Every
	if every <= 0 || best.Key != NetKey(gen+1) {
		return false, nil
	}
	ms, err := ReadMetrics(s.Store)
	if err != nil {
		return false, err
	}
	promotions := 0
	for _, m := range ms {
		if m.Stage == StageGate && m.Promoted && m.Generation <= gen {
			promotions++
		}
	}
	return promotions > 0 && promotions%every == 0, nil
}

// LadderJob is where a ladder stage runs: dir, a local directory for the
// records (the run's own ladder directory, or a copy), and who hears how
// it goes.
type LadderJob struct {
	Generation int
	Best       Best
	Dir        string
	Progress   func(ladder.Event)
}

// LadderSetup is what every ladder stage of the run shares: the scale,
// the rule set it was calibrated under (the run's, uncapped), the
// matches' settings and the network's search.
type LadderSetup struct {
	Scale    *ladder.Scale
	Rules    *rules.RuleSet
	Settings ladder.Settings
	Search   mcts.Params
}

// LadderSetup is the run's ladder setup; dir is where the records go.
func (s *Stages) LadderSetup(dir string) (*LadderSetup, error) {
	l := s.Config.Ladder
	rs := s.Config.Rules
	scale, err := l.scale(rs)
	if err != nil {
		return nil, fmt.Errorf("loop: ladder: %w", err)
	}
	params := s.Config.Gate.Search
	if l.Simulations > 0 {
		params.Simulations = l.Simulations
	}
	// One seed for every generation: the same openings each time, so
	// that ratings along a run differ by the networks alone.
	set := ladder.Settings{Settings: l.Settings, Seed: splitmix.Mix(s.Config.Seed, 0x6c6164646572),
		Dir: dir, CodeVersion: s.CodeVersion}
	return &LadderSetup{Scale: scale, Rules: rs, Settings: set, Search: params}, nil
}

// playerName is the name the best network plays under.
func (ls *LadderSetup) playerName(best Best, w *model.Weights) string {
	return fmt.Sprintf("gen%d:%s/%s", best.Generation, w.ID(), arena.SearchLabel(ls.Search))
}

// ladderPlayer is the best network as the ladder's player.
func (s *Stages) ladderPlayer(ls *LadderSetup, best Best) (arena.Player, error) {
	ck, err := LoadNet(s.Store, best.Key)
	if err != nil {
		return nil, err
	}
	return arena.NewNetwork(ls.playerName(best, ck.Weights), ck.Weights, ls.Search,
		arena.SearchOptions{Evaluators: s.Config.Ladder.Evaluators, CacheEntries: 1 << 16})
}

// Ladder rates the best network (job.Best, generation job.Generation's
// promoted candidate) on the run's scale, resuming from job.Dir, and
// records the rating (LadderRated).
func (s *Stages) Ladder(ctx context.Context, job LadderJob) (Metric, error) {
	start := time.Now()
	ls, err := s.LadderSetup(job.Dir)
	if err != nil {
		return Metric{}, err
	}
	player, err := s.ladderPlayer(ls, job.Best)
	if err != nil {
		return Metric{}, err
	}
	set := ls.Settings
	set.Progress = job.Progress
	r, err := ladder.Rate(ctx, ladder.Job{Settings: set, Scale: ls.Scale, RuleSet: ls.Rules, Player: player,
		Program: s.Config.Ladder.Engine})
	if err != nil {
		return Metric{}, err
	}
	return s.LadderRated(job.Generation, job.Best, r, time.Since(start))
}

// LadderRated writes generation gen's rating r of best to the store and
// returns the stage's metric: the stage took elapsed.
func (s *Stages) LadderRated(gen int, best Best, r *ladder.Rating, elapsed time.Duration) (Metric, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return Metric{}, fmt.Errorf("loop: %w", err)
	}
	if err := s.Store.Write(LadderRatingKey(gen), append(data, '\n')); err != nil {
		return Metric{}, fmt.Errorf("loop: %w", err)
	}
	return Metric{Generation: gen, Stage: StageLadder, Network: best.Key, Games: r.Games, Rating: r,
		Seconds: elapsed.Seconds()}, nil
}

// LadderRungKey is the record file of generation gen's match against
// rung r.
func LadderRungKey(gen int, r ladder.Rung) string { return LadderKey(gen) + "/" + ladder.RungFile(r) }

// LadderMatch is the best network's match against rung k, for a machine
// that plays some of its pairs (arena.PlayPairs) with no record file of
// its own; close releases the rung's engines.
func (s *Stages) LadderMatch(best Best, k int) (m *arena.Match, close func(), err error) {
	ls, err := s.LadderSetup("")
	if err != nil {
		return nil, nil, err
	}
	if k < 0 || k >= len(ls.Scale.Rungs) {
		return nil, nil, fmt.Errorf("loop: ladder: rung %d of a %d-rung scale", k, len(ls.Scale.Rungs))
	}
	player, err := s.ladderPlayer(ls, best)
	if err != nil {
		return nil, nil, err
	}
	ops, err := ls.Settings.Openings(ls.Rules)
	if err != nil {
		return nil, nil, err
	}
	rung, err := ladder.NewRung(ls.Scale, k, s.Config.Ladder.Engine, ls.Rules)
	if err != nil {
		return nil, nil, err
	}
	match := ls.Settings.Match(ls.Rules, ops, player, rung)
	return &match, rung.Close, nil
}

// LadderHeader is the record file header of the best network's match
// against rung k, as a local ladder writes it, for a machine that plays
// none of its games.
func (s *Stages) LadderHeader(ls *LadderSetup, best Best, k int) (arena.Header, error) {
	ck, err := LoadNet(s.Store, best.Key)
	if err != nil {
		return arena.Header{}, err
	}
	ops, err := ls.Settings.Openings(ls.Rules)
	if err != nil {
		return arena.Header{}, err
	}
	rung, err := ladder.RungName(ls.Scale, k, s.Config.Ladder.Engine, ls.Rules)
	if err != nil {
		return arena.Header{}, err
	}
	m := ls.Settings.Match(ls.Rules, ops, namedPlayer(ls.playerName(best, ck.Weights)), namedPlayer(rung))
	return m.Header(), nil
}
