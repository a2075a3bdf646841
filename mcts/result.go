package mcts

import (
	"math"

	"github.com/palace-chess/palace/rules"
)

// Proof is what the search proved about the root, from the side to move's
// view.
type Proof uint8

const (
	Unproven   Proof = iota
	ProvenWin        // a forced win was found (a mate, or another decisive end)
	ProvenLoss       // every move loses by force
	ProvenDraw       // the best that can be forced is a draw
)

func (p Proof) String() string {
	switch p {
	case ProvenWin:
		return "win"
	case ProvenLoss:
		return "loss"
	case ProvenDraw:
		return "draw"
	}
	return "unproven"
}

// Result is one search's answer and what training and statistics need of
// it. The per-move slices are parallel to Moves, the root's legal moves in
// generation order.
type Result struct {
	Mode  Mode
	Moves []rules.Move
	// Visits are each move's completed visits, a reused subtree's
	// included.
	Visits []int
	// Policy is the training target over Moves, summing to 1: Gumbel's
	// improved policy softmax(logits + σ(completed Q)), or PUCT's visit
	// distribution. When the root is a proven win it is the visit
	// distribution over the winning moves only.
	Policy []float32
	// Prior is the network's policy over Moves, before any noise.
	Prior []float32
	// Q is each move's mean value to the side to move, in [-1, 1], as the
	// search chose by it (a draw counted at Params.DrawScore); a move
	// without visits gets the root's mixed value estimate (Gumbel's v_mix).
	Q []float32
	// Value and WDL are the root's value and win/draw/loss estimate to the
	// side to move: the mean over its visits, or exact when proven.
	Value float32
	WDL   [3]float32
	// Best is the move to play: PUCT's choice under the move's temperature,
	// or the winner of Gumbel's sequential halving. A proven win is always
	// played as one.
	Best rules.Move
	// PV is the principal variation, starting with the search's own choice
	// (most visited, or Gumbel's winner) and following the most visited
	// replies.
	PV []rules.Move
	// Simulations counts the leaves visited below the root in this search;
	// it falls short of the budget when the root is proven, a single move is
	// legal, the tree is full, or a deadline or stop came first.
	Simulations int
	// Evaluations counts the positions sent to the evaluator (cache hits
	// included), the root's own evaluation among them.
	Evaluations int
	// LeafDepths is the sum over this search's simulations of the depth,
	// in plies below the root, of the leaf each reached: over Simulations,
	// the mean depth searched (lc0's UCI depth).
	LeafDepths int
	// TreeFull says the search stopped because the tree reached
	// Params.MaxNodes: a longer search of this tree finds no more.
	TreeFull bool
	// Depth is the deepest leaf this search reached, in plies below the
	// root (UCI's seldepth); 0 when it visited none.
	Depth int
	// Full says the move had the full budget (playout-cap randomization):
	// only full searches make policy targets. A forced move (one legal move)
	// is never full.
	Full bool
	// Proof is what the search proved about the root, and ProofPlies how
	// many plies the game lasts along the proof (1: a mate now). A proof is
	// final: proven positions are not searched again, except that a proven
	// win goes on being searched, within the budget, for a shorter one.
	Proof      Proof
	ProofPlies int
}

// Select chooses a move by temperature from the policy target: the move with
// the largest Policy at temperature 0 (ties to the larger prior, then the
// earlier move), else a draw from Policy^(1/temperature), using u, a uniform
// number in [0, 1), as the randomness. For PUCT Policy^(1/T) is the classic
// visits^(1/T). It returns rules.NoMove for an empty result.
func (r *Result) Select(temperature, u float64) rules.Move {
	if len(r.Moves) == 0 || len(r.Policy) != len(r.Moves) {
		return rules.NoMove
	}
	best := 0
	for i := 1; i < len(r.Policy); i++ {
		if r.Policy[i] > r.Policy[best] || r.Policy[i] == r.Policy[best] && r.prior(i) > r.prior(best) {
			best = i
		}
	}
	if !(temperature > 0) || r.Policy[best] <= 0 {
		return r.Moves[best]
	}
	// Weights relative to the largest, in log space, so that small
	// temperatures neither overflow nor lose the best move.
	top := math.Log(float64(r.Policy[best]))
	var sum float64
	for _, p := range r.Policy {
		if p > 0 {
			sum += math.Exp((math.Log(float64(p)) - top) / temperature)
		}
	}
	x := u * sum
	last := best
	for i, p := range r.Policy {
		if p <= 0 {
			continue
		}
		x -= math.Exp((math.Log(float64(p)) - top) / temperature)
		last = i
		if x < 0 {
			return r.Moves[i]
		}
	}
	return r.Moves[last]
}

func (r *Result) prior(i int) float32 {
	if i < len(r.Prior) {
		return r.Prior[i]
	}
	return 0
}
