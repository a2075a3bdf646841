package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/store"
)

// Handler plays one job. The worker's own handler plays self-play blocks
// and arena pairs; benchmarks stub it to measure the coordination alone.
type Handler func(ctx context.Context, job Job) (Result, error)

// WorkerOptions are a worker's settings.
type WorkerOptions struct {
	// Name identifies the worker in results and logs (default: host-pid).
	Name string
	// Slots is the number of jobs played at once (default 1: a self-play
	// block already plays many games at once).
	Slots int
	// WorkDir holds the jobs' temporary files (default: the system's
	// temporary directory).
	WorkDir string
	// Progress, when set, receives the worker's reports (see EventKind),
	// one at a time, from its goroutines; the command draws them.
	Progress func(Event)
	// Handler replaces the worker's own (benchmarks).
	Handler Handler
	// CodeVersion goes into every artifact.
	CodeVersion string
	// Bucket overrides the store the run published (a worker that mounts
	// a shared file system at another path).
	Bucket store.Store
	// UntilDone stops the worker once the run has played its config's
	// generations (a trainer given more on its command line goes on
	// without it).
	UntilDone bool
	// Engines are the external programs this worker may run, as its
	// operator allowed them (palace worker --engine). The run's config
	// comes from the server, which anyone who reaches it can write, so a
	// run whose ladder plays any other program is refused at join.
	Engines []string
}

// ErrWorkerSetup is wrapped by errors that are the worker's own (its work
// directory, the engines its operator allowed), not its job's: such a job
// goes back to the queue for another worker, and this one stops.
var ErrWorkerSetup = errors.New("cluster: this worker's set-up")

// Worker plays jobs from the queue. It keeps no state of its own: any
// number may run, join or leave at any time.
type Worker struct {
	c      *Conn
	opt    WorkerOptions
	st     store.Store
	cfg    loop.Config
	stages *loop.Stages

	mu    sync.Mutex
	nets  map[string]*model.Weights // by key: the best and the last used
	best  loop.Best
	state State
	match struct {
		key string
		m   *arena.Match
	}

	stop     context.CancelCauseFunc // ends Run with its cause
	played   atomic.Int64
	busy     atomic.Int64         // nanoseconds of jobs in hand, over all slots
	inHand   map[string]time.Time // jobs being played, by ID, and since when (guarded by mu)
	reportMu sync.Mutex           // one report at a time
	// onJob, when set, sees every job before it is played, with its
	// delivery count (tests).
	onJob func(Job, uint64)
}

