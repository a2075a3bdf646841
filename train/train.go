// Package train trains the network on self-play shards: it draws batches
// from the replay window (datasets.Sampler), turns them into planes and
// targets, and steps an nn/gnet trainer, saving its whole state (weights,
// batch-norm statistics, optimizer, step count) crash-safely as it goes.
//
// # How much to train
//
// A run asks for a number of steps in total (Steps gives KataGo's rule:
// every position self-play has produced is drawn SamplesPerPosition times
// on average), and Run trains until the trainer has taken that many. The
// trainer neither starves (it waits for self-play: the caller asks again
// when more positions exist) nor overfits (a position is seen a bounded
// number of times however long the run).
//
// # Resuming
//
// The state file is rewritten every CheckpointEvery steps and at the end.
// Batches come from a sampler seeded with (Seed, the step it starts at),
// and a fresh sampler starts after every save, so a run killed at any
// moment and resumed from its last save draws the batches an uninterrupted
// run would have drawn, and takes the same steps.
package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/internal/splitmix"
	"github.com/palace-chess/palace/nn/gnet"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

// Config is how the network is trained: the optimizer, the learning-rate
// schedule, the loss's L2 term, and how batches are drawn. The yaml keys
// are a run config's train section, decoded over the values already there
// (yaml.go: the schedule and the replay window are sections of their own).
type Config struct {
	Batch     int           `yaml:"batch"`     // positions per step
	Optimizer string        `yaml:"optimizer"` // gnet.SGD or gnet.Adam
	Momentum  float64       `yaml:"momentum"`  // SGD
	Beta1     float64       `yaml:"beta1"`     // Adam
	Beta2     float64       `yaml:"beta2"`
	Epsilon   float64       `yaml:"epsilon"`
	Schedule  gnet.Schedule `yaml:"-"`
	L2        float64       `yaml:"l2"`
	// BNMomentum is the weight of each batch in batch norm's running
	// statistics.
	BNMomentum float64 `yaml:"bn_momentum"`
	// SamplesPerPosition is how many times, on average, each self-play
	// position is drawn over the run (KataGo's samples per new row).
	SamplesPerPosition float64 `yaml:"samples_per_position"`
	// The replay window (datasets.WindowSize): MinRows positions before
	// training starts, growing like total^WindowExponent; MaxRows caps it
	// (0: no cap).
	MinRows         int     `yaml:"-"`
	WindowExponent  float64 `yaml:"-"`
	WindowExpansion float64 `yaml:"-"`
	MaxRows         int     `yaml:"-"`
	// Mirror is the probability of training on a position's mirror image.
	Mirror float64 `yaml:"mirror"`
	// SearchValueWeight mixes the search's root WDL into the value
	// target: (1−w)·(the game's result) + w·(the search's WDL). A game's
	// result is one label shared by all of its ~150 positions, which a
	// network memorises game by game long before it learns what wins (the
	// overfitting AlphaGo's value network showed on whole games); the
	// search's estimate differs from position to position.
	SearchValueWeight float64 `yaml:"search_value_weight"`
	// DrawMaterialScale, where > 0, lets a drawn game's value target lean
	// to the side that was ahead on material where the game ended
	// (datasets.Record.FinalMaterial, d to the side to move): a win (or a
	// loss, for d < 0) with probability tanh(|d|/DrawMaterialScale)/2,
	// else the draw. At most half a win, so that a draw with any lead is
	// still worth less than the win it should have become. Weak xiangqi
	// self-play ends almost every game at the length cap or by
	// repetition, and "draw" for all of them teaches the network nothing
	// about what wins; janggi's counting gives its games this signal
	// through the rules. Only the training target changes: shards and
	// game records keep the true result. 0: a draw is a draw.
	DrawMaterialScale float64 `yaml:"draw_material_scale"`
	// MaskIllegal trains the policy as a softmax over each position's legal
	// moves only (lc0's masking): the target marks the other slots illegal
	// and the loss leaves them out. Unmasked, most of the policy loss and
	// its gradient go to pushing ~2,000 illegal slots down, and a small
	// network's preference among the ~40 legal moves, all a search reads,
	// can get worse while the loss falls (measured on xiangqi self-play,
	// 2026-12-01). It changes the loss, never the network.
	MaskIllegal bool `yaml:"mask_illegal"`
	// LabelSmoothing moves this share of each policy target evenly onto
	// the position's legal moves: (1−s)·target + s/(legal moves). A
	// recorded game's target is the one move a player chose, where a
	// master would often have played another as well; a little smoothing
	// keeps a network trained on records from staking everything on one
	// move, which a search reading its policy needs (0: off).
	LabelSmoothing float64 `yaml:"label_smoothing"`
	// Records, with RecordsShare > 0, mixes the positions of recorded
	// games into self-play's training: a game set directory (palace train
	// --games builds one, WORK/gameset) whose training positions fill
	// RecordsShare of every batch during a run's first RecordsGenerations
	// generations, so that a run started from a network trained on
	// records does not forget them before its own games are any good.
	// Off (0) by default.
	Records            string  `yaml:"records"`
	RecordsShare       float64 `yaml:"records_share"`
	RecordsGenerations int     `yaml:"records_generations"`
	// CheckpointEvery is the number of steps between saves of the state.
	CheckpointEvery int `yaml:"checkpoint_every"`
	// Precision is the tower's products: fp32, or bf16 (mixed precision
	// as PyTorch's autocast does it: the 3×3 convolutions' operands
	// rounded to bfloat16, their sums, the weights and everything else
	// float32), which trains faster where the CPU has AVX-512 BF16 and is
	// float32 elsewhere (gnet.WithBF16).
	Precision string `yaml:"precision"`
	// WeightAverage, where > 0, keeps an exponential moving average of the
	// weights, decaying by this factor a step (KataGo's and lc0's
	// stochastic weight averaging; gnet.WithWeightAverage), and a run's
	// candidate is the average (Result.Averaged) rather than the last
	// step's weights, whose noise a constant rate keeps up. The trainer's
	// state carries it (0: off).
	WeightAverage float64 `yaml:"weight_average"`
	// ReplyPolicyWeight, where > 0, trains the network's reply head
	// (model.Config.ReplyPolicy; KataGo's opponent-policy target, which
	// it weighs 0.15) on the opponent's reply: the search's policy in the
	// position after the move played, the next record of the same game.
	// A network without the head gets one when training starts from it
	// (model.WithReplyHead; it plays as before). The head is never
	// played; the tower learns from a second target. 0: off.
	ReplyPolicyWeight float64 `yaml:"reply_policy_weight"`
}

