package cluster

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/store"
)

// A distributed gate plays the local gate's games: the gatekeeper's
// pairs, played by a worker, leave the record file (header, moves,
// results) that a local run's arena stage writes for the same candidate,
// best and config, and the gate decides as the local one. The gate's
// search draws Gumbel noise at the root, so its moves follow the games'
// seeds: a pair seeded otherwise than the local match plays other games.
func TestDistributedGateSeeding(t *testing.T) {
	yaml := strings.Replace(tinyYAML(t), "  simulations: 4\n", "  simulations: 4\n  search: {gumbel_scale: 1}\n", 1)
	url := looptest.NATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, st, _, cfg := startRun(ctx, t, url, yaml)
	if cfg.Gate.Search.GumbelScale != 1 {
		t.Fatalf("the gate's search has gumbel_scale %v", cfg.Gate.Search.GumbelScale)
	}
	// The candidate: another random network, no training needed.
	other := cfg
	other.NetworkSeed = 99
	stages, err := loop.NewStages(st, cfg, "test")
	if err != nil {
		t.Fatal(err)
	}
	cand, err := loop.InitialNetwork(other, stages.Rules, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := loop.SaveNet(st, loop.NetKey(1), cand); err != nil {
		t.Fatal(err)
	}
	_, rev, _, err := c.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	arenaStage := State{State: loop.State{Version: 1, Generation: 0, Stage: loop.StageArena}}
	if _, err := c.casJSON(ctx, keyState, arenaStage, rev); err != nil {
		t.Fatal(err)
	}
	best, err := loop.BestOf(st)
	if err != nil {
		t.Fatal(err)
	}

	// The distributed gate: the gatekeeper's arena stage, one worker.
	w, err := NewWorker(ctx, connect(t, url, "worker"), WorkerOptions{Name: "w", WorkDir: t.TempDir(), CodeVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	wctx, stopWorker := context.WithCancel(ctx)
	workerDone := make(chan error, 1)
	go func() { workerDone <- w.Run(wctx) }()
	gk, err := NewGatekeeper(c, st, cfg, RoleOptions{CodeVersion: "test", Progress: logEvents(t),
		StopAfter: func(s State) bool { return s.Stage == loop.StageSelfplay }})
	if err != nil {
		t.Fatal(err)
	}
	if err := gk.Run(ctx); err != nil {
		t.Fatal(err)
	}
	stopWorker()
	if err := <-workerDone; err != nil {
		t.Fatal(err)
	}

	// The local gate: a run directory holding the same networks, at the
	// same stage.
	lst, err := store.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{loop.NetKey(0), loop.NetKey(1)} {
		data, err := st.Read(key)
		if err != nil {
			t.Fatal(err)
		}
		if err := lst.Write(key, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := loop.SetBest(lst, best); err != nil {
		t.Fatal(err)
	}
	if err := loop.WriteState(lst, arenaStage.State); err != nil {
		t.Fatal(err)
	}
	if err := loop.Run(ctx, lst, cfg, loop.Options{CodeVersion: "test",
		StopAfter: func(s loop.State) bool { return s.Stage == loop.StageSelfplay }}); err != nil {
		t.Fatal(err)
	}

	dh, dr, err := arena.ReadRecords(st.Local(loop.ArenaKey(1)))
	if err != nil {
		t.Fatal(err)
	}
	lh, lr, err := arena.ReadRecords(lst.Local(loop.ArenaKey(1)))
	if err != nil {
		t.Fatal(err)
	}
	dh.Started, lh.Started = time.Time{}, time.Time{}
	if dh.A != lh.A || dh.B != lh.B || dh.RuleSet != lh.RuleSet || dh.OpeningsKey != lh.OpeningsKey || dh.Pairs != lh.Pairs ||
		dh.Seed != lh.Seed || *dh.SPRT != *lh.SPRT {
		t.Errorf("the distributed match's header %+v, the local one's %+v", dh, lh)
	}
	if len(lr) != 2*cfg.Gate.Pairs || len(dr) != len(lr) {
		t.Fatalf("%d local games, %d distributed, want %d", len(lr), len(dr), 2*cfg.Gate.Pairs)
	}
	for i := range lr {
		if !reflect.DeepEqual(dr[i], lr[i]) {
			t.Errorf("pair %d game %d: distributed %+v, local %+v", lr[i].Pair, lr[i].Game, dr[i], lr[i])
		}
	}

	gates := [2]loop.Metric{}
	for i, s := range []store.Store{st, lst} {
		ms, err := loop.ReadMetrics(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Stage == loop.StageGate {
				gates[i] = m
			}
		}
		if b, err := loop.BestOf(s); err != nil || b.Key != loop.NetKey(1) {
			t.Errorf("best after the gate: %+v, %v (accept_score 0 promotes)", b, err)
		}
	}
	if d, l := gates[0], gates[1]; d.Match == nil || l.Match == nil || !d.Promoted || d.Promoted != l.Promoted ||
		d.Reason != l.Reason || d.Best != l.Best || *d.Match != *l.Match {
		t.Errorf("the distributed gate %+v, the local one %+v", d, l)
	}

	// The games follow the seeds: pair 0 under another match seed is
	// another pair of games.
	m, err := stages.GateMatch(1, best)
	if err != nil {
		t.Fatal(err)
	}
	m.Seed++
	alt, err := arena.PlayPairs(ctx, *m, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if alt[0].Moves == lr[0].Moves && alt[1].Moves == lr[1].Moves {
		t.Error("pair 0 played the same games under another seed: the test cannot tell seedings apart")
	}
}
