package gnet

import (
	"math/rand/v2"
	"testing"

	"github.com/palace-chess/palace/nn/model"
)

// The executor trains exactly as Gorgonia's tape machine does: the same
// losses and the same weights, bit for bit, after steps with SGD and
// Adam, float32 and bf16 products, and an evaluation between them.
func TestExecutorMatchesTape(t *testing.T) {
	cfg := model.Config{Planes: 80, PolicySize: 2581, Blocks: 2, Filters: 32, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 32}
	for _, c := range []struct {
		name string
		opt  Option
		bf16 bool
	}{{"sgd", WithSGD(0.9), false}, {"adam", WithAdam(0.9, 0.999, 1e-8), false}, {"sgd-bf16", WithSGD(0.9), true}} {
		t.Run(c.name, func(t *testing.T) {
			w, err := model.NewRandom(cfg, 7)
			if err != nil {
				t.Fatal(err)
			}
			var trainers [2]*Trainer
			for i, tape := range []bool{true, false} {
				useTape = tape
				trainers[i], err = New(w, WithBatch(6), c.opt, WithL2(1e-4), WithBF16(c.bf16), WithSchedule(Schedule{Kind: Constant, Rate: 0.01}))
				useTape = false
				if err != nil {
					t.Fatal(err)
				}
			}
			if trainers[0].train.exec != nil || trainers[1].train.exec == nil {
				t.Fatal("the two trainers do not run on the tape machine and the executor")
			}
			rng := rand.New(rand.NewPCG(3, 4))
			for step := range 4 {
				in, p, v := randomBatch(rng, cfg, 6)
				var losses [2]Losses
				for i, tr := range trainers {
					if losses[i], err = tr.Step(in, p, v); err != nil {
						t.Fatal(err)
					}
				}
				if losses[0] != losses[1] {
					t.Fatalf("step %d: tape %+v, executor %+v", step, losses[0], losses[1])
				}
				if step == 1 {
					for i, tr := range trainers {
						if losses[i], err = tr.Evaluate(in, p, v); err != nil {
							t.Fatal(err)
						}
					}
					if losses[0] != losses[1] {
						t.Fatalf("evaluation: tape %+v, executor %+v", losses[0], losses[1])
					}
				}
			}
			a, b := trainers[0].Weights(), trainers[1].Weights()
			if a.ID() != b.ID() {
				t.Errorf("weights after 4 steps differ: %s and %s", a.ID(), b.ID())
			}
		})
	}
}