// The values of Config.Precision.
const (
	PrecisionFP32 = "fp32"
	PrecisionBF16 = "bf16"
)

// MaxSamplesPerPosition bounds Config.SamplesPerPosition: far above any
// useful value (KataGo's is about 1), and low enough that a run's step
// count, positions × samples / batch, stays far inside an int64 (1e300
// wrapped it negative and the run trained nothing, issue 47).
const MaxSamplesPerPosition = 1000

// DefaultConfig is a configuration for small networks on a CPU.
func DefaultConfig() Config {
	return Config{
		Batch:              128,
		Optimizer:          gnet.SGD,
		Momentum:           0.9,
		Beta1:              0.9,
		Beta2:              0.999,
		Epsilon:            1e-8,
		Schedule:           gnet.Schedule{Kind: gnet.Constant, Rate: 0.02, Warmup: 100},
		L2:                 1e-4,
		BNMomentum:         0.1,
		SamplesPerPosition: 4,
		MinRows:            10_000,
		WindowExponent:     datasets.DefaultExponent,
		WindowExpansion:    datasets.DefaultExpansion,
		Mirror:             0.5,
		MaskIllegal:        true,
		CheckpointEvery:    200,
		Precision:          PrecisionFP32,
	}
}

// Validate reports every setting that cannot work.
func (c *Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.Batch < 1 || c.Batch > 1<<14 {
		bad("batch %d, want 1 to 16384", c.Batch)
	}
	switch c.Optimizer {
	case gnet.SGD:
		if !(c.Momentum >= 0 && c.Momentum < 1) {
			bad("momentum %v, want 0 ≤ momentum < 1", c.Momentum)
		}
	case gnet.Adam:
		if !(c.Beta1 >= 0 && c.Beta1 < 1 && c.Beta2 >= 0 && c.Beta2 < 1 && c.Epsilon > 0) {
			bad("adam beta1 %v beta2 %v epsilon %v, want betas in [0, 1) and epsilon > 0", c.Beta1, c.Beta2, c.Epsilon)
		}
	default:
		bad("optimizer %q, want %s or %s", c.Optimizer, gnet.SGD, gnet.Adam)
	}
	if err := c.Schedule.Validate(); err != nil {
		bad("schedule: %v", err)
	}
	if !(c.L2 >= 0) || math.IsInf(c.L2, 0) {
		bad("l2 %v, want a finite number ≥ 0", c.L2)
	}
	if !(c.BNMomentum > 0 && c.BNMomentum <= 1) {
		bad("bn_momentum %v, want 0 < m ≤ 1", c.BNMomentum)
	}
	if !(c.SamplesPerPosition > 0 && c.SamplesPerPosition <= MaxSamplesPerPosition) {
		bad("samples_per_position %v, want > 0 and ≤ %d", c.SamplesPerPosition, MaxSamplesPerPosition)
	}
	if c.MinRows < 1 {
		bad("window min_rows %d, want ≥ 1", c.MinRows)
	}
	if !(c.WindowExponent > 0 && c.WindowExponent <= 1) {
		bad("window exponent %v, want 0 < e ≤ 1", c.WindowExponent)
	}
	if !(c.WindowExpansion > 0) || math.IsInf(c.WindowExpansion, 0) {
		bad("window expansion %v, want > 0", c.WindowExpansion)
	}
	if c.MaxRows < 0 || (c.MaxRows > 0 && c.MaxRows < c.MinRows) {
		bad("window max_rows %d, want 0 (no cap) or ≥ min_rows %d", c.MaxRows, c.MinRows)
	}
	if !(c.Mirror >= 0 && c.Mirror <= 1) {
		bad("mirror %v, want a probability", c.Mirror)
	}
	if !(c.SearchValueWeight >= 0 && c.SearchValueWeight <= 1) {
		bad("search_value_weight %v, want 0 to 1", c.SearchValueWeight)
	}
	if !(c.DrawMaterialScale >= 0) || math.IsInf(c.DrawMaterialScale, 0) {
		bad("draw_material_scale %v, want a finite number ≥ 0 (0: off)", c.DrawMaterialScale)
	}
	if !(c.WeightAverage >= 0 && c.WeightAverage < 1) {
		bad("weight_average %v, want 0 (off) ≤ d < 1", c.WeightAverage)
	}
	if !(c.LabelSmoothing >= 0 && c.LabelSmoothing < 1) {
		bad("label_smoothing %v, want 0 ≤ s < 1", c.LabelSmoothing)
	}
	if !(c.RecordsShare >= 0 && c.RecordsShare < 1) || c.RecordsGenerations < 0 {
		bad("records_share %v, records_generations %d: want 0 ≤ share < 1 and generations ≥ 0", c.RecordsShare, c.RecordsGenerations)
	} else if c.RecordsShare > 0 && (c.Records == "" || c.RecordsGenerations == 0) {
		bad("records_share %v needs records (a game set directory) and records_generations ≥ 1", c.RecordsShare)
	} else if c.RecordsShare == 0 && (c.Records != "" || c.RecordsGenerations != 0) {
		// Said, not ignored: a user who gave records meant them to be used.
		bad("records %q, records_generations %d are never used with records_share 0: give records_share > 0, or leave them out", c.Records, c.RecordsGenerations)
	}
	if c.CheckpointEvery < 1 {
		bad("checkpoint_every %d, want ≥ 1", c.CheckpointEvery)
	}
	if !(c.ReplyPolicyWeight >= 0 && c.ReplyPolicyWeight <= 10) {
		bad("reply_policy_weight %v, want 0 (off) to 10", c.ReplyPolicyWeight)
	}
	if c.Precision != PrecisionFP32 && c.Precision != PrecisionBF16 {
		bad("precision %q, want %s or %s", c.Precision, PrecisionFP32, PrecisionBF16)
	}
	if len(errs) > 0 {
		return fmt.Errorf("train: config: %w", errors.Join(errs...))
	}
	return nil
}

