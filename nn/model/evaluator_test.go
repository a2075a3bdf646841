package model_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

func smallNet(t *testing.T) *model.Weights {
	t.Helper()
	w, err := model.NewRandom(model.Config{Planes: encode.Planes, PolicySize: encode.PolicySize(), Blocks: 1, Filters: 8,
		PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}, 3)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// gamePositions encodes positions of a seeded random janggi game.
func gamePositions(t testing.TB, n int) []nn.Input {
	rs := rules.MustPreset("janggi")
	g, _ := rules.NewGame(rs, rs.StartFEN())
	rng := rand.New(rand.NewPCG(8, 9))
	var ins []nn.Input
	for len(ins) < n && !g.Result().Over() {
		legal := g.LegalMoves(nil)
		planes := make([]float32, encode.InputSize)
		if err := encode.Encode(g, legal, planes); err != nil {
			t.Fatal(err)
		}
		ins = append(ins, nn.Input{Planes: planes, Legal: encode.LegalIndices(legal, g.Position().SideToMove(), nil), Key: g.Position().Key()})
		g.Play(legal[rng.IntN(len(legal))])
	}
	return ins
}

func outputsFor(ins []nn.Input) []nn.Output {
	outs := make([]nn.Output, len(ins))
	for i := range ins {
		outs[i].Policy = make([]float32, len(ins[i].Legal))
	}
	return outs
}

// The network evaluates encoded game positions into proper distributions,
// alone, batched, through a batcher shared by several searches and through
// the cache, always with the same numbers.
func TestEvaluatorOnGames(t *testing.T) {
	w := smallNet(t)
	ev, err := model.NewEvaluator(w)
	if err != nil {
		t.Fatal(err)
	}
	ins := gamePositions(t, 24)
	want := outputsFor(ins)
	if err := ev.Evaluate(ins, want); err != nil {
		t.Fatal(err)
	}
	for i, o := range want {
		var sum float64
		for _, p := range o.Policy {
			if p < 0 || math.IsNaN(float64(p)) {
				t.Fatalf("position %d: policy value %v", i, p)
			}
			sum += float64(p)
		}
		if math.Abs(sum-1) > 1e-4 || math.Abs(float64(o.WDL[0]+o.WDL[1]+o.WDL[2])-1) > 1e-5 {
			t.Fatalf("position %d: policy sums to %v, WDL %v", i, sum, o.WDL)
		}
	}
	// One at a time gives the same numbers as the batch.
	for i := range ins {
		one := outputsFor(ins[i : i+1])
		if err := ev.Evaluate(ins[i:i+1], one); err != nil {
			t.Fatal(err)
		}
		for k := range one[0].Policy {
			if math.Abs(float64(one[0].Policy[k]-want[i].Policy[k])) > 1e-5 {
				t.Fatalf("position %d alone differs from the batch", i)
			}
		}
	}
	// Four searches sharing one batcher and one cache table.
	b := nn.NewBatcher(ev, 16)
	table := nn.NewCache(nil, 1024)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for s := 0; s < 4; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := b.NewClient()
			defer c.Close()
			cached := table.WithBackend(c)
			for rep := 0; rep < 2; rep++ {
				for i := range ins {
					out := outputsFor(ins[i : i+1])
					if err := cached.Evaluate(ins[i:i+1], out); err != nil {
						errs <- err
						return
					}
					for k := range out[0].Policy {
						if math.Abs(float64(out[0].Policy[k]-want[i].Policy[k])) > 1e-5 {
							errs <- errDiff
							return
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if st := table.Stats(); st.Hits == 0 {
		t.Errorf("cache stats %+v: no hits", st)
	}
	bad := []nn.Input{{Planes: make([]float32, 5), Legal: []int32{0}}}
	if err := ev.Evaluate(bad, outputsFor(bad)); err == nil {
		t.Error("a short input was accepted")
	}
}

var errDiff = errors.New("a shared, batched or cached evaluation differs from the direct one")

// The evaluator's cost around the network (gathering the planes, the
// softmax over the legal moves) on self-play's shape: a batch of 8 game
// positions through the 4 × 32 network.
func BenchmarkEvaluator(b *testing.B) {
	w, err := model.NewRandom(model.Config{Planes: encode.Planes, PolicySize: encode.PolicySize(), Blocks: 4, Filters: 32,
		PolicyChannels: 4, ValueChannels: 2, ValueHidden: 32}, 1)
	if err != nil {
		b.Fatal(err)
	}
	ev, err := model.NewEvaluator(w)
	if err != nil {
		b.Fatal(err)
	}
	ins := gamePositions(b, 8)
	outs := outputsFor(ins)
	b.ReportAllocs()
	for b.Loop() {
		if err := ev.Evaluate(ins, outs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(ins))/b.Elapsed().Seconds(), "pos/s")
}
