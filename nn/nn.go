// Package nn is the narrow, batched boundary between search and a network.
//
// Search hands an Evaluator already-encoded positions (input planes plus the
// policy indices of the legal moves) and gets back a policy over those moves
// and a win/draw/loss estimate. Nothing here knows the games or gorgonia:
// nn/model implements Evaluator for a real network (its own forward pass;
// nn/gnet only trains), and this package supplies the layers every backend
// shares, as lc0's backends and KataGo's NNEvaluator do:
//
//   - Validate, the argument check every implementation calls;
//   - Uniform and Random, test backends with no network;
//   - Cache, a fixed-size table of results keyed by position;
//   - Batcher, which gathers positions from many concurrent searches into one
//     backend call, without timers;
//   - Parallel, which splits each batch among copies of a network, one
//     goroutine a copy.
//
// A self-play process with one network and many searches composes them as
//
//	b := nn.NewBatcher(net, 256)          // one backend, called by one goroutine at a time
//	cache := nn.NewCache(nil, 1<<20)      // one table shared by every search
//	for each search goroutine:
//		c := b.NewClient()
//		ev := cache.WithBackend(c)    // hits return at once; misses join the batch
//		... search with ev ...
//		c.Close()
package nn

import (
	"errors"
	"fmt"
)

// Input is one position to evaluate.
type Input struct {
	Planes []float32 // the encoded input planes, len == the evaluator's InputSize()
	Legal  []int32   // policy indices of the legal moves, each in [0, PolicySize())
	Key    uint64    // cache key (position + history features); 0 means never cache
}

// Output receives one evaluation. The caller provides Policy with
// len(Policy) == len(Input.Legal); the evaluator fills it with probabilities
// over those legal moves (same order, summing to 1).
type Output struct {
	Policy []float32
	WDL    [3]float32 // win, draw, loss probabilities from the side to move's view, summing to 1
}

// Evaluator evaluates batches of positions.
type Evaluator interface {
	InputSize() int
	PolicySize() int
	// Evaluate fills out[i] for in[i] (len(out) == len(in)); it must be safe
	// for use by one goroutine at a time unless the implementation documents
	// more. On error the contents of out are unspecified.
	Evaluate(in []Input, out []Output) error
}

// ErrBadInput is what every argument error from Validate wraps: the caller
// misused the API, as opposed to a backend failing.
var ErrBadInput = errors.New("nn: bad input")

// ErrClosed is returned by a Batcher client used after Close.
var ErrClosed = errors.New("nn: client is closed")

// InputError says which input of a call is wrong and how. Index is -1 when
// the fault is the call as a whole (len(in) != len(out)).
type InputError struct {
	Index  int
	Reason string
}

func (e *InputError) Error() string {
	if e.Index < 0 {
		return "nn: " + e.Reason
	}
	return fmt.Sprintf("nn: input %d: %s", e.Index, e.Reason)
}

// Unwrap lets callers test errors.Is(err, ErrBadInput).
func (e *InputError) Unwrap() error { return ErrBadInput }

// Validate checks the arguments of an Evaluate call against an evaluator's
// sizes. Every Evaluator in palace calls it first, so a bad call is an error
// naming the input, never a panic or a silent out-of-range read deeper down.
// It allocates only when it reports an error.
//
// Duplicate legal indices are not detected (that would need a scratch bitmap
// per call); they would split one move's probability between two entries.
func Validate(inputSize, policySize int, in []Input, out []Output) error {
	if len(in) != len(out) {
		return &InputError{Index: -1, Reason: fmt.Sprintf("%d inputs but %d outputs", len(in), len(out))}
	}
	for i := range in {
		x := &in[i]
		if len(x.Planes) != inputSize {
			return &InputError{Index: i, Reason: fmt.Sprintf("len(Planes) = %d, want InputSize() = %d", len(x.Planes), inputSize)}
		}
		if len(x.Legal) == 0 {
			// No distribution sums to 1 over nothing; a terminal position
			// is scored by the rules, not the network.
			return &InputError{Index: i, Reason: "no legal moves"}
		}
		if len(out[i].Policy) != len(x.Legal) {
			return &InputError{Index: i, Reason: fmt.Sprintf("len(Policy) = %d, want len(Legal) = %d", len(out[i].Policy), len(x.Legal))}
		}
		for j, m := range x.Legal {
			if m < 0 || int(m) >= policySize {
				return &InputError{Index: i, Reason: fmt.Sprintf("Legal[%d] = %d, outside [0, %d)", j, m, policySize)}
			}
		}
	}
	return nil
}
