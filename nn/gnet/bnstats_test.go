package gnet

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/palace-chess/palace/nn/model"
)

// Batch norm's statistics taken in the Winograd products (bnstats.go)
// are the ones it would sum itself, to the order of the sums: a bf16
// step's losses, gradients and running statistics agree, and so do the
// steps after, on one core and on three.
func TestBNStatsFromProducts(t *testing.T) {
	if !bf16Kernels() {
		t.Skip("no AVX-512 BF16 here, or the kernels are off (PALACE_KERNEL): no Winograd products")
	}
	defer func(v bool) { bnStatsInProduct = v }(bnStatsInProduct)
	c := model.Config{Planes: 80, PolicySize: 2581, Blocks: 2, Filters: 64, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 16}
	const batch = 10 // sub-chunks of 4, 4 and 2 positions
	w := randomWeights(t, c, 5)
	type result struct {
		loss  float64
		grads [][]float64
		stats []float32
	}
	run := func(inProduct bool) result {
		bnStatsInProduct = inProduct
		tr, err := New(w, WithBatch(batch), WithBF16(true), WithSGD(0.9))
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.train.bns[1].String(); got == "" {
			t.Fatal("no batch norm")
		}
		rng := rand.New(rand.NewPCG(8, 9))
		var r result
		for step := range 3 {
			in, p, v := randomBatch(rng, c, batch)
			if step < 2 {
				if _, err := tr.Step(in, p, v); err != nil {
					t.Fatal(err)
				}
				continue
			}
			tr.setBatch(tr.train, &Batch{Inputs: in, Policy: p, WDL: v})
			r.loss, r.grads = tr.lossAndGrads(true)
		}
		for _, bn := range tr.train.bns {
			r.stats = append(r.stats, bn.mean.Float32s()...)
			r.stats = append(r.stats, bn.variance.Float32s()...)
		}
		return r
	}
	own, taken := run(false), run(true)
	if !near(taken.loss, own.loss, 1e-5) {
		t.Fatalf("loss: statistics from the products %v, batch norm's own %v", taken.loss, own.loss)
	}
	for i := range own.grads {
		var scale float64
		for _, g := range own.grads[i] {
			scale = max(scale, math.Abs(g))
		}
		for j, g := range own.grads[i] {
			if math.Abs(taken.grads[i][j]-g) > 1e-3*scale+1e-7 {
				t.Fatalf("tensor %d [%d]: gradient %v, batch norm's own statistics %v (largest %v)", i, j, taken.grads[i][j], g, scale)
			}
		}
	}
	for i := range own.stats {
		if math.Abs(float64(taken.stats[i]-own.stats[i])) > 1e-4*(1+math.Abs(float64(own.stats[i]))) {
			t.Fatalf("running statistic %d: %v, batch norm's own %v", i, taken.stats[i], own.stats[i])
		}
	}
	// The products did hand their sums on: a stale or missing sum would
	// change the numbers beyond the tolerances above, and none is left
	// unread.
	bnStatsInProduct = true
	tr, err := New(w, WithBatch(batch), WithBF16(true))
	if err != nil {
		t.Fatal(err)
	}
	in, p, v := randomBatch(rand.New(rand.NewPCG(1, 1)), c, batch)
	if _, err := tr.Step(in, p, v); err != nil {
		t.Fatal(err)
	}
	handed := 0
	for _, bn := range tr.train.bns {
		if bn.input.fresh {
			t.Errorf("%v: statistics left unread", bn)
		}
		if len(bn.input.parts) > 0 {
			handed++
		}
	}
	if handed != 1+2*c.Blocks {
		t.Errorf("%d batch norms got statistics from their products, want the stem's and the blocks' %d", handed, 1+2*c.Blocks)
	}
}
