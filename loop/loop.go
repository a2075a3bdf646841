// Package loop is palace's main job: generations of self-play with the best
// network, training on the replay window, and a gate match that decides
// whether the trained candidate replaces the best, all in one run
// directory (through a store.Store) that survives kill -9 at any moment.
//
// # The run directory
//
//	config.yaml              the configuration the run started with
//	state.json               the generation and stage reached
//	best.json                the best network: generation and key
//	nets/gen-NNNN.palnet     generation N's candidate (0: the random start)
//	selfplay/gen-NNNN/       generation N's self-play shards and games
//	reanalysis/gen-NNNN/     earlier games' positions searched again by
//	                         generation N's best (with reanalysis on)
//	train/state.palnet       the trainer: weights, optimizer, step
//	train/losses.json        the losses of the generation in training,
//	                         save by save (losses.go)
//	arena/gen-NNNN.jsonl     candidate N's match against the best
//	ladder/gen-NNNN/         the best's rating after generation N's gate
//	                         (rung matches and rating.json), when due
//	metrics.jsonl            one line per finished stage
//
// # Resuming
//
// Every stage is idempotent and resumable on its own: self-play plays the
// games its directory lacks, the trainer resumes from its last save, a
// match plays the games its record file lacks, and the gate's decision is a
// function of the match's records. state.json moves on only after a stage
// is complete, so a run killed anywhere redoes at most the unfinished part
// of one stage, and nothing is lost or counted twice.
//
// Nor is a file trusted because it is there (resume.go): a resumed run
// removes the temporary files of writes a kill cut short, refuses a
// state.json that its artifacts and metrics do not bear out and a
// best.json whose network id is not its file's, and replays every match
// record it reads (arena.CheckRecords), so that an edited or damaged file
// stops the run with an error naming it and the fix instead of being
// played on.
//
// The stages themselves are functions of the store (Stages, in
// stages.go): package cluster's distributed loop calls the same ones.
package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/internal/runlock"
	"github.com/palace-chess/palace/ladder"
	"github.com/palace-chess/palace/rundir"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/store"
	"github.com/palace-chess/palace/train"
)

// Stages of a generation, in order.
const (
	StageSelfplay  = "selfplay"
	StageReanalyse = "reanalyse"
	StageTrain     = "train"
	StageArena     = "arena"
	StageGate      = "gate"
)

// Keys of the run directory: rundir's, the one copy of its layout.
const (
	ConfigKey  = rundir.ConfigKey
	StateKey   = rundir.StateKey
	BestKey    = rundir.BestKey
	MetricsKey = rundir.MetricsKey
	TrainKey   = rundir.TrainKey
	lockKey    = rundir.LockKey
)

// NetKey is generation gen's network.
func NetKey(gen int) string { return rundir.NetKey(gen) }

// SelfplayKey is generation gen's self-play directory.
func SelfplayKey(gen int) string { return rundir.SelfplayKey(gen) }

// ReanalysisKey is generation gen's reanalysis directory.
func ReanalysisKey(gen int) string { return rundir.ReanalysisKey(gen) }

// ArenaKey is candidate gen's match record file.
func ArenaKey(gen int) string { return rundir.ArenaKey(gen) }

// State is where a run stands: generation Generation's stage Stage is next.
type State struct {
	Version    int    `json:"version"`
	Generation int    `json:"generation"`
	Stage      string `json:"stage"`
}

// stateFile is state.json as the local driver writes it: the state, and
// the digest of the run's config.yaml (confighash.go) where the store has
// one; a state.json without it, an older palace's, has it recorded on
// resume.
type stateFile struct {
	State
	ConfigHash string            `json:"config_hash,omitempty"`
	ConfigKeys map[string]string `json:"config_keys,omitempty"`
}

// Best is the best network so far (best.json).
type Best = rundir.Best

// Options are a run's settings beyond its Config.
type Options struct {
	// Progress, when set, receives the run's reports (see EventKind),
	// one at a time; the command draws them.
	Progress func(Event)
	// SelfplayInterval is the time between self-play's progress reports
	// (selfplay.Options.Interval).
	SelfplayInterval time.Duration
	// CodeVersion goes into every artifact.
	CodeVersion string
	// StopAfter, when set, is called after every stage: true stops the run
	// there (tests use it to stop mid-run).
	StopAfter func(State) bool
}

