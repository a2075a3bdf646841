package train

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/internal/runlock"
	"github.com/palace-chess/palace/nn/model"
)

// A games job (palace train --games) lives in its work directory, so that
// a job stopped at any moment resumes where it was:
//
//	DIR/job.json          what the job was started with (gamesJobFile)
//	DIR/.lock             held while a process runs the job
//	DIR/gameset/          the positions (BuildGameSet), built once
//	DIR/state.palnet      the trainer's state (TrainGames)
//	DIR/curve.json        the learning curve
//	DIR/best.palnet       the network of the least held-out loss
//
// RunGamesJob runs it to the end and writes the chosen network.
const (
	GamesJobFormat = "palace-train-games"
	gamesJobName   = "job.json"
	gamesLockName  = ".lock"
	gamesSetName   = "gameset"
	gamesStateName = "state.palnet"
	gamesCurveName = "curve.json"
	gamesBestName  = "best.palnet"
)

// GamesRun is one games job: which games, how to train on them, where.
type GamesRun struct {
	// Dir is the work directory: new, empty, or a games job's (job.json),
	// which resumes. Out is the network written at the end.
	Dir, Out string
	// Inputs are games or record files or directories of them
	// (rundir.Collect);
	// Filter selects and splits their games.
	Inputs []string
	Filter GameFilter
	// Config is the job's configuration, ConfigText the file it was read
	// from (job.json keeps it: a resumed job must have the same).
	Config     GamesConfig
	ConfigText string
	// ScoreWeight, where > 0, replaces Config's search_value_weight (the
	// weight of Filter.ScoreScale's engine scores in the value target).
	ScoreWeight float64
	// Init, when set, is the network the job starts from (its shape
	// replaces Config's, and the written network names it as its parent);
	// InitName says where it came from, for errors. Without it a new job
	// starts from random weights of Config's shape.
	Init     *model.Checkpoint
	InitName string
	// KeepLast writes the last step's network; by default the job writes
	// the one of the evaluation with the least held-out loss (early
	// stopping).
	KeepLast bool
	// Evaluators is TrainGames' (0: one a CPU); CodeVersion goes into the
	// files written.
	Evaluators  int
	CodeVersion string
}

// GamesEventKind says what a GamesEvent reports.
type GamesEventKind uint8

const (
	// GamesReading: a new game set's build has read Reading's games.
	GamesReading GamesEventKind = iota
	// GamesSetReady: the job's game set (Set), read back or just built.
	GamesSetReady
	// GamesTraining: the training starts, or resumes (Plan).
	GamesTraining
	// GamesPoint: a new point of the learning curve (Point).
	GamesPoint
	// GamesStep: the trainer's report between points (Step).
	GamesStep
)

// GamesEvent is one report of a games job; the field its Kind names is set.
type GamesEvent struct {
	Kind    GamesEventKind
	Reading BuildProgress
	Set     *GameSet
	Plan    GamesPlan
	Point   CurvePoint
	Step    Progress
}

// GamesPlan is the training a games job does.
type GamesPlan struct {
	Network model.Config
	Epochs  float64
	Steps   int64 // the job's steps, of Batch positions each
	Batch   int
}

// GamesRunResult is what a games job did.
type GamesRunResult struct {
	// Curve is the learning curve: set too when the job stopped or failed
	// after training began, so that a caller can show what was measured.
	Curve *Curve
	// Network is the written network's id, Step its step; Kept is
	// "best" when that is an earlier step's (the least held-out loss)
	// than the last, else "last".
	Network string
	Step    int64
	Kept    string
	// Steps is the job's last step, Seconds its training time.
	Steps   int64
	Seconds float64
	// State and CurveFile are the work directory's files of the last
	// step's state and of the curve.
	State, CurveFile string
}