// Steps is the number of steps a run should have taken in total once self-play
// has produced positions positions: SamplesPerPosition draws of each, in
// batches, counted only once the window's minimum is there (before it,
// training waits).
func (c *Config) Steps(positions int64) int64 {
	if positions < int64(c.MinRows) {
		return 0
	}
	return int64(float64(positions) * c.SamplesPerPosition / float64(c.Batch))
}

// Options returns the gnet options of the configuration.
func (c *Config) options(seed uint64) []gnet.Option {
	opts := []gnet.Option{gnet.WithBatch(c.Batch), gnet.WithL2(c.L2), gnet.WithSchedule(c.Schedule),
		gnet.WithBNMomentum(c.BNMomentum), gnet.WithSeed(seed), gnet.WithBF16(c.Precision == PrecisionBF16),
		gnet.WithWeightAverage(c.WeightAverage), gnet.WithReplyWeight(c.ReplyPolicyWeight)}
	if c.Optimizer == gnet.Adam {
		return append(opts, gnet.WithAdam(c.Beta1, c.Beta2, c.Epsilon))
	}
	return append(opts, gnet.WithSGD(c.Momentum))
}

// Job is one call of Run: where the data and the state are, and how far
// to train.
type Job struct {
	// Dirs are shard directories (each with a manifest), oldest first.
	Dirs []string
	// RuleSets are the rule sets the shards may name (name@hash); a shard
	// under another is an error, never skipped.
	RuleSets []*rules.RuleSet
	// State is the trainer's checkpoint file: read to resume when it
	// exists, rewritten crash-safely as training goes.
	State string
	// Init is the network a new state starts from (only when State does
	// not exist yet).
	Init *model.Checkpoint
	// TargetSteps is the number of steps, in total, to stop at.
	TargetSteps int64
	// Seed decides the batches.
	Seed uint64
	// CodeVersion goes into the checkpoints' provenance.
	CodeVersion string
	// Records, when set, is the game set whose training positions fill
	// Config.RecordsShare of every batch (the caller decides for which
	// generations).
	Records *GameSet
	// Progress, when set, receives a report after every save and at the
	// end.
	Progress func(Progress)
}

