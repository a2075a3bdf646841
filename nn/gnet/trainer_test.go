package gnet

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/palace-chess/palace/nn/model"
)

// dataset is n positions with a relation to learn: plane 0 holds one
// marker whose square picks the policy's best slot, and the marker's
// half of the board decides win or loss.
func dataset(c model.Config, n int, seed uint64) (inputs, policy, wdl []float32) {
	rng := rand.New(rand.NewPCG(seed, 1))
	inputs = make([]float32, n*c.InputSize())
	policy = make([]float32, n*c.PolicySize)
	wdl = make([]float32, n*3)
	for i := 0; i < n; i++ {
		in := inputs[i*c.InputSize() : (i+1)*c.InputSize()]
		for j := model.Squares; j < len(in); j++ { // noise planes
			if rng.IntN(4) == 0 {
				in[j] = 1
			}
		}
		sq := rng.IntN(model.Squares)
		in[sq] = 1
		best := sq % c.PolicySize
		row := policy[i*c.PolicySize : (i+1)*c.PolicySize]
		row[best] = 0.8
		row[(best+1)%c.PolicySize] = 0.2
		if sq/model.Files < model.Ranks/2 {
			wdl[3*i] = 1
		} else {
			wdl[3*i+2] = 1
		}
	}
	return inputs, policy, wdl
}

func TestTrainingLowersLoss(t *testing.T) {
	const n, batch, epochs = 64, 8, 40
	in, p, v := dataset(tiny, n, 3)
	c := tiny
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"sgd", []Option{WithSGD(0.9), WithSchedule(Schedule{Kind: Constant, Rate: 0.02})}},
		{"adam", []Option{WithAdam(0.9, 0.999, 1e-8), WithSchedule(Schedule{Kind: Constant, Rate: 0.01})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := New(randomWeights(t, c, 4), append(tc.opts, WithBatch(batch), WithL2(1e-4))...)
			if err != nil {
				t.Fatal(err)
			}
			epoch := func(train bool) float64 {
				var sum float64
				for b := 0; b < n/batch; b++ {
					bi := in[b*batch*c.InputSize() : (b+1)*batch*c.InputSize()]
					bp := p[b*batch*c.PolicySize : (b+1)*batch*c.PolicySize]
					bv := v[b*batch*3 : (b+1)*batch*3]
					var l Losses
					var err error
					if train {
						l, err = tr.Step(bi, bp, bv)
					} else {
						l, err = tr.Evaluate(bi, bp, bv)
					}
					if err != nil {
						t.Fatal(err)
					}
					sum += l.Policy + l.WDL
				}
				return sum / float64(n/batch)
			}
			start := epoch(true)
			var last float64
			for e := 1; e < epochs; e++ {
				last = epoch(true)
			}
			eval := epoch(false)
			t.Logf("%s: first epoch %.3f, last %.3f, eval mode %.3f (%d steps)", tc.name, start, last, eval, tr.Steps())
			if last > 0.5*start || eval > 0.5*start {
				t.Errorf("loss %.3f → %.3f (eval %.3f): not below half", start, last, eval)
			}
			for i := range tr.specs {
				for _, g := range tr.train.grad(i).Data().([]float32) {
					if g != 0 {
						t.Fatalf("%s: gradient left after a step", tr.specs[i].name)
					}
				}
			}
		})
	}
}

