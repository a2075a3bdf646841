package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/store"
	"github.com/palace-chess/palace/train"
)

// RoleOptions are the trainer's and the gatekeeper's settings.
type RoleOptions struct {
	// WorkDir is the trainer's local copy of the shards and its training
	// state (default: palace-RUN under the system's temporary directory;
	// kept across restarts, which then resume from the latest save).
	WorkDir string
	// Progress, when set, receives the role's reports (see EventKind),
	// one at a time; the command draws them. cluster.Run gives the same
	// one to both roles, which call it from their own goroutines.
	Progress    func(Event)
	CodeVersion string
	// StopAfter, when set, is called after every stage the role completes:
	// true stops the role there (tests).
	StopAfter func(State) bool
}

type role struct {
	c      *Conn
	st     store.Store
	cfg    loop.Config
	opt    RoleOptions
	stages *loop.Stages
	name   string
	mu     sync.Mutex // one report at a time
	// metricsMu, when set, is held while a metric is recorded: the
	// asynchronous roles share one process and metrics.jsonl.
	metricsMu *sync.Mutex
}

// recordMetric appends m to the run's metrics.
func (r *role) recordMetric(m loop.Metric) error {
	if r.metricsMu != nil {
		r.metricsMu.Lock()
		defer r.metricsMu.Unlock()
	}
	return loop.RecordMetric(r.st, m)
}

func newRole(c *Conn, st store.Store, cfg loop.Config, opt RoleOptions, name string) (*role, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkLocalOnly(cfg); err != nil {
		return nil, err
	}
	stages, err := loop.NewStages(st, cfg, opt.CodeVersion)
	if err != nil {
		return nil, err
	}
	return &role{c: c, st: st, cfg: cfg, opt: opt, stages: stages, name: name}, nil
}

// checkLocalOnly refuses a config with what only the local loop does yet:
// reanalysis (a stage the distributed roles do not play).
func checkLocalOnly(cfg loop.Config) error {
	if cfg.Reanalysis.Positions > 0 {
		return fmt.Errorf("cluster: reanalysis (reanalysis.positions %d) runs in the local loop only (palace run): set it to 0 for a distributed run",
			cfg.Reanalysis.Positions)
	}
	return nil
}

// stageFunc plays one of a role's stages from state s, read at revision
// rev, and returns the state after it and the revision to advance from
// (rev, or the one the stage itself last wrote); mine is false for a stage
// that belongs to the other role.
type stageFunc func(ctx context.Context, s State, rev uint64) (next State, nextRev uint64, mine bool, err error)

