package gnet

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/palace-chess/palace/nn/model"
)

// replyTiny is tiny with the reply head.
func replyTiny() model.Config {
	c := tiny
	c.ReplyPolicy = true
	return c
}

// replyTargets are reply targets for batch positions: distributions over
// a random subset of slots with the others marked illegal, and row 1
// without a target (zeros), as a game's last position has none.
func replyTargets(rng *rand.Rand, c model.Config, batch int) []float32 {
	_, r, _ := randomBatch(rng, c, batch)
	for b := 0; b < batch; b++ {
		row := r[b*c.PolicySize:][:c.PolicySize]
		for i, v := range row {
			if v == 0 && b != 1 {
				row[i] = IllegalTarget
			}
		}
		if b == 1 {
			clear(row)
		}
	}
	return r
}

// The reply head's gradients, its loss weighted, against central
// differences of the whole loss: the head's own weights and the tower's,
// which the reply target trains too.
func TestReplyGradients(t *testing.T) {
	atBatches(t, func(t *testing.T, batch int) {
		c := replyTiny()
		tr, err := New(randomWeights(t, c, 5), WithBatch(batch), WithL2(0.01), WithReplyWeight(0.3), withFloat64())
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(8, 9))
		in, p, v := randomBatch(rng, c, batch)
		tr.setBatch(tr.train, &Batch{Inputs: in, Policy: p, WDL: v, Reply: replyTargets(rng, c, batch)})
		checked := checkFiniteDifferences(t, tr, rng, func(name string) bool {
			return strings.HasPrefix(name, "reply.") || strings.HasPrefix(name, "block0.conv2")
		})
		if checked < 30 {
			t.Errorf("%d gradients checked", checked)
		}
	})
}

// The reply loss is reported unweighted and enters the total weighted; it
// leaves the policy and value losses as they are, no reply targets leave
// it 0, a network without the head refuses them, and steps on a batch
// teach the head its targets.
func TestReplyLoss(t *testing.T) {
	c := replyTiny()
	rng := rand.New(rand.NewPCG(3, 4))
	in, p, v := randomBatch(rng, c, tinyBatch)
	reply := replyTargets(rng, c, tinyBatch)
	const weight = 0.25
	fast := WithSchedule(Schedule{Kind: Constant, Rate: 0.2})
	tr, err := New(randomWeights(t, c, 7), WithBatch(tinyBatch), WithReplyWeight(weight), fast)
	if err != nil {
		t.Fatal(err)
	}
	with, err := tr.EvaluateBatch(&Batch{Inputs: in, Policy: p, WDL: v, Reply: reply})
	if err != nil {
		t.Fatal(err)
	}
	without, err := tr.Evaluate(in, p, v)
	if err != nil {
		t.Fatal(err)
	}
	if with.Reply <= 0 || without.Reply != 0 || with.Policy != without.Policy || with.WDL != without.WDL ||
		!near(with.Total, with.Policy+with.WDL+weight*with.Reply+with.L2, 1e-6) || !near(without.Total, without.Policy+without.WDL+without.L2, 1e-6) {
		t.Errorf("with reply targets %+v, without %+v", with, without)
	}
	// Each of the three rows with a target is a cross-entropy over at
	// most 11 slots: about log 11 for random weights, never near 0.
	if with.Reply > 3*math.Log(11)/float64(tinyBatch)*3 || with.Reply < 0.1 {
		t.Errorf("reply loss %v for random weights", with.Reply)
	}
	first := with.Reply
	var last Losses
	for range 100 {
		if last, err = tr.StepBatch(&Batch{Inputs: in, Policy: p, WDL: v, Reply: reply}); err != nil {
			t.Fatal(err)
		}
	}
	// A cross-entropy against soft targets is at least their entropy,
	// which a network fitting one batch comes down to.
	var entropy float64
	for _, q := range reply {
		if q > 0 {
			entropy -= float64(q) * math.Log(float64(q))
		}
	}
	entropy /= tinyBatch
	if !(last.Reply < entropy+0.02 && first > entropy+0.1) {
		t.Errorf("reply loss %v after 100 steps on one batch, %v before; the targets' entropy is %v", last.Reply, first, entropy)
	}
	plain, err := New(randomWeights(t, tiny, 7), WithBatch(tinyBatch), WithReplyWeight(weight))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.StepBatch(&Batch{Inputs: in, Policy: p, WDL: v, Reply: reply}); err == nil || !strings.Contains(err.Error(), "without the reply head") {
		t.Errorf("reply targets for a network without the head: %v", err)
	}
	bad := append([]float32(nil), reply...)
	bad[0] = 2
	if _, err := tr.StepBatch(&Batch{Inputs: in, Policy: p, WDL: v, Reply: bad}); err == nil || !strings.Contains(err.Error(), "reply target of position 0") {
		t.Errorf("a reply target that is no distribution: %v", err)
	}
	// The head is in the checkpoint, and a trainer resumed from it goes on
	// where this one is.
	ck := tr.Checkpoint()
	if !ck.Weights.Config.ReplyPolicy || ck.Weights.Tensors["reply.fc.w"] == nil {
		t.Fatalf("checkpoint without the reply head: %v", ck.Weights.Config)
	}
	again, err := NewTrainer(ck, WithBatch(tinyBatch), WithReplyWeight(weight), fast)
	if err != nil {
		t.Fatal(err)
	}
	a, err := tr.StepBatch(&Batch{Inputs: in, Policy: p, WDL: v, Reply: reply})
	if err != nil {
		t.Fatal(err)
	}
	b, err := again.StepBatch(&Batch{Inputs: in, Policy: p, WDL: v, Reply: reply})
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("resumed step %+v, the original's %+v", b, a)
	}
}