func TestL2(t *testing.T) {
	w := randomWeights(t, tiny, 6)
	const c = 0.003
	tr, err := New(w, WithBatch(tinyBatch), WithL2(c))
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for name, d := range w.Tensors {
		if !strings.HasSuffix(name, ".w") { // conv and dense weights only
			continue
		}
		for _, v := range d {
			sum += float64(v) * float64(v)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	in, p, v := randomBatch(rng, tiny, tinyBatch)
	l, err := tr.Step(in, p, v)
	if err != nil {
		t.Fatal(err)
	}
	if !near(l.L2, c*sum, 1e-9) {
		t.Errorf("L2 term %v, want %v", l.L2, c*sum)
	}
	if !near(l.Total, l.Policy+l.WDL+l.L2, 1e-12) {
		t.Errorf("total %v is not the sum of %+v", l.Total, l)
	}
	tr0, _ := New(w, WithBatch(tinyBatch), WithL2(0))
	if l0, _ := tr0.Step(in, p, v); l0.L2 != 0 || l0.Policy != l.Policy || l0.WDL != l.WDL {
		t.Errorf("without L2: %+v; with: %+v", l0, l)
	}
}

func TestSchedule(t *testing.T) {
	for _, tc := range []struct {
		s    Schedule
		step int64
		want float64
	}{
		{Schedule{Kind: Constant, Rate: 0.1}, 0, 0.1},
		{Schedule{Kind: Constant, Rate: 0.1}, 1e9, 0.1},
		{Schedule{Kind: Constant, Rate: 0.1, Warmup: 10}, 0, 0.01},
		{Schedule{Kind: Constant, Rate: 0.1, Warmup: 10}, 4, 0.05},
		{Schedule{Kind: Constant, Rate: 0.1, Warmup: 10}, 10, 0.1},
		{Schedule{Kind: StepDecay, Rate: 0.2, Every: 100, Gamma: 0.1}, 99, 0.2},
		{Schedule{Kind: StepDecay, Rate: 0.2, Every: 100, Gamma: 0.1}, 100, 0.02},
		{Schedule{Kind: StepDecay, Rate: 0.2, Every: 100, Gamma: 0.1}, 250, 0.002},
		{Schedule{Kind: Cosine, Rate: 0.1, Steps: 1000, Min: 0.001}, 0, 0.1},
		{Schedule{Kind: Cosine, Rate: 0.1, Steps: 1000, Min: 0.001}, 500, 0.0505},
		{Schedule{Kind: Cosine, Rate: 0.1, Steps: 1000, Min: 0.001}, 250, 0.001 + 0.099*(1+math.Sqrt(0.5))/2},
		{Schedule{Kind: Cosine, Rate: 0.1, Steps: 1000, Min: 0.001}, 1000, 0.001},
		{Schedule{Kind: Cosine, Rate: 0.1, Steps: 1000, Min: 0.001}, 5000, 0.001},
	} {
		if err := tc.s.Validate(); err != nil {
			t.Fatal(err)
		}
		if got := tc.s.At(tc.step); !near(got, tc.want, 1e-12) {
			t.Errorf("%+v at %d: %v, want %v", tc.s, tc.step, got, tc.want)
		}
	}
	for _, bad := range []Schedule{
		{Kind: "linear", Rate: 0.1}, {Kind: Constant}, {Kind: Constant, Rate: 0.1, Warmup: -1},
		{Kind: StepDecay, Rate: 0.1, Every: 0, Gamma: 0.5}, {Kind: StepDecay, Rate: 0.1, Every: 5, Gamma: 2},
		{Kind: Cosine, Rate: 0.1, Steps: 0}, {Kind: Cosine, Rate: 0.1, Steps: 10, Min: 0.2},
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	// The trainer takes each step at the schedule's rate: with plain SGD
	// (no momentum, no L2) a step moves a bias by exactly −rate·gradient.
	s := Schedule{Kind: StepDecay, Rate: 0.5, Every: 2, Gamma: 0.1}
	tr, err := New(randomWeights(t, tiny, 7), WithBatch(tinyBatch), WithSGD(0), WithL2(0), WithSchedule(s))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	bias := len(tr.specs) - 1 // value.fc2.b
	for step := int64(0); step < 5; step++ {
		if tr.Rate() != s.At(step) {
			t.Fatalf("step %d: trainer rate %v, schedule %v", step, tr.Rate(), s.At(step))
		}
		in, p, v := randomBatch(rng, tiny, tinyBatch)
		before := append([]float32(nil), tr.values[bias].Data().([]float32)...)
		tr.setBatch(tr.train, &Batch{Inputs: in, Policy: p, WDL: v})
		tr.train.zeroGrads()
		if err := tr.train.run(); err != nil {
			t.Fatal(err)
		}
		g := append([]float32(nil), tr.train.grad(bias).Data().([]float32)...)
		if _, err := tr.Step(in, p, v); err != nil {
			t.Fatal(err)
		}
		after := tr.values[bias].Data().([]float32)
		for j := range g {
			if want := before[j] - float32(s.At(step))*g[j]; math.Abs(float64(after[j]-want)) > 1e-6 {
				t.Fatalf("step %d: %s[%d] %v → %v, want %v (rate %v)", step, tr.specs[bias].name, j, before[j], after[j], want, s.At(step))
			}
		}
	}
}

// TestResume checks that a run saved to a checkpoint file after k steps
// and resumed takes steps k+1 and k+2 exactly as the uninterrupted run.
func TestResume(t *testing.T) {
	for _, opt := range []Option{WithSGD(0.9), WithAdam(0.9, 0.99, 1e-7)} {
		sched := WithSchedule(Schedule{Kind: Cosine, Rate: 0.02, Steps: 20, Min: 0.001, Warmup: 2})
		opts := []Option{opt, sched, WithBatch(tinyBatch), WithL2(1e-3), WithSeed(42)}
		a, err := New(randomWeights(t, tiny, 8), opts...)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 6))
		var batches [][3][]float32
		for i := 0; i < 7; i++ {
			in, p, v := randomBatch(rng, tiny, tinyBatch)
			batches = append(batches, [3][]float32{in, p, v})
		}
		const k = 5
		for i := 0; i < k; i++ {
			if _, err := a.Step(batches[i][0], batches[i][1], batches[i][2]); err != nil {
				t.Fatal(err)
			}
		}
		path := t.TempDir() + "/run.ckpt"
		if err := a.Checkpoint().Save(path); err != nil {
			t.Fatal(err)
		}
		ck, err := model.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if ck.Steps != k || ck.Samples != k*tinyBatch || ck.Provenance.Seed != 42 || ck.Optimizer.Step != k {
			t.Errorf("checkpoint steps %d samples %d seed %d optimizer step %d", ck.Steps, ck.Samples, ck.Provenance.Seed, ck.Optimizer.Step)
		}
		b, err := NewTrainer(ck, opts...)
		if err != nil {
			t.Fatal(err)
		}
		name := a.Optimizer().Name
		for i := k; i < len(batches); i++ {
			la, err := a.Step(batches[i][0], batches[i][1], batches[i][2])
			if err != nil {
				t.Fatal(err)
			}
			lb, err := b.Step(batches[i][0], batches[i][1], batches[i][2])
			if err != nil {
				t.Fatal(err)
			}
			if la != lb {
				t.Errorf("%s step %d: uninterrupted %+v, resumed %+v", name, i+1, la, lb)
			}
		}
		wa, wb := a.Weights(), b.Weights()
		for _, spec := range tiny.Tensors() {
			for j, v := range wa.Tensors[spec.Name] {
				if wb.Tensors[spec.Name][j] != v {
					t.Fatalf("%s: %s[%d] uninterrupted %v, resumed %v", name, spec.Name, j, v, wb.Tensors[spec.Name][j])
				}
			}
		}
		// State for another optimizer is refused, not silently dropped.
		other := WithAdam(0.9, 0.999, 1e-8)
		if name == Adam {
			other = WithSGD(0.9)
		}
		if _, err := NewTrainer(ck, other, WithBatch(tinyBatch)); err == nil {
			t.Errorf("%s state loaded into another optimizer", name)
		}
	}
}

func TestBadInput(t *testing.T) {
	tr, err := New(randomWeights(t, tiny, 9), WithBatch(tinyBatch))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	in, p, v := randomBatch(rng, tiny, tinyBatch)
	nan := func(s []float32, i int) []float32 {
		s = append([]float32(nil), s...)
		s[i] = float32(math.NaN())
		return s
	}
	unnormal := append([]float32(nil), p...)
	unnormal[3] += 0.5
	for _, tc := range []struct {
		name      string
		in, p, v  []float32
		errSubstr string
	}{
		{"short input", in[1:], p, v, "inputs have"},
		{"long policy", in, append(p, 0), v, "policy targets have"},
		{"no wdl", in, p, nil, "WDL targets have"},
		{"NaN input", nan(in, 5), p, v, "input 5 of position 0"},
		{"NaN policy", in, nan(p, tiny.PolicySize+2), v, "policy target of position 1"},
		{"policy sum", in, unnormal, v, "sums to"},
		{"negative wdl", in, p, []float32{1, 0, 0, 1, 0, 0, 1, 0, 0, 1.5, -0.5, 0}, "WDL target of position 3"},
	} {
		if _, err := tr.Step(tc.in, tc.p, tc.v); err == nil || !strings.Contains(err.Error(), tc.errSubstr) || !strings.HasPrefix(err.Error(), "gnet: ") {
			t.Errorf("%s: step error %v, want one about %q", tc.name, err, tc.errSubstr)
		}
		if _, err := tr.Evaluate(tc.in, tc.p, tc.v); err == nil {
			t.Errorf("%s: evaluate accepted it", tc.name)
		}
	}
	if tr.Steps() != 0 {
		t.Errorf("%d steps taken on bad batches", tr.Steps())
	}
	if err := tr.Forward(in[:10], make([]float32, tinyBatch*tiny.PolicySize), make([]float32, tinyBatch*3)); err == nil {
		t.Error("forward of a short input accepted")
	}
	for _, opt := range []Option{WithBatch(1), WithSGD(1), WithAdam(1, 0.9, 1e-8), WithL2(-1), WithBNMomentum(0), WithSchedule(Schedule{})} {
		if _, err := New(randomWeights(t, tiny, 9), opt); err == nil {
			t.Error("a bad option was accepted")
		}
	}
	if _, err := New(nil); err == nil {
		t.Error("nil weights accepted")
	}
	w := randomWeights(t, tiny, 9)
	delete(w.Tensors, "stem.bn.var")
	if _, err := New(w); err == nil {
		t.Error("weights without a tensor accepted")
	}
	ck := &model.Checkpoint{Weights: randomWeights(t, tiny, 9), Optimizer: &model.Optimizer{Name: SGD, Tensors: map[string][]float32{"velocity/stem.w": {1}}}}
	if _, err := NewTrainer(ck, WithBatch(tinyBatch)); err == nil {
		t.Error("short optimizer state accepted")
	}
}

// TestUpdates checks the update rules against the formulas, step by step
// in float64.
func TestUpdates(t *testing.T) {
	w0 := []float64{0.5, -1, 2, 0}
	grads := [][]float64{{0.1, -0.2, 0.3, 1}, {0.05, 0.4, -0.3, -1}, {-0.2, 0.1, 0, 0.5}}
	const lr, mu, l2 = 0.1, 0.9, 0.01
	w, v := make([]float32, 4), make([]float32, 4)
	ww, vv := append([]float64(nil), w0...), make([]float64, 4)
	for i := range w {
		w[i] = float32(w0[i])
	}
	for _, g := range grads {
		g32 := make([]float32, 4)
		for i := range g {
			g32[i] = float32(g[i])
			vv[i] = mu*vv[i] + g[i] + 2*l2*ww[i]
			ww[i] -= lr * vv[i]
		}
		sgdUpdate(w, g32, v, 2*l2, lr, mu)
	}
	for i := range w {
		if !near(float64(w[i]), ww[i], 1e-6) {
			t.Errorf("sgd w[%d] = %v, want %v", i, w[i], ww[i])
		}
	}
	const b1, b2, eps = 0.9, 0.99, 1e-8
	m, v2 := make([]float32, 4), make([]float32, 4)
	mm, vv2 := make([]float64, 4), make([]float64, 4)
	for i := range w {
		w[i] = float32(w0[i])
		ww[i] = w0[i]
	}
	for step, g := range grads {
		tt := float64(step + 1)
		c1, c2 := 1-math.Pow(b1, tt), 1-math.Pow(b2, tt)
		g32 := make([]float32, 4)
		for i := range g {
			g32[i] = float32(g[i])
			gi := g[i] + 2*l2*ww[i]
			mm[i] = b1*mm[i] + (1-b1)*gi
			vv2[i] = b2*vv2[i] + (1-b2)*gi*gi
			ww[i] -= lr * (mm[i] / c1) / (math.Sqrt(vv2[i]/c2) + eps)
		}
		adamUpdate(w, g32, m, v2, 2*l2, float32(lr/c1), b1, b2, float32(1/c2), eps)
	}
	for i := range w {
		if !near(float64(w[i]), ww[i], 1e-5) {
			t.Errorf("adam w[%d] = %v, want %v", i, w[i], ww[i])
		}
	}
}

// A network deepened by identity blocks trains: the new blocks' zero
// residual scale moves, so the capacity they add is used.
func TestDeepenedNetworkTrains(t *testing.T) {
	deep, err := model.Deepen(randomWeights(t, tiny, 4), tiny.Blocks+1, 5)
	if err != nil {
		t.Fatal(err)
	}
	in, p, v := dataset(deep.Config, 8, 3)
	tr, err := New(deep, WithSGD(0.9), WithSchedule(Schedule{Kind: Constant, Rate: 0.02}), WithBatch(8))
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := tr.Step(in, p, v); err != nil {
			t.Fatal(err)
		}
	}
	name := "block1.conv2.bn.gamma"
	moved := false
	for _, g := range tr.Weights().Tensors[name] {
		moved = moved || g != 0
	}
	if !moved {
		t.Errorf("%s is still zero after training", name)
	}
}

