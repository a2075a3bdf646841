package gnet

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/palace-chess/palace/nn/model"
)

// withGoLoops runs f with batch norm's loops in Go (the fallback where the
// CPU lacks AVX2).
func withGoLoops(f func()) {
	saved := haveBNAsm
	defer func() { haveBNAsm = saved }()
	haveBNAsm = false
	f()
}

// TestBNLoopsMatchGo checks batch norm's AVX2 loops against the Go ones at
// lengths with and without tails, on values that include zeros, negative
// zeros and exact ties at the ReLU.
func TestBNLoopsMatchGo(t *testing.T) {
	if !haveBNAsm {
		t.Skip("no AVX2 on this CPU: the Go loops are the only ones")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 8, 9, 16, 23, 64, 5760, 5763} {
		x, y, dy, skip := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], dy[i], skip[i] = rng.Float32()*4-2, rng.Float32()*2-1, rng.Float32()-0.5
			switch rng.IntN(8) {
			case 0:
				x[i] = 0
			case 1:
				x[i] = float32(math.Copysign(0, -1))
			}
		}
		const a, b = 1.3, -0.2
		for _, k := range [][]float32{nil, skip} {
			got, want := make([]float32, n), make([]float32, n)
			affineReLU(x, k, got, a, b)
			withGoLoops(func() { affineReLU(x, k, want, a, b) })
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && math.Abs(float64(got[i]-want[i])) > 1e-6 {
					t.Fatalf("n %d skip %v: affineReLU[%d] = %v, Go %v", n, k != nil, i, got[i], want[i])
				}
				if got[i] == 0 && math.Signbit(float64(got[i])) {
					t.Fatalf("n %d: affineReLU[%d] is −0: the backward mask would pass its gradient", n, i)
				}
			}
			copy(y, got)
		}
		s, q := channelSums(x)
		var ws, wq float64
		withGoLoops(func() { ws, wq = channelSums(x) })
		if !near(s, ws, 1e-12) || !near(q, wq, 1e-12) {
			t.Fatalf("n %d: channelSums %v %v, Go %v %v", n, s, q, ws, wq)
		}
		dz, wdz := make([]float32, n), make([]float32, n)
		sum, dot := maskSumDot(y, dy, x, dz)
		var wsum, wdot float64
		withGoLoops(func() { wsum, wdot = maskSumDot(y, dy, x, wdz) })
		for i := range dz {
			if dz[i] != wdz[i] {
				t.Fatalf("n %d: dz[%d] = %v, Go %v (y %v, dy %v)", n, i, dz[i], wdz[i], y[i], dy[i])
			}
		}
		if !near(sum, wsum, 1e-12) || !near(dot, wdot, 1e-12) {
			t.Fatalf("n %d: maskSumDot %v %v, Go %v %v", n, sum, dot, wsum, wdot)
		}
		dx, wdx := make([]float32, n), make([]float32, n)
		axpbyc(dz, x, dx, 0.7, -0.3, 0.05)
		withGoLoops(func() { axpbyc(dz, x, wdx, 0.7, -0.3, 0.05) })
		for i := range dx {
			if math.Abs(float64(dx[i]-wdx[i])) > 1e-6 {
				t.Fatalf("n %d: axpbyc[%d] = %v, Go %v", n, i, dx[i], wdx[i])
			}
		}
	}
}

// TestFloat32MatchesFloat64 checks a float32 training graph's losses and
// gradients against the float64 graph's (which TestGradients checks by
// finite differences) on a network whose convolutions take the float32
// kernels where the CPU has them and whose batch norm takes the AVX2
// loops: the float32 paths are what steps run on.
func TestFloat32MatchesFloat64(t *testing.T) {
	c := model.Config{Planes: 6, PolicySize: 40, Blocks: 2, Filters: 32, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}
	const batch = 10
	w := randomWeights(t, c, 3)
	rng := rand.New(rand.NewPCG(4, 5))
	in, p, v := randomBatch(rng, c, batch)
	for i := range p { // illegal slots, as masked targets mark them
		if p[i] == 0 && rng.IntN(2) == 0 {
			p[i] = IllegalTarget
		}
	}
	run := func(opts ...Option) (float64, [][]float64) {
		tr, err := New(w, append([]Option{WithBatch(batch), WithL2(1e-3)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		tr.setBatch(tr.train, &Batch{Inputs: in, Policy: p, WDL: v})
		loss, grads := tr.lossAndGrads(true)
		return loss, grads
	}
	loss64, grads64 := run(withFloat64())
	loss32, grads32 := run()
	if !near(loss32, loss64, 1e-5) {
		t.Fatalf("loss: float32 %v, float64 %v", loss32, loss64)
	}
	for i := range grads64 {
		var scale float64
		for _, g := range grads64[i] {
			scale = max(scale, math.Abs(g))
		}
		for j, g := range grads64[i] {
			if math.Abs(grads32[i][j]-g) > 1e-4*scale+1e-7 {
				t.Fatalf("tensor %d [%d]: float32 gradient %v, float64 %v (largest %v)", i, j, grads32[i][j], g, scale)
			}
		}
	}
}

// The L2 term an update sums for the next step equals the one computed
// from the weights, to the bit: a resumed run computes it afresh, and its
// losses must be an uninterrupted run's. The policy layer spans several
// of the sum's bands.
func TestL2AfterUpdateMatchesWeights(t *testing.T) {
	c := model.Config{Planes: 3, PolicySize: 2581, Blocks: 1, Filters: 4, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 5}
	tr, err := New(randomWeights(t, c, 2), WithBatch(tinyBatch), WithL2(1e-4))
	if err != nil {
		t.Fatal(err)
	}
	in, p, v := randomBatch(rand.New(rand.NewPCG(6, 7)), c, tinyBatch)
	for step := 0; step < 2; step++ {
		if _, err := tr.Step(in, p, v); err != nil {
			t.Fatal(err)
		}
		cached := tr.L2()
		tr.l2Known = false
		if fresh := tr.L2(); fresh != cached {
			t.Fatalf("step %d: L2 %v after the update, %v from the weights", step, cached, fresh)
		}
		tr.l2Known = true
	}
}