// Progress is where training stands.
type Progress struct {
	Step, Target int64
	Rate         float64     // the learning rate of the last step
	Losses       gnet.Losses // mean over the steps since the last report
	SamplesPerS  float64     // since the last report
	Window       int64       // positions in the replay window
	Total        int64       // positions the shards hold
	// Network is the saved state's network (model.Weights.ID), by which
	// a caller can tell this trainer's state from another file later.
	Network string
}

// Result is what a Run did.
type Result struct {
	Checkpoint *model.Checkpoint // the state at the end (weights, optimizer, counts)
	// Averaged is the weight average at the end (Config.WeightAverage),
	// nil without one.
	Averaged *model.Weights
	Steps    int64       // steps this call took
	Losses   gnet.Losses // mean over this call's steps
	Elapsed  time.Duration
}

// Run trains from job.State (or job.Init) until the trainer has taken
// job.TargetSteps steps or ctx is cancelled, saving the state every
// CheckpointEvery steps and at the end. A cancelled run saves what it has
// and returns ctx's error.
func Run(ctx context.Context, cfg Config, job Job) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	if job.State == "" {
		return Result{}, errors.New("train: no state file")
	}
	tr, err := open(cfg, job)
	if err != nil {
		return Result{}, err
	}
	res := Result{}
	start := time.Now()
	if tr.Steps() >= job.TargetSteps {
		res.Checkpoint, res.Averaged = tr.Checkpoint(), tr.AveragedWeights()
		return res, nil
	}
	rsByID := map[string]*rules.RuleSet{}
	for _, rs := range job.RuleSets {
		rsByID[rs.String()] = rs
	}
	fromRecords := 0
	if job.Records != nil && cfg.RecordsShare > 0 {
		fromRecords = int(math.Round(cfg.RecordsShare * float64(cfg.Batch)))
		for _, rs := range job.Records.RuleSets {
			rsByID[rs.String()] = rs
		}
	}
	b := newBatch(cfg.Batch, cfg.ReplyPolicyWeight > 0)
	b.searchWeight = float32(cfg.SearchValueWeight)
	b.drawMaterialScale = cfg.DrawMaterialScale
	b.maskIllegal = cfg.MaskIllegal
	b.smoothing = float32(cfg.LabelSmoothing)
	var sum gnet.Losses
	var since gnet.Losses
	sinceSteps, sinceStart := 0, time.Now()
	for tr.Steps() < job.TargetSteps {
		// A chunk: one sampler, from the step it starts at to the next save.
		first := tr.Steps()
		last := min(job.TargetSteps, (first/int64(cfg.CheckpointEvery)+1)*int64(cfg.CheckpointEvery))
		opts := []datasets.SamplerOption{
			datasets.WithSeed(splitmix.Mix(job.Seed, uint64(first))),
			datasets.WithWindow(cfg.MinRows, cfg.WindowExponent, cfg.WindowExpansion),
			datasets.WithMaxWindow(cfg.MaxRows),
			datasets.WithMirror(cfg.Mirror)}
		if b.reply != nil {
			opts = append(opts, datasets.WithReplies())
		}
		s, err := datasets.NewSampler(job.Dirs, opts...)
		if err != nil {
			return res, fmt.Errorf("train: %w", err)
		}
		window, total := s.Window(), s.Total()
		var rec *datasets.Sampler
		if fromRecords > 0 {
			n := job.Records.Train.Positions
			ropts := []datasets.SamplerOption{
				datasets.WithSeed(splitmix.Mix(splitmix.Mix(job.Seed, uint64(first)), recordsStream)),
				datasets.WithWindow(int(min(n, math.MaxInt32)), 1, 1),
				datasets.WithMirror(cfg.Mirror)}
			if b.reply != nil {
				ropts = append(ropts, datasets.WithReplies())
			}
			rec, err = datasets.NewSampler([]string{job.Records.TrainDir()}, ropts...)
			if err != nil {
				s.Close()
				return res, fmt.Errorf("train: records: %w", err)
			}
		}
		err = func() error {
			defer s.Close()
			if rec != nil {
				defer rec.Close()
			}
			for tr.Steps() < last {
				if err := ctx.Err(); err != nil {
					return err
				}
				if err := b.fill(s, rec, fromRecords, rsByID); err != nil {
					return err
				}
				l, err := tr.StepBatch(&gnet.Batch{Inputs: b.inputs, Policy: b.policy, WDL: b.wdl, Reply: b.reply})
				if err != nil {
					return fmt.Errorf("train: %w", err)
				}
				add(&sum, l)
				add(&since, l)
				sinceSteps++
				res.Steps++
			}
			return nil
		}()
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			return res, err
		}
		// A chunk cut short by cancellation is not saved: its batches
		// would differ from an uninterrupted run's (the next sampler
		// starts at the saved step), so it is taken again on resume.
		if err != nil {
			return res, err
		}
		ck := checkpoint(tr, job)
		if err := ck.Save(job.State); err != nil {
			return res, fmt.Errorf("train: saving the state: %w", err)
		}
		if job.Progress != nil && sinceSteps > 0 {
			el := time.Since(sinceStart).Seconds()
			job.Progress(Progress{Step: tr.Steps(), Target: job.TargetSteps, Rate: tr.Rate(),
				Losses: scale(since, sinceSteps), SamplesPerS: float64(sinceSteps*cfg.Batch) / el,
				Window: window, Total: total, Network: ck.Weights.ID()})
			since, sinceSteps, sinceStart = gnet.Losses{}, 0, time.Now()
		}
	}
	res.Checkpoint, res.Averaged = checkpoint(tr, job), tr.AveragedWeights()
	res.Losses = scale(sum, int(res.Steps))
	res.Elapsed = time.Since(start)
	return res, nil
}

