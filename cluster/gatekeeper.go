package cluster

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/ladder"
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

// Run runs the arena, gate and ladder stages until the run's generations are done
// or ctx is cancelled (not an error); between them it waits for the
// trainer.
func (g *Gatekeeper) Run(ctx context.Context) error {
	if g.cfg.Async.Enabled {
		return errAsyncRoles
	}
	return g.run(ctx, func(ctx context.Context, s State, rev uint64) (State, uint64, bool, error) {
		switch s.Stage {
		case loop.StageArena:
			next, err := g.arena(ctx, s)
			return next, rev, true, err
		case loop.StageGate:
			next, err := g.gate(ctx, s)
			return next, rev, true, err
		case loop.StageLadder:
			next, err := g.ladder(ctx, s)
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
	jobs := make([]Job, g.cfg.Gate.Pairs)
	for p := range jobs {
		jobs[p] = Job{Kind: KindArena, Generation: gen, Pair: p, Candidate: loop.NetKey(cand), Best: best.Key, BestGeneration: best.Generation}
	}
	g.report(Event{Kind: EventMatch, Generation: gen, Players: [2]string{h.A, h.B}, Jobs: len(jobs)})
	if err := g.c.enqueue(ctx, jobs); err != nil {
		return s, err
	}
	_, sum, err := g.collectPairs(ctx, KindArena, gen, jobs, h, loop.ArenaKey(cand), func(r *Result, sum arena.Summary) {
		g.report(Event{Kind: EventPair, Generation: gen, Result: r, Summary: sum})
	})
	if err != nil {
		return s, err
	}
	if err := g.c.purge(ctx, KindArena, gen); err != nil {
		return s, err
	}
	g.report(Event{Kind: EventMatchOver, Generation: gen, Summary: sum})
	if err := g.recordMetric(loop.ArenaMetric(cand, sum, time.Since(start))); err != nil {
		return s, err
	}
	return State{State: g.stages.Next(s.State)}, nil
}

// gate promotes candidate gen+1 or keeps the best, as the local loop's
// gate does, with the best pointer moved by compare-and-swap.
func (g *Gatekeeper) gate(ctx context.Context, s State) (State, error) {
	gen := s.Generation
	best, m, err := g.decide(ctx, gen+1)
	if err != nil {
		return s, err
	}
	if err := g.mirror(s, &best); err != nil {
		return s, err
	}
	if err := g.recordMetric(m); err != nil {
		return s, err
	}
	g.report(Event{Kind: EventGate, Generation: gen, Metric: m})
	return State{State: g.stages.Next(s.State)}, nil
}

// decide decides candidate cand against the best (its match, when gated,
// already played), moves the best pointer by compare-and-swap when it is
// promoted, and returns the best after it and the gate's metric.
func (g *Gatekeeper) decide(ctx context.Context, cand int) (loop.Best, loop.Metric, error) {
	best, bestRev, err := g.c.Best(ctx)
	if err != nil {
		return best, loop.Metric{}, err
	}
	m, promoted, err := g.stages.Gate(cand, best)
	if err != nil {
		return best, loop.Metric{}, err
	}
	if promoted != nil {
		if _, err := g.c.casJSON(ctx, keyBest, *promoted, bestRev); err != nil {
			return best, loop.Metric{}, err
		}
		best = *promoted
	}
	return best, m, nil
}

// ladder rates the best network when due, as the local loop's ladder
// stage does: the same climb and games, each rung's pairs played by the
// workers, its record file kept in the store as the local ladder keeps
// it; the climb moves on once a rung's pairs are all in.
func (g *Gatekeeper) ladder(ctx context.Context, s State) (State, error) {
	gen := s.Generation
	start := time.Now()
	best, _, err := g.c.Best(ctx)
	if err != nil {
		return s, err
	}
	due, err := g.stages.LadderDue(gen, best)
	if err != nil || !due {
		return State{State: g.stages.Next(s.State)}, err
	}
	ls, err := g.stages.LadderSetup("")
	if err != nil {
		return s, err
	}
	g.report(Event{Kind: EventRating, Generation: gen, Best: best, Scale: ls.Scale.ID()})
	r, err := ladder.Climb(ls.Scale, ls.Settings.Pairs, func(k int) ([]arena.GameRecord, error) {
		return g.ladderRung(ctx, ls, gen, best, k)
	})
	if err != nil {
		return s, err
	}
	h, err := g.stages.LadderHeader(ls, best, 0)
	if err != nil {
		return s, err
	}
	r.Player, r.CodeVersion, r.Finished = h.A, g.opt.CodeVersion, time.Now().UTC()
	r.Seconds = time.Since(start).Seconds()
	m, err := g.stages.LadderRated(gen, best, r, time.Since(start))
	if err != nil {
		return s, err
	}
	if err := g.recordMetric(m); err != nil {
		return s, err
	}
	g.report(Event{Kind: EventRated, Generation: gen, Metric: m})
	return State{State: g.stages.Next(s.State)}, nil
}

// ladderRung has the workers play the best network's match against rung
// k (every pair: the climb needs the whole match) and returns its
// records, written to the store as they come in.
func (g *Gatekeeper) ladderRung(ctx context.Context, ls *loop.LadderSetup, gen int, best loop.Best, k int) ([]arena.GameRecord, error) {
	h, err := g.stages.LadderHeader(ls, best, k)
	if err != nil {
		return nil, err
	}
	key := loop.LadderRungKey(gen, ls.Scale.Rungs[k])
	jobs := make([]Job, ls.Settings.Pairs)
	for p := range jobs {
		jobs[p] = Job{Kind: KindLadder, Generation: gen, Pair: p, Rung: k, Best: best.Key, BestGeneration: best.Generation}
	}
	g.report(Event{Kind: EventRung, Generation: gen, Players: [2]string{h.A, h.B}, Jobs: len(jobs)})
	if err := g.c.enqueue(ctx, jobs); err != nil {
		return nil, err
	}
	recs, _, err := g.collectPairs(ctx, KindLadder, gen, jobs, h, key, nil)
	return recs, err
}

// collectPairs folds the workers' results for jobs (one a pair, jobs[p]
// pair p) into the match's records, each game once however often a
// result is redelivered, and writes the match's record file at key as
// they come in, until the match is decided or every pair is in. added
// hears of each result that brought a new game. The records come back in
// pair order.
func (g *Gatekeeper) collectPairs(ctx context.Context, kind string, gen int, jobs []Job, h arena.Header, key string, added func(*Result, arena.Summary)) ([]arena.GameRecord, arena.Summary, error) {
	have := map[[2]int]arena.GameRecord{}
	var recs []arena.GameRecord
	var sum arena.Summary
	workers := workerTally{}
	err := g.c.followResults(ctx, kind, gen, func(r *Result) (bool, error) {
		if r.Job.Pair < 0 || r.Job.Pair >= len(jobs) || r.Job != jobs[r.Job.Pair] || len(r.Records) != 2 {
			return false, nil // another match's pair (a gate redone after a crash, another rung's), or a malformed one
		}
		fresh := false
		for _, rec := range r.Records {
			if rec.Pair != r.Job.Pair || rec.Game < 0 || rec.Game > 1 {
				return false, fmt.Errorf("cluster: the result of %s holds pair %d game %d", r.Job.ID(), rec.Pair, rec.Game)
			}
			k := [2]int{rec.Pair, rec.Game}
			if _, dup := have[k]; !dup {
				have[k] = rec
				fresh = true
			}
		}
		if fresh {
			workers.add(r, len(r.Records), 0)
		}
		recs = slices.Collect(maps.Values(have)) // in any order: Summarize and WriteRecords sort them
		sum = arena.Summarize(h, recs)
		if fresh && added != nil {
			added(r, sum)
		}
		var buf bytes.Buffer
		if err := arena.WriteRecords(&buf, h, recs); err != nil {
			return false, err
		}
		return sum.Done, g.st.Write(key, buf.Bytes())
	})
	if err != nil {
		return nil, sum, err
	}
	if err := g.recordWorkers(gen, kind, key, workers); err != nil {
		return nil, sum, err
	}
	slices.SortFunc(recs, func(a, b arena.GameRecord) int { return (a.Pair*2 + a.Game) - (b.Pair*2 + b.Game) })
	return recs, sum, nil
}