// NewWorker joins the run c is connected to; it needs the run's info,
// published by the trainer or palace run --distributed.
func NewWorker(ctx context.Context, c *Conn, opt WorkerOptions) (*Worker, error) {
	if opt.Slots <= 0 {
		opt.Slots = 1
	}
	if opt.Name == "" {
		host, _ := os.Hostname()
		opt.Name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	w := &Worker{c: c, opt: opt, nets: map[string]*model.Weights{}, inHand: map[string]time.Time{}}
	// The worker's own set-up is checked before it takes a job: a worker
	// that cannot play would only fail every job it is handed.
	if err := checkWorkDir(opt.WorkDir); err != nil {
		return nil, err
	}
	if opt.Handler != nil {
		return w, nil
	}
	var ri RunInfo
	for said := false; ; said = true {
		var ok bool
		var err error
		if ri, ok, err = c.Info(ctx); err != nil {
			return nil, err
		} else if ok {
			break
		}
		// The worker started before the run: wait for it.
		if !said {
			w.report(Event{Kind: EventWaitingRun, Run: c.Run})
		}
		if err := c.waitChange(ctx, keyRun, 0); err != nil {
			return nil, err
		}
	}
	cfg, err := loop.ParseConfig([]byte(ri.Config), "the run's config")
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	w.cfg = cfg
	if err := w.checkEngine(); err != nil {
		return nil, err
	}
	w.st = opt.Bucket
	if w.st == nil {
		if w.st, err = OpenStore(ri.Bucket); err != nil {
			return nil, fmt.Errorf("cluster: the run's bucket: %w", err)
		}
	}
	// A shared directory not mounted here would otherwise be an empty
	// local one, and the worker's shards would reach no one.
	saved, err := w.st.Read(loop.ConfigKey)
	if err != nil {
		return nil, fmt.Errorf("cluster: %s does not hold the run's %s (is the shared directory mounted here? give its path with --bucket): %w", w.st, loop.ConfigKey, err)
	}
	if string(saved) != ri.Config {
		return nil, fmt.Errorf("cluster: %s holds another run's %s than run %s's (give the run's own bucket with --bucket)", w.st, loop.ConfigKey, c.Run)
	}
	if w.stages, err = loop.NewStages(w.st, cfg, opt.CodeVersion); err != nil {
		return nil, err
	}
	w.report(Event{Kind: EventJoined, Run: c.Run, Bucket: ri.Bucket})
	return w, nil
}

// checkWorkDir checks that the worker can make its jobs' temporary
// directories in dir ("": the system's).
func checkWorkDir(dir string) error {
	d, err := os.MkdirTemp(dir, "palace-check-")
	if err != nil {
		if dir == "" {
			dir = os.TempDir()
		}
		return fmt.Errorf("%w: work directory %s: %w", ErrWorkerSetup, dir, err)
	}
	return os.Remove(d)
}

// checkEngine refuses a run whose ladder plays a program that the
// worker's operator did not allow.
func (w *Worker) checkEngine() error {
	if w.cfg.Ladder.Every <= 0 {
		return nil
	}
	prog, err := w.cfg.Ladder.Program(w.cfg.Rules)
	if err != nil {
		return fmt.Errorf("cluster: run %s's ladder: %w", w.c.Run, err)
	}
	ok, err := EngineAllowed(prog, w.opt.Engines)
	if err != nil {
		return fmt.Errorf("%w: run %s's ladder plays engine %s: %w", ErrWorkerSetup, w.c.Run, prog, err)
	}
	if !ok {
		return fmt.Errorf("%w: run %s's ladder plays engine %s, which this worker is not allowed to run: a worker runs only the programs its operator names (palace worker --engine %s), as the run's config comes from the NATS server", ErrWorkerSetup, w.c.Run, prog, prog)
	}
	return nil
}

// EngineAllowed says whether program is one of allowed: the same file
// once each is found (a bare name on $PATH) and its links followed. A
// program not found is an error.
func EngineAllowed(program string, allowed []string) (bool, error) {
	p, err := resolveProgram(program)
	if err != nil {
		return false, err
	}
	for _, a := range allowed {
		if q, err := resolveProgram(a); err == nil && q == p {
			return true, nil
		}
	}
	return false, nil
}

func resolveProgram(program string) (string, error) {
	p, err := exec.LookPath(program)
	if err != nil {
		return "", err
	}
	if p, err = filepath.Abs(p); err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(p)
}

// Played is the number of jobs this worker finished.
func (w *Worker) Played() int64 { return w.played.Load() }

// Busy is the time this worker has held jobs, summed over its slots:
// its busy share is Busy over Slots times its running time.
func (w *Worker) Busy() time.Duration { return time.Duration(w.busy.Load()) }

// BestID is the ID of the best network the worker holds loaded ("" before
// the first).
func (w *Worker) BestID() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.best.NetworkID
}

// report sends e, from this worker, to WorkerOptions.Progress.
func (w *Worker) report(e Event) {
	if w.opt.Progress == nil {
		return
	}
	w.reportMu.Lock()
	defer w.reportMu.Unlock()
	e.Role, e.Name = "worker", w.opt.Name
	w.opt.Progress(e)
}