// open resumes the trainer from job.State, or starts it from job.Init.
func open(cfg Config, job Job) (*gnet.Trainer, error) {
	ck, err := model.Load(job.State)
	switch {
	case err == nil:
	case errors.Is(err, os.ErrNotExist):
		if job.Init == nil {
			return nil, fmt.Errorf("train: %s does not exist and no initial network was given", job.State)
		}
		ck = job.Init
	default:
		return nil, fmt.Errorf("train: resuming: %w", err)
	}
	if err := ck.CheckEncoding(); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	if ck.Optimizer != nil && ck.Optimizer.Name != cfg.Optimizer {
		return nil, fmt.Errorf("train: %s was trained with %s; the config asks for %s (start a new state to switch)", job.State, ck.Optimizer.Name, cfg.Optimizer)
	}
	if cfg.ReplyPolicyWeight > 0 && !ck.Weights.Config.ReplyPolicy {
		// The head is added, as new weights; an optimizer state has none
		// for them, so the optimizer starts afresh.
		w, err := model.WithReplyHead(ck.Weights, splitmix.Mix(job.Seed, replyHeadStream))
		if err != nil {
			return nil, fmt.Errorf("train: adding the reply head: %w", err)
		}
		c := *ck
		c.Weights, c.Optimizer = w, nil
		ck = &c
	}
	tr, err := gnet.NewTrainer(ck, cfg.options(job.Seed)...)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	return tr, nil
}

