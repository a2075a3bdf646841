package gnet

import (
	"math/rand/v2"
	"testing"

	"github.com/palace-chess/palace/nn/model"
)

// compareForward checks that model's folded forward pass on w and the
// trainer's eval-mode graph give the same logits.
func compareForward(t *testing.T, tr *Trainer, w *model.Weights, rng *rand.Rand) {
	t.Helper()
	c, b := tr.Config(), tr.Batch()
	net, err := model.NewNetKernel(w, model.BestFloat32Kernel())
	if err != nil {
		t.Fatal(err)
	}
	for trial := 0; trial < 3; trial++ {
		inputs, _, _ := randomBatch(rng, c, b)
		for i := range inputs { // not only 0/1 planes
			inputs[i] *= rng.Float32()*2 - 0.5
		}
		wantP, wantW := make([]float32, b*c.PolicySize), make([]float32, b*3)
		if err := net.Forward(b, inputs, wantP, wantW); err != nil {
			t.Fatal(err)
		}
		gotP, gotW := make([]float32, b*c.PolicySize), make([]float32, b*3)
		if err := tr.Forward(inputs, gotP, gotW); err != nil {
			t.Fatal(err)
		}
		for i := range wantP {
			if !near(float64(gotP[i]), float64(wantP[i]), 1e-4) {
				t.Fatalf("trial %d: policy[%d] graph %v, model %v", trial, i, gotP[i], wantP[i])
			}
		}
		for i := range wantW {
			if !near(float64(gotW[i]), float64(wantW[i]), 1e-4) {
				t.Fatalf("trial %d: wdl[%d] graph %v, model %v", trial, i, gotW[i], wantW[i])
			}
		}
	}
}

// TestHandOff checks that the weights a trainer exports, running
// statistics included, make model's network compute what the trainer's
// eval-mode graph computes, before and after training and through a
// round trip into a new trainer.
func TestHandOff(t *testing.T) { atBatches(t, checkHandOff) }

func checkHandOff(t *testing.T, batch int) {
	w := randomWeights(t, tiny, 1)
	rng := rand.New(rand.NewPCG(2, 3))
	opts := []Option{WithBatch(batch), WithSGD(0.9), WithSchedule(Schedule{Kind: Constant, Rate: 0.05}), WithBNMomentum(0.3)}
	tr, err := New(w, opts...)
	if err != nil {
		t.Fatal(err)
	}
	// Before any step the graph already runs on the given statistics.
	compareForward(t, tr, w, rng)
	for i := 0; i < 5; i++ {
		in, p, v := randomBatch(rng, tiny, batch)
		if _, err := tr.Step(in, p, v); err != nil {
			t.Fatal(err)
		}
	}
	out := tr.Weights()
	if err := out.Check(); err != nil {
		t.Fatal(err)
	}
	// The running statistics moved: they were read from the ops.
	if out.Tensors["stem.bn.mean"][0] == w.Tensors["stem.bn.mean"][0] {
		t.Error("stem running mean did not change in training")
	}
	compareForward(t, tr, out, rng)
	tr2, err := New(out, opts...)
	if err != nil {
		t.Fatal(err)
	}
	compareForward(t, tr2, out, rng)
}
