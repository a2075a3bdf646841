package engine

import (
	"fmt"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/nn/model"
)

// uniform is the evaluator without a network.
func uniform() nn.Evaluator { return nn.NewUniform(encode.InputSize, encode.PolicySize()) }

// newEvaluator loads the network (or none: the uniform evaluator) with
// threads copies evaluating each batch in parallel.
func newEvaluator(file string, threads int) (nn.Evaluator, error) {
	if file == "" {
		return uniform(), nil
	}
	ck, err := model.LoadPlayable(file)
	if err != nil {
		return nil, fmt.Errorf("uci: network: %w", err)
	}
	evs := make([]nn.Evaluator, max(threads, 1))
	for i := range evs {
		if evs[i], err = model.NewEvaluator(ck.Weights); err != nil {
			return nil, fmt.Errorf("uci: network %s: %w", file, err)
		}
	}
	if len(evs) == 1 {
		return evs[0], nil
	}
	par, err := nn.NewParallel(evs...)
	if err != nil { // copies of one network: cannot happen
		return nil, fmt.Errorf("uci: network %s: %w", file, err)
	}
	return par, nil
}
