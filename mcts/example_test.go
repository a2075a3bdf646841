package mcts_test

import (
	"fmt"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
)

// A janggi mate in 1 along the palace diagonal, found by plain MCTS (a
// uniform evaluator) and proven: the search stops as soon as it is.
func Example() {
	g, err := rules.NewGame(rules.MustPreset("janggi"), "4k4/9/3P2N2/9/9/9/9/9/9/3K5 w - - 0 1")
	if err != nil {
		fmt.Println(err)
		return
	}
	p := mcts.DefaultParams()
	p.Mode, p.Simulations, p.CheapSimulations = mcts.PUCT, 800, 0
	s, err := mcts.New(p, nn.NewUniform(encode.InputSize, encode.PolicySize()))
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := s.Run(g)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Best, r.Proof, r.ProofPlies, r.PV, r.Simulations < 800)
	// Output: d8e9 win 1 [d8e9] true
}