// Mixed precision learns as float32 does: from the same weights on the
// same batches, a tower of 32 filters (the size the bf16 kernels take)
// trained with bf16 products lowers its loss as far as the float32 one,
// and its weights differ from it (the bf16 products ran). Where they
// cannot run (no AVX-512 BF16, or PALACE_KERNEL=blas) the trainer asked
// for bf16 trains in float32, exactly as the float32 one.
func TestBF16TrainsAsFloat32(t *testing.T) {
	c := model.Config{Planes: 4, PolicySize: 37, Blocks: 2, Filters: 32, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}
	const n, batch, epochs = 64, 16, 25
	in, p, v := dataset(c, n, 5)
	var final [2]float64
	var weights [2]*model.Weights
	for i, bf16 := range []bool{false, true} {
		tr, err := New(randomWeights(t, c, 6), WithBatch(batch), WithSGD(0.9), WithSchedule(Schedule{Kind: Constant, Rate: 0.02}), WithBF16(bf16))
		if err != nil {
			t.Fatal(err)
		}
		if tr.BF16() != (bf16 && bf16Kernels()) {
			t.Fatalf("BF16() = %v, asked %v, kernels %v", tr.BF16(), bf16, bf16Kernels())
		}
		var first, last float64
		for e := 0; e < epochs; e++ {
			var sum float64
			for b := 0; b < n/batch; b++ {
				l, err := tr.Step(in[b*batch*c.InputSize():][:batch*c.InputSize()], p[b*batch*c.PolicySize:][:batch*c.PolicySize], v[b*batch*3:][:batch*3])
				if err != nil {
					t.Fatal(err)
				}
				sum += l.Policy + l.WDL
			}
			if e == 0 {
				first = sum
			}
			last = sum
		}
		t.Logf("bf16 %v: loss %.4f → %.4f", bf16, first/float64(n/batch), last/float64(n/batch))
		if last > 0.5*first {
			t.Errorf("bf16 %v: loss %.3f → %.3f, not below half", bf16, first, last)
		}
		final[i], weights[i] = last, tr.Weights()
	}
	if math.Abs(final[1]-final[0]) > 0.1*final[0] {
		t.Errorf("final loss: float32 %.4f, bf16 %.4f: more than 10%% apart", final[0], final[1])
	}
	same := true
	for name, a := range weights[0].Tensors {
		b := weights[1].Tensors[name]
		for j := range a {
			if a[j] != b[j] {
				same = false
			}
		}
	}
	switch {
	case bf16Kernels() && same:
		t.Error("the bf16 trainer's weights equal the float32 one's: its products were float32")
	case !bf16Kernels() && !same:
		t.Error("without the bf16 kernels, the trainer asked for bf16 did not train as the float32 one")
	}
}

