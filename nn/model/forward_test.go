package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// referenceForward is the network written out plainly, one position at a
// time, with batch norm unfolded: the check on Net's folding and GEMMs.
func referenceForward(w *Weights, input []float32) (policy []float32, wdl [3]float32) {
	c := w.Config
	t := w.Tensors
	at := func(x []float32, ch, r, f int) float32 {
		if r < 0 || r >= Ranks || f < 0 || f >= Files {
			return 0
		}
		return x[ch*Squares+r*Files+f]
	}
	conv := func(name string, x []float32, in, out, k int, relu bool, skip []float32) []float32 {
		wt := t[name+".w"]
		g, be, mu, va := t[name+".bn.gamma"], t[name+".bn.beta"], t[name+".bn.mean"], t[name+".bn.var"]
		y := make([]float32, out*Squares)
		h := k / 2
		for o := 0; o < out; o++ {
			for r := 0; r < Ranks; r++ {
				for f := 0; f < Files; f++ {
					var sum float64
					for i := 0; i < in; i++ {
						for dy := 0; dy < k; dy++ {
							for dx := 0; dx < k; dx++ {
								sum += float64(wt[((o*in+i)*k+dy)*k+dx]) * float64(at(x, i, r+dy-h, f+dx-h))
							}
						}
					}
					v := float64(g[o])*(sum-float64(mu[o]))/math.Sqrt(float64(va[o])+BNEpsilon) + float64(be[o])
					if skip != nil {
						v += float64(skip[o*Squares+r*Files+f])
					}
					if relu || skip != nil {
						v = math.Max(v, 0)
					}
					y[o*Squares+r*Files+f] = float32(v)
				}
			}
		}
		return y
	}
	denseF := func(name string, x []float32, out int, relu bool) []float32 {
		wt, b := t[name+".w"], t[name+".b"]
		in := len(x)
		y := make([]float32, out)
		for o := 0; o < out; o++ {
			sum := float64(b[o])
			for i := 0; i < in; i++ {
				sum += float64(wt[o*in+i]) * float64(x[i])
			}
			if relu {
				sum = math.Max(sum, 0)
			}
			y[o] = float32(sum)
		}
		return y
	}
	x := conv("stem", input, c.Planes, c.Filters, 3, true, nil)
	for b := 0; b < c.Blocks; b++ {
		h := conv(fmt.Sprintf("block%d.conv1", b), x, c.Filters, c.Filters, 3, true, nil)
		x = conv(fmt.Sprintf("block%d.conv2", b), h, c.Filters, c.Filters, 3, false, x)
	}
	p := conv("policy.conv", x, c.Filters, c.PolicyChannels, 1, true, nil)
	policy = denseF("policy.fc", p, c.PolicySize, false)
	v := conv("value.conv", x, c.Filters, c.ValueChannels, 1, true, nil)
	v = denseF("value.fc1", v, c.ValueHidden, true)
	copy(wdl[:], denseF("value.fc2", v, 3, false))
	return policy, wdl
}

// randomizeBN gives the batch norms non-trivial statistics, so that folding
// is really exercised.
func randomizeBN(w *Weights, rng *rand.Rand) {
	for _, ts := range w.Config.Tensors() {
		d := w.Tensors[ts.Name]
		switch {
		case len(ts.Name) > 6 && ts.Name[len(ts.Name)-6:] == ".gamma":
			for i := range d {
				d[i] = 0.5 + rng.Float32()
			}
		case len(ts.Name) > 5 && (ts.Name[len(ts.Name)-5:] == ".beta" || ts.Name[len(ts.Name)-5:] == ".mean"):
			for i := range d {
				d[i] = rng.Float32() - 0.5
			}
		case len(ts.Name) > 4 && ts.Name[len(ts.Name)-4:] == ".var":
			for i := range d {
				d[i] = 0.5 + rng.Float32()
			}
		case len(ts.Name) > 2 && ts.Name[len(ts.Name)-2:] == ".b":
			for i := range d {
				d[i] = rng.Float32() - 0.5
			}
		}
	}
}

// Every kernel path this CPU has agrees with the plain reference: the
// float32 ones to 1e-4, bf16 to 5% of a logit's size (its operands keep 8
// bits; TestBF16Agreement measures what that does to real networks).
func TestForwardMatchesReference(t *testing.T) {
	for _, shape := range []Config{
		{Planes: 5, PolicySize: 37, Blocks: 2, Filters: 6, PolicyChannels: 2, ValueChannels: 3, ValueHidden: 7},
		{Planes: 6, PolicySize: 70, Blocks: 1, Filters: 32, PolicyChannels: 3, ValueChannels: 2, ValueHidden: 5},
		{Planes: 3, PolicySize: 130, Blocks: 1, Filters: 64, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 4},
	} {
		for _, kernel := range []Kernel{KernelBLAS, KernelAVX512, KernelBF16} {
			if !kernel.Supported() {
				continue
			}
			tol := 1e-4
			if kernel == KernelBF16 {
				tol = 5e-2
			}
			t.Run(fmt.Sprintf("%dx%d/%v", shape.Blocks, shape.Filters, kernel), func(t *testing.T) {
				forwardMatchesReference(t, shape, kernel, tol)
			})
		}
	}
}