// checkpoint is the trainer's state with the job's metadata.
func checkpoint(tr *gnet.Trainer, job Job) *model.Checkpoint {
	ck := tr.Checkpoint()
	ck.EncodingVersion = encode.Version
	ck.SetRuleSets(job.RuleSets...)
	ck.Provenance.CodeVersion = job.CodeVersion
	ck.Provenance.Seed = job.Seed
	ck.Provenance.Created = time.Now().UTC().Format(time.RFC3339)
	return ck
}

// recordsStream sets the records sampler's seeds apart from self-play's,
// replyHeadStream the reply head's first weights.
const (
	recordsStream   = 0x7265636f726473
	replyHeadStream = 0x7265706c79 // "reply"
)

// batch is one step's input and targets.
type batch struct {
	searchWeight float32
	// drawMaterialScale is Config.DrawMaterialScale.
	drawMaterialScale float64
	maskIllegal       bool    // Config.MaskIllegal
	smoothing         float32 // Config.LabelSmoothing
	legal             []bool  // scratch: the slots of one position's legal moves
	samples           []datasets.Sample
	inputs            []float32
	policy            []float32
	wdl               []float32
	reply             []float32 // the reply targets (Config.ReplyPolicyWeight), nil when off
}

// markIllegal sets the target of every slot that is none of policy's
// moves (a record lists every legal move, played or not) to
// gnet.IllegalTarget, which gnet's loss masks out.
func (b *batch) markIllegal(policy []datasets.PolicyEntry, target []float32) {
	if len(b.legal) != len(target) {
		b.legal = make([]bool, len(target))
	}
	for _, e := range policy {
		b.legal[e.Index] = true
	}
	for i, ok := range b.legal {
		if !ok {
			target[i] = gnet.IllegalTarget
		}
		b.legal[i] = false
	}
}

func newBatch(n int, replies bool) *batch {
	b := &batch{
		samples: make([]datasets.Sample, n),
		inputs:  make([]float32, n*encode.InputSize),
		policy:  make([]float32, n*encode.PolicySize()),
		wdl:     make([]float32, n*3),
	}
	if replies {
		b.reply = make([]float32, n*encode.PolicySize())
	}
	return b
}

