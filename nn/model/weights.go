package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Weights holds a network's tensors by name, each with the shape its
// Config gives.
type Weights struct {
	Config  Config
	Tensors map[string][]float32
}

// NewRandom makes a network with He-initialised weights from seed; batch
// norms start as the identity (gamma 1, beta 0, mean 0, var 1).
func NewRandom(c Config, seed uint64) (*Weights, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x70616c616365))
	w := &Weights{Config: c, Tensors: map[string][]float32{}}
	for _, t := range c.Tensors() {
		data := make([]float32, t.Size())
		switch {
		case strings.HasSuffix(t.Name, ".gamma"), strings.HasSuffix(t.Name, ".var"):
			for i := range data {
				data[i] = 1
			}
		case strings.HasSuffix(t.Name, ".w"):
			fanIn := t.Size() / t.Shape[0]
			std := math.Sqrt(2 / float64(fanIn))
			for i := range data {
				data[i] = float32(rng.NormFloat64() * std)
			}
		}
		w.Tensors[t.Name] = data
	}
	return w, nil
}

// Check reports a missing, extra or misshapen tensor.
func (w *Weights) Check() error {
	if err := w.Config.Validate(); err != nil {
		return err
	}
	want := map[string]bool{}
	for _, t := range w.Config.Tensors() {
		want[t.Name] = true
		data, ok := w.Tensors[t.Name]
		if !ok {
			return fmt.Errorf("model: tensor %s is missing", t.Name)
		}
		if len(data) != t.Size() {
			return fmt.Errorf("model: tensor %s has %d values, want %d (shape %v)", t.Name, len(data), t.Size(), t.Shape)
		}
		for i, v := range data {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("model: tensor %s[%d] is %v", t.Name, i, v)
			}
		}
	}
	for name := range w.Tensors {
		if !want[name] {
			return fmt.Errorf("model: tensor %s is not part of the network", name)
		}
	}
	return nil
}

// Deepen is w with blocks residual blocks in all, the new ones appended
// to the tower as identities (Net2DeeperNet with zero-initialised
// residuals, Goyal et al.'s ResNet recipe): each new block's convolutions
// are He-initialised from seed and its second batch norm's scale and
// shift are zero, so the block adds nothing and the network computes
// exactly what w does until training moves that scale. A network grown
// this way keeps what it learnt and gains the capacity of a deeper one.
func Deepen(w *Weights, blocks int, seed uint64) (*Weights, error) {
	if err := w.Check(); err != nil {
		return nil, err
	}
	if blocks <= w.Config.Blocks {
		return nil, fmt.Errorf("model: deepen to %d blocks: the network has %d already", blocks, w.Config.Blocks)
	}
	c := w.Config
	c.Blocks = blocks
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return extend(w, c, seed, func(name string, data []float32) {
		if strings.HasSuffix(name, ".conv2.bn.gamma") || strings.HasSuffix(name, ".conv2.bn.beta") {
			clear(data)
		}
	})
}

// extend is w grown to shape c: w's tensors copied, the others
// He-initialised from seed and then given to fresh (nil: kept as drawn).
func extend(w *Weights, c Config, seed uint64, fresh func(name string, data []float32)) (*Weights, error) {
	init, err := NewRandom(c, seed)
	if err != nil {
		return nil, err
	}
	out := &Weights{Config: c, Tensors: make(map[string][]float32, len(init.Tensors))}
	for name, data := range init.Tensors {
		if old, ok := w.Tensors[name]; ok {
			data = append([]float32(nil), old...)
		} else if fresh != nil {
			fresh(name, data)
		}
		out.Tensors[name] = data
	}
	return out, out.Check()
}

// WithReplyHead is w with the reply head (Config.ReplyPolicy) added,
// He-initialised from seed, every other tensor as it was: the network
// plays exactly as w does, and a run that trains the reply target can
// start from a network trained without it. w itself when it has one.
func WithReplyHead(w *Weights, seed uint64) (*Weights, error) {
	if err := w.Check(); err != nil {
		return nil, err
	}
	if w.Config.ReplyPolicy {
		return w, nil
	}
	c := w.Config
	c.ReplyPolicy = true
	return extend(w, c, seed, nil)
}