func forwardMatchesReference(t *testing.T, cfg Config, kernel Kernel, tol float64) {
	w, err := NewRandom(cfg, 9)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	randomizeBN(w, rng)
	net, err := NewNetKernel(w, kernel)
	if err != nil {
		t.Fatal(err)
	}
	for _, batch := range []int{1, 3, 8, 2, 13} { // shrinking again reuses scratch
		input := make([]float32, batch*cfg.InputSize())
		for i := range input {
			if rng.IntN(3) == 0 {
				input[i] = 1
			}
		}
		policy := make([]float32, batch*cfg.PolicySize)
		wdl := make([]float32, batch*3)
		if err := net.Forward(batch, input, policy, wdl); err != nil {
			t.Fatal(err)
		}
		for b := 0; b < batch; b++ {
			rp, rw := referenceForward(w, input[b*cfg.InputSize():][:cfg.InputSize()])
			for i, want := range rp {
				if got := policy[b*cfg.PolicySize+i]; math.Abs(float64(got-want)) > tol*math.Max(1, math.Abs(float64(want))) {
					t.Fatalf("batch %d position %d policy[%d] = %v, reference %v", batch, b, i, got, want)
				}
			}
			for i, want := range rw {
				if got := wdl[b*3+i]; math.Abs(float64(got-want)) > tol*math.Max(1, math.Abs(float64(want))) {
					t.Fatalf("batch %d position %d wdl[%d] = %v, reference %v", batch, b, i, got, want)
				}
			}
		}
	}
	if err := net.Forward(2, make([]float32, 3), make([]float32, 2*cfg.PolicySize), make([]float32, 6)); err == nil {
		t.Error("a short input was accepted")
	}
}

// randomFactors are the m×k and k×n matrices of a product, drawn from
// [-0.5, 0.5), a first, then b.
func randomFactors(rng *rand.Rand, m, n, k int) (a, b []float32) {
	a, b = make([]float32, m*k), make([]float32, k*n)
	for i := range a {
		a[i] = rng.Float32() - 0.5
	}
	for i := range b {
		b[i] = rng.Float32() - 0.5
	}
	return a, b
}

func TestSgemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, d := range [][3]int{{1, 1, 1}, {5, 7, 3}, {8, 90, 36}, {13, 17, 29}} {
		m, n, k := d[0], d[1], d[2]
		a, b := randomFactors(rng, m, n, k)
		c := make([]float32, m*n)
		for i := range c {
			c[i] = 1
		}
		goSgemm(m, n, k, a, b, c)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				want := 1.0
				for p := 0; p < k; p++ {
					want += float64(a[i*k+p]) * float64(b[p*n+j])
				}
				if math.Abs(float64(c[i*n+j])-want) > 1e-5 {
					t.Fatalf("%v: c[%d][%d] = %v, want %v", d, i, j, c[i*n+j], want)
				}
			}
		}
	}
}

// BenchmarkForward: the yardstick network, 6 blocks × 64 filters, and
// the quickstart's 4 × 32, with palace's 80 input planes and 2,581 policy
// slots, on the default kernel path (PALACE_KERNEL picks another).
func BenchmarkForward(b *testing.B) {
	for _, shape := range [][2]int{{6, 64}, {4, 32}} {
		cfg := Config{Planes: 80, PolicySize: 2581, Blocks: shape[0], Filters: shape[1], PolicyChannels: 4, ValueChannels: 2, ValueHidden: 64}
		w, _ := NewRandom(cfg, 1)
		for _, batch := range []int{1, 8, 32} {
			b.Run(fmt.Sprintf("%dx%d/batch%d", shape[0], shape[1], batch), func(b *testing.B) {
				net, err := NewNet(w)
				if err != nil {
					b.Fatal(err)
				}
				input := make([]float32, batch*cfg.InputSize())
				for i := range input {
					input[i] = float32(i%3) * 0.5
				}
				policy, wdl := make([]float32, batch*cfg.PolicySize), make([]float32, batch*3)
				b.ReportAllocs()
				for b.Loop() {
					net.Forward(batch, input, policy, wdl)
				}
				secs := b.Elapsed().Seconds()
				b.ReportMetric(float64(b.N*batch)/secs, "pos/s")
				b.ReportMetric(float64(cfg.FLOPs())*float64(b.N*batch)/secs/1e9, "GFLOP/s")
			})
		}
	}
}