// Run plays jobs until ctx is cancelled; jobs in progress then are handed
// back to the queue whole (requeue), so another worker takes them at once.
func (w *Worker) Run(parent context.Context) error {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	began, busyBefore := time.Now(), w.Busy()
	defer func() {
		if w.opt.Handler == nil {
			w.report(Event{Kind: EventWorkerStopped, Seconds: time.Since(began).Seconds(), Busy: (w.Busy() - busyBefore).Seconds(), Slots: w.opt.Slots})
		}
	}()
	// The first heartbeat is written before any job is pulled: a worker
	// shows in palace status from its start, not a BeatEvery later.
	w.mu.Lock()
	w.stop = cancel
	first := w.beatLocked()
	w.mu.Unlock()
	w.c.putWorkerBeat(ctx, first)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.heartbeats(ctx) }()
	defer func() { // every return has waited for wg: no job will beat again
		dctx, dcancel := context.WithTimeout(context.WithoutCancel(parent), 5*time.Second)
		w.c.deleteWorkerBeat(dctx, w.opt.Name)
		dcancel()
	}()
	if w.opt.Handler == nil {
		wg.Add(2)
		go func() { defer wg.Done(); w.watch(ctx, keyBest, cancel) }()
		go func() { defer wg.Done(); w.watch(ctx, keyState, cancel) }()
	}
	// The exact loop's one consumer, or the asynchronous loop's one a job
	// kind, pulled from in their order: gate pairs, ladder pairs, blocks.
	queue, err := w.c.queue(ctx)
	if err != nil {
		cancel(nil)
		wg.Wait()
		if parent.Err() != nil {
			return nil
		}
		return err
	}
	ackWait := queue[0].CachedInfo().Config.AckWait
	maxDeliver := queue[0].CachedInfo().Config.MaxDeliver
	slots := make(chan struct{}, w.opt.Slots)
	// "waiting for jobs" is said when the worker starts, and again each
	// time it has nothing to play after a job.
	idle := w.opt.Handler == nil
	if idle {
		w.report(Event{Kind: EventIdle, Slots: w.opt.Slots})
	}
	for ctx.Err() == nil {
		if w.opt.UntilDone && w.done() {
			w.report(Event{Kind: EventRunDone, Generation: w.cfg.Generations})
			break
		}
		// Fetch only as many jobs as there are free slots: a job waiting in
		// this process is one another worker could be playing.
		free := 0
		slots <- struct{}{}
		free++
	more:
		for free < w.opt.Slots {
			select {
			case slots <- struct{}{}:
				free++
			default:
				break more
			}
		}
		if ctx.Err() != nil {
			// Stopped while the slots were full: no pull request, which
			// the server would keep (and fill) after this worker has gone.
			for range free {
				<-slots
			}
			break
		}
		// Not cut off by the worker's stop: the server fills a pull request
		// until it expires, and jobs it sends a cancelled fetch sit unacked
		// until AckWait, each spending one of MaxDeliver. A stopping worker
		// waits out its fetch and hands back what came.
		got, failed := 0, false
		for i, cons := range queue {
			var batch jetstream.MessageBatch
			var err error
			fcancel := func() {}
			if i < len(queue)-1 {
				// A higher-priority consumer: what it holds now, no wait.
				batch, err = cons.FetchNoWait(free - got)
			} else {
				var fctx context.Context
				fctx, fcancel = context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
				batch, err = cons.Fetch(free-got, jetstream.FetchContext(fctx))
			}
			if err != nil {
				fcancel()
				if ctx.Err() == nil {
					w.report(Event{Kind: EventFetchFailed, Err: err})
				}
				failed = true
				break
			}
			for m := range batch.Messages() {
				got++
				idle = false
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { <-slots }()
					w.handle(ctx, m, ackWait, maxDeliver)
				}()
			}
			fcancel()
			if err := batch.Error(); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) &&
				!errors.Is(err, jetstream.ErrNoMessages) && ctx.Err() == nil {
				w.report(Event{Kind: EventFetchFailed, Err: err})
			}
			if got == free {
				break
			}
		}
		for range free - got {
			<-slots
		}
		if failed {
			if ctx.Err() != nil {
				break
			}
			time.Sleep(time.Second)
			continue
		}
		if got == 0 && len(slots) == 0 && !idle && ctx.Err() == nil && w.opt.Handler == nil {
			idle = true
			w.report(Event{Kind: EventIdle, Slots: w.opt.Slots})
		}
	}
	cancel(nil)
	wg.Wait()
	if err := context.Cause(ctx); parent.Err() == nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// watch follows a KV key: the best network (loaded at once, so that the
