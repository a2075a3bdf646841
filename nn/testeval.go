package nn

import (
	"math"

	"github.com/palace-chess/palace/internal/splitmix"
)

// Uniform is a backend with no network: a uniform policy over the legal moves
// and a certain draw (value 0). Search driven by it is plain MCTS with
// uniform priors, which makes it the yardstick a trained net must beat and a
// cheap backend for tests. It holds no state, so it is safe for concurrent
// use.
type Uniform struct {
	inputSize, policySize int
}

// NewUniform returns a Uniform evaluator for the given input and policy sizes.
func NewUniform(inputSize, policySize int) *Uniform {
	return &Uniform{inputSize: inputSize, policySize: policySize}
}

func (u *Uniform) InputSize() int  { return u.inputSize }
func (u *Uniform) PolicySize() int { return u.policySize }

func (u *Uniform) Evaluate(in []Input, out []Output) error {
	if err := Validate(u.inputSize, u.policySize, in, out); err != nil {
		return err
	}
	for i := range out {
		p := 1 / float32(len(out[i].Policy))
		for j := range out[i].Policy {
			out[i].Policy[j] = p
		}
		out[i].WDL = [3]float32{0, 1, 0}
	}
	return nil
}

// Random is a backend whose outputs look like a network's (uneven policies,
// varied WDL) but come from a hash: the same seed and input always give the
// same output, and different keys or seeds give different ones. That makes
// it the backend for checking that caching and batching return exactly what
// the backend computed, and for reproducible search tests. It holds no
// mutable state, so it is safe for concurrent use; it does not allocate.
type Random struct {
	inputSize, policySize int
	seed                  uint64
}

// NewRandom returns a Random evaluator for the given sizes and seed.
func NewRandom(inputSize, policySize int, seed uint64) *Random {
	return &Random{inputSize: inputSize, policySize: policySize, seed: splitmix.Finalize(seed ^ 0x72616e646f6d)} // "random"
}

func (r *Random) InputSize() int  { return r.inputSize }
func (r *Random) PolicySize() int { return r.policySize }

// randomLogitScale spreads logits over [-2, 2): priors then differ by up to
// e^4 ≈ 55 times, about what an untrained net produces.
const randomLogitScale = 4

func (r *Random) Evaluate(in []Input, out []Output) error {
	if err := Validate(r.inputSize, r.policySize, in, out); err != nil {
		return err
	}
	for i := range in {
		h := in[i].Key
		if h == 0 {
			h = hashInput(&in[i])
		}
		h = splitmix.Finalize(r.seed ^ splitmix.Finalize(h))
		// A move's logit depends on its policy index, not its place in the
		// list, so reordering Legal permutes the policy the same way.
		p := out[i].Policy
		for j, m := range in[i].Legal {
			p[j] = randomLogitScale * (unit(splitmix.Finalize(h^(uint64(m)+1)*0x9e3779b97f4a7c15)) - 0.5)
		}
		softmax(p)
		wdl := &out[i].WDL
		for k := range wdl {
			wdl[k] = randomLogitScale * (unit(splitmix.Finalize(h+uint64(k+1)*0xd1b54a32d192ed03)) - 0.5)
		}
		softmax(wdl[:])
	}
	return nil
}

// hashInput stands in for a key when the caller gave none.
func hashInput(x *Input) uint64 {
	h := uint64(len(x.Planes))<<32 | uint64(len(x.Legal))
	for _, v := range x.Planes {
		h = splitmix.Finalize(h ^ uint64(math.Float32bits(v)))
	}
	for _, m := range x.Legal {
		h = splitmix.Finalize(h ^ uint64(uint32(m)) ^ 1<<40)
	}
	return h
}

// softmax replaces logits with their softmax in place, summing in float64 so
// long move lists still add up to 1 within float32 rounding.
func softmax(x []float32) {
	hi := x[0]
	for _, v := range x[1:] {
		hi = max(hi, v)
	}
	var sum float64
	for j, v := range x {
		e := math.Exp(float64(v - hi))
		x[j] = float32(e)
		sum += e
	}
	inv := 1 / sum
	for j := range x {
		x[j] = float32(float64(x[j]) * inv)
	}
}

// unit maps a hash to [0, 1).
func unit(h uint64) float32 {
	return float32(h>>40) / (1 << 24)
}
