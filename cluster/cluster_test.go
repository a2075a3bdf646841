package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rundir"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/store"
)

func TestMain(m *testing.M) {
	if os.Getenv("PALACE_BLAS") == "" {
		os.Setenv("PALACE_BLAS", "off") // batch-independent outputs: a replayed block is the same block
	}
	if os.Getenv("PALACE_KERNEL") == "" {
		os.Setenv("PALACE_KERNEL", "blas") // the same numbers on every CPU
	}
	os.Exit(m.Run())
}

// tinyYAML is loop's unit-test run with checkpoints every 2 steps, 2
// concurrent gate games, matches whose test cannot decide in 4 pairs, and
// accept_score 0, so every candidate is promoted.
func tinyYAML(tb testing.TB) string {
	return looptest.Merge(tb, looptest.TinyYAML, `
train: {checkpoint_every: 2}
arena: {concurrent_games: 2, sprt: {elo1: 5}, accept_score: 0}
`)
}

// logEvents sends a role's or worker's reports to the test's log
// (palace's words for them are cmd/palace's, tested there).
func logEvents(t testing.TB) func(Event) {
	return func(e Event) {
		t.Logf("%s %s: event %d gen %d job %+v train %d/%d err %v", e.Role, e.Name, e.Kind, e.Generation, e.Job, e.Train.Step, e.Train.Target, e.Err)
	}
}

func connect(tb testing.TB, url, name string) *Conn {
	tb.Helper()
	return connectWith(tb, url, name, Settings{AckWait: 2 * time.Second, MaxDeliver: 5})
}

// connectWith is connect with the run's delivery settings set.
func connectWith(tb testing.TB, url, name string, set Settings) *Conn {
	tb.Helper()
	c, err := Connect(context.Background(), url, "t1", name, set)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	return c
}

// startRun starts run t1 of yaml on the server at url, in a new file://
// bucket: the roles' connection, the bucket, its directory and the run's
// config.
func startRun(ctx context.Context, t *testing.T, url, yaml string) (*Conn, store.Store, string, loop.Config) {
	t.Helper()
	return startRunWith(ctx, t, url, yaml, Settings{AckWait: 2 * time.Second, MaxDeliver: 5})
}

// startRunWith is startRun with the run's delivery settings set.
func startRunWith(ctx context.Context, t *testing.T, url, yaml string, set Settings) (*Conn, store.Store, string, loop.Config) {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open("file://" + dir)
	if err != nil {
		t.Fatal(err)
	}
	c := connectWith(t, url, "roles", set)
	cfg, err := Start(ctx, c, st, "file://"+dir, []byte(yaml), "test")
	if err != nil {
		t.Fatal(err)
	}
	return c, st, dir, cfg
}