// next jobs start without a load) or the run's state (jobs of a stage the
// run has left are skipped).
func (w *Worker) watch(ctx context.Context, key string, fail context.CancelCauseFunc) {
	kw, err := w.c.kv.Watch(ctx, key)
	if err != nil {
		fail(fmt.Errorf("cluster: watching %s: %w", key, err))
		return
	}
	defer kw.Stop() //nolint:errcheck
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-kw.Updates():
			if !ok {
				return
			}
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue
			}
			switch key {
			case keyState:
				var s State
				if json.Unmarshal(e.Value(), &s) == nil {
					w.mu.Lock()
					w.state = s
					w.mu.Unlock()
				}
			case keyBest:
				var b loop.Best
				if err := json.Unmarshal(e.Value(), &b); err != nil {
					w.report(Event{Kind: EventBestUnreadable, Err: err})
					continue
				}
				if _, err := w.network(b.Key, b.NetworkID); err != nil {
					w.report(Event{Kind: EventBestFailed, Err: err})
					continue
				}
				w.mu.Lock()
				w.best = b
				w.mu.Unlock()
				w.report(Event{Kind: EventBest, Best: b})
			}
		}
	}
}

// network loads (or finds loaded) the network at key, checking its ID.
func (w *Worker) network(key, id string) (*model.Weights, error) {
	w.mu.Lock()
	if n := w.nets[key]; n != nil {
		w.mu.Unlock()
		return n, nil
	}
	w.mu.Unlock()
	ck, err := loop.LoadNet(w.st, key)
	if err != nil {
		return nil, err
	}
	// As a local run's self-play loads its network (model.LoadPlayable).
	if err := ck.CheckEncoding(); err != nil {
		return nil, fmt.Errorf("cluster: %s: %w", key, err)
	}
	if id != "" && ck.Weights.ID() != id {
		return nil, fmt.Errorf("cluster: %s holds network %s, the job wants %s", key, ck.Weights.ID(), id)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// Self-play networks only (gate jobs load theirs through the stages'
	// match): the best and the few last used.
	if len(w.nets) >= 4 {
		for k := range w.nets {
			if k != w.best.Key {
				delete(w.nets, k)
			}
		}
	}
	w.nets[key] = ck.Weights
	return ck.Weights, nil
}

// currentBest is the best network the worker holds, read from the run
// (and loaded) when it holds none yet.
func (w *Worker) currentBest(ctx context.Context) (loop.Best, error) {
	w.mu.Lock()
	b := w.best
	w.mu.Unlock()
	if b.Key != "" {
		return b, nil
	}
	b, _, err := w.c.Best(ctx)
	if err != nil {
		return loop.Best{}, err
	}
	if _, err := w.network(b.Key, b.NetworkID); err != nil {
		return loop.Best{}, err
	}
	return b, nil
}

// done says whether the run has played its config's generations.
func (w *Worker) done() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cfg.Generations > 0 && w.state.Stage != "" && w.state.Generation >= w.cfg.Generations
}

// obsolete says whether the run has left the job's stage, so that its
// result would be ignored.
func (w *Worker) obsolete(j *Job) bool {
	w.mu.Lock()
	s := w.state
	w.mu.Unlock()
	if s.Stage == "" || w.cfg.Async.Enabled {
		// The asynchronous roles drop what they no longer want from the
		// queue themselves (purge), and their state is not the stages'.
		return false
	}
	switch j.Kind {
	case KindArena:
		return s.Generation > j.Generation || (s.Generation == j.Generation && (s.Stage == loop.StageGate || s.Stage == loop.StageLadder))
	case KindLadder:
		return s.Generation > j.Generation
	}
	return s.Generation > j.Generation || (s.Generation == j.Generation && s.Stage != loop.StageSelfplay)
}

