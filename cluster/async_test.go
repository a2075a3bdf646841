package cluster

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/store"
)

// An asynchronous run: two workers play self-play ahead of training, the
// trainer trains whenever a generation is committed, the gatekeeper gates
// the newest candidate; the roles are stopped after the first candidate
// and restarted with an empty work directory, and the run finishes with
// every generation's games each once, every candidate it made trained on
// committed data, the last one gated, and the state saying the run is
// done.
func TestAsyncRun(t *testing.T) {
	if testing.Short() {
		t.Skip("plays and trains four generations")
	}
	const gens = 4
	url := looptest.NATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	yaml := looptest.Merge(t, tinyYAML(t), `
generations: 4
async: {enabled: true, lead: 2, catch_up: 1}
`)
	main, st, dir, cfg := startRun(ctx, t, url, yaml)

	var wg sync.WaitGroup
	wctx, stopWorkers := context.WithCancel(ctx)
	workers := make([]*Worker, 2)
	for i := range workers {
		w, err := NewWorker(ctx, connect(t, url, "worker"), WorkerOptions{Name: string(rune('A' + i)), WorkDir: t.TempDir(),
			CodeVersion: "test", Progress: logEvents(t), UntilDone: true})
		if err != nil {
			t.Fatal(err)
		}
		workers[i] = w
		wg.Go(func() {
			if err := w.Run(wctx); err != nil {
				t.Errorf("worker %s: %v", w.opt.Name, err)
			}
		})
	}
	defer func() { stopWorkers(); wg.Wait() }()

	// The first roles stop once their first candidate is written.
	logged := logEvents(t)
	rctx, stopRoles := context.WithCancel(ctx)
	first, err := NewAsync(main, st, cfg, RoleOptions{WorkDir: t.TempDir(), CodeVersion: "test", Progress: func(e Event) {
		logged(e)
		if e.Kind == EventCandidate {
			stopRoles()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Run(rctx); err != nil {
		t.Fatal(err)
	}
	// Stopped between the candidate's file and its publication: the
	// restarted trainer finds its target reached and publishes it.
	cand, _, err := main.candidate(ctx)
	if s, _, _, err2 := main.State(ctx); err != nil || err2 != nil || cand.Generation != 0 || s.Stage != loop.StageTrain || s.Target <= 0 {
		t.Fatalf("after the first roles: candidate %+v, state %+v, %v, %v", cand, s, err, err2)
	}
	second, err := NewAsync(main, st, cfg, RoleOptions{WorkDir: t.TempDir(), CodeVersion: "test", Progress: logEvents(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Run(ctx); err != nil {
		t.Fatal(err)
	}
	// The workers stop by themselves: the state says the run is done.
	wg.Wait()

	s, _, _, err := main.State(ctx)
	if err != nil || s.Generation != gens || s.Stage != loop.StageSelfplay {
		t.Errorf("final state %+v, %v", s, err)
	}
	if st, err := main.Status(ctx, time.Minute); err != nil || st.Async == nil ||
		st.Async.Committed != gens || st.Async.Queued != gens || st.Async.Candidate.Generation != gens || st.Async.Gated != gens {
		t.Errorf("status %+v (async %+v), %v", st, st.Async, err)
	}

	checkAsyncRun(t, dir, st, cfg)
	best, err := loop.BestOf(st)
	if err != nil || best.Generation != gens {
		t.Errorf("best %+v, %v; want generation %d", best, err, gens)
	}
}

// In an asynchronous run's queue, gate and ladder pairs go before the
// self-play blocks queued ahead of them; the exact loop's queue keeps
// its one consumer, which a run with jobs queued is not switched from.
func TestAsyncQueuePriority(t *testing.T) {
	url := looptest.NATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Connect(ctx, url, "prio", "test", Settings{AckWait: 30 * time.Second, MaxDeliver: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	blocks := []Job{{Kind: KindSelfplay, Generation: 3}, {Kind: KindSelfplay, Generation: 3, Shard: 1}, {Kind: KindSelfplay, Generation: 4}}
	if err := c.enqueue(ctx, []Job{{Kind: KindSelfplay, Generation: 9}}); err != nil {
		t.Fatal(err)
	}
	if err := c.UseAsyncQueue(ctx); err == nil {
		t.Fatal("a queue holding the exact loop's jobs was switched")
	}
	if err := c.purge(ctx, KindSelfplay, 9); err != nil {
		t.Fatal(err)
	}
	if err := c.UseAsyncQueue(ctx); err != nil {
		t.Fatal(err)
	}
	if names, err := c.consumerNames(ctx); err != nil || len(names) != len(asyncConsumers) {
		t.Fatalf("consumers %v, %v", names, err)
	}
	// The settings carried over, and a reconnecting role keeps the layout.
	c2, err := Connect(ctx, url, "prio", "test", Settings{})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if set, err := c2.Settings(ctx); err != nil || set.AckWait != 30*time.Second || set.MaxDeliver != 3 {
		t.Errorf("settings after the switch: %+v, %v", set, err)
	}

	pair := Job{Kind: KindArena, Generation: 2, Pair: 1, Candidate: loop.NetKey(3)}
	rung := Job{Kind: KindLadder, Generation: 2, Rung: 1}
	if err := c.enqueue(ctx, append(blocks, rung, pair)); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	w, err := NewWorker(ctx, c2, WorkerOptions{Name: "w", WorkDir: t.TempDir(), Handler: func(_ context.Context, j Job) (Result, error) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, j.ID())
		if len(order) == 5 {
			stop()
		}
		return Result{}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Run(wctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(order) != 5 || order[0] != pair.ID() || order[1] != rung.ID() {
		t.Errorf("jobs taken in the order %v, want %s, then %s first", order, pair.ID(), rung.ID())
	}
}

// checkAsyncRun checks a finished asynchronous run of cfg.Generations
// generations: each generation committed with every game index once and
// its records beside each shard, each candidate trained on committed
// generations within the ratio, its parent the one before, the last one
// gated after a whole match.
func checkAsyncRun(t *testing.T, dir string, st store.Store, cfg loop.Config) {
	t.Helper()
	gens := cfg.Generations
	ms, err := loop.ReadMetrics(st)
	if err != nil {
		t.Fatal(err)
	}
	selfplays, trained := map[int]loop.Metric{}, map[int]loop.Metric{}
	gates := 0
	for _, m := range ms {
		t.Logf("metric: generation %d %s: network %s played by %v staleness %.2f, steps %d, promoted %v", m.Generation, m.Stage, m.Network, m.PlayedBy, m.Staleness, m.TotalSteps, m.Promoted)
		switch m.Stage {
		case loop.StageSelfplay:
			selfplays[m.Generation] = m
		case loop.StageTrain:
			trained[m.Generation] = m
		case loop.StageGate:
			gates++
			if !m.Promoted {
				t.Errorf("gate %+v: not promoted", m)
			}
		}
	}
	// Every generation committed, each game index once.
	for g := range gens {
		m, ok := selfplays[g]
		if !ok || m.Games != cfg.Selfplay.Games || len(m.PlayedBy) == 0 {
			t.Errorf("generation %d's self-play metric %+v", g, m)
		}
		d := filepath.Join(dir, loop.SelfplayKey(g))
		man, err := datasets.ReadManifest(d)
		if err != nil {
			t.Fatal(err)
		}
		if man.Records() != m.Positions {
			t.Errorf("generation %d: the manifest lists %d positions, its metric %d", g, man.Records(), m.Positions)
		}
		ids := map[uint64]bool{}
		for _, sh := range man.Shards {
			gf, err := gamerec.Read(selfplay.GamesPath(filepath.Join(d, sh.Name)))
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(gf.Games)) != sh.Games {
				t.Errorf("%s: %d game records, the shard %d games", sh.Name, len(gf.Games), sh.Games)
			}
			for _, gr := range gf.Games {
				if ids[gr.ID] {
					t.Errorf("generation %d: game %d twice", g, gr.ID)
				}
				ids[gr.ID] = true
			}
		}
		for i := range uint64(cfg.Selfplay.Games) {
			if !ids[i] {
				t.Errorf("generation %d: game %d missing", g, i)
			}
		}
	}
	// Candidates: each trained on committed generations, its parent the
	// one before, steps never beyond the config's ratio; the last is
	// generation gens's.
	if _, ok := trained[gens-1]; !ok {
		t.Errorf("no candidate trained on generation %d: %v", gens-1, trained)
	}
	parent := ""
	for g := range gens {
		m, ok := trained[g]
		if !ok {
			continue
		}
		total, _ := loop.Positions(st, 0, g)
		if m.TotalSteps <= 0 || m.TotalSteps > cfg.Train.Steps(total) {
			t.Errorf("candidate %d: %d steps, the ratio allows %d", g+1, m.TotalSteps, cfg.Train.Steps(total))
		}
		ck, err := model.Load(filepath.Join(dir, loop.NetKey(g+1)))
		if err != nil {
			t.Fatal(err)
		}
		if parent != "" && ck.Provenance.Parent != parent {
			t.Errorf("candidate %d's parent %s, want the last candidate %s", g+1, ck.Provenance.Parent, parent)
		}
		parent = ck.Weights.ID()
	}
	if gates == 0 || gates > len(trained) {
		t.Errorf("%d gates for %d candidates", gates, len(trained))
	}
	if h, recs, err := arena.ReadRecords(filepath.Join(dir, loop.ArenaKey(gens))); err != nil {
		t.Error(err)
	} else if sum := arena.Summarize(h, recs); sum.Games != 2*cfg.Gate.Pairs {
		t.Errorf("the last candidate's match: %+v", sum)
	}
}
