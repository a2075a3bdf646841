package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/store"
)

// The asynchronous loop (config async: enabled; issue 46) runs its three
// parts at once, as KataGo's and lc0's loops do:
//
//   - the collector keeps self-play blocks queued, Async.Lead generations
//     ahead of the newest committed one, with no network named: a worker
//     plays each with its best of the moment, picked up between blocks,
//     and says which (Result.Played); a generation is committed (its
//     manifest written, its metric recorded with the networks that played
//     it and their staleness) once all its blocks are in, in generation
//     order;
//   - the trainer, whenever it is free, trains a candidate on the newest
//     committed generation to the steps Stages.AsyncTarget allows, and
//     publishes it (KV key "candidate");
//   - the gatekeeper gates the newest candidate (its pairs queued behind at
//     most the collector's few blocks), promotes by compare-and-swap on
//     "best", or promotes each ungated, and rates the best on the ladder
//     when due; candidates that came while it gated another are skipped.
//
// Each keeps its own KV key ("selfplay", "state" with the training in
// progress and its target, "gated"), written by compare-and-swap, so a
// restarted part goes on where it left: a generation's blocks enqueued
// again are de-duplicated by the stream or found in the store, results
// are read again from the results stream, a training resumes to its
// recorded target, a gate's pairs are re-read. The three share one
// process (palace trainer, or palace run --distributed) and one
// metrics.jsonl, written under a lock.

// Asynchronous KV keys.
const (
	keySelfplay  = "selfplay"
	keyCandidate = "candidate"
	keyGated     = "gated"
)

// asyncSelfplay is the collector's progress: generations below Committed
// have their manifests, those below Queued their blocks enqueued.
type asyncSelfplay struct {
	Version   int `json:"version"`
	Committed int `json:"committed"`
	Queued    int `json:"queued"`
}

// Candidate is the asynchronous trainer's newest candidate: generation
// Generation, trained on self-play generations 0 to Generation-1, at the
// trainer's step Steps.
type Candidate struct {
	Version    int    `json:"version"`
	Generation int    `json:"generation"`
	Key        string `json:"key"`
	NetworkID  string `json:"network_id"`
	Steps      int64  `json:"steps"`
}

// asyncGated is the gatekeeper's progress: the last candidate decided.
type asyncGated struct {
	Version   int `json:"version"`
	Candidate int `json:"candidate"`
}

// Async runs the asynchronous loop's collector, trainer and gatekeeper.
type Async struct {
	t       *Trainer
	g       *Gatekeeper
	metrics sync.Mutex
}

// NewAsync is the asynchronous run's trainer and gatekeeper; cfg is the
// run's config (Start), with async enabled.
func NewAsync(c *Conn, st store.Store, cfg loop.Config, opt RoleOptions) (*Async, error) {
	if !cfg.Async.Enabled {
		return nil, errors.New("cluster: the run's config has async off: run its trainer and gatekeeper")
	}
	t, err := NewTrainer(c, st, cfg, opt)
	if err != nil {
		return nil, err
	}
	g, err := NewGatekeeper(c, st, cfg, opt)
	if err != nil {
		return nil, err
	}
	a := &Async{t: t, g: g}
	t.metricsMu, g.metricsMu = &a.metrics, &a.metrics
	return a, nil
}