// The BLAS path, where the machine has one, agrees with the Go kernel.
func TestGemmMatchesGoKernel(t *testing.T) {
	if BLAS() == "go" {
		t.Skip("no OpenBLAS here (apt-get install libopenblas0-pthread): only the Go kernel runs")
	}
	rng := rand.New(rand.NewPCG(2, 2))
	for _, d := range [][3]int{{64, 90, 576}, {4, 2581, 360}, {3, 720, 64}} {
		m, n, k := d[0], d[1], d[2]
		a, b := randomFactors(rng, m, n, k)
		c1, c2 := make([]float32, m*n), make([]float32, m*n)
		for i := range c1 {
			c1[i] = float32(i % 7)
			c2[i] = c1[i]
		}
		gemm(m, n, k, a, b, c1, true)
		goSgemm(m, n, k, a, b, c2)
		for i := range c1 {
			if math.Abs(float64(c1[i]-c2[i])) > 1e-3 {
				t.Fatalf("%v: [%d] BLAS %v, Go %v", d, i, c1[i], c2[i])
			}
		}
	}
}

// ForwardPlanes, which reads each position's planes where they lie, gives
// Forward's numbers exactly, on every kernel path this CPU has; a position
// of the wrong size is refused.
func TestForwardPlanesMatchesForward(t *testing.T) {
	cfg := Config{Planes: 80, PolicySize: 2581, Blocks: 1, Filters: 32, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 32}
	w, err := NewRandom(cfg, 5)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	const batch = 5
	input := make([]float32, batch*cfg.InputSize())
	for i := range input {
		if rng.IntN(8) == 0 {
			input[i] = rng.Float32()
		}
	}
	planes := make([][]float32, batch)
	for b := range planes {
		planes[b] = slices.Clone(input[b*cfg.InputSize():][:cfg.InputSize()]) // apart, as a search keeps them
	}
	for _, k := range []Kernel{KernelBF16, KernelAVX512, KernelBLAS} {
		if !k.Supported() {
			continue
		}
		net, err := NewNetKernel(w, k)
		if err != nil {
			t.Fatal(err)
		}
		p1, v1 := make([]float32, batch*cfg.PolicySize), make([]float32, batch*3)
		p2, v2 := make([]float32, batch*cfg.PolicySize), make([]float32, batch*3)
		if err := net.Forward(batch, input, p1, v1); err != nil {
			t.Fatal(err)
		}
		if err := net.ForwardPlanes(planes, p2, v2); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p1, p2) || !slices.Equal(v1, v2) {
			t.Errorf("kernel %v: ForwardPlanes differs from Forward", k)
		}
		short := [][]float32{planes[0], planes[1][:10]}
		if err := net.ForwardPlanes(short, p2[:2*cfg.PolicySize], v2[:6]); err == nil {
			t.Errorf("kernel %v: a short position was accepted", k)
		}
	}
}

// A Copy computes what its original computes, both at once from two
// goroutines (go test -race checks that they share only what they read).
func TestCopyRunsBesideItsOriginal(t *testing.T) {
	cfg := Config{Planes: 80, PolicySize: 2581, Blocks: 1, Filters: 32, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 32}
	w, err := NewRandom(cfg, 6)
	if err != nil {
		t.Fatal(err)
	}
	net, err := NewNet(w)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(6, 6))
	const batch = 3
	inputs := make([][]float32, 2)
	want := make([][]float32, 2)
	for i := range inputs {
		inputs[i] = make([]float32, batch*cfg.InputSize())
		for j := range inputs[i] {
			if rng.IntN(8) == 0 {
				inputs[i][j] = 1
			}
		}
		want[i] = make([]float32, batch*cfg.PolicySize)
		if err := net.Forward(batch, inputs[i], want[i], make([]float32, batch*3)); err != nil {
			t.Fatal(err)
		}
	}
	nets := []*Net{net, net.Copy()}
	errs := make(chan error, 2)
	for i, n := range nets {
		go func() {
			policy := make([]float32, batch*cfg.PolicySize)
			for range 20 {
				if err := n.Forward(batch, inputs[i], policy, make([]float32, batch*3)); err != nil {
					errs <- err
					return
				}
				if !slices.Equal(policy, want[i]) {
					errs <- fmt.Errorf("net %d: the policy differs from the original's alone", i)
					return
				}
			}
			errs <- nil
		}()
	}
	for range nets {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
