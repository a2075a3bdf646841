package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"time"

	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/nn/gnet"
	"github.com/palace-chess/palace/nn/model"
)

// Learning from records: a game set's training positions through the same
// trainer as self-play's (Run), in chunks between evaluations on the
// held-out games. The trainer's state and the learning curve are files,
// each rewritten crash-safely, so a job killed at any moment resumes from
// its last save and evaluations already made are not made again.

// GamesJob is one supervised training job.
type GamesJob struct {
	Set *GameSet
	// State is the trainer's checkpoint (Run's); Curve the learning
	// curve's JSON file; Best, when set, the file that keeps the network
	// of the evaluation with the least held-out loss (early stopping: a
	// value head that memorises a small collection's results gets worse
	// on other games long before the policy stops improving).
	State, Curve, Best string
	// Init is the network a new state starts from.
	Init *model.Checkpoint
	// Epochs is how many times, on average, each training position is
	// drawn.
	Epochs float64
	// EvalEvery is the number of steps between held-out evaluations (0:
	// at the end only); the untrained network is evaluated first.
	EvalEvery int64
	// Evaluators is the number of network copies evaluations use.
	Evaluators  int
	Seed        uint64
	CodeVersion string
	// Progress receives each new point of the curve; TrainProgress Run's
	// reports between them.
	Progress      func(CurvePoint)
	TrainProgress func(Progress)
}

// CurvePoint is the learning curve at one step.
type CurvePoint struct {
	Step  int64   `json:"step"`
	Epoch float64 `json:"epoch"`
	Rate  float64 `json:"rate"`
	// Seconds is the training time so far, evaluations excluded (a
	// resumed job counts from its last point).
	Seconds float64 `json:"seconds"`
	// TrainPolicy and TrainWDL are the training loss's means over the
	// steps since the previous point (absent at step 0).
	TrainPolicy float64 `json:"train_policy,omitempty"`
	TrainWDL    float64 `json:"train_wdl,omitempty"`
	// HeldOut is the network's report on the held-out games (absent when
	// none are held out).
	HeldOut *EvalReport `json:"held_out,omitempty"`
}

// Curve is a supervised job's learning curve file.
type Curve struct {
	Format  string       `json:"format"`
	Version int          `json:"version"`
	Points  []CurvePoint `json:"points"`
	// BestStep is the step of the point with the least held-out loss
	// (HeldOutLoss), whose network the job's Best file holds; -1: none
	// yet.
	BestStep int64 `json:"best_step"`
}

// HeldOutLoss is what early stopping minimises: the held-out policy loss
// plus the WDL loss (where the held-out games have results).
func (p *CurvePoint) HeldOutLoss() float64 {
	h := p.HeldOut
	if h == nil {
		return math.Inf(1)
	}
	if h.ValuePositions == 0 {
		return h.PolicyCE
	}
	return h.PolicyCE + h.WDLCE
}

// Point is the curve's point at step, if it has one.
func (c *Curve) Point(step int64) (CurvePoint, bool) {
	for _, p := range c.Points {
		if p.Step == step {
			return p, true
		}
	}
	return CurvePoint{}, false
}

const (
	CurveFormat  = "palace-learning-curve"
	CurveVersion = 1
)

// ReadCurve reads a learning curve file; one that does not exist is empty.
func ReadCurve(path string) (*Curve, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Curve{Format: CurveFormat, Version: CurveVersion, BestStep: -1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("train: curve: %w", err)
	}
	var c Curve
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("train: curve %s: %w", path, err)
	}
	if c.Format != CurveFormat || c.Version != CurveVersion {
		return nil, fmt.Errorf("train: %s is format %q version %d, this palace reads %q version %d", path, c.Format, c.Version, CurveFormat, CurveVersion)
	}
	return &c, nil
}

func (c *Curve) write(path string) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("train: curve: %w", err)
	}
	if err := atomicfile.WriteBytes(path, 0o644, append(data, '\n')); err != nil {
		return fmt.Errorf("train: curve: %w", err)
	}
	return nil
}

// SuperviseConfig is cfg as supervised training uses it: the replay
// window is every training position (records do not age as self-play's
// do), and a cosine schedule without a length decays over the whole job.
func SuperviseConfig(cfg Config, positions, steps int64) Config {
	cfg.MinRows, cfg.WindowExponent, cfg.WindowExpansion, cfg.MaxRows = int(min(positions, math.MaxInt32)), 1, 1, 0
	if cfg.Schedule.Kind == gnet.Cosine && cfg.Schedule.Steps == 0 {
		cfg.Schedule.Steps = max(steps, 1)
	}
	return cfg
}

// GamesSteps is the number of steps epochs passes over positions take.
func GamesSteps(cfg Config, positions int64, epochs float64) int64 {
	return max(1, int64(math.Ceil(epochs*float64(positions)/float64(cfg.Batch))))
}