// gamesJobFile is job.json: what a work directory was started with. Its
// fields, their order included, are the file's bytes, which a resumed job
// compares; a change here refuses every earlier work directory.
type gamesJobFile struct {
	Format    string        `json:"format"`
	Inputs    []string      `json:"inputs"`
	Filter    GameFilter    `json:"filter"`
	Config    string        `json:"config"` // the config file's text
	Epochs    float64       `json:"epochs"`
	EvalEvery int64         `json:"eval_every"`
	Init      string        `json:"init,omitempty"` // the network id of the initial network
	Network   *model.Config `json:"network"`
	// ScoreWeight is GamesRun's, where given.
	ScoreWeight float64 `json:"score_weight,omitempty"`
}

// RunGamesJob runs job in its work directory: it builds the game set (or
// reads the one built before), trains on it (TrainGames) and writes the
// chosen network to job.Out. Progress goes to ev, which may be nil.
// Stopped by ctx, it keeps what it has and returns ctx's error (with the
// curve so far, once training began); run again, it goes on.
func RunGamesJob(ctx context.Context, job GamesRun, ev func(GamesEvent)) (*GamesRunResult, error) {
	if ev == nil {
		ev = func(GamesEvent) {}
	}
	if job.Dir == "" || job.Out == "" || len(job.Inputs) == 0 {
		return nil, errors.New("train: games job: a work directory, an output network and games are needed")
	}
	cfg := job.Config
	if job.ScoreWeight > 0 {
		cfg.Train.SearchValueWeight = job.ScoreWeight
	}
	if job.Init != nil {
		cfg.Network = job.Init.Weights.Config
	}
	dir := job.Dir
	if err := checkGamesWorkDir(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	unlock, err := runlock.Lock(filepath.Join(dir, gamesLockName))
	if err != nil {
		return nil, fmt.Errorf("train: %s: %w", dir, err)
	}
	defer unlock()
	desc := gamesJobFile{Format: GamesJobFormat, Inputs: job.Inputs, Filter: job.Filter, Config: job.ConfigText,
		Epochs: cfg.Epochs, EvalEvery: cfg.EvalEvery, Network: &cfg.Network, ScoreWeight: job.ScoreWeight}
	if job.Init != nil {
		desc.Init = job.Init.Weights.ID()
	}
	if err := checkGamesJobFile(filepath.Join(dir, gamesJobName), desc); err != nil {
		return nil, err
	}
	set, err := gamesJobSet(ctx, filepath.Join(dir, gamesSetName), job, ev)
	if err != nil {
		return nil, err
	}
	ev(GamesEvent{Kind: GamesSetReady, Set: set})
	init := job.Init
	if init != nil {
		// A network of the other game would learn this one from a
		// nonsense start.
		for _, rs := range set.RuleSets {
			if err := init.CheckRuleSet(rs); err != nil {
				return nil, fmt.Errorf("train: initial network %s: %w", job.InitName, err)
			}
		}
	}
	state := filepath.Join(dir, gamesStateName)
	if init == nil {
		// Without a state this is a new job: its first weights are the
		// config's, random.
		if _, err := os.Stat(state); errors.Is(err, os.ErrNotExist) {
			if init, err = model.RandomCheckpoint(cfg.Network, set.RuleSets, model.Provenance{CodeVersion: job.CodeVersion, Seed: cfg.NetworkSeed,
				Note: "random weights, to learn from recorded games"}); err != nil {
				return nil, fmt.Errorf("train: %w", err)
			}
		}
	}
	steps := GamesSteps(cfg.Train, set.Train.Positions, cfg.Epochs)
	ev(GamesEvent{Kind: GamesTraining, Plan: GamesPlan{Network: cfg.Network, Epochs: cfg.Epochs, Steps: steps, Batch: cfg.Train.Batch}})
	res := &GamesRunResult{State: state, CurveFile: filepath.Join(dir, gamesCurveName)}
	bestFile := filepath.Join(dir, gamesBestName)
	ck, curve, err := TrainGames(ctx, cfg.Train, GamesJob{Set: set, State: state, Curve: res.CurveFile, Best: bestFile,
		Init: init, Epochs: cfg.Epochs, EvalEvery: cfg.EvalEvery, Evaluators: job.Evaluators, Seed: cfg.Seed, CodeVersion: job.CodeVersion,
		Progress:      func(p CurvePoint) { ev(GamesEvent{Kind: GamesPoint, Point: p}) },
		TrainProgress: func(p Progress) { ev(GamesEvent{Kind: GamesStep, Step: p}) }})
	res.Curve = curve
	if err != nil {
		return res, err
	}
	final := *ck
	final.Optimizer = nil
	res.Kept = "last"
	if !job.KeepLast && curve.BestStep >= 0 && curve.BestStep != ck.Steps {
		best, err := model.Load(bestFile)
		if err != nil {
			return res, fmt.Errorf("train: %w", err)
		}
		if best.Steps != curve.BestStep {
			return res, fmt.Errorf("train: %s is step %d's network, the curve says step %d: remove both and run again to redo the evaluations", bestFile, best.Steps, curve.BestStep)
		}
		final = *best
		res.Kept = "best"
	}
	final.Provenance.Note = gamesProvenanceNote(set, curve, final.Steps)
	if job.Init != nil {
		final.Provenance.Parent = job.Init.Weights.ID()
	}
	if err := final.Save(job.Out); err != nil {
		return res, fmt.Errorf("train: %w", err)
	}
	res.Network, res.Step, res.Steps = final.Weights.ID(), final.Steps, ck.Steps
	res.Seconds = curve.Points[len(curve.Points)-1].Seconds
	return res, nil
}

// gamesJobSet reads the job's game set, or builds it where there is none
// yet (a build killed part way left none).
func gamesJobSet(ctx context.Context, setDir string, job GamesRun, ev func(GamesEvent)) (*GameSet, error) {
	set, err := ReadGameSet(setDir)
	switch {
	case err == nil:
		if !set.Same(job.Inputs, job.Filter) { // job.json says otherwise: a bug, or a hand edit
			return nil, fmt.Errorf("train: %s was built from other games or filters than this job's", setDir)
		}
		return set, nil
	case errors.Is(err, os.ErrNotExist):
		return buildGameSet(ctx, setDir, job.Inputs, job.Filter, job.CodeVersion, func(p BuildProgress) {
			ev(GamesEvent{Kind: GamesReading, Reading: p})
		})
	}
	return nil, err
}

// checkGamesWorkDir refuses a work directory that is neither a games
// job's (job.json) nor new or empty (its lock and temporary files aside):
// nothing of another job's is taken for this one's, or mixed in.
func checkGamesWorkDir(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, gamesJobName)); err == nil {
		return nil
	}
	other := atomicfile.OtherFiles(dir, gamesLockName)
	if len(other) > 0 {
		return fmt.Errorf("train: %s is not a palace train job (no %s) and holds other files (%s); give a new or empty work directory", dir, gamesJobName, strings.Join(other, ", "))
	}
	return nil
}

// checkGamesJobFile writes the job's description to path, or checks that
// the one there is the same job.
func checkGamesJobFile(path string, job gamesJobFile) error {
	want, err := json.MarshalIndent(job, "", "  ")
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	want = append(want, '\n')
	have, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		if err := atomicfile.WriteBytes(path, 0o644, want); err != nil {
			return fmt.Errorf("train: %w", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if !bytes.Equal(have, want) {
		return fmt.Errorf("train: %s was started with other games, filters, config or initial network (see %s); give another work directory, or remove it to start over",
			filepath.Dir(path), path)
	}
	return nil
}

// gamesProvenanceNote says what a network trained from records learnt
// from, and how it did on the held-out games at its step.
func gamesProvenanceNote(set *GameSet, curve *Curve, step int64) string {
	note := fmt.Sprintf("trained on %d recorded games (%d positions) from %s", set.Train.Games, set.Train.Positions, strings.Join(set.Inputs, ", "))
	if p, ok := curve.Point(step); ok && p.HeldOut != nil {
		note += fmt.Sprintf("; on %d held-out games: top-1 %.1f%%, top-3 %.1f%%", set.HeldOut.Games, 100*p.HeldOut.Top1, 100*p.HeldOut.Top3)
	}
	return note
}