// Run runs (or resumes) the loop in st until cfg.Generations generations are
// complete or ctx is cancelled; a cancelled run is not an error.
func Run(ctx context.Context, st store.Store, cfg Config, opt Options) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.Async.Enabled {
		return errors.New("loop: async: enabled is the distributed run's mode (palace run --distributed, with a NATS server); this loop runs its stages one after another")
	}
	if err := checkRecords(st, cfg.Train); err != nil {
		return err
	}
	r, err := newRunner(st, cfg, opt)
	if err != nil {
		return err
	}
	defer r.close()
	if cfg.Ladder.Every > 0 {
		// Said now, not after the hours it takes to reach the first rating.
		if prog, err := cfg.Ladder.Program(cfg.Rules); err == nil {
			if _, err := exec.LookPath(prog); err != nil {
				r.p.send(Event{Kind: EventEngineMissing, Program: prog, Every: cfg.Ladder.Every})
			}
		}
	}
	if err := r.checkResume(); err != nil {
		return err
	}
	for {
		s, err := r.state()
		if err != nil {
			return err
		}
		if cfg.Generations > 0 && s.Generation >= cfg.Generations {
			r.p.send(Event{Kind: EventComplete, Generation: s.Generation})
			return nil
		}
		if ctx.Err() != nil {
			return nil
		}
		next, err := r.step(ctx, s)
		if err != nil {
			if ctx.Err() != nil {
				r.p.send(Event{Kind: EventStopped, Generation: s.Generation, Stage: s.Stage})
				return nil
			}
			return err
		}
		if err := r.writeState(next); err != nil {
			return err
		}
		r.p.stageDone(s.Generation, s.Stage)
		if opt.StopAfter != nil && opt.StopAfter(next) {
			return nil
		}
	}
}

type runner struct {
	st     store.Store
	opt    Options
	stages *Stages
	unlock func()
	p      *progress
	// config digests the store's config.yaml; nil without one.
	config *configDigest
}

func newRunner(st store.Store, cfg Config, opt Options) (*runner, error) {
	stages, err := NewStages(st, cfg, opt.CodeVersion)
	if err != nil {
		return nil, err
	}
	r := &runner{st: st, opt: opt, stages: stages}
	r.p = newProgress(opt.Progress)
	if data, err := st.Read(ConfigKey); err == nil {
		d, err := digestConfig(data)
		if err != nil {
			return nil, err
		}
		r.config = &d
	} else if !errors.Is(err, store.ErrNotExist) {
		return nil, fmt.Errorf("loop: %w", err)
	}
	if lock := st.Local(lockKey); lock != "" {
		// Whole-run lock: two processes in one run would both train.
		if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
			return nil, fmt.Errorf("loop: %w", err)
		}
		// The directory itself, a link resolved, so that its walks below
		// descend into it (issue 47: --dir LINK).
		root, err := filepath.EvalSymlinks(filepath.Dir(lock))
		if err != nil {
			return nil, fmt.Errorf("loop: %w", err)
		}
		// Before the lock file is opened: it could be such a link too.
		if err := checkLinks(st, root); err != nil {
			return nil, err
		}
		unlock, err := runlock.Lock(lock)
		if errors.Is(err, runlock.ErrLocked) {
			return nil, fmt.Errorf("loop: another palace run is using %s", lock)
		}
		if err != nil {
			return nil, fmt.Errorf("loop: %w", err)
		}
		r.unlock = unlock
		// Nothing of this run is being written now: a temporary file is
		// a killed write's.
		n, err := removeDebris(root)
		if err != nil {
			r.close()
			return nil, err
		}
		if n > 0 {
			r.p.send(Event{Kind: EventDebris, Removed: n, Dir: filepath.Dir(lock)})
		}
	}
	return r, nil
}

// checkResume checks, before the run goes on, that its state and best
// network agree with its files (Stages.CheckState, CheckBest). A new run
// is checked once its first network is written.
func (r *runner) checkResume() error {
	s, err := r.state()
	if err != nil {
		return err
	}
	if err := r.checkConfig(s); err != nil {
		return err
	}
	best, err := BestOf(r.st)
	if errors.Is(err, store.ErrNotExist) {
		return fmt.Errorf("loop: %s is missing, and %s says generation %d's %s is next; restore it, or start a new run directory", BestKey, StateKey, s.Generation, s.Stage)
	}
	if err != nil {
		return err
	}
	if err := r.stages.CheckState(s, best); err != nil {
		return err
	}
	if err := r.stages.CheckBest(best); err != nil {
		return err
	}
	if stateFile := r.st.Local(TrainKey); stateFile != "" {
		if err := r.stages.CheckTrainer(s, stateFile); err != nil {
			return err
		}
	}
	return nil
}

