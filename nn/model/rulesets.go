package model

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/palace-chess/palace/rules"
)

// ruleSetID is the form of a rule set as checkpoints record it: its name
// and its 16-digit hash (rules.RuleSet.String).
var ruleSetID = regexp.MustCompile(`^[^\s@]+@[0-9a-f]{16}$`)

// SetRuleSets records sets as the rule sets the network is for: their
// names with hashes, and their games, which decide what the network may
// play (CheckRuleSet).
func (ck *Checkpoint) SetRuleSets(sets ...*rules.RuleSet) {
	ck.RuleSets, ck.Games = nil, nil
	for _, rs := range sets {
		ck.AddRuleSet(rs)
	}
}

// AddRuleSet adds rs to the rule sets the network is for, once.
func (ck *Checkpoint) AddRuleSet(rs *rules.RuleSet) {
	if id := rs.String(); !slices.Contains(ck.RuleSets, id) {
		ck.RuleSets = append(ck.RuleSets, id)
	}
	if g := rs.Game.String(); !slices.Contains(ck.Games, g) {
		ck.Games = append(ck.Games, g)
	}
}

// CheckRuleSet reports a network that was made for another game than
// rs's: a xiangqi network reads a janggi board as nonsense and plays it
// so. Another rule set of the same game is allowed (rule experiments play
// one network under two), and so is every game for a network that names
// none (a random network made without rule sets).
func (ck *Checkpoint) CheckRuleSet(rs *rules.RuleSet) error {
	return ck.checkRuleSet("the network", rs)
}

func (ck *Checkpoint) checkRuleSet(what string, rs *rules.RuleSet) error {
	if len(ck.Games) == 0 || slices.Contains(ck.Games, rs.Game.String()) {
		return nil
	}
	return fmt.Errorf("model: %s was made for %s (%s), not %s (%s)",
		what, strings.Join(ck.Games, " and "), strings.Join(ck.RuleSets, ", "), rs.Game, rs)
}

// checkRuleSets validates a header's rule sets and games, and fills in
// the games of a checkpoint written before they were recorded, from the
// rule sets that are presets (by hash, else by name).
func checkRuleSets(hd *header) error {
	for _, id := range hd.RuleSets {
		if !ruleSetID.MatchString(id) {
			return fmt.Errorf("rule set %q is not NAME@HASH (16 hexadecimal digits)", id)
		}
	}
	for _, g := range hd.Games {
		if g != rules.Xiangqi.String() && g != rules.Janggi.String() {
			return fmt.Errorf("game %q is not %s or %s", g, rules.Xiangqi, rules.Janggi)
		}
	}
	if len(hd.Games) > 0 || len(hd.RuleSets) == 0 {
		return nil
	}
	for _, id := range hd.RuleSets {
		name, _, _ := strings.Cut(id, "@")
		name = strings.TrimSuffix(name, "-custom")
		for _, p := range rules.PresetNames() {
			rs := rules.MustPreset(p)
			if rs.String() == id || p == name {
				if g := rs.Game.String(); !slices.Contains(hd.Games, g) {
					hd.Games = append(hd.Games, g)
				}
				break
			}
		}
	}
	return nil
}
