package cluster

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/ladder"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/store"
)

// A distributed ladder stage plays the local one's games: the
// gatekeeper's climb, each rung's pairs played by a worker, leaves the
// rung record files and the rating that a local run's ladder stage leaves
// for the same best network and config.
func TestDistributedLadder(t *testing.T) {
	if _, err := os.Stat(ladder.DefaultEngine); err != nil {
		if os.Getenv("PALACE_REQUIRE_FSF") != "" {
			t.Fatalf("PALACE_REQUIRE_FSF is set: %v", err)
		}
		t.Skipf("no Fairy-Stockfish: %v", err)
	}
	if testing.Short() {
		t.Skip("plays a calibration and two ladders")
	}
	rs, err := rules.Preset("xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	scale, err := ladder.Calibrate(context.Background(), ladder.Calibration{
		Settings: ladder.Settings{Settings: arena.Settings{Pairs: 1, Concurrency: 2}, Seed: 1, Dir: t.TempDir()},
		RuleSet:  rs, Program: ladder.DefaultEngine, Nodes: []int{1, 100}})
	if err != nil {
		t.Fatal(err)
	}
	scaleFile := filepath.Join(t.TempDir(), "scale.json")
	if err := scale.Save(scaleFile); err != nil {
		t.Fatal(err)
	}
	yaml := looptest.Merge(t, tinyYAML(t), "ladder: {every: 1, pairs: 2, simulations: 2, concurrent_games: 2, scale: "+scaleFile+"}")
	url := looptest.NATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c, st, _, cfg := startRun(ctx, t, url, yaml)
	// Generation 0's gate promoted a candidate (another random network):
	// the ladder stage that follows is due.
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
	best := loop.Best{Generation: 1, Key: loop.NetKey(1), NetworkID: cand.Weights.ID()}
	ladderStage := loop.State{Version: 1, Generation: 0, Stage: loop.StageLadder}
	setUp := func(s store.Store) {
		t.Helper()
		if err := loop.SaveNet(s, loop.NetKey(1), cand); err != nil {
			t.Fatal(err)
		}
		if err := loop.SetBest(s, best); err != nil {
			t.Fatal(err)
		}
		if err := loop.RecordMetric(s, loop.Metric{Generation: 0, Stage: loop.StageGate, Promoted: true}); err != nil {
			t.Fatal(err)
		}
	}
	setUp(st)
	_, brev, err := c.Best(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.casJSON(ctx, keyBest, best, brev); err != nil {
		t.Fatal(err)
	}
	_, rev, _, err := c.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.casJSON(ctx, keyState, State{State: ladderStage}, rev); err != nil {
		t.Fatal(err)
	}

	w, err := NewWorker(ctx, connect(t, url, "worker"), WorkerOptions{Name: "w", WorkDir: t.TempDir(), CodeVersion: "test", Slots: 2,
		Engines: []string{ladder.DefaultEngine}})
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

	// The local ladder: a run directory at the same stage.
	lst, err := store.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data, err := st.Read(loop.NetKey(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := lst.Write(loop.NetKey(0), data); err != nil {
		t.Fatal(err)
	}
	setUp(lst)
	if err := loop.WriteState(lst, ladderStage); err != nil {
		t.Fatal(err)
	}
	if err := loop.Run(ctx, lst, cfg, loop.Options{CodeVersion: "test",
		StopAfter: func(s loop.State) bool { return s.Stage == loop.StageSelfplay }}); err != nil {
		t.Fatal(err)
	}

	var ratings [2]*ladder.Rating
	for i, s := range []store.Store{st, lst} {
		ms, err := loop.ReadMetrics(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Stage == loop.StageLadder {
				ratings[i] = m.Rating
			}
		}
	}
	d, l := ratings[0], ratings[1]
	if d == nil || l == nil {
		t.Fatalf("ratings: distributed %+v, local %+v", d, l)
	}
	if d.Player != l.Player || d.Elo != l.Elo || d.Lo != l.Lo || d.Hi != l.Hi || d.Games != l.Games || len(d.Rungs) != len(l.Rungs) {
		t.Errorf("distributed rating %+v, local %+v", d, l)
	}
	for _, rr := range l.Rungs {
		key := loop.LadderRungKey(0, ladder.Rung{Nodes: rr.Nodes, Player: rr.Player})
		dh, dr, err := arena.ReadRecords(st.Local(key))
		if err != nil {
			t.Fatal(err)
		}
		lh, lr, err := arena.ReadRecords(lst.Local(key))
		if err != nil {
			t.Fatal(err)
		}
		if dh.A != lh.A || dh.B != lh.B || dh.OpeningsKey != lh.OpeningsKey || dh.Seed != lh.Seed || len(dr) != len(lr) {
			t.Fatalf("%s: distributed header %+v (%d games), local %+v (%d)", key, dh, len(dr), lh, len(lr))
		}
		for i := range lr {
			if !reflect.DeepEqual(dr[i], lr[i]) {
				t.Errorf("%s record %d: distributed %+v, local %+v", key, i, dr[i], lr[i])
			}
		}
	}
	if _, err := ladder.ReadRating(st.Local(loop.LadderKey(0))); err != nil {
		t.Errorf("the distributed rating file: %v", err)
	}
}