// run moves the run through the role's stages until its generations are
// done or ctx is cancelled (not an error); between them it waits for the
// other role.
func (r *role) run(ctx context.Context, stage stageFunc) error {
	var waiting State // the state last waited on, said once
	for ctx.Err() == nil {
		s, rev, ok, err := r.c.State(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil // stopped (a signal, --duration) mid-read: not an error
			}
			return err
		}
		if !ok {
			return fmt.Errorf("cluster: run %s has no state; start it first", r.c.Run)
		}
		if r.cfg.Generations > 0 && s.Generation >= r.cfg.Generations {
			r.report(Event{Kind: EventComplete, Generation: s.Generation})
			return nil
		}
		next, rev, mine, err := stage(ctx, s, rev)
		if err == nil && !mine {
			if s != waiting {
				waiting = s
				r.report(Event{Kind: EventWaiting, Generation: s.Generation, Stage: s.Stage})
			}
			if err = r.c.waitChange(ctx, keyState, rev); err == nil {
				continue
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		// From the revision this role last wrote or read: the other
		// role's change in between is a conflict, not overwritten.
		if _, err := r.advance(ctx, next, rev); err != nil {
			if ctx.Err() != nil {
				// Stopped mid-write: the state moved on or it did not, and
				// either way the stage is done and a restart goes on from
				// the server's state.
				return nil
			}
			return err
		}
		if r.opt.StopAfter != nil && r.opt.StopAfter(next) {
			return nil
		}
	}
	return nil
}

// report sends e, from this role, to RoleOptions.Progress.
func (r *role) report(e Event) {
	if r.opt.Progress == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e.Role = r.name
	r.opt.Progress(e)
}

// mirror writes the KV's state and best into the store's state.json and
// best.json, for palace report and people reading the directory.
func (r *role) mirror(s State, b *loop.Best) error {
	if err := loop.WriteState(r.st, s.State); err != nil {
		return err
	}
	if b != nil {
		return loop.SetBest(r.st, *b)
	}
	return nil
}

// advance moves the run's state from rev to s by compare-and-swap and
// mirrors it.
func (r *role) advance(ctx context.Context, s State, rev uint64) (uint64, error) {
	s.Version = 1
	n, err := r.c.casJSON(ctx, keyState, s, rev)
	if err != nil {
		return 0, err
	}
	return n, r.mirror(s, nil)
}

// Start publishes the run (its config and bucket) and writes generation
// 0's random network as the first best, unless the run exists: then its
// config must be the one given. Every role may call it; it is idempotent.
func Start(ctx context.Context, c *Conn, st store.Store, bucketURL string, configYAML []byte, codeVersion string) (loop.Config, error) {
	ri, ok, err := c.Info(ctx)
	if err != nil {
		return loop.Config{}, err
	}
	if ok && ri.Config != string(configYAML) && configYAML != nil {
		return loop.Config{}, fmt.Errorf("cluster: run %s was started with another configuration; join it without --config, or start a run of another name", c.Run)
	}
	if !ok {
		if configYAML == nil {
			return loop.Config{}, fmt.Errorf("cluster: run %s does not exist yet; give its config", c.Run)
		}
		ri = RunInfo{Bucket: bucketURL, Config: string(configYAML)}
	}
	cfg, err := loop.ParseConfig([]byte(ri.Config), "run "+c.Run+"'s config")
	if err != nil {
		return loop.Config{}, err
	}
	if err := checkLocalOnly(cfg); err != nil {
		return loop.Config{}, err
	}
	if err := checkBucket(st, c.Run, ri.Config, ok); err != nil {
		return loop.Config{}, err
	}
	if cfg.Async.Enabled {
		if err := c.UseAsyncQueue(ctx); err != nil {
			return loop.Config{}, err
		}
	}
	if !ok {
		if err := st.Write(loop.ConfigKey, []byte(ri.Config)); err != nil {
			return loop.Config{}, err
		}
		if _, err := c.casJSON(ctx, keyRun, ri, 0); err != nil && !errors.Is(err, ErrConflict) {
			return loop.Config{}, err
		}
	}
	if _, rev, err := c.Best(ctx); err == nil && rev != 0 {
		return cfg, nil
	}
	stages, err := loop.NewStages(st, cfg, codeVersion)
	if err != nil {
		return loop.Config{}, err
	}
	// Two roles starting at once write the same network.
	best, err := stages.WriteInitialNetwork()
	if err != nil {
		return loop.Config{}, err
	}
	if _, err := c.casJSON(ctx, keyBest, best, 0); err != nil && !errors.Is(err, ErrConflict) {
		return loop.Config{}, err
	}
	s := State{State: loop.State{Version: 1, Generation: 0, Stage: loop.StageSelfplay}}
	if _, err := c.casJSON(ctx, keyState, s, 0); err != nil && !errors.Is(err, ErrConflict) {
		return loop.Config{}, err
	}
	r := role{st: st}
	if err := r.mirror(s, &best); err != nil {
		return loop.Config{}, err
	}
	return cfg, nil
}

// checkBucket refuses a store that is not the run's: one holding another
// run's config, and for a run not started yet (started false) one that
// holds anything else, as palace run refuses such a directory; a started
// run's store must hold its config.
func checkBucket(st store.Store, run, config string, started bool) error {
	saved, err := st.Read(loop.ConfigKey)
	switch {
	case err == nil:
		if string(saved) != config {
			return fmt.Errorf("cluster: %s holds another run's %s than run %s's; give the run's own bucket, or a new or empty one", st, loop.ConfigKey, run)
		}
		return nil
	case !errors.Is(err, store.ErrNotExist):
		return err
	case started:
		return fmt.Errorf("cluster: %s does not hold run %s's %s: give the run's own bucket (is the shared directory mounted here?)", st, run, loop.ConfigKey)
	}
	return CheckNewBucket(st)
}

// CheckNewBucket refuses a store for a new run that holds anything but a
// run's config: a run's files would mix with others (a directory such as
// /, a checkout, another job's bucket).
func CheckNewBucket(st store.Store) error {
	if _, err := st.Read(loop.ConfigKey); err == nil {
		return nil
	}
	other, err := st.Entries(3)
	if err != nil {
		return err
	}
	if len(other) > 0 {
		return fmt.Errorf("cluster: %s is not a run (no %s) and holds other files (%s); give a new or empty bucket", st, loop.ConfigKey, strings.Join(other, ", "))
	}
	return nil
}

// Trainer runs the self-play and training stages. One per run: its state
// changes are compare-and-swaps, so a second one fails at its first.
type Trainer struct{ *role }

// NewTrainer is the run's trainer; cfg is the run's config (Start).
func NewTrainer(c *Conn, st store.Store, cfg loop.Config, opt RoleOptions) (*Trainer, error) {
	if opt.WorkDir == "" {
		opt.WorkDir = filepath.Join(os.TempDir(), "palace-"+c.Run)
	}
	r, err := newRole(c, st, cfg, opt, "trainer")
	if err != nil {
		return nil, err
	}
	return &Trainer{r}, nil
}

// Run runs the trainer's stages until the run's generations are done or
// ctx is cancelled (not an error); between them it waits for the
// gatekeeper.
func (t *Trainer) Run(ctx context.Context) error {
	if t.cfg.Async.Enabled {
		return errAsyncRoles
	}
	return t.run(ctx, func(ctx context.Context, s State, rev uint64) (State, uint64, bool, error) {
		switch s.Stage {
		case loop.StageSelfplay:
			next, rev, err := t.selfplay(ctx, s, rev)
			return next, rev, true, err
		case loop.StageTrain:
			next, err := t.train(ctx, s)
			return next, rev, true, err
		}
		return s, rev, false, nil // the gatekeeper's stages
	})
}

// errAsyncRoles refuses the exact loop's roles in an asynchronous run,
// whose trainer and gatekeeper run together (Async).
var errAsyncRoles = errors.New("cluster: the run is asynchronous (async: enabled): its trainer gates too, in one process (palace trainer); run no gatekeeper")

// blocks are the self-play jobs of plan's blocks, in shard order.
func blocks(plan loop.SelfplayPlan) []Job {
	var jobs []Job
	for _, b := range plan.Blocks() {
		jobs = append(jobs, Job{Kind: KindSelfplay, Generation: plan.Generation, Network: plan.Best.Key,
			NetworkID: plan.Best.NetworkID, Shard: b.Shard, First: b.First, Games: b.Games, Seed: plan.Seed})
	}
	return jobs
}

// selfplay enqueues the generation's blocks, waits for their results and
// writes the generation's manifest; more rounds as the stage's plan asks.
func (t *Trainer) selfplay(ctx context.Context, s State, rev uint64) (State, uint64, error) {
	next, err := t.playGeneration(ctx, &s, &rev)
	return next, rev, err
}

// playGeneration is selfplay with the state and its revision updated in
// place as rounds are added.
func (t *Trainer) playGeneration(ctx context.Context, sp *State, revp *uint64) (State, error) {
	s, rev := *sp, *revp
	defer func() { *sp, *revp = s, rev }()
	gen := s.Generation
	best, _, err := t.c.Best(ctx)
	if err != nil {
		return s, err
	}
	before, err := loop.Positions(t.st, 0, gen-1)
	if err != nil {
		return s, err
	}
	if s.Rounds == 0 {
		// Rounds are recorded before their jobs are enqueued, so that a
		// restarted trainer waits for every block it may have asked for.
		s.Rounds = 1
		if rev, err = t.c.casJSON(ctx, keyState, s, rev); err != nil {
			return s, err
		}
	}
	plan := t.stages.SelfplayPlan(gen, best, s.Rounds)
	jobs := blocks(plan)
	// All of them, even after a restart: the stream drops the ones it
	// holds, and a worker given a block already in the store only reports it.
	t.report(Event{Kind: EventBlocks, Generation: gen, Jobs: len(jobs), Best: best})
	if err := t.c.enqueue(ctx, jobs); err != nil {
		return s, err
	}
	start := time.Now()
	shards := map[int]*Result{}
	var own int64
	err = t.c.followResults(ctx, KindSelfplay, gen, func(r *Result) (bool, error) {
		n := r.Job.Shard
		if r.Shard == nil || n < 0 || n >= len(jobs) || shards[n] != nil {
			return false, nil // a duplicate: each block counts once
		}
		if r.Job != jobs[n] {
			return false, fmt.Errorf("cluster: gen %d: the result of %s is of another job (%+v, want %+v)", gen, r.Job.ID(), r.Job, jobs[n])
		}
		shards[n] = r
		own += r.Shard.Records
		t.report(Event{Kind: EventBlock, Generation: gen, Done: len(shards), Jobs: len(jobs), Result: r})
		if len(shards) < len(jobs) {
			return false, nil
		}
		next, why, more := t.stages.MoreSelfplay(plan, before+own)
		if !more {
			return true, nil
		}
		t.report(Event{Kind: EventMoreSelfplay, Generation: gen, Round: why})
		plan = next
		s.Rounds = plan.Rounds
		if rev, err = t.c.casJSON(ctx, keyState, s, rev); err != nil {
			return false, err
		}
		jobs = blocks(plan)
		return false, t.c.enqueue(ctx, jobs[len(shards):])
	})
	if err != nil {
		return s, err
	}
	if err := t.commitGeneration(gen, shards, len(jobs)); err != nil {
		return s, err
	}
	counts, workers := tallyBlocks(shards)
	if err := t.recordWorkers(gen, KindSelfplay, loop.SelfplayKey(gen), workers); err != nil {
		return s, err
	}
	counts.Playing = time.Since(start)
	m, err := t.stages.SelfplayMetric(plan, counts, counts.Playing)
	if err != nil {
		return s, err
	}
	if err := t.recordMetric(m); err != nil {
		return s, err
	}
	t.report(Event{Kind: EventSelfplayDone, Generation: gen, Metric: m})
	return State{State: t.stages.Next(s.State)}, nil
}

// tallyBlocks counts a generation's blocks, as its metric and the
// workers file count them; Playing is the time the blocks took, summed.
func tallyBlocks(shards map[int]*Result) (loop.SelfplayCounts, workerTally) {
	var counts loop.SelfplayCounts
	workers := workerTally{}
	for _, r := range shards {
		workers.add(r, r.Job.Games, r.Shard.Records)
		counts.Plies += r.Plies
		counts.Evaluations += r.Evals
		counts.Games += r.Job.Games
		counts.Resigns.Add(r.Resigns)
		counts.Playing += time.Duration(r.Seconds * float64(time.Second))
	}
	return counts, workers
}

// commitGeneration writes generation gen's manifest, its commit point: the
// n shards in shard order, each described from the bytes the store holds
// (the first upload of a block wins; see store.Create), and keeps a local
// copy of each for training.
func (t *Trainer) commitGeneration(gen int, shards map[int]*Result, n int) error {
	dir := filepath.Join(t.opt.WorkDir, filepath.FromSlash(loop.SelfplayKey(gen)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	m := datasets.Manifest{Version: datasets.ManifestVersion}
	for i := range n {
		key := ShardKey(gen, i)
		if _, err := t.st.Read(gamesKey(gen, i)); err != nil {
			return fmt.Errorf("cluster: shard %s has no game records: %w", key, err)
		}
		data, err := t.st.Read(key)
		if err != nil {
			return err
		}
		info, err := datasets.Describe(selfplay.ShardName(i), data)
		if err != nil {
			return err
		}
		if r := shards[i].Shard; info.Records != r.Records || info.Games != r.Games || info.FirstGame != r.FirstGame || info.LastGame != r.LastGame {
			return fmt.Errorf("cluster: %s holds %d records of %d games (%d-%d), its job's result says %d of %d (%d-%d)", key,
				info.Records, info.Games, info.FirstGame, info.LastGame, r.Records, r.Games, r.FirstGame, r.LastGame)
		}
		info.Added = shards[i].Shard.Added
		m.Shards = append(m.Shards, info)
		if err := atomicfile.WriteBytes(filepath.Join(dir, info.Name), 0o644, data); err != nil {
			return fmt.Errorf("cluster: %w", err)
		}
	}
	data, err := json.MarshalIndent(&m, "", "\t")
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	return t.st.Write(loop.ManifestKey(gen), append(data, '\n'))
}

// syncGeneration makes the work directory's copy of generation gen's
// shards whole: the manifest, and every shard it lists, checked against
// its SHA-256.
func (t *Trainer) syncGeneration(gen int) (string, error) {
	dir := filepath.Join(t.opt.WorkDir, filepath.FromSlash(loop.SelfplayKey(gen)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cluster: %w", err)
	}
	m, mdata, err := loop.ReadManifest(t.st, gen)
	if err != nil {
		return "", err
	}
	for _, s := range m.Shards {
		p := filepath.Join(dir, s.Name)
		if fi, err := os.Stat(p); err == nil && fi.Size() == s.Bytes {
			continue
		}
		data, err := t.st.Read(loop.SelfplayKey(gen) + "/" + s.Name)
		if err != nil {
			return "", err
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != s.SHA256 {
			return "", fmt.Errorf("cluster: %s/%s: SHA-256 %s, the manifest says %s", loop.SelfplayKey(gen), s.Name, got, s.SHA256)
		}
		if err := atomicfile.WriteBytes(p, 0o644, data); err != nil {
			return "", fmt.Errorf("cluster: %w", err)
		}
	}
	// The manifest last: the local copy is complete when it lists a shard.
	if err := atomicfile.WriteBytes(filepath.Join(dir, datasets.ManifestName), 0o644, mdata); err != nil {
		return "", fmt.Errorf("cluster: %w", err)
	}
	return dir, nil
}

// train trains on the window as the local loop does, on the work
// directory's copy of the shards, and uploads the candidate and the
// trainer's state.
func (t *Trainer) train(ctx context.Context, s State) (State, error) {
	if _, err := t.trainCandidate(ctx, s.Generation, 0, ""); err != nil {
		return s, err
	}
	return State{State: t.stages.Next(s.State)}, nil
}

// trainCandidate trains candidate gen+1 on generations 0 to gen, to
// target steps (0: the config's for their positions) from parent (""
// generation gen's network), records its metric and returns it.
func (t *Trainer) trainCandidate(ctx context.Context, gen int, target int64, parent string) (loop.Metric, error) {
	var dirs []string
	for g := 0; g <= gen; g++ {
		d, err := t.syncGeneration(g)
		if err != nil {
			return loop.Metric{}, err
		}
		dirs = append(dirs, d)
	}
	stateFile := filepath.Join(t.opt.WorkDir, filepath.FromSlash(loop.TrainKey))
	if err := os.MkdirAll(filepath.Dir(stateFile), 0o755); err != nil {
		return loop.Metric{}, fmt.Errorf("cluster: %w", err)
	}
	if err := t.freshestState(stateFile); err != nil {
		return loop.Metric{}, err
	}
	var uploadErr error
	var lastBeat time.Time
	// Each save goes to the store too (train.Run reports after every
	// save), so that a trainer restarted anywhere resumes from it.
	upload := func() error {
		data, err := os.ReadFile(stateFile)
		if err != nil {
			return fmt.Errorf("cluster: %w", err)
		}
		return t.st.Write(loop.TrainKey, data)
	}
	m, err := t.stages.Train(ctx, loop.TrainJob{Generation: gen, Dirs: dirs, State: stateFile, TargetSteps: target, Parent: parent,
		Started: func(total, target int64) {
			t.report(Event{Kind: EventTraining, Generation: gen, Target: target, Positions: total})
		},
		Progress: func(p train.Progress) {
			t.report(Event{Kind: EventTrain, Generation: gen, Train: p})
			t.c.beat(ctx, &lastBeat, gen, p)
			if uploadErr == nil {
				uploadErr = upload()
			}
		},
		Finished: func() error {
			if uploadErr != nil {
				return uploadErr
			}
			return upload()
		}})
	if err != nil {
		return loop.Metric{}, err
	}
	if err := t.recordMetric(m); err != nil {
		return loop.Metric{}, err
	}
	t.report(Event{Kind: EventCandidate, Generation: gen, Metric: m})
	return m, nil
}

// freshestState leaves at path the later of the local training state and
// the store's (a trainer restarted on another machine has only the
// store's; one restarted here may have saved since its last upload).
func (t *Trainer) freshestState(path string) error {
	remote, err := t.st.Read(loop.TrainKey)
	if errors.Is(err, store.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	rck, err := model.DecodeCheckpoint(remote)
	if err != nil {
		return fmt.Errorf("cluster: %s: %w", loop.TrainKey, err)
	}
	if lck, err := model.Load(path); err == nil && lck.Steps >= rck.Steps {
		return nil
	}
	if err := atomicfile.WriteBytes(path, 0o644, remote); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	return nil
}
