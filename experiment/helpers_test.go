package experiment

import (
	"fmt"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
)

// uniformPlayer searches with the uniform evaluator: deterministic for a
// seed, whatever the batching.
func uniformPlayer(t testing.TB, sims int) arena.Player {
	t.Helper()
	p, err := arena.NewSearch(fmt.Sprintf("uniform/sims=%d", sims), SearchParams(sims),
		func() (nn.Evaluator, error) { return nn.NewUniform(encode.InputSize, encode.PolicySize()), nil },
		arena.SearchOptions{Evaluators: 1})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ruleSet parses a YAML rule set.
func ruleSet(t testing.TB, yaml string) *rules.RuleSet {
	t.Helper()
	rs, err := rules.ParseRuleSet([]byte(yaml), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return rs
}