// fill draws a batch. The policy target is the search's where the move had
// a full search and zero elsewhere (a zero row adds nothing to the policy
// loss: cheap searches train the value only, as playout-cap randomization
// intends), smoothed over the legal moves by b.smoothing. The first
// fromRecords samples come from records (recorded games' positions), the
// rest from s. The value target
// is the game's result, mixed with the search's WDL by searchWeight; a
// position of a game without a result has none (a zero row).
func (b *batch) fill(s, records *datasets.Sampler, fromRecords int, rsByID map[string]*rules.RuleSet) error {
	if err := s.Fill(b.samples[fromRecords:]); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if fromRecords > 0 {
		if err := records.Fill(b.samples[:fromRecords]); err != nil {
			return fmt.Errorf("train: records: %w", err)
		}
	}
	for i := range b.samples {
		sm := &b.samples[i]
		rs := rsByID[sm.RuleSet]
		if rs == nil {
			return fmt.Errorf("train: %s record %d is under rule set %s, which this run does not train on", sm.Shard, sm.Index, sm.RuleSet)
		}
		in := b.inputs[i*encode.InputSize : (i+1)*encode.InputSize]
		if err := datasets.EncodeRecord(&sm.Record, rs, in); err != nil {
			return fmt.Errorf("train: %s record %d: %w", sm.Shard, sm.Index, err)
		}
		ps := encode.PolicySize()
		p := b.policy[i*ps : (i+1)*ps]
		if sm.Full {
			if err := sm.PolicyTarget(p); err != nil {
				return fmt.Errorf("train: %s record %d: %w", sm.Shard, sm.Index, err)
			}
			if s := b.smoothing; s > 0 && hasTarget(sm.Policy) {
				even := s / float32(len(sm.Policy))
				for _, e := range sm.Policy {
					p[e.Index] = (1-s)*p[e.Index] + even
				}
			}
			if b.maskIllegal {
				b.markIllegal(sm.Policy, p)
			}
		} else {
			clear(p)
		}
		if b.reply != nil {
			// The reply's search policy, full or cheap: a cheap search's
			// is a target too, if a rougher one. The reply's own legal
			// moves mask it.
			r := b.reply[i*ps : (i+1)*ps]
			clear(r)
			if sm.HasReply && hasTarget(sm.Reply.Policy) {
				if err := sm.Reply.PolicyTarget(r); err != nil {
					return fmt.Errorf("train: %s record %d: %w", sm.Shard, sm.Index+1, err)
				}
				if b.maskIllegal {
					b.markIllegal(sm.Reply.Policy, r)
				}
			}
		}
		w := b.wdl[i*3 : i*3+3]
		clear(w)
		switch sm.Result {
		case datasets.Win:
			w[0] = 1
		case datasets.Draw:
			w[1] = 1
			if d := sm.FinalMaterial; b.drawMaterialScale > 0 && d != 0 {
				lean := float32(math.Tanh(math.Abs(float64(d))/b.drawMaterialScale)) / 2
				w[1] = 1 - lean
				if d > 0 {
					w[0] = lean
				} else {
					w[2] = lean
				}
			}
		case datasets.Loss:
			w[2] = 1
		case datasets.NoResult:
			// No value target: a zero row adds nothing to the WDL loss.
			continue
		default:
			return fmt.Errorf("train: %s record %d: result %d", sm.Shard, sm.Index, sm.Result)
		}
		if b.searchWeight > 0 {
			q := sm.WDL
			sum := q[0] + q[1] + q[2]
			if !(sum > 0.5 && sum < 1.5) {
				return fmt.Errorf("train: %s record %d: search WDL %v does not sum to 1", sm.Shard, sm.Index, q)
			}
			for j := range w {
				w[j] = (1-b.searchWeight)*w[j] + b.searchWeight*q[j]/sum
			}
		}
	}
	return nil
}

// hasTarget reports whether a policy target puts weight anywhere.
func hasTarget(policy []datasets.PolicyEntry) bool {
	for _, e := range policy {
		if e.P > 0 {
			return true
		}
	}
	return false
}

func add(dst *gnet.Losses, l gnet.Losses) {
	dst.Policy += l.Policy
	dst.WDL += l.WDL
	dst.Reply += l.Reply
	dst.L2 += l.L2
	dst.Total += l.Total
}

func scale(l gnet.Losses, n int) gnet.Losses {
	if n == 0 {
		return l
	}
	f := 1 / float64(n)
	return gnet.Losses{Policy: l.Policy * f, WDL: l.WDL * f, Reply: l.Reply * f, L2: l.L2 * f, Total: l.Total * f}
}
