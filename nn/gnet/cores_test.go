package gnet

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/palace-chess/palace/nn/model"
)

// Training makes the same weights, to the bit, on any number of cores:
// the filter gradients' partial sums are split by a fixed count, not by
// core (filterGradParts), so a run's networks do not depend on the
// machine that trained them.
func TestStepsSameOnAnyCores(t *testing.T) {
	cfg := model.Config{Planes: 80, PolicySize: 2581, Blocks: 1, Filters: 32, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 32}
	const batch = 40 // five chunks of positions
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range []struct {
		name string
		opts []Option
	}{
		{"fp32", nil},
		{"bf16", []Option{WithBF16(true)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var first string
			for _, cores := range []int{1, 2, 3} {
				runtime.GOMAXPROCS(cores)
				w, err := model.NewRandom(cfg, 1)
				if err != nil {
					t.Fatal(err)
				}
				tr, err := New(w, append([]Option{WithBatch(batch), WithSGD(0.9)}, c.opts...)...)
				if err != nil {
					t.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(3, 4))
				for range 3 {
					in, p, v := randomBatch(rng, cfg, batch)
					if _, err := tr.Step(in, p, v); err != nil {
						t.Fatal(err)
					}
				}
				id := tr.Checkpoint().Weights.ID()
				if cores == 1 {
					first = id
				} else if id != first {
					t.Errorf("%d cores: network %s, one core %s", cores, id, first)
				}
			}
		})
	}
}