// checkRecords reads the game set the config's training mixes in, when a
// generation still to train uses it: said before the run starts (or
// resumes), not when its first training reads it.
func checkRecords(st store.Store, c train.Config) error {
	if c.RecordsShare == 0 {
		return nil
	}
	var s State
	if data, err := st.Read(StateKey); err == nil && json.Unmarshal(data, &s) == nil && s.Generation >= c.RecordsGenerations {
		return nil
	}
	if _, err := train.ReadGameSet(c.Records); err != nil {
		return fmt.Errorf("loop: train: records: %w", err)
	}
	return nil
}

// checkConfig refuses a run whose config.yaml is not the one its state
// recorded, naming the keys that changed; a state without a record (an
// older palace's) has it recorded now.
func (r *runner) checkConfig(s State) error {
	var f stateFile
	if data, err := r.st.Read(StateKey); err != nil {
		return fmt.Errorf("loop: %w", err)
	} else if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("loop: %s: %w", StateKey, err) // state() read it; only a change since
	}
	switch {
	case r.config == nil && f.ConfigHash != "":
		return fmt.Errorf("loop: %s is missing, and %s records the config the run started with; restore it, or start a new run directory", ConfigKey, StateKey)
	case r.config == nil || f.ConfigHash == r.config.Hash:
		return nil
	case f.ConfigHash == "":
		r.p.send(Event{Kind: EventConfigRecorded})
		return r.writeState(s)
	}
	return fmt.Errorf("loop: %s was edited since the run started (%s), and a run keeps its config: restore it, or start a new run directory with the new config",
		ConfigKey, changedKeys(f.ConfigKeys, r.config.Keys))
}

// writeState writes s as state.json with the digest of the run's config.
func (r *runner) writeState(s State) error {
	if r.config == nil {
		return WriteState(r.st, s)
	}
	s.Version = 1
	b, _ := json.Marshal(stateFile{State: s, ConfigHash: r.config.Hash, ConfigKeys: r.config.Keys})
	if err := r.st.Write(StateKey, append(b, '\n')); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	return nil
}

func (r *runner) close() {
	if r.unlock != nil {
		r.unlock()
	}
}

