package gnet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// withFloat64 builds the graph in float64, for finite differences.
func withFloat64() Option {
	return func(o *options) error { o.f64 = true; return nil }
}

// lossAndGrads runs the training graph on the trainer's current batch and
// returns the total loss and, if grads, every parameter's gradient with
// L2's 2c·w added as update adds it.
func (t *Trainer) lossAndGrads(grads bool) (float64, [][]float64) {
	n := t.train
	n.zeroGrads()
	if err := n.run(); err != nil {
		panic(err)
	}
	l, err := t.losses(n)
	if err != nil {
		panic(err)
	}
	if !grads {
		return l.Total, nil
	}
	out := make([][]float64, len(t.specs))
	for i, p := range t.specs {
		g, w := asFloat64(n.grad(i).Data()), asFloat64(t.values[i].Data())
		out[i] = make([]float64, len(g))
		for j := range g {
			out[i][j] = g[j]
			if p.decay {
				out[i][j] += 2 * t.o.l2 * w[j]
			}
		}
	}
	return l.Total, out
}

// atBatches runs check at tinyBatch and at 20 on 3 workers: a batch of
// 20 takes the convolutions through several chunks on several workers.
func atBatches(t *testing.T, check func(t *testing.T, batch int)) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	for _, batch := range []int{tinyBatch, 20} {
		t.Run(fmt.Sprint("batch", batch), func(t *testing.T) { check(t, batch) })
	}
}

// TestGradients compares Gorgonia's gradients with central differences of
// the loss for a sample of every parameter tensor. Batch norm is in
// training mode (batch statistics), as in a step.
func TestGradients(t *testing.T) { atBatches(t, checkGradients) }

func checkGradients(t *testing.T, batch int) {
	w := randomWeights(t, tiny, 5)
	tr, err := New(w, WithBatch(batch), WithL2(0.01), withFloat64())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 9))
	in, p, v := randomBatch(rng, tiny, batch)
	tr.setBatch(tr.train, &Batch{Inputs: in, Policy: p, WDL: v})
	checked := checkFiniteDifferences(t, tr, rng, func(string) bool { return true })
	t.Logf("%d gradients of %d tensors checked", checked, len(tr.specs))
}

// checkFiniteDifferences compares the gradients of the trainer's current
// batch with central differences of its loss at 6 random entries of each
// tensor keep names, and returns how many it checked.
func checkFiniteDifferences(t *testing.T, tr *Trainer, rng *rand.Rand, keep func(name string) bool) int {
	t.Helper()
	_, grads := tr.lossAndGrads(true)
	const h = 1e-6
	checked := 0
	for i, spec := range tr.specs {
		if !keep(spec.name) {
			continue
		}
		data := tr.values[i].Data().([]float64)
		idx := rng.Perm(len(data))
		if len(idx) > 6 {
			idx = idx[:6]
		}
		for _, j := range idx {
			orig := data[j]
			data[j] = orig + h
			up, _ := tr.lossAndGrads(false)
			data[j] = orig - h
			down, _ := tr.lossAndGrads(false)
			data[j] = orig
			num := (up - down) / (2 * h)
			got := grads[i][j]
			if math.Abs(num-got) > 1e-6+1e-4*math.Abs(num) {
				t.Errorf("%s[%d]: gorgonia %.9g, finite difference %.9g", spec.name, j, got, num)
			}
			checked++
		}
	}
	return checked
}

// asFloat64 is a tensor's data in float64.
func asFloat64(data any) []float64 {
	switch d := data.(type) {
	case []float64:
		return d
	case []float32:
		out := make([]float64, len(d))
		for i, v := range d {
			out[i] = float64(v)
		}
		return out
	}
	panic("gnet: data of no float type")
}
