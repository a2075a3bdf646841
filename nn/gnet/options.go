package gnet

import (
	"fmt"
	"math"
)

// Optimizer names, as a checkpoint's model.Optimizer records them.
const (
	SGD  = "sgd"  // SGD with momentum: v ← μv + g, w ← w − ηv
	Adam = "adam" // Adam (Kingma & Ba) with L2 in the loss, not AdamW
)

// Schedule kinds.
const (
	Constant  = "constant" // Rate throughout
	StepDecay = "step"     // Rate × Gamma^⌊step/Every⌋
	Cosine    = "cosine"   // Rate to Min along half a cosine over Steps, then Min
)

// Schedule gives the learning rate of each step. An optional linear
// warm-up scales the first Warmup steps' rates by (step+1)/Warmup. Steps
// count from 0: the rate of the first step is At(0).
type Schedule struct {
	Kind   string  `json:"kind"` // Constant, StepDecay or Cosine
	Rate   float64 `json:"rate"` // the base (peak) rate
	Warmup int64   `json:"warmup,omitempty"`
	Every  int64   `json:"every,omitempty"` // step decay: steps between drops
	Gamma  float64 `json:"gamma,omitempty"` // step decay: factor at each drop
	Steps  int64   `json:"steps,omitempty"` // cosine: length of the decay
	Min    float64 `json:"min,omitempty"`   // cosine: the rate it ends at
}

// Validate reports a schedule that cannot give rates.
func (s Schedule) Validate() error {
	if !(s.Rate > 0) || math.IsInf(s.Rate, 0) {
		return fmt.Errorf("gnet: schedule rate %v, want > 0", s.Rate)
	}
	if s.Warmup < 0 {
		return fmt.Errorf("gnet: schedule warm-up %d, want ≥ 0", s.Warmup)
	}
	switch s.Kind {
	case Constant:
	case StepDecay:
		if s.Every < 1 || !(s.Gamma > 0 && s.Gamma <= 1) {
			return fmt.Errorf("gnet: step schedule every %d gamma %v, want every ≥ 1 and 0 < gamma ≤ 1", s.Every, s.Gamma)
		}
	case Cosine:
		if s.Steps < 1 || !(s.Min >= 0 && s.Min <= s.Rate) {
			return fmt.Errorf("gnet: cosine schedule steps %d min %v, want steps ≥ 1 and 0 ≤ min ≤ rate", s.Steps, s.Min)
		}
	default:
		return fmt.Errorf("gnet: schedule kind %q, want %q, %q or %q", s.Kind, Constant, StepDecay, Cosine)
	}
	return nil
}

// At is the learning rate of step (counting from 0).
func (s Schedule) At(step int64) float64 {
	r := s.Rate
	switch s.Kind {
	case StepDecay:
		r *= math.Pow(s.Gamma, float64(step/s.Every))
	case Cosine:
		t := min(float64(step)/float64(s.Steps), 1)
		r = s.Min + (s.Rate-s.Min)*(1+math.Cos(math.Pi*t))/2
	}
	if step < s.Warmup {
		r *= float64(step+1) / float64(s.Warmup)
	}
	return r
}

// Option configures a Trainer.
type Option func(*options) error

type options struct {
	batch      int
	optimizer  string
	momentum   float64 // SGD
	beta1      float64 // Adam
	beta2      float64
	epsilon    float64
	l2         float64
	schedule   *Schedule
	bnMomentum float64
	seed       uint64
	seeded     bool
	f64        bool // tests only: the graph in float64 (no optimizer)
	bf16       bool
	average    float64 // the weight average's decay a step (0: none)
	reply      float64 // the reply loss's weight (WithReplyWeight)
}

func defaultOptions() options {
	return options{batch: 256, optimizer: SGD, momentum: 0.9, beta1: 0.9, beta2: 0.999, epsilon: 1e-8, l2: 1e-4, bnMomentum: 0.1}
}

// rate is the schedule in force: the one given, else a constant rate
// that suits the optimizer.
func (o *options) rate() Schedule {
	if o.schedule != nil {
		return *o.schedule
	}
	if o.optimizer == Adam {
		return Schedule{Kind: Constant, Rate: 1e-3}
	}
	return Schedule{Kind: Constant, Rate: 0.01}
}

// WithBatch sets the batch size every Step takes (default 256). The graph
// is built for it.
func WithBatch(n int) Option {
	return func(o *options) error {
		if n < 2 || n > 1<<16 {
			// Batch norm's batch statistics need two positions at least.
			return fmt.Errorf("gnet: batch %d, want 2–65536", n)
		}
		o.batch = n
		return nil
	}
}