// TrainGames trains on job.Set's training positions for job.Epochs,
// evaluating on its held-out positions every job.EvalEvery steps, and
// returns the final checkpoint and the curve. A cancelled job saves what
// it has and returns ctx's error; run again, it goes on where it stopped.
func TrainGames(ctx context.Context, cfg Config, job GamesJob) (*model.Checkpoint, *Curve, error) {
	set := job.Set
	if set == nil || job.State == "" || job.Curve == "" {
		return nil, nil, errors.New("train: games: a game set, a state file and a curve file are needed")
	}
	if !(job.Epochs > 0) || math.IsInf(job.Epochs, 0) || job.EvalEvery < 0 {
		return nil, nil, fmt.Errorf("train: games: epochs %v, eval every %d: want > 0 and ≥ 0", job.Epochs, job.EvalEvery)
	}
	if cfg.WeightAverage > 0 {
		// Its curve and best step measure the weights themselves.
		return nil, nil, fmt.Errorf("train: games: weight_average %v is for the loop's candidates; learning from records exports the weights of its best step: set it to 0", cfg.WeightAverage)
	}
	if cfg.ReplyPolicyWeight > 0 {
		return nil, nil, fmt.Errorf("train: games: reply_policy_weight %v is for the loop's self-play games; learning from records does not train the reply head: set it to 0", cfg.ReplyPolicyWeight)
	}
	positions := set.Train.Positions
	target := GamesSteps(cfg, positions, job.Epochs)
	cfg = SuperviseConfig(cfg, positions, target)
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	curve, err := ReadCurve(job.Curve)
	if err != nil {
		return nil, nil, err
	}
	copies := job.Evaluators
	if copies < 1 {
		copies = runtime.NumCPU()
	}
	var seconds float64
	if n := len(curve.Points); n > 0 {
		seconds = curve.Points[n-1].Seconds
	}
	evaluated := func(step int64) bool {
		_, ok := curve.Point(step)
		return ok
	}
	point := func(ck *model.Checkpoint, losses *gnet.Losses, rate float64) error {
		p := CurvePoint{Step: ck.Steps, Epoch: float64(ck.Steps) * float64(cfg.Batch) / float64(positions), Rate: rate, Seconds: seconds}
		if losses != nil {
			p.TrainPolicy, p.TrainWDL = losses.Policy, losses.WDL
		}
		if set.HeldOut.Positions > 0 {
			ev, err := model.NewEvaluators(ck.Weights, copies)
			if err != nil {
				return fmt.Errorf("train: games: %w", err)
			}
			rep, err := Eval(ev, []string{set.HeldOutDir()}, set.RuleSets, EvalOptions{Batch: 256})
			if err != nil {
				return err
			}
			p.HeldOut = &rep
		}
		if job.Best != "" && p.HeldOut != nil {
			best, ok := curve.Point(curve.BestStep)
			if !ok || p.HeldOutLoss() < best.HeldOutLoss() {
				// Saved before the curve names it: a kill in between
				// evaluates this step again and saves it again.
				keep := *ck
				keep.Optimizer = nil
				if err := keep.Save(job.Best); err != nil {
					return fmt.Errorf("train: games: %w", err)
				}
				curve.BestStep = ck.Steps
			}
		}
		curve.Points = append(curve.Points, p)
		if err := curve.write(job.Curve); err != nil {
			return err
		}
		if job.Progress != nil {
			job.Progress(p)
		}
		return nil
	}
	// A network trained before starts this job's count of steps (and its
	// schedule) afresh, with a fresh optimizer.
	if init := job.Init; init != nil && (init.Steps != 0 || init.Samples != 0 || init.Optimizer != nil) {
		fresh := *init
		fresh.Steps, fresh.Samples, fresh.Optimizer = 0, 0, nil
		job.Init = &fresh
	}
	run := Job{Dirs: []string{set.TrainDir()}, RuleSets: set.RuleSets, State: job.State, Init: job.Init,
		Seed: job.Seed, CodeVersion: job.CodeVersion, Progress: job.TrainProgress}
	// The untrained network's point: the baseline of the curve.
	if !evaluated(0) {
		if _, err := os.Stat(job.State); errors.Is(err, os.ErrNotExist) {
			if job.Init == nil {
				return nil, nil, errors.New("train: games: no state and no initial network")
			}
			if err := point(job.Init, nil, cfg.Schedule.At(0)); err != nil {
				return nil, nil, err
			}
		}
	}
	every := job.EvalEvery
	if every == 0 {
		every = target
	}
	var ck *model.Checkpoint
	for next := every; ; next += every {
		next = min(next, target)
		run.TargetSteps = next
		start := time.Now()
		res, err := Run(ctx, cfg, run)
		seconds += time.Since(start).Seconds()
		if err != nil {
			return nil, curve, err
		}
		ck = res.Checkpoint
		if ck.Steps == next && !evaluated(next) {
			var losses *gnet.Losses
			if res.Steps > 0 {
				losses = &res.Losses
			}
			if err := point(ck, losses, cfg.Schedule.At(ck.Steps-1)); err != nil {
				return nil, curve, err
			}
		}
		if next >= target {
			break
		}
	}
	return ck, curve, nil
}
