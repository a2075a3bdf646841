package gnet

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A policy target that marks slots illegal (−1) is a cross-entropy over
// the other slots' log-softmax alone: the loss Evaluate reports is that of
// the network's own logits (Forward) renormalised over the legal slots,
// less than the unmasked loss, and steps on masked targets lower it.
func TestMaskedPolicyLoss(t *testing.T) {
	w := randomWeights(t, tiny, 11)
	tr, err := New(w, WithBatch(tinyBatch))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	in, p, v := randomBatch(rng, tiny, tinyBatch)
	masked := append([]float32(nil), p...)
	for i, x := range masked {
		if x == 0 {
			masked[i] = -1 // the slots without target mass are the illegal ones
		}
	}
	logits := make([]float32, tinyBatch*tiny.PolicySize)
	wdl := make([]float32, tinyBatch*3)
	if err := tr.Forward(in, logits, wdl); err != nil {
		t.Fatal(err)
	}
	var wantMasked, wantFull float64
	for b := 0; b < tinyBatch; b++ {
		row := logits[b*tiny.PolicySize : (b+1)*tiny.PolicySize]
		for _, legalOnly := range []bool{true, false} {
			var z float64
			for i, x := range row {
				if !legalOnly || masked[b*tiny.PolicySize+i] >= 0 {
					z += math.Exp(float64(x))
				}
			}
			for i, x := range row {
				if t := float64(p[b*tiny.PolicySize+i]); t > 0 {
					ce := -t * (float64(x) - math.Log(z))
					if legalOnly {
						wantMasked += ce / tinyBatch
					} else {
						wantFull += ce / tinyBatch
					}
				}
			}
		}
	}
	lm, err := tr.Evaluate(in, masked, v)
	if err != nil {
		t.Fatal(err)
	}
	lf, err := tr.Evaluate(in, p, v)
	if err != nil {
		t.Fatal(err)
	}
	if !near(lm.Policy, wantMasked, 1e-4) || !near(lf.Policy, wantFull, 1e-4) || !(lm.Policy < lf.Policy) {
		t.Errorf("policy loss masked %v (want %v), unmasked %v (want %v)", lm.Policy, wantMasked, lf.Policy, wantFull)
	}

	// Steps on masked targets: the legal slots' renormalised policy moves
	// towards the target; the masked loss falls.
	before := lm.Policy
	for range 30 {
		if _, err := tr.Step(in, masked, v); err != nil {
			t.Fatal(err)
		}
	}
	after, err := tr.Evaluate(in, masked, v)
	if err != nil {
		t.Fatal(err)
	}
	if !(after.Policy < before) || math.IsNaN(after.Policy) {
		t.Errorf("masked policy loss %v after 30 steps, %v before", after.Policy, before)
	}
	bad := append([]float32(nil), masked...)
	bad[1] = -0.5
	if _, err := tr.Step(in, bad, v); err == nil {
		t.Error("a negative target other than −1 was accepted")
	}
}
