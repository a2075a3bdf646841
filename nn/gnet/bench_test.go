package gnet

import (
	"math/rand/v2"
	"testing"

	"github.com/palace-chess/palace/nn/model"
)

// BenchmarkTrainStep: the yardstick network, 6 blocks × 64
// filters, palace's 80 input planes and 2,581 policy slots, at batch 64,
// float32 and (where the CPU has AVX-512 BF16) bf16 products.
func BenchmarkTrainStep(b *testing.B) { trainStepBenchmarks(b, 6) }

// BenchmarkTrainStep4x64 is BenchmarkTrainStep with 4 blocks: the
// trainer's capacity for the smaller shape (a distributed run's
// trainer-bound point, docs/distributed.md).
func BenchmarkTrainStep4x64(b *testing.B) { trainStepBenchmarks(b, 4) }

func trainStepBenchmarks(b *testing.B, blocks int) {
	b.Run("fp32", func(b *testing.B) { benchmarkTrainStep(b, blocks, false) })
	b.Run("bf16", func(b *testing.B) {
		if !bf16Kernels() {
			b.Skip("no AVX-512 BF16 here, or the kernels are off (PALACE_KERNEL)")
		}
		benchmarkTrainStep(b, blocks, true)
	})
}

func benchmarkTrainStep(b *testing.B, blocks int, bf16 bool) {
	cfg := model.Config{Planes: 80, PolicySize: 2581, Blocks: blocks, Filters: 64, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 64}
	const batch = 64
	w, err := model.NewRandom(cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	tr, err := New(w, WithBatch(batch), WithSGD(0.9), WithSchedule(Schedule{Kind: Constant, Rate: 1e-3}), WithBF16(bf16))
	if err != nil {
		b.Fatal(err)
	}
	in, p, v := randomBatch(rand.New(rand.NewPCG(1, 2)), cfg, batch)
	if _, err := tr.Step(in, p, v); err != nil { // first run allocates
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := tr.Step(in, p, v); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "samples/s")
}

// TestStepAllocatesNothing: after its first step (which sizes the
// buffers) a training step allocates nothing, in float32 and bf16, with
// SGD and with Adam and the weight average (issue 44).
func TestStepAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	cfg := model.Config{Planes: 80, PolicySize: 2581, Blocks: 2, Filters: 32, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 32}
	const batch = 16
	for _, c := range []struct {
		name  string
		opts  []Option
		reply bool
	}{
		{"fp32-sgd", []Option{WithSGD(0.9)}, false},
		{"fp32-adam-average", []Option{WithAdam(0.9, 0.999, 1e-8), WithWeightAverage(0.99)}, false},
		{"bf16-sgd", []Option{WithSGD(0.9), WithBF16(true)}, false},
		{"bf16-reply", []Option{WithSGD(0.9), WithBF16(true), WithReplyWeight(0.15)}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := cfg
			cfg.ReplyPolicy = c.reply
			w, err := model.NewRandom(cfg, 1)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := New(w, append([]Option{WithBatch(batch)}, c.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			in, p, v := randomBatch(rng, cfg, batch)
			b := &Batch{Inputs: in, Policy: p, WDL: v}
			if c.reply {
				_, b.Reply, _ = randomBatch(rng, cfg, batch)
			}
			if _, err := tr.StepBatch(b); err != nil {
				t.Fatal(err)
			}
			// AllocsPerRun measures on one core; the pool's bands on
			// several are covered by BenchmarkTrainStep's ReportAllocs.
			if n := testing.AllocsPerRun(5, func() {
				if _, err := tr.StepBatch(b); err != nil {
					t.Fatal(err)
				}
			}); n != 0 {
				t.Errorf("a step allocates %v objects", n)
			}
		})
	}
}