// handle plays one job: in-progress acks while it plays, then the result,
// then the ack. A job whose worker stops is handed back; one that fails is
// retried elsewhere until its last delivery, whose failure is published.
func (w *Worker) handle(ctx context.Context, m jetstream.Msg, ackWait time.Duration, maxDeliver int) {
	var job Job
	if err := json.Unmarshal(m.Data(), &job); err != nil {
		w.report(Event{Kind: EventMalformed, Subject: m.Subject(), Err: err})
		m.TermWithReason("malformed") //nolint:errcheck
		return
	}
	if ctx.Err() != nil {
		// Fetched as the worker stopped: not played, handed back whole.
		w.requeue(m, &job)
		return
	}
	if w.opt.Handler == nil && w.obsolete(&job) {
		w.report(Event{Kind: EventSkipped, Job: job})
		m.TermWithReason("obsolete") //nolint:errcheck
		return
	}
	delivered := uint64(1)
	if md, err := m.Metadata(); err == nil {
		delivered = md.NumDelivered
	}
	if w.opt.Handler == nil {
		w.report(Event{Kind: EventTaken, Job: job, Delivery: delivered})
	}
	jctx, stop := context.WithCancel(ctx)
	defer stop()
	if ackWait > 0 {
		// In-progress signals every third of AckWait while the job runs,
		// so that a slow job stays with its live worker; a timer re-armed
		// by itself costs nothing for the many jobs that end sooner.
		var mu sync.Mutex
		var t *time.Timer
		mu.Lock()
		t = time.AfterFunc(ackWait/3, func() {
			if jctx.Err() != nil {
				return
			}
			m.InProgress() //nolint:errcheck // a lost signal costs at most a redelivery
			mu.Lock()
			t.Reset(ackWait / 3)
			mu.Unlock()
		})
		mu.Unlock()
		defer func() {
			mu.Lock()
			t.Stop()
			mu.Unlock()
		}()
	}
	if w.onJob != nil {
		w.onJob(job, delivered)
	}
	start := time.Now()
	w.holding(job.ID(), start)
	defer w.holding(job.ID(), time.Time{})
	defer func() { w.busy.Add(int64(time.Since(start))) }()
	h := w.opt.Handler
	if h == nil {
		h = w.play
	}
	res, err := h(jctx, job)
	stop()
	if err != nil {
		if ctx.Err() != nil {
			// The worker is stopping, which is not the job's failure: it
			// goes back whole, and another worker takes it at once.
			w.report(Event{Kind: EventHandedBack, Job: job})
			w.requeue(m, &job)
			return
		}
		if errors.Is(err, ErrWorkerSetup) {
			// Not the job's failure either: back whole for another worker,
			// and this worker stops taking jobs.
			w.report(Event{Kind: EventHandedBack, Job: job, Err: err})
			w.requeue(m, &job)
			w.stopWith(err)
			return
		}
		w.report(Event{Kind: EventJobFailed, Job: job, Delivery: delivered, Err: err})
		if maxDeliver > 0 && delivered >= uint64(maxDeliver) {
			res = Result{Job: job, Worker: w.opt.Name, Error: err.Error()}
			if perr := w.c.publishResult(ctx, &res); perr != nil {
				w.report(Event{Kind: EventPublishFailed, Job: job, Err: perr})
				return
			}
			m.Term() //nolint:errcheck
			return
		}
		m.NakWithDelay(time.Second) //nolint:errcheck
		return
	}
	res.Job, res.Worker = job, w.opt.Name
	if res.Seconds == 0 {
		res.Seconds = time.Since(start).Seconds()
	}
	// The result first, then the ack: a worker dying between the two
	// leaves a job that is played again and a result stored once.
	if err := w.c.publishResult(ctx, &res); err != nil {
		w.report(Event{Kind: EventPublishFailed, Job: job, Err: err})
		m.Nak() //nolint:errcheck
		return
	}
	// A plain ack: were it lost, the job would come back, find its
	// artifact in the store and only be reported again.
	if err := m.Ack(); err != nil {
		w.report(Event{Kind: EventAckFailed, Job: job, Err: err})
	}
	w.played.Add(1)
	if w.opt.Handler == nil {
		w.report(Event{Kind: EventJobDone, Job: job, Seconds: time.Since(start).Seconds()})
	}
}