// WithSGD picks SGD with momentum μ (the default, μ = 0.9).
func WithSGD(momentum float64) Option {
	return func(o *options) error {
		if !(momentum >= 0 && momentum < 1) {
			return fmt.Errorf("gnet: momentum %v, want 0 ≤ μ < 1", momentum)
		}
		o.optimizer, o.momentum = SGD, momentum
		return nil
	}
}

// WithAdam picks Adam with the given β₁, β₂ and ε (0.9, 0.999, 1e-8 are
// the usual ones).
func WithAdam(beta1, beta2, epsilon float64) Option {
	return func(o *options) error {
		if !(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1) || !(epsilon > 0 && epsilon < 1) {
			return fmt.Errorf("gnet: adam β₁ %v β₂ %v ε %v, want β in [0, 1) and ε in (0, 1)", beta1, beta2, epsilon)
		}
		o.optimizer, o.beta1, o.beta2, o.epsilon = Adam, beta1, beta2, epsilon
		return nil
	}
}

// WithL2 sets the L2 coefficient c (default 1e-4): the loss gains
// c·Σw² over the convolution and dense weights (not biases, not batch
// norm).
func WithL2(c float64) Option {
	return func(o *options) error {
		if !(c >= 0 && c < 1) {
			return fmt.Errorf("gnet: L2 coefficient %v, want 0 ≤ c < 1", c)
		}
		o.l2 = c
		return nil
	}
}

// WithSchedule sets the learning-rate schedule (default: constant 0.01
// for SGD, 0.001 for Adam).
func WithSchedule(s Schedule) Option {
	return func(o *options) error {
		if err := s.Validate(); err != nil {
			return err
		}
		o.schedule = &s
		return nil
	}
}

// WithBNMomentum sets the weight of each batch's statistics in batch
// norm's running mean and variance (default 0.1).
func WithBNMomentum(m float64) Option {
	return func(o *options) error {
		if !(m > 0 && m <= 1) {
			return fmt.Errorf("gnet: batch-norm momentum %v, want 0 < m ≤ 1", m)
		}
		o.bnMomentum = m
		return nil
	}
}

// WithSeed records the seed the run's weights and data came from in its
// checkpoints. Training itself draws nothing at random: a step is a
// function of the weights, the optimizer state and the batch.
func WithSeed(seed uint64) Option {
	return func(o *options) error {
		o.seed, o.seeded = seed, true
		return nil
	}
}

// WithBF16 trains in mixed precision, as PyTorch's bf16 autocast does:
// the tower's 3×3 convolutions (forward, input and filter gradients) take
// their operands rounded to bfloat16 and sum the products in float32,
// in Winograd F(2×2, 3×3) (winograd.go; PALACE_WINOGRAD=off: direct);
// the weights, their updates, batch norm, the heads and the losses stay
// float32. It takes effect where nn/model's kernels run on a CPU with
// AVX-512 BF16; elsewhere, and under PALACE_KERNEL=blas, training stays
// float32 (Trainer.BF16 says which). The evaluation of held-out losses
// is float32 either way.
func WithBF16(on bool) Option {
	return func(o *options) error {
		o.bf16 = on
		return nil
	}
}

// WithWeightAverage keeps an exponential moving average of the weights
// beside them, a ← d·a + (1−d)·w after every step (KataGo's and lc0's
// stochastic weight averaging, as a running average): AveragedWeights
// exports it. d = 0 keeps none (the default); 1 − d is the share of the
// newest step, so the average spans about 1/(1 − d) steps.
func WithWeightAverage(decay float64) Option {
	return func(o *options) error {
		if !(decay >= 0 && decay < 1) {
			return fmt.Errorf("gnet: weight average decay %v, want 0 ≤ d < 1", decay)
		}
		o.average = decay
		return nil
	}
}

// WithReplyWeight is the weight of the reply head's loss in the loss the
// step descends (KataGo weighs its opponent-policy target 0.15): for a
// network with the head (model.Config.ReplyPolicy), Total adds weight ×
// Losses.Reply. 0 (the default) leaves the head untrained.
func WithReplyWeight(weight float64) Option {
	return func(o *options) error {
		if !(weight >= 0 && weight <= 10) {
			return fmt.Errorf("gnet: reply weight %v, want 0 to 10", weight)
		}
		o.reply = weight
		return nil
	}
}