// A whole run: three workers, one killed mid-job (its job is redelivered
// and finished by another), the trainer killed mid-training and restarted
// (it resumes from its save), every candidate promoted and picked up by
// every live worker; the directory is a loop run directory.
func TestDistributedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("plays and trains two generations")
	}
	url := looptest.NATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	main, st, dir, cfg := startRun(ctx, t, url, tinyYAML(t))

	// The workers, each with a connection of its own, as separate
	// processes would have.
	type deliveries struct {
		sync.Mutex
		by map[string][]string // job ID → the workers it was delivered to, in order
	}
	seen := deliveries{by: map[string][]string{}}
	var killedJob atomic.Value
	workers := make([]*Worker, 3)
	wctx := make([]context.CancelFunc, 3)
	var wg sync.WaitGroup
	for i := range workers {
		c := connect(t, url, "worker")
		w, err := NewWorker(ctx, c, WorkerOptions{Name: string(rune('A' + i)), WorkDir: t.TempDir(), CodeVersion: "test", Progress: logEvents(t)})
		if err != nil {
			t.Fatal(err)
		}
		workers[i] = w
		var once sync.Once
		w.onJob = func(j Job, n uint64) {
			seen.Lock()
			seen.by[j.ID()] = append(seen.by[j.ID()], w.opt.Name)
			seen.Unlock()
			if i == 0 && j.Kind == KindSelfplay {
				once.Do(func() {
					// Killed with a job in hand: the connection goes as a
					// dead process's would, with no nak, no ack, no result.
					killedJob.Store(j.ID())
					c.nc.Close()
					wctx[0]()
				})
			}
		}
		var wc context.Context
		wc, wctx[i] = context.WithCancel(ctx)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(wc); err != nil && i != 0 {
				t.Errorf("worker %s: %v", w.opt.Name, err)
			}
		}()
	}
	defer func() {
		for _, c := range wctx {
			c()
		}
		wg.Wait()
	}()

	gk, err := NewGatekeeper(main, st, cfg, RoleOptions{CodeVersion: "test", Progress: logEvents(t)})
	if err != nil {
		t.Fatal(err)
	}
	gkDone := make(chan error, 1)
	go func() { gkDone <- gk.Run(ctx) }()

	// The first trainer is stopped in the middle of generation 1's
	// training; the second, with an empty work directory, resumes from the
	// save in the store.
	work := t.TempDir()
	tctx, stopTrainer := context.WithCancel(ctx)
	var firstTarget int64
	stoppedAt := int64(-1)
	logged := logEvents(t)
	tr, err := NewTrainer(main, st, cfg, RoleOptions{WorkDir: work, CodeVersion: "test", Progress: func(e Event) {
		logged(e)
		if e.Kind != EventTrain {
			return
		}
		p := e.Train
		if firstTarget == 0 {
			firstTarget = p.Target
		}
		if p.Target > firstTarget && p.Step < p.Target && stoppedAt < 0 {
			stoppedAt = p.Step
			stopTrainer()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Run(tctx); err != nil {
		t.Fatal(err)
	}
	if stoppedAt < 0 {
		t.Fatal("the first trainer was not stopped mid-training")
	}
	s, _, _, err := main.State(ctx)
	if err != nil || s.Generation != 1 || s.Stage != loop.StageTrain {
		t.Fatalf("after the first trainer: %+v, %v", s, err)
	}
	// On another machine: nothing of the first trainer's work directory.
	tr2, err := NewTrainer(main, st, cfg, RoleOptions{WorkDir: t.TempDir(), CodeVersion: "test", Progress: logEvents(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr2.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-gkDone; err != nil {
		t.Fatal(err)
	}

	// The killed worker's job went to another worker and was finished
	// once.
	k, _ := killedJob.Load().(string)
	seen.Lock()
	got := seen.by[k]
	seen.Unlock()
	if k == "" || len(got) < 2 || got[0] != "A" || got[len(got)-1] == "A" {
		t.Errorf("killed job %q was delivered to %v", k, got)
	}
	if workers[0].Played() != 0 {
		t.Errorf("the killed worker finished %d jobs", workers[0].Played())
	}

	checkRun(t, dir, cfg)
	ms, _ := loop.ReadMetrics(st)
	var steps [2]loop.Metric
	for _, m := range ms {
		if m.Stage == loop.StageTrain {
			steps[m.Generation] = m
		}
	}
	// The metric is the whole generation's training, however many
	// trainers it took (loop's train/losses.json, in the store).
	if inc := steps[1].TotalSteps - steps[0].TotalSteps; steps[1].Steps != inc || steps[1].LossSteps != 0 || steps[1].Loss == nil || steps[1].TotalSteps <= stoppedAt {
		t.Errorf("generation 1's training, stopped at step %d and resumed elsewhere: %d steps (losses of %d), want its %d, %d in all", stoppedAt, steps[1].Steps, steps[1].LossSteps, inc, steps[1].TotalSteps)
	}

	// The very networks and matches a local run of the same config makes:
	// the same blocks of games, the same training, resumed exactly, the
	// same gate games.
	local := t.TempDir()
	lst, _ := store.NewDir(local)
	if err := loop.Run(ctx, lst, cfg, loop.Options{CodeVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	lms, _ := loop.ReadMetrics(lst)
	for _, m := range lms {
		if d := steps[m.Generation]; m.Stage == loop.StageTrain && (m.Steps != d.Steps || !reflect.DeepEqual(m.Loss, d.Loss)) {
			t.Errorf("generation %d's training: the local run's %d steps at loss %+v, the distributed run's %d at %+v",
				m.Generation, m.Steps, m.Loss, d.Steps, d.Loss)
		}
	}
	for g := 1; g <= 2; g++ {
		a, err1 := model.Load(filepath.Join(local, loop.NetKey(g)))
		b, err2 := model.Load(filepath.Join(dir, loop.NetKey(g)))
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		if a.Weights.ID() != b.Weights.ID() {
			t.Errorf("generation %d: the local run made %s, the distributed run %s", g, a.Weights.ID(), b.Weights.ID())
		}
		_, lr, err1 := arena.ReadRecords(filepath.Join(local, loop.ArenaKey(g)))
		_, dr, err2 := arena.ReadRecords(filepath.Join(dir, loop.ArenaKey(g)))
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		same := len(lr) == len(dr)
		for i := range lr {
			same = same && i < len(dr) && lr[i].Moves == dr[i].Moves
		}
		if !same {
			// Each pair is seeded as the local match seeds it
			// (TestDistributedGateSeeding).
			t.Errorf("generation %d's match: other games than the local run's", g)
		}
	}

	// A block already in the store (its worker died after uploading,
	// before reporting) is reported from the stored bytes, not replayed.
	m0, err := datasets.ReadManifest(st.Local(loop.SelfplayKey(0)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := workers[1].selfplay(ctx, Job{Kind: KindSelfplay, Generation: 0, Shard: 0, Games: 4})
	if err != nil || r.Shard == nil || r.Shard.SHA256 != m0.Shards[0].SHA256 || r.Plies != 0 {
		t.Errorf("replaying a stored block: %+v, %v", r, err)
	}

	// Every live worker holds the last promoted network.
	best, err := loop.BestOf(st)
	if err != nil || best.Generation != 2 {
		t.Fatalf("best %+v, %v (every candidate should have been promoted)", best, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, w := range workers[1:] {
		for w.BestID() != best.NetworkID && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if w.BestID() != best.NetworkID {
			t.Errorf("worker %s holds %q, the best is %s", w.opt.Name, w.BestID(), best.NetworkID)
		}
	}
}

// checkRun checks a finished run's directory as loop's
// tests check a local run's (looptest.CheckRun), and that each generation
// holds each game index once, every match played all its pairs and every
// candidate was promoted.
func checkRun(t *testing.T, dir string, c loop.Config) {
	t.Helper()
	st, reps, ms := looptest.CheckRun(t, dir, c)
	for g, rep := range reps {
		d := st.Local(loop.SelfplayKey(g))
		m, err := datasets.ReadManifest(d)
		if err != nil {
			t.Fatal(err)
		}
		// Each game index once, none missing: 0 to rounds×games-1.
		ids := map[uint64]bool{}
		for _, s := range m.Shards {
			gf, err := gamerec.Read(selfplay.GamesPath(filepath.Join(d, s.Name)))
			if err != nil {
				t.Fatal(err)
			}
			for _, gr := range gf.Games {
				if ids[gr.ID] {
					t.Errorf("generation %d: game %d twice", g, gr.ID)
				}
				ids[gr.ID] = true
			}
		}
		if len(ids) != rep.Games || len(ids)%c.Selfplay.Games != 0 {
			t.Errorf("generation %d: %d games verified, %d distinct", g, rep.Games, len(ids))
		}
		for i := range uint64(len(ids)) {
			if !ids[i] {
				t.Errorf("generation %d: game %d missing", g, i)
			}
		}
		h, recs, err := arena.ReadRecords(st.Local(loop.ArenaKey(g + 1)))
		if err != nil {
			t.Fatal(err)
		}
		if s := arena.Summarize(h, recs); s.Games != 2*c.Gate.Pairs {
			t.Errorf("match of candidate %d: %+v", g+1, s)
		}
	}
	for _, m := range ms {
		if m.Stage == loop.StageGate && !m.Promoted {
			t.Errorf("gate of generation %d: %+v", m.Generation, m)
		}
	}
	// The workers files: every stage's games, each counted once, by the
	// workers that played them.
	games := map[string]int{}
	for _, role := range []string{"trainer", "gatekeeper"} {
		data, err := st.Read(rundir.WorkersKey(role))
		if err != nil {
			t.Fatal(err)
		}
		w, err := rundir.ParseWorkers(data, role)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range w.Entries {
			n := 0
			for name, j := range e.Workers {
				if name != "A" && name != "B" && name != "C" || j.Jobs == 0 {
					t.Errorf("%s: worker %q %+v", e.Key, name, j)
				}
				n += j.Games
			}
			games[e.Kind+" "+strconv.Itoa(e.Generation)] += n
		}
	}
	for g, rep := range reps {
		if games["selfplay "+strconv.Itoa(g)] != rep.Games || games["arena "+strconv.Itoa(g)] != 2*c.Gate.Pairs {
			t.Errorf("generation %d: the workers files count %v; %d self-play games, %d match games", g, games, rep.Games, 2*c.Gate.Pairs)
		}
	}
}

// A second trainer's state change is refused: the run's state moves only
// by compare-and-swap.
func TestStateCAS(t *testing.T) {
	url := looptest.NATS(t)
	c := connect(t, url, "cas")
	ctx := context.Background()
	st, _ := store.NewDir(t.TempDir())
	if _, err := Start(ctx, c, st, "file:///x", []byte(tinyYAML(t)), "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(ctx, c, st, "file:///x", []byte(tinyYAML(t)+"\n# changed\n"), "test"); err == nil {
		t.Error("a second start with another config was accepted")
	}
	s, rev, ok, err := c.State(ctx)
	if err != nil || !ok || s.Stage != loop.StageSelfplay {
		t.Fatalf("%+v %v %v", s, ok, err)
	}
	if _, err := c.casJSON(ctx, keyState, State{State: loop.State{Version: 1, Stage: loop.StageTrain}}, rev); err != nil {
		t.Fatal(err)
	}
	if _, err := c.casJSON(ctx, keyState, State{State: loop.State{Version: 1, Stage: loop.StageArena}}, rev); !errors.Is(err, ErrConflict) {
		t.Errorf("a stale compare-and-swap: %v", err)
	}
	var b json.RawMessage
	if _, err := c.getJSON(ctx, keyBest, &b); err != nil || !strings.Contains(string(b), loop.NetKey(0)) {
		t.Errorf("best %s, %v", b, err)
	}
}

func TestConnectErrors(t *testing.T) {
	for _, tc := range []struct{ url, run, want string }{
		{"nats://127.0.0.1:1", "ok", "connecting"},
		{"nats://127.0.0.1:1", "bad name", "run name"},
		{"", "ok", "no NATS URL"},
	} {
		_, err := Connect(context.Background(), tc.url, tc.run, "t", Settings{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %q: %v, want %q", tc.url, tc.run, err, tc.want)
		}
	}
}

// The queue's delivery rules with a stub handler: a slow job stays with
// its live worker (in-progress signals), a job failing on every delivery
// ends as a failed result after MaxDeliver deliveries, and purged jobs are
// gone.
func TestDelivery(t *testing.T) {
	url := looptest.NATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Connect(ctx, url, "d", "test", Settings{AckWait: time.Second, MaxDeliver: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var mu sync.Mutex
	deliveries := map[string]int{}
	handler := func(ctx context.Context, j Job) (Result, error) {
		mu.Lock()
		deliveries[j.ID()]++
		mu.Unlock()
		if j.Shard == 1 {
			return Result{}, errors.New("always fails")
		}
		select {
		case <-time.After(2500 * time.Millisecond): // 2.5 AckWaits
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
		return Result{Games: 1}, nil
	}
	var wg sync.WaitGroup
	wctx, stop := context.WithCancel(ctx)
	for i := range 2 {
		w, err := NewWorker(ctx, c, WorkerOptions{Name: string(rune('a' + i)), Handler: handler})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); w.Run(wctx) }()
	}
	if err := c.enqueue(ctx, []Job{{Kind: KindSelfplay, Shard: 0}}); err != nil {
		t.Fatal(err)
	}
	err = c.followResults(ctx, KindSelfplay, 0, func(r *Result) (bool, error) { return true, nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := c.enqueue(ctx, []Job{{Kind: KindSelfplay, Generation: 1, Shard: 1}}); err != nil {
		t.Fatal(err)
	}
	err = c.followResults(ctx, KindSelfplay, 1, func(r *Result) (bool, error) { return true, nil })
	if err == nil || !strings.Contains(err.Error(), "always fails") {
		t.Errorf("a job failing on every delivery: %v", err)
	}
	stop()
	wg.Wait()
	mu.Lock()
	if n := deliveries["selfplay-g0000-s000000"]; n != 1 {
		t.Errorf("a slow job was delivered %d times", n)
	}
	if n := deliveries["selfplay-g0001-s000001"]; n != 2 {
		t.Errorf("a failing job was delivered %d times, MaxDeliver is 2", n)
	}
	mu.Unlock()

	// A job its workers die on (fetched, never acknowledged) ends in the
	// server's advisory once MaxDeliver deliveries are spent.
	if err := c.enqueue(ctx, []Job{{Kind: KindSelfplay, Generation: 2, Shard: 2}}); err != nil {
		t.Fatal(err)
	}
	dctx, dying := context.WithCancel(ctx)
	dead := make(chan struct{})
	go func() {
		defer close(dead)
		cons, err := c.js.Consumer(dctx, c.jobsStream(), workersConsumer)
		if err != nil {
			return
		}
		for dctx.Err() == nil {
			b, err := cons.Fetch(1, jetstream.FetchContext(dctx))
			if err != nil {
				return
			}
			for range b.Messages() {
			}
		}
	}()
	err = c.followResults(ctx, KindSelfplay, 2, func(r *Result) (bool, error) { return true, nil })
	if err == nil || !strings.Contains(err.Error(), "never finished") {
		t.Errorf("a job its workers die on: %v", err)
	}
	dying()
	<-dead

	// Purged: a decided match's pairs still queued.
	jobs := []Job{{Kind: KindArena, Generation: 3, Pair: 0}, {Kind: KindArena, Generation: 3, Pair: 1}, {Kind: KindArena, Generation: 4, Pair: 0}}
	if err := c.enqueue(ctx, jobs); err != nil {
		t.Fatal(err)
	}
	if err := c.purge(ctx, KindArena, 3); err != nil {
		t.Fatal(err)
	}
	count := func(gen int) uint64 {
		subj := c.jobSubject(KindArena, gen)
		info, err := c.jobs.Info(ctx, jetstream.WithSubjectFilter(subj))
		if err != nil {
			t.Fatal(err)
		}
		return info.State.Subjects[subj]
	}
	if n3, n4 := count(3), count(4); n3 != 0 || n4 != 1 {
		t.Errorf("after purging generation 3: %d of its jobs, %d of generation 4's", n3, n4)
	}
	// Enqueued again (a restarted role): stored once.
	if err := c.enqueue(ctx, jobs[2:]); err != nil {
		t.Fatal(err)
	}
	if n := count(4); n != 1 {
		t.Errorf("a job enqueued twice is stored %d times", n)
	}
}

// A run with reanalysis, which the distributed roles do not play, is
// refused when it starts and when a role joins with such a config.
func TestReanalysisRefused(t *testing.T) {
	url := looptest.NATS(t)
	c := connect(t, url, "reanalysis")
	ctx := context.Background()
	st, _ := store.NewDir(t.TempDir())
	yml := looptest.Merge(t, tinyYAML(t), "reanalysis: {positions: 100}")
	if _, err := Start(ctx, c, st, "file:///x", []byte(yml), "test"); err == nil || !strings.Contains(err.Error(), "local loop only") {
		t.Errorf("a distributed run with reanalysis started: %v", err)
	}
	cfg, err := loop.ParseConfig([]byte(yml), "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewTrainer(c, st, cfg, RoleOptions{WorkDir: t.TempDir(), CodeVersion: "test"}); err == nil || !strings.Contains(err.Error(), "local loop only") {
		t.Errorf("a trainer joined with reanalysis: %v", err)
	}
}
