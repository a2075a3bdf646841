package loop

import (
	"fmt"
	"slices"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/internal/splitmix"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
)

// What follows is the arithmetic of a config that the stages (stages.go)
// derive their seeds, rule sets, openings, names and first network from,
// so that both drivers make the same games and networks from one config.

// RuleSets are the run's rule sets: self-play's (with its length cap) and
// the gate's (its own cap, else self-play's).
func RuleSets(cfg Config) (selfplayRules, arenaRules *rules.RuleSet) {
	sp := cfg.Selfplay.RuleSet(cfg.Rules)
	if cfg.Gate.MaxPlies > 0 {
		return sp, cfg.Rules.WithMaxPlies(cfg.Gate.MaxPlies)
	}
	return sp, sp
}

// SelfplaySeed is generation gen's self-play seed.
func SelfplaySeed(cfg Config, gen int) uint64 { return generationSeed(cfg, gen) }

// MatchSeed is candidate gen's match seed. It equals generation gen's
// self-play seed, which the pinned runs were made with: the match's games
// derive their own seeds from it, apart from self-play's.
func MatchSeed(cfg Config, gen int) uint64 { return generationSeed(cfg, gen) }

// generationSeed is the one formula behind a generation's seeds.
func generationSeed(cfg Config, gen int) uint64 { return splitmix.Mix(cfg.Seed, uint64(gen)) }

// Openings are the gating matches' openings.
func Openings(cfg Config, arenaRules *rules.RuleSet) ([]arena.Opening, error) {
	return arena.RandomOpenings(arenaRules, cfg.Gate.Pairs, cfg.Gate.OpeningPlies, splitmix.Mix(cfg.Seed, 0x6172656e61))
}

// PlayerName is the name a gating match gives generation gen's network.
func PlayerName(cfg Config, gen int, w *model.Weights) string {
	return fmt.Sprintf("gen%d:%s/%s", gen, w.ID(), arena.SearchLabel(cfg.Gate.Search))
}

// InitialNetwork is generation 0's network: random weights from the
// config's network seed, or the config's network (NetworkInit: a file, or
// model.Builtin, the network palace ships for the game) as an untrained
// start: its weights, with no optimizer state and no steps, so that the
// run's trainer counts and schedules its own; its provenance names the
// file and the network it was.
func InitialNetwork(cfg Config, rs *rules.RuleSet, codeVersion string) (*model.Checkpoint, error) {
	if cfg.NetworkInit != "" {
		init, err := model.LoadNetworkFor(cfg.NetworkInit, rs)
		if err != nil {
			return nil, fmt.Errorf("loop: network init: %w", err)
		}
		ck := *init
		ck.Steps, ck.Samples, ck.Optimizer = 0, 0, nil
		ck.RuleSets, ck.Games = slices.Clone(ck.RuleSets), slices.Clone(ck.Games)
		ck.AddRuleSet(rs)
		ck.Provenance = model.Provenance{CodeVersion: codeVersion, Seed: cfg.NetworkSeed, Created: init.Provenance.Created,
			Parent: init.Weights.ID(), Lineage: init.Ancestry(),
			Note: fmt.Sprintf("generation 0: %s (network %s: %s)", cfg.NetworkInit, init.Weights.ID(), init.Provenance.Note)}
		return &ck, nil
	}
	ck, err := model.RandomCheckpoint(cfg.Network, []*rules.RuleSet{rs},
		model.Provenance{CodeVersion: codeVersion, Seed: cfg.NetworkSeed, Note: "generation 0: random weights"})
	if err != nil {
		return nil, fmt.Errorf("loop: %w", err)
	}
	return ck, nil
}

// Decide is the gate's verdict on a finished match: the test's decision,
// else the score against Arena.AcceptScore.
func Decide(cfg Config, s arena.Summary) (promote bool, reason string) {
	switch s.Decision {
	case stats.AcceptH1:
		return true, "SPRT accepted the candidate"
	case stats.AcceptH0:
		return false, "SPRT rejected the candidate"
	}
	return s.WDL.Score() >= cfg.Gate.AcceptScore,
		fmt.Sprintf("SPRT undecided after %d pairs; score %.3f vs accept_score %.3f", s.Pentanomial.Pairs(), s.WDL.Score(), cfg.Gate.AcceptScore)
}
