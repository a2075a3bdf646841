package gnet

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/palace-chess/palace/nn/model"
)

// tiny is a network small enough for finite differences and many steps
// in a test.
var tiny = model.Config{Planes: 3, PolicySize: 11, Blocks: 1, Filters: 4, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 5}

const tinyBatch = 4

// randomWeights are He-initialised weights with non-trivial batch norms
// and biases, so that folding and the statistics' hand-off are exercised.
func randomWeights(t testing.TB, c model.Config, seed uint64) *model.Weights {
	t.Helper()
	w, err := model.NewRandom(c, seed)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 77))
	for _, spec := range c.Tensors() { // in order: the draws must not depend on map order
		name, d := spec.Name, w.Tensors[spec.Name]
		for i := range d {
			switch {
			case strings.HasSuffix(name, ".gamma"), strings.HasSuffix(name, ".var"):
				d[i] = 0.5 + rng.Float32()
			case strings.HasSuffix(name, ".beta"), strings.HasSuffix(name, ".mean"), strings.HasSuffix(name, ".b"):
				d[i] = rng.Float32() - 0.5
			}
		}
	}
	return w
}

// randomBatch is batch positions of 0/1 planes with policy targets spread
// over a random subset of "legal" slots and random WDL targets.
func randomBatch(rng *rand.Rand, c model.Config, batch int) (inputs, policy, wdl []float32) {
	inputs = make([]float32, batch*c.InputSize())
	for i := range inputs {
		if rng.IntN(3) == 0 {
			inputs[i] = 1
		}
	}
	policy = make([]float32, batch*c.PolicySize)
	for b := 0; b < batch; b++ {
		row := policy[b*c.PolicySize : (b+1)*c.PolicySize]
		var sum float32
		for i := range row {
			if rng.IntN(2) == 0 || i == b%c.PolicySize {
				row[i] = rng.Float32() + 0.01
				sum += row[i]
			}
		}
		for i := range row {
			row[i] /= sum
		}
	}
	wdl = make([]float32, batch*3)
	for b := 0; b < batch; b++ {
		a, d := rng.Float32(), rng.Float32()
		s := a + d + 0.5
		wdl[3*b], wdl[3*b+1], wdl[3*b+2] = a/s, d/s, 0.5/s
	}
	return inputs, policy, wdl
}

func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