// TestWeightAverage checks the running average against its recurrence
// over the weights each step leaves, its resume from a checkpoint (the
// same average as an uninterrupted trainer's), and that a trainer without
// an average reads such a checkpoint and exports none.
func TestWeightAverage(t *testing.T) {
	const d = 0.5
	opts := []Option{WithSGD(0.9), WithBatch(tinyBatch), WithSeed(3), WithWeightAverage(d)}
	a, err := New(randomWeights(t, tiny, 8), opts...)
	if err != nil {
		t.Fatal(err)
	}
	want := a.Weights().Tensors // the average starts at the weights
	rng := rand.New(rand.NewPCG(7, 8))
	var batches [][3][]float32
	for range 4 {
		in, p, v := randomBatch(rng, tiny, tinyBatch)
		batches = append(batches, [3][]float32{in, p, v})
	}
	for i := range 2 {
		if _, err := a.Step(batches[i][0], batches[i][1], batches[i][2]); err != nil {
			t.Fatal(err)
		}
		w := a.Weights().Tensors
		for _, spec := range a.specs {
			for j := range want[spec.name] {
				want[spec.name][j] = d*want[spec.name][j] + (1-d)*w[spec.name][j]
			}
		}
	}
	avg := a.AveragedWeights()
	raw := a.Weights()
	differs := false
	for _, spec := range a.specs {
		for j, v := range want[spec.name] {
			got := avg.Tensors[spec.name][j]
			if math.Abs(float64(got-v)) > 1e-6*max(1, math.Abs(float64(v))) {
				t.Fatalf("%s[%d]: average %v, want %v", spec.name, j, got, v)
			}
			differs = differs || got != raw.Tensors[spec.name][j]
		}
	}
	if !differs {
		t.Error("the average equals the weights after two steps")
	}
	if err := avg.Check(); err != nil {
		t.Errorf("the averaged network: %v", err)
	}

	path := t.TempDir() + "/run.ckpt"
	if err := a.Checkpoint().Save(path); err != nil {
		t.Fatal(err)
	}
	ck, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewTrainer(ck, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for i := 2; i < 4; i++ {
		for _, tr := range []*Trainer{a, b} {
			if _, err := tr.Step(batches[i][0], batches[i][1], batches[i][2]); err != nil {
				t.Fatal(err)
			}
		}
	}
	wa, wb := a.AveragedWeights(), b.AveragedWeights()
	for _, spec := range a.specs {
		for j, v := range wa.Tensors[spec.name] {
			if wb.Tensors[spec.name][j] != v {
				t.Fatalf("%s[%d]: uninterrupted average %v, resumed %v", spec.name, j, v, wb.Tensors[spec.name][j])
			}
		}
	}

	plain, err := NewTrainer(ck, WithSGD(0.9), WithBatch(tinyBatch))
	if err != nil {
		t.Fatalf("a trainer without an average, from a checkpoint with one: %v", err)
	}
	if plain.AveragedWeights() != nil {
		t.Error("a trainer without an average exported one")
	}
	if _, err := New(randomWeights(t, tiny, 8), WithWeightAverage(1)); err == nil {
		t.Error("decay 1 accepted")
	}
}
