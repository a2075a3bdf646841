package model

import (
	"fmt"
	"math"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
)

// Evaluator serves a Net through the nn.Evaluator boundary: policy
// probabilities over each position's legal moves, WDL probabilities. Like
// the Net it owns, it is for one goroutine at a time (put it behind an
// nn.Batcher to share it).
type Evaluator struct {
	net         *Net
	planes      [][]float32 // each position's planes, where the caller keeps them
	policy, wdl []float32
}

// NewEvaluator makes an evaluator for the network w, on the kernel path
// DefaultKernel names.
func NewEvaluator(w *Weights) (*Evaluator, error) {
	net, err := NewNet(w)
	if err != nil {
		return nil, err
	}
	return &Evaluator{net: net}, nil
}

// NewEvaluatorKernel is NewEvaluator on a given kernel path.
func NewEvaluatorKernel(w *Weights, kernel Kernel) (*Evaluator, error) {
	net, err := NewNetKernel(w, kernel)
	if err != nil {
		return nil, err
	}
	return &Evaluator{net: net}, nil
}

// Copy is an evaluator over a Copy of e's network: the same numbers, the
// weights shared, for another goroutine.
func (e *Evaluator) Copy() *Evaluator { return &Evaluator{net: e.net.Copy()} }

// Kernel is the path the evaluator's network runs on.
func (e *Evaluator) Kernel() Kernel { return e.net.kernel }

// Uniform is the evaluator that stands in where no network is given: nn's
// uniform evaluator (equal priors, value 0) over this build's encoding.
func Uniform() nn.Evaluator { return nn.NewUniform(encode.InputSize, encode.PolicySize()) }

// OpenEvaluator is the evaluator a command's network option names: the
// network in file (LoadPlayableFor rs; rs nil: for any game), or Builtin's
// for rs's game, with copies copies splitting each batch (nn.Parallel; 1
// or less: one); or Uniform for "" and NoNetwork (then the checkpoint is
// nil).
func OpenEvaluator(file string, rs *rules.RuleSet, copies int) (nn.Evaluator, *Checkpoint, error) {
	if file == "" || file == NoNetwork {
		return Uniform(), nil, nil
	}
	ck, err := LoadNetworkFor(file, rs)
	if err != nil {
		return nil, nil, err
	}
	ev, err := NewEvaluators(ck.Weights, copies)
	if err != nil {
		return nil, nil, fmt.Errorf("model: network %s: %w", file, err)
	}
	return ev, ck, nil
}

// NewEvaluators is w as one evaluator over copies copies of the network
// (nn.Parallel splits each batch among them; 1 or less: a plain one).
func NewEvaluators(w *Weights, copies int) (nn.Evaluator, error) {
	first, err := NewEvaluator(w)
	if err != nil {
		return nil, err
	}
	// The copies share the first's converted weights (Copy): 256 copies
	// each converting its own ran a 4 GiB process out of memory.
	evs := make([]nn.Evaluator, max(copies, 1))
	evs[0] = first
	for i := 1; i < len(evs); i++ {
		evs[i] = first.Copy()
	}
	if len(evs) == 1 {
		return evs[0], nil
	}
	return nn.NewParallel(evs...)
}

// InputSize is the floats of one position's input.
func (e *Evaluator) InputSize() int { return e.net.cfg.InputSize() }

// PolicySize is the number of policy slots.
func (e *Evaluator) PolicySize() int { return e.net.cfg.PolicySize }

// Evaluate runs the network on a batch.
func (e *Evaluator) Evaluate(in []nn.Input, out []nn.Output) error {
	if err := nn.Validate(e.InputSize(), e.PolicySize(), in, out); err != nil {
		return err
	}
	if len(in) == 0 {
		return nil
	}
	c := e.net.cfg
	batch := len(in)
	e.policy = grow(e.policy, batch*c.PolicySize)
	e.wdl = grow(e.wdl, batch*3)
	e.planes = e.planes[:0]
	for i := range in {
		e.planes = append(e.planes, in[i].Planes)
	}
	err := e.net.ForwardPlanes(e.planes, e.policy, e.wdl)
	clear(e.planes) // keep no reference to the caller's buffers
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	for i := range in {
		logits := e.policy[i*c.PolicySize:][:c.PolicySize]
		softmaxAt(logits, in[i].Legal, out[i].Policy)
		softmaxAt(e.wdl[i*3:][:3], []int32{0, 1, 2}, out[i].WDL[:])
	}
	return nil
}

// softmaxAt writes the softmax of logits restricted to the slots idx.
func softmaxAt(logits []float32, idx []int32, dst []float32) {
	top := float32(math.Inf(-1))
	for _, j := range idx {
		top = max(top, logits[j])
	}
	var sum float64
	for k, j := range idx {
		e := math.Exp(float64(logits[j] - top))
		dst[k] = float32(e)
		sum += e
	}
	for k := range dst {
		dst[k] = float32(float64(dst[k]) / sum)
	}
}