// state reads state.json; a new run starts at generation 0's self-play,
// after writing generation 0's random network as the best.
func (r *runner) state() (State, error) {
	b, err := r.st.Read(StateKey)
	if errors.Is(err, store.ErrNotExist) {
		if err := r.start(); err != nil {
			return State{}, err
		}
		// Written now, with the config's digest, so that an edit before
		// the first stage is done is caught too.
		s := State{Version: 1, Generation: 0, Stage: StageSelfplay}
		if err := r.writeState(s); err != nil {
			return State{}, err
		}
		return r.state()
	}
	if err != nil {
		return State{}, fmt.Errorf("loop: %w", err)
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil || s.Version != 1 {
		return State{}, fmt.Errorf("loop: %s: unreadable or of another version (%v)", StateKey, err)
	}
	switch s.Stage {
	case StageSelfplay, StageReanalyse, StageTrain, StageArena, StageGate, StageLadder:
	default:
		return State{}, fmt.Errorf("loop: %s: unknown stage %q", StateKey, s.Stage)
	}
	return s, nil
}

// start writes generation 0: a random network, which is the first best.
func (r *runner) start() error {
	if _, err := r.st.Read(BestKey); err == nil {
		return nil // killed between writing best.json and state.json
	}
	best, err := r.stages.WriteInitialNetwork()
	if err != nil {
		return err
	}
	return SetBest(r.st, best)
}

// BestOf reads a run's best network pointer.
func BestOf(st store.Store) (Best, error) {
	b, err := st.Read(BestKey)
	if err != nil {
		return Best{}, fmt.Errorf("loop: %w", err)
	}
	var best Best
	if err := json.Unmarshal(b, &best); err != nil || best.Key == "" {
		return Best{}, fmt.Errorf("loop: %s: unreadable (%v)", BestKey, err)
	}
	return best, nil
}

// step runs one stage and says what comes next.
func (r *runner) step(ctx context.Context, s State) (State, error) {
	gen := s.Generation
	var err error
	switch s.Stage {
	case StageSelfplay:
		err = r.selfplay(ctx, gen)
	case StageReanalyse:
		err = r.reanalyse(ctx, gen)
	case StageTrain:
		err = r.train(ctx, gen)
	case StageArena:
		err = r.arenaStage(ctx, gen+1)
	case StageGate:
		err = r.gate(gen + 1)
		if errors.Is(err, ErrMatchNotOver) {
			// A record line removed since the match was over (one that
			// its replay refused, say): its game is played again first.
			r.p.send(Event{Kind: EventMatchNotOver, Generation: gen, Stage: StageGate})
			if err = r.arenaStage(ctx, gen+1); err == nil {
				err = r.gate(gen + 1)
			}
		}
	case StageLadder:
		err = r.ladder(ctx, gen)
	default:
		return s, fmt.Errorf("loop: unknown stage %q", s.Stage)
	}
	if err != nil {
		return s, err
	}
	return r.stages.Next(s), nil
}

// selfplayDirs are the local directories of generations 0 to gen.
func (r *runner) selfplayDirs(gen int) ([]string, error) {
	var dirs []string
	for g := 0; g <= gen; g++ {
		d := r.st.Local(SelfplayKey(g))
		if d == "" {
			return nil, fmt.Errorf("loop: %s is not a local directory; self-play needs one", r.st)
		}
		dirs = append(dirs, d)
	}
	return dirs, nil
}

// selfplay plays generation gen's games with the best network, as many
// rounds as the stage's plan asks for.
func (r *runner) selfplay(ctx context.Context, gen int) error {
	best, err := BestOf(r.st)
	if err != nil {
		return err
	}
	dirs, err := r.selfplayDirs(gen)
	if err != nil {
		return err
	}
	plan := r.stages.SelfplayPlan(gen, best, 1)
	var counts SelfplayCounts
	start := time.Now()
	for {
		job := r.stages.SelfplayJob(plan.Seed, plan.Games(), dirs[gen], r.st.Local(best.Key))
		r.p.stage(gen, StageSelfplay, Event{Best: best.Generation})
		st, err := selfplay.Run(ctx, r.stages.Config.Selfplay.Config, job, selfplay.Options{Progress: r.p.selfplay(), Interval: r.opt.SelfplayInterval,
			CodeVersion: r.opt.CodeVersion})
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		counts.Games += st.Finished
		counts.Plies += st.Plies
		counts.Evaluations += int64(st.Network.Positions)
		counts.Resigns.Add(st.Resigns)
		counts.Playing += st.Elapsed
		total, err := Positions(r.st, 0, gen)
		if err != nil {
			return err
		}
		next, round, more := r.stages.MoreSelfplay(plan, total)
		if !more {
			break
		}
		r.p.send(Event{Kind: EventMoreSelfplay, Round: round})
		plan = next
	}
	m, err := r.stages.SelfplayMetric(plan, counts, time.Since(start))
	if err != nil {
		return err
	}
	return r.metric(m)
}

// reanalysisDirs are the local directories of generations 0 to gen's
// reanalyses ("" for a generation without one); nil for a run without
// reanalysis.
func (r *runner) reanalysisDirs(gen int) ([]string, error) {
	if r.stages.Config.Reanalysis.Positions == 0 {
		return nil, nil
	}
	dirs := make([]string, gen+1)
	for g := range dirs {
		d := r.st.Local(ReanalysisKey(g))
		if d == "" {
			return nil, fmt.Errorf("loop: %s is not a local directory; reanalysis needs one", r.st)
		}
		if _, err := os.Stat(filepath.Join(d, datasets.ManifestName)); err == nil {
			dirs[g] = d
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("loop: %w", err)
		}
	}
	return dirs, nil
}

// reanalyse searches positions of the earlier generations' games in the
// window again with the best network (none for generation 0).
func (r *runner) reanalyse(ctx context.Context, gen int) error {
	best, err := BestOf(r.st)
	if err != nil {
		return err
	}
	sources, err := r.stages.ReanalysisSources(gen)
	if err != nil {
		return err
	}
	r.p.stage(gen, StageReanalyse, Event{Best: best.Generation, Sources: sources})
	start := time.Now()
	var st selfplay.ReanalyseStats
	if len(sources) > 0 {
		spDirs, err := r.selfplayDirs(gen)
		if err != nil {
			return err
		}
		var dirs []string
		for _, g := range sources {
			dirs = append(dirs, spDirs[g])
		}
		out := r.st.Local(ReanalysisKey(gen))
		job := r.stages.ReanalyseJob(gen, dirs, out, r.st.Local(best.Key))
		st, err = selfplay.Reanalyse(ctx, r.stages.Config.Selfplay.Config, job, selfplay.Options{CodeVersion: r.opt.CodeVersion})
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	m, err := r.stages.ReanalysisMetric(gen, best, sources, st, time.Since(start))
	if err != nil {
		return err
	}
	if err := r.metric(m); err != nil {
		return err
	}
	r.p.send(Event{Kind: EventReanalysed, Generation: gen, Stage: StageReanalyse, Metric: m})
	return nil
}

// train trains on the window until the steps the run's positions allow,
// then writes the candidate, generation gen+1's network.
func (r *runner) train(ctx context.Context, gen int) error {
	dirs, err := r.selfplayDirs(gen)
	if err != nil {
		return err
	}
	reDirs, err := r.reanalysisDirs(gen)
	if err != nil {
		return err
	}
	stateFile := r.st.Local(TrainKey)
	if stateFile == "" {
		return fmt.Errorf("loop: %s is not a local directory; the trainer needs one", r.st)
	}
	m, err := r.stages.Train(ctx, TrainJob{Generation: gen, Dirs: dirs, ReanalysisDirs: reDirs, State: stateFile,
		Started:  func(_, target int64) { r.p.stage(gen, StageTrain, Event{Target: target}) },
		Progress: func(p train.Progress) { r.p.send(Event{Kind: EventTrain, Train: p}) }})
	if err != nil {
		return err
	}
	return r.metric(m)
}

// arenaStage plays candidate gen's match and records its metric.
func (r *runner) arenaStage(ctx context.Context, gen int) error {
	start := time.Now()
	sum, err := r.arena(ctx, gen)
	if err != nil {
		return err
	}
	return r.metric(ArenaMetric(gen, sum, time.Since(start)))
}

// arena plays candidate gen against the best network.
func (r *runner) arena(ctx context.Context, gen int) (arena.Summary, error) {
	m, err := r.match(gen)
	if err != nil {
		return arena.Summary{}, err
	}
	r.p.stage(gen-1, StageArena, Event{Players: [2]string{m.A.Name(), m.B.Name()}})
	m.Progress = func(s arena.Summary) { r.p.send(Event{Kind: EventArena, Arena: s}) }
	return arena.Play(ctx, *m)
}

// match is candidate gen's gating match against the best.
func (r *runner) match(gen int) (*arena.Match, error) {
	best, err := BestOf(r.st)
	if err != nil {
		return nil, err
	}
	m, err := r.stages.GateMatch(gen, best)
	if err != nil {
		return nil, err
	}
	if m.Records = r.st.Local(ArenaKey(gen)); m.Records == "" {
		return nil, fmt.Errorf("loop: %s is not a local directory; match records need one", r.st)
	}
	return m, nil
}

// gate promotes candidate gen or keeps the best, and records why.
func (r *runner) gate(gen int) error {
	best, err := BestOf(r.st)
	if err != nil {
		return err
	}
	m, promoted, err := r.stages.Gate(gen, best)
	if err != nil {
		return err
	}
	if promoted != nil {
		if err := SetBest(r.st, *promoted); err != nil {
			return err
		}
	}
	r.p.send(Event{Kind: EventGate, Generation: gen - 1, Stage: StageGate, Metric: m})
	return r.metric(m)
}

// ladder rates the best network when generation gen's gate made it the
// best and a rating is due.
func (r *runner) ladder(ctx context.Context, gen int) error {
	best, err := BestOf(r.st)
	if err != nil {
		return err
	}
	due, err := r.stages.LadderDue(gen, best)
	if err != nil || !due {
		return err
	}
	dir := r.st.Local(LadderKey(gen))
	if dir == "" {
		return fmt.Errorf("loop: %s is not a local directory; ladder records need one", r.st)
	}
	r.p.stage(gen, StageLadder, Event{Best: best.Generation})
	m, err := r.stages.Ladder(ctx, LadderJob{Generation: gen, Best: best, Dir: dir,
		Progress: func(e ladder.Event) { r.p.send(Event{Kind: EventLadder, Ladder: e}) }})
	if err != nil {
		return err
	}
	r.p.send(Event{Kind: EventRated, Generation: gen, Stage: StageLadder, Metric: m})
	return r.metric(m)
}