// requeue hands a job back to the queue with its deliveries not counted:
// the job published anew (under an ID of its own, so that the stream's
// de-duplication keeps it) and then the delivered copy acknowledged. A
// worker dying between the two leaves the job queued twice, which is
// harmless (results fold once per job); failing to publish, it naks. It
// runs as the worker stops, so it has a context of its own.
func (w *Worker) requeue(m jetstream.Msg, job *Job) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id := job.ID() + "-requeued"
	if md, err := m.Metadata(); err == nil {
		id = fmt.Sprintf("%s-requeued-%d", job.ID(), md.Sequence.Stream)
	}
	if _, err := w.c.js.PublishMsg(ctx, &nats.Msg{Subject: m.Subject(), Data: m.Data()}, jetstream.WithMsgID(id)); err != nil {
		w.report(Event{Kind: EventRequeueFailed, Job: *job, Err: err})
		m.Nak() //nolint:errcheck // the job comes back after all, one delivery spent
		return
	}
	// Acknowledged and confirmed, so the delivered copy is gone before the
	// worker stops; were the ack lost, that copy would come back and be
	// played once more.
	if err := m.DoubleAck(ctx); err != nil {
		w.report(Event{Kind: EventRequeueAckFailed, Job: *job, Err: err})
	}
}

// stopWith stops the worker's Run with err.
func (w *Worker) stopWith(err error) {
	w.mu.Lock()
	stop := w.stop
	w.mu.Unlock()
	if stop != nil {
		stop(err)
	}
}

// play is the worker's own handler.
func (w *Worker) play(ctx context.Context, job Job) (Result, error) {
	switch job.Kind {
	case KindSelfplay:
		return w.selfplay(ctx, job)
	case KindArena:
		return w.arena(ctx, job)
	case KindLadder:
		return w.ladder(ctx, job)
	}
	return Result{}, fmt.Errorf("cluster: unknown job kind %q", job.Kind)
}

// ShardKey is the store key of generation gen's shard number n.
func ShardKey(gen, n int) string { return loop.SelfplayKey(gen) + "/" + selfplay.ShardName(n) }

// gamesKey is the key of a shard's game records.
func gamesKey(gen, n int) string { return selfplay.GamesPath(ShardKey(gen, n)) }

func (w *Worker) selfplay(ctx context.Context, job Job) (Result, error) {
	// A block already in the store (the job was played, its worker died
	// before acking, or a restarted trainer enqueued it again) is only
	// reported.
	if data, err := w.st.Read(ShardKey(job.Generation, job.Shard)); err == nil {
		info, err := datasets.Describe(selfplay.ShardName(job.Shard), data)
		if err != nil {
			return Result{}, err
		}
		w.report(Event{Kind: EventInStore, Job: job})
		return Result{Shard: &info, Positions: info.Records}, nil
	} else if !errors.Is(err, store.ErrNotExist) {
		return Result{}, err
	}
	var played *loop.Best
	if job.Network == "" {
		// The asynchronous loop's block: the best of the moment.
		b, err := w.currentBest(ctx)
		if err != nil {
			return Result{}, err
		}
		job.Network, job.NetworkID, played = b.Key, b.NetworkID, &b
	}
	net, err := w.network(job.Network, job.NetworkID)
	if err != nil {
		return Result{}, err
	}
	dir, err := os.MkdirTemp(w.opt.WorkDir, "palace-job-")
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrWorkerSetup, err)
	}
	defer os.RemoveAll(dir)
	// The block's games only: PlayBlock sets the game count itself.
	sj := w.stages.SelfplayJob(job.Seed, 0, dir, "")
	opt := selfplay.Options{CodeVersion: w.opt.CodeVersion, Evaluator: func() (nn.Evaluator, string, error) {
		ev, err := model.NewEvaluator(net)
		return ev, net.ID(), err
	}}
	blk, err := selfplay.PlayBlock(ctx, w.stages.Config.Selfplay.Config, sj, opt, job.Shard, job.First, job.Games)
	if err != nil {
		return Result{}, err
	}
	// The game records before the shard, as a local run commits them: a
	// shard in the store always has its games. The records are
	// overwritten, the shard written only if absent: the first shard of a
	// block is the one the trainer lists, and the records beside it are
	// its own games, even when the worker that wrote records first died
	// before its shard (a replay may differ: another best in the
	// asynchronous loop, other batches under BLAS).
	for i, f := range []struct{ path, key string }{{blk.Games, gamesKey(job.Generation, job.Shard)}, {blk.Shard, ShardKey(job.Generation, job.Shard)}} {
		data, err := os.ReadFile(f.path)
		if err != nil {
			return Result{}, fmt.Errorf("cluster: %w", err)
		}
		if i == 0 {
			err = w.st.Write(f.key, data)
		} else {
			_, err = store.Create(w.st, f.key, data)
		}
		if err != nil {
			return Result{}, err
		}
	}
	info := blk.Info
	return Result{Shard: &info, Plies: blk.Stats.Plies, Evals: int64(blk.Stats.Network.Positions), Games: blk.Stats.Finished,
		Positions: info.Records, Seconds: blk.Stats.Elapsed.Seconds(), Played: played, Resigns: blk.Stats.Resigns}, nil
}

