package cluster

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/store"
)

// Gatekeeper plays each candidate's match through the workers, decides
// and promotes. One per run.
type Gatekeeper struct{ *role }

// NewGatekeeper is the run's gatekeeper; cfg is the run's config (Start).
func NewGatekeeper(c *Conn, st store.Store, cfg loop.Config, opt RoleOptions) (*Gatekeeper, error) {
	r, err := newRole(c, st, cfg, opt, "gatekeeper")
	if err != nil {
		return nil, err
	}
	return &Gatekeeper{r}, nil
}

// Run runs the arena and gate stages until the run's generations are done
// or ctx is cancelled (not an error); between them it waits for the
// trainer.
func (g *Gatekeeper) Run(ctx context.Context) error {
	return g.run(ctx, func(ctx context.Context, s State, rev uint64) (State, uint64, bool, error) {
		switch s.Stage {
		case loop.StageArena:
			next, err := g.arena(ctx, s)
			return next, rev, true, err
		case loop.StageGate:
			next, err := g.gate(ctx, s)
			return next, rev, true, err
		}
		return s, rev, false, nil // the trainer's stages
	})
}

// arena enqueues candidate gen+1's pairs, folds their results in pair
// order until the test decides or every pair is in, then drops the pairs
// still queued.
func (g *Gatekeeper) arena(ctx context.Context, s State) (State, error) {
	gen := s.Generation
	cand := gen + 1
	start := time.Now()
	best, _, err := g.c.Best(ctx)
	if err != nil {
		return s, err
	}
	// The record file a local match would hold: its header, then the
	// games in pair order.
	h, err := g.stages.GateHeader(cand, best)
	if err != nil {
		return s, err
	}
	jobs := make([]Job, g.cfg.Arena.Pairs)
	for p := range jobs {
		jobs[p] = Job{Kind: KindArena, Generation: gen, Pair: p, Candidate: loop.NetKey(cand), Best: best.Key, BestGeneration: best.Generation}
	}
	g.logf("gen %d: match of %s against %s: up to %d pairs", gen, h.A, h.B, len(jobs))
	if err := g.c.enqueue(ctx, jobs); err != nil {
		return s, err
	}
	have := map[[2]int]arena.GameRecord{}
	var sum arena.Summary
	err = g.c.followResults(ctx, KindArena, gen, func(r *Result) (bool, error) {
		if r.Job.Pair < 0 || r.Job.Pair >= len(jobs) || r.Job != jobs[r.Job.Pair] || len(r.Records) != 2 {
			return false, nil // another best's pair (a gate redone after a crash), or a malformed one
		}
		for _, rec := range r.Records {
			if rec.Pair != r.Job.Pair || rec.Game < 0 || rec.Game > 1 {
				return false, fmt.Errorf("cluster: the result of %s holds pair %d game %d", r.Job.ID(), rec.Pair, rec.Game)
			}
			k := [2]int{rec.Pair, rec.Game}
			if _, dup := have[k]; !dup {
				have[k] = rec
			}
		}
		recs := slices.Collect(maps.Values(have)) // in any order: Summarize and WriteRecords sort them
		sum = arena.Summarize(h, recs)
		var buf bytes.Buffer
		if err := arena.WriteRecords(&buf, h, recs); err != nil {
			return false, err
		}
		return sum.Done, g.st.Write(loop.ArenaKey(cand), buf.Bytes())
	})
	if err != nil {
		return s, err
	}
	if err := g.c.purge(ctx, KindArena, gen); err != nil {
		return s, err
	}
	g.logf("gen %d: match over: %d games W/D/L %d/%d/%d Elo %s LLR %.2f", gen, sum.Games, sum.WDL.Wins, sum.WDL.Draws, sum.WDL.Losses, sum.Elo, sum.LLR)
	if err := loop.RecordMetric(g.st, loop.ArenaMetric(cand, sum, time.Since(start))); err != nil {
		return s, err
	}
	return State{State: g.stages.Next(s.State)}, nil
}

// gate promotes candidate gen+1 or keeps the best, as the local loop's
// gate does, with the best pointer moved by compare-and-swap.
func (g *Gatekeeper) gate(ctx context.Context, s State) (State, error) {
	gen := s.Generation
	cand := gen + 1
	best, bestRev, err := g.c.Best(ctx)
	if err != nil {
		return s, err
	}
	m, promoted, err := g.stages.Gate(cand, best)
	if err != nil {
		return s, err
	}
	if promoted != nil {
		if _, err := g.c.casJSON(ctx, keyBest, *promoted, bestRev); err != nil {
			return s, err
		}
		best = *promoted
	}
	if err := g.mirror(s, &best); err != nil {
		return s, err
	}
	if err := loop.RecordMetric(g.st, m); err != nil {
		return s, err
	}
	g.logf("gen %d gate: %s (%s)", cand, m.Verdict(), m.Reason)
	return State{State: g.stages.Next(s.State)}, nil
}
