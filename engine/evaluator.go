package engine

import (
	"fmt"

	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

// uniform is the evaluator without a network.
func uniform() nn.Evaluator { return model.Uniform() }

// newEvaluator loads the network (or none: the uniform evaluator) for
// playing under rs, with threads copies evaluating each batch in parallel.
func newEvaluator(file string, rs *rules.RuleSet, threads int) (nn.Evaluator, error) {
	ev, _, err := model.OpenEvaluator(file, rs, threads)
	if err != nil {
		return nil, fmt.Errorf("uci: network: %w", err)
	}
	return ev, nil
}
