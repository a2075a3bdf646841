package mcts

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

// xiangqiMiddlegame is rules' perft middlegame: 40-odd legal moves a side.
const xiangqiMiddlegame = "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1"

// benchMiddlegame times searches with p over ev of the xiangqi middlegame,
// each from an empty tree, and reports simulations a second.
func benchMiddlegame(b *testing.B, p Params, ev nn.Evaluator) {
	b.Helper()
	g, err := rules.NewGame(rules.MustPreset("xiangqi"), xiangqiMiddlegame)
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(p, ev)
	if err != nil {
		b.Fatal(err)
	}
	var r Result
	total := 0
	b.ReportAllocs()
	for b.Loop() {
		s.Reset()
		if err := s.RunWith(g, RunOptions{}, &r); err != nil {
			b.Fatal(err)
		}
		total += r.Simulations
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "sims/s")
}

// The search's own cost per simulation (selection, moves, rules, encoding,
// expansion, backup) with an evaluator that costs next to nothing: one op is
// an 800-simulation search of a xiangqi middlegame from an empty tree. The
// issue's goal is 100k simulations/s per core.
func BenchmarkSearchZeroCost(b *testing.B) {
	for _, mode := range []Mode{PUCT, Gumbel} {
		for _, leaves := range []int{1, 8} {
			b.Run(fmt.Sprintf("%v/leaves=%d", mode, leaves), func(b *testing.B) {
				p := DefaultParams()
				p.Mode, p.Simulations, p.CheapSimulations = mode, 800, 0
				p.LeavesPerEval = leaves
				benchMiddlegame(b, p, uniform())
			})
		}
	}
}

// timedBackend measures the time spent inside the network. Its callers
// take turns (a Batcher runs one batch at a time, a lone Search is one
// goroutine), so the counter needs no lock.
type timedBackend struct {
	nn.Evaluator
	busy time.Duration
}

func (t *timedBackend) Evaluate(in []nn.Input, out []nn.Output) error {
	start := time.Now()
	err := t.Evaluator.Evaluate(in, out)
	t.busy += time.Since(start)
	return err
}

// net6x64 is configs/net-6x64.yaml's network with random weights.
func net6x64(b *testing.B) nn.Evaluator {
	w, err := model.NewRandom(model.Config{Planes: encode.Planes, PolicySize: encode.PolicySize(),
		Blocks: 6, Filters: 64, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 64}, 1)
	if err != nil {
		b.Fatal(err)
	}
	ev, err := model.NewEvaluator(w)
	if err != nil {
		b.Fatal(err)
	}
	return ev
}

// benchGames plays games concurrently, one Search each, all through one
// Batcher and one shared Cache in front of backend: self-play's shape. One
// op is one move of one game.
func benchGames(b *testing.B, backend nn.Evaluator, games int, p Params) {
	tb := &timedBackend{Evaluator: backend}
	bat := nn.NewBatcher(tb, 256)
	table := nn.NewCache(nil, 1<<16)
	rs := rules.MustPreset("xiangqi")
	var next, sims atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, games)
	start := make(chan struct{})
	for i := range games {
		client := bat.NewClient()
		q := p
		q.Seed = uint64(i)
		s, err := New(q, table.WithBackend(client))
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer client.Close()
			g, _ := rules.NewGame(rs, rs.StartFEN())
			var r Result
			<-start
			for next.Add(1) <= int64(b.N) {
				if err := s.RunWith(g, RunOptions{}, &r); err != nil {
					errs <- err
					return
				}
				sims.Add(int64(r.Simulations))
				g.Play(r.Best)
				if g.Ply() >= 80 || g.Result().Over() {
					g.Reset()
				}
			}
		}()
	}
	b.ReportAllocs()
	b.ResetTimer()
	close(start)
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	wall := b.Elapsed()
	b.ReportMetric(float64(sims.Load())/wall.Seconds(), "sims/s")
	b.ReportMetric(bat.Stats().MeanBatch(), "positions/batch")
	b.ReportMetric(100*table.Stats().HitRate(), "cache-hit-%")
	b.ReportMetric(100*(1-tb.busy.Seconds()/wall.Seconds()), "outside-net-%")
}

// 32 games of Gumbel self-play (DefaultParams: 32 simulations a full move,
// 8 a cheap one) through one Batcher and Cache. Over the zero-cost evaluator
// it measures search plus batching; over the 6×64 network, the share of
// wall time spent outside the network (the goal: under 15%).
func BenchmarkGamesBatched(b *testing.B) {
	b.Run("zero-cost", func(b *testing.B) { benchGames(b, uniform(), 32, DefaultParams()) })
	b.Run("net6x64", func(b *testing.B) { benchGames(b, net6x64(b), 32, DefaultParams()) })
}

// One search alone gathering 16 leaves per network call under virtual loss
// (analysis, or self-play with few games): the share outside the network.
func BenchmarkSearchNet6x64(b *testing.B) {
	tb := &timedBackend{Evaluator: net6x64(b)}
	p := DefaultParams()
	p.Mode, p.Simulations, p.CheapSimulations, p.LeavesPerEval = PUCT, 256, 0, 16
	benchMiddlegame(b, p, tb)
	b.ReportMetric(100*(1-tb.busy.Seconds()/b.Elapsed().Seconds()), "outside-net-%")
}

// The root lookahead's cost: one op is a one-simulation search of the
// xiangqi middlegame from an empty tree, with and without it (every root
// move and every reply played and judged).
func BenchmarkRootLookahead(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("lookahead=%v", on), func(b *testing.B) {
			g, err := rules.NewGame(rules.MustPreset("xiangqi"), xiangqiMiddlegame)
			if err != nil {
				b.Fatal(err)
			}
			p := DefaultParams()
			p.Simulations, p.CheapSimulations, p.RootLookahead = 1, 0, on
			s, err := New(p, uniform())
			if err != nil {
				b.Fatal(err)
			}
			var r Result
			b.ReportAllocs()
			for b.Loop() {
				s.Reset()
				if err := s.RunWith(g, RunOptions{}, &r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