func (w *Worker) arena(ctx context.Context, job Job) (Result, error) {
	m, err := w.gateMatch(job)
	if err != nil {
		return Result{}, err
	}
	// The pair's games are the ones a local match plays for it (its
	// opening, colours and seeds): a redelivered pair plays them again,
	// and the distributed gate plays the local gate's games.
	recs, err := arena.PlayPairs(ctx, *m, []int{job.Pair})
	if err != nil {
		return Result{}, err
	}
	return Result{Records: recs, Games: 2}, nil
}

// gateMatch is the job's match, kept for the match's next pairs: building
// its players allocates their evaluation caches, and players serve many
// games at once.
func (w *Worker) gateMatch(job Job) (*arena.Match, error) {
	cand := job.Generation + 1
	if job.Candidate != loop.NetKey(cand) {
		return nil, fmt.Errorf("cluster: %s: candidate %s, generation %d's is %s", job.ID(), job.Candidate, cand, loop.NetKey(cand))
	}
	key := job.Candidate + "|" + job.Best
	w.mu.Lock()
	m := w.match.m
	if w.match.key != key {
		m = nil
	}
	w.mu.Unlock()
	if m != nil {
		return m, nil
	}
	m, err := w.stages.GateMatch(cand, loop.Best{Generation: job.BestGeneration, Key: job.Best})
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.match.key, w.match.m = key, m
	w.mu.Unlock()
	return m, nil
}

// ladder plays a pair of the best network's match against a rung, as a
// local ladder plays it. The rung's engine is started for the job and
// ended with it: pairs take seconds, a start milliseconds.
func (w *Worker) ladder(ctx context.Context, job Job) (Result, error) {
	// Checked at join too; again here, where the program would start.
	if err := w.checkEngine(); err != nil {
		return Result{}, err
	}
	m, closeRung, err := w.stages.LadderMatch(loop.Best{Generation: job.BestGeneration, Key: job.Best}, job.Rung)
	if err != nil {
		return Result{}, err
	}
	defer closeRung()
	recs, err := arena.PlayPairs(ctx, *m, []int{job.Pair})
	if err != nil {
		return Result{}, err
	}
	return Result{Records: recs, Games: 2}, nil
}

// holding notes that the worker holds job id since start (zero start: no
// longer), and says so in its heartbeat at once.
func (w *Worker) holding(id string, start time.Time) {
	w.mu.Lock()
	if start.IsZero() {
		delete(w.inHand, id)
	} else {
		w.inHand[id] = start
	}
	beat := w.beatLocked()
	w.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second) // never holds a job up for long
	defer cancel()
	w.c.putWorkerBeat(ctx, beat)
}

// beatLocked is the worker's heartbeat now; w.mu is held.
func (w *Worker) beatLocked() WorkerBeat {
	b := WorkerBeat{Name: w.opt.Name, Slots: w.opt.Slots, At: time.Now().UTC()}
	for id, since := range w.inHand {
		b.Jobs = append(b.Jobs, HeldJob{ID: id, Since: since.UTC()})
	}
	slices.SortFunc(b.Jobs, func(a, b HeldJob) int { return strings.Compare(a.ID, b.ID) })
	return b
}

// heartbeats writes the worker's heartbeat every BeatEvery until ctx
// ends. Run removes it when it returns: a worker that stops cleanly leaves
// none, and one that died leaves its last, the jobs it held named, for
// palace status.
func (w *Worker) heartbeats(ctx context.Context) {
	t := time.NewTicker(BeatEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return // Run removes the heartbeat once its jobs are all back
		case <-t.C:
		}
		w.mu.Lock()
		beat := w.beatLocked()
		w.mu.Unlock()
		w.c.putWorkerBeat(ctx, beat)
	}
}