// Run runs the three parts until the run's generations are done (each
// committed, the last trained on and its candidate decided) or ctx is
// cancelled (not an error).
func (a *Async) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	parts := []func(context.Context) error{a.collect, a.trainLoop, a.gateLoop}
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, part := range parts {
		wg.Go(func() {
			errs[i] = part(ctx)
			if errs[i] != nil {
				cancel(errs[i])
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	// Done: the state says so, for workers that stop with the run.
	n := a.t.cfg.Generations
	s, rev, _, err := a.t.c.State(ctx)
	if err != nil {
		return err
	}
	if s.Generation < n || s.Stage != loop.StageSelfplay {
		if _, err := a.t.advance(ctx, State{State: loop.State{Generation: n, Stage: loop.StageSelfplay}}, rev); err != nil {
			return err
		}
	}
	a.t.report(Event{Kind: EventComplete, Generation: n})
	return nil
}

// stopped is nil for a part ended by ctx, else err.
func stopped(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// asyncBlocks are generation gen's self-play jobs, in shard order, with
// no network named: the worker's best plays them.
func (a *Async) asyncBlocks(gen int) []Job {
	return blocks(a.t.stages.SelfplayPlan(gen, loop.Best{}, 1))
}

// collect is the collector: blocks queued ahead, results folded, each
// generation committed when whole.
func (a *Async) collect(ctx context.Context) error {
	t := a.t
	n := t.cfg.Generations
	var sp asyncSelfplay
	rev, err := t.c.getJSON(ctx, keySelfplay, &sp)
	if err != nil {
		return stopped(ctx, err)
	}
	if n > 0 && sp.Committed >= n {
		return nil
	}
	sp.Version = 1
	// Enqueued anew after a restart: the stream drops those it holds, and
	// a worker given a block already in the store only reports it.
	for gen := sp.Committed; gen < sp.Queued; gen++ {
		if err := t.c.enqueue(ctx, a.asyncBlocks(gen)); err != nil {
			return stopped(ctx, err)
		}
	}
	ahead := func() error {
		for sp.Queued < sp.Committed+t.cfg.Async.Lead && (n == 0 || sp.Queued < n) {
			// Recorded before the jobs are enqueued, so that a restarted
			// collector enqueues every block it may have asked for.
			sp.Queued++
			if rev, err = t.c.casJSON(ctx, keySelfplay, sp, rev); err != nil {
				return err
			}
			jobs := a.asyncBlocks(sp.Queued - 1)
			t.report(Event{Kind: EventBlocks, Generation: sp.Queued - 1, Jobs: len(jobs)})
			if err := t.c.enqueue(ctx, jobs); err != nil {
				return err
			}
		}
		return nil
	}
	if err := ahead(); err != nil {
		return stopped(ctx, err)
	}
	pending := map[int]map[int]*Result{} // by generation and shard
	perGen := len(a.asyncBlocks(0))
	err = t.c.followResults(ctx, KindSelfplay, -1, func(r *Result) (bool, error) {
		gen, shard := r.Job.Generation, r.Job.Shard
		if gen < sp.Committed || gen >= sp.Queued || r.Shard == nil || shard < 0 || shard >= perGen {
			return false, nil // a committed generation's, or not this run's
		}
		if want := a.asyncBlocks(gen)[shard]; r.Job != want {
			return false, fmt.Errorf("cluster: gen %d: the result of %s is of another job (%+v, want %+v)", gen, r.Job.ID(), r.Job, want)
		}
		if pending[gen] == nil {
			pending[gen] = map[int]*Result{}
		}
		if pending[gen][shard] != nil {
			return false, nil // a duplicate: each block counts once
		}
		pending[gen][shard] = r
		t.report(Event{Kind: EventBlock, Generation: gen, Done: len(pending[gen]), Jobs: perGen, Result: r})
		for len(pending[sp.Committed]) == perGen {
			if err := a.commit(ctx, sp.Committed, pending[sp.Committed]); err != nil {
				return false, err
			}
			delete(pending, sp.Committed)
			sp.Committed++
			if rev, err = t.c.casJSON(ctx, keySelfplay, sp, rev); err != nil {
				return false, err
			}
			if n > 0 && sp.Committed >= n {
				return true, nil
			}
			if err := ahead(); err != nil {
				return false, err
			}
		}
		return false, nil
	})
	return stopped(ctx, err)
}

// commit writes generation gen's manifest and its metric: the games as
// the exact loop counts them, the worker-seconds its blocks took as the
// stage's time, and the networks that played it.
func (a *Async) commit(ctx context.Context, gen int, shards map[int]*Result) error {
	t := a.t
	if err := t.commitGeneration(gen, shards, len(shards)); err != nil {
		return err
	}
	counts, workers := tallyBlocks(shards)
	best, _, err := t.c.Best(ctx)
	if err != nil {
		return err
	}
	var played []string
	var behind, known float64
	for i := range len(shards) {
		if r := shards[i]; r.Played != nil {
			if !slices.Contains(played, r.Played.Key) {
				played = append(played, r.Played.Key)
			}
			behind += float64(max(best.Generation-r.Played.Generation, 0))
			known++
		}
	}
	if err := t.recordWorkers(gen, KindSelfplay, loop.SelfplayKey(gen), workers); err != nil {
		return err
	}
	m, err := t.stages.SelfplayMetric(t.stages.SelfplayPlan(gen, loop.Best{}, 1), counts, counts.Playing)
	if err != nil {
		return err
	}
	m.PlayedBy = played
	if len(played) > 0 {
		m.Network = played[len(played)-1]
	}
	if known > 0 {
		m.Staleness = behind / known
	}
	if err := t.recordMetric(m); err != nil {
		return err
	}
	t.report(Event{Kind: EventSelfplayDone, Generation: gen, Metric: m})
	return nil
}

// candidate reads the newest candidate (Generation 0: none yet).
func (c *Conn) candidate(ctx context.Context) (Candidate, uint64, error) {
	var cand Candidate
	rev, err := c.getJSON(ctx, keyCandidate, &cand)
	return cand, rev, err
}

// trainLoop is the trainer: a candidate on the newest committed
// generation whenever one is newer than its last, to the recorded target.
func (a *Async) trainLoop(ctx context.Context) error {
	t := a.t
	n := t.cfg.Generations
	for ctx.Err() == nil {
		cand, candRev, err := t.c.candidate(ctx)
		if err != nil {
			return stopped(ctx, err)
		}
		last := cand.Generation - 1 // the last generation trained on
		if n > 0 && last >= n-1 {
			return nil
		}
		s, rev, _, err := t.c.State(ctx)
		if err != nil {
			return stopped(ctx, err)
		}
		gen, target := s.Generation, s.Target
		if !(s.Stage == loop.StageTrain && target > 0 && gen > last) {
			// Nothing under way: the newest committed generation, when
			// it is newer than the last trained on and the run has the
			// positions to train.
			var sp asyncSelfplay
			spRev, err := t.c.getJSON(ctx, keySelfplay, &sp)
			if err != nil {
				return stopped(ctx, err)
			}
			gen = sp.Committed - 1
			if n > 0 {
				gen = min(gen, n-1)
			}
			target = 0
			if gen > last {
				if target, err = t.stages.AsyncTarget(cand.Steps, last, gen); err != nil {
					return stopped(ctx, err)
				}
			}
			if target <= cand.Steps {
				t.report(Event{Kind: EventAwaitingData, Generation: last})
				if err := t.c.waitChange(ctx, keySelfplay, spRev); err != nil {
					return stopped(ctx, err)
				}
				continue
			}
			s = State{State: loop.State{Generation: gen, Stage: loop.StageTrain}, Target: target}
			if rev, err = t.advance(ctx, s, rev); err != nil {
				return stopped(ctx, err)
			}
		}
		m, err := t.trainCandidate(ctx, gen, target, cmp.Or(cand.Key, loop.NetKey(0)))
		if err != nil {
			return stopped(ctx, err)
		}
		ck, err := loop.LoadNet(t.st, loop.NetKey(gen+1))
		if err != nil {
			return stopped(ctx, err)
		}
		next := Candidate{Version: 1, Generation: gen + 1, Key: loop.NetKey(gen + 1), NetworkID: ck.Weights.ID(), Steps: m.TotalSteps}
		if _, err := t.c.casJSON(ctx, keyCandidate, next, candRev); err != nil {
			return stopped(ctx, err)
		}
		// Trained: the gatekeeper's to decide.
		if _, err := t.advance(ctx, State{State: loop.State{Generation: gen, Stage: loop.StageArena}}, rev); err != nil {
			return stopped(ctx, err)
		}
	}
	return nil
}

// gateLoop is the gatekeeper: the newest candidate, as it comes.
func (a *Async) gateLoop(ctx context.Context) error {
	g := a.g
	n := g.cfg.Generations
	for ctx.Err() == nil {
		var gd asyncGated
		gdRev, err := g.c.getJSON(ctx, keyGated, &gd)
		if err != nil {
			return stopped(ctx, err)
		}
		if n > 0 && gd.Candidate >= n {
			return nil
		}
		cand, candRev, err := g.c.candidate(ctx)
		if err != nil {
			return stopped(ctx, err)
		}
		if cand.Generation <= gd.Candidate {
			if err := g.c.waitChange(ctx, keyCandidate, candRev); err != nil {
				return stopped(ctx, err)
			}
			continue
		}
		// The pairs of candidates this gatekeeper began and left for a
		// newer one (it was restarted) are dropped; the newest's own are
		// kept, as its restarted gate reads their results again.
		for c := gd.Candidate + 1; c < cand.Generation; c++ {
			if err := g.c.purge(ctx, KindArena, c-1); err != nil {
				return stopped(ctx, err)
			}
		}
		if err := a.gate(ctx, cand.Generation); err != nil {
			return stopped(ctx, err)
		}
		if _, err := g.c.casJSON(ctx, keyGated, asyncGated{Version: 1, Candidate: cand.Generation}, gdRev); err != nil {
			return stopped(ctx, err)
		}
	}
	return nil
}

// gate plays candidate cand's match (when gated), promotes it or keeps
// the best, and rates the best when the ladder is due, as the exact
// gatekeeper's stages do.
func (a *Async) gate(ctx context.Context, cand int) error {
	g := a.g
	gen := cand - 1
	if g.stages.Gated(cand) {
		if _, err := g.arena(ctx, State{State: loop.State{Generation: gen, Stage: loop.StageArena}}); err != nil {
			return err
		}
	}
	best, m, err := g.decide(ctx, cand)
	if err != nil {
		return err
	}
	if err := loop.SetBest(g.st, best); err != nil {
		return err
	}
	if err := g.recordMetric(m); err != nil {
		return err
	}
	g.report(Event{Kind: EventGate, Generation: gen, Metric: m})
	if g.cfg.Ladder.Every > 0 {
		if _, err := g.ladder(ctx, State{State: loop.State{Generation: gen, Stage: loop.StageLadder}}); err != nil {
			return err
		}
	}
	return nil
}
