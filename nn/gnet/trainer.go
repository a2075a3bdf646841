// Package gnet trains palace's network (model.Config) on Gorgonia, the
// only package of palace that imports it. Weights come in and go out as
// model.Weights, whole runs as model.Checkpoint (weights, batch-norm
// running statistics, optimizer state, step count), so that inference
// (model.NewNet) and training agree on every tensor and a run resumes
// exactly where it stopped.
package gnet

import (
	"fmt"
	"math"
	"slices"

	"github.com/palace-chess/palace/nn/model"
	"gorgonia.org/tensor"
)

// Losses are one batch's mean losses per position. Policy is the
// cross-entropy of the policy's log-softmax against the target
// distribution: over the slots a target row does not mark illegal (−1,
// lc0's convention), so a row that marks them trains only the preference
// among the legal moves, which is all a search reads; over all PolicySize
// slots for a row that marks none, whose illegal slots then enter through
// the softmax's normaliser (their logits pushed down, never up). WDL is the cross-entropy of the
// value head's three logits against the WDL target. L2 is c·Σw² over the
// convolution and dense weights. Reply, for a network with the reply
// head, is its cross-entropy against the reply targets (masked as the
// policy's; a position without one counts 0, as a policy row without a
// target does). Total is the sum, the reply's times its weight
// (WithReplyWeight): the loss the step descends.
type Losses struct {
	Policy, WDL float64
	Reply       float64 `json:",omitempty"` // a record without the head keeps the lines it had
	L2, Total   float64
}

// Batch is one step's positions and targets (Step's arguments), and for a
// network with the reply head the reply targets: Batch()×PolicySize as
// the policy's are (illegal slots −1, a row of zeros for a position
// without one), nil for none.
type Batch struct {
	Inputs, Policy, WDL, Reply []float32
}

// Trainer trains one network with a fixed batch size. It is for one
// goroutine at a time.
type Trainer struct {
	cfg     model.Config
	o       options
	sched   Schedule
	specs   []paramSpec
	bnNames []string
	dt      tensor.Dtype
	values  []*tensor.Dense // the parameters, shared by both graphs
	train   *net
	eval    *net // built at its first use
	// Optimizer state: per parameter, SGD's velocity or Adam's first and
	// second moments.
	slots []string
	state [][][]float32 // [slot][param]
	// avg is the weight average per parameter (WithWeightAverage), nil
	// without one; the checkpoint's optimizer carries it as
	// "average/<parameter>".
	avg     [][]float32
	step    int64 // steps taken: the schedule's position
	optStep int64 // steps this optimizer state has seen (Adam's t)
	samples int64
	ck      model.Checkpoint // what the run was resumed from: metadata to carry on
	// Σw² over the decayed weights as the last update left them (update
	// is the only writer of the weights after New), and its bands' sums.
	l2Squares  float64
	l2Known    bool
	bandSums   []float64
	updateTask updateTask // update's loop, kept: no allocation a step
}

// New makes a trainer that starts from (a copy of) weights w with a fresh
// optimizer.
func New(w *model.Weights, opts ...Option) (*Trainer, error) {
	if w == nil {
		return nil, fmt.Errorf("gnet: no weights")
	}
	return NewTrainer(&model.Checkpoint{Weights: w}, opts...)
}

// NewTrainer makes a trainer that resumes the run saved in ck: its
// weights, batch-norm statistics, step and sample counts, and the
// optimizer state if ck has one (it must be for the optimizer the options
// pick). Hyperparameters come from opts, not from ck.
func NewTrainer(ck *model.Checkpoint, opts ...Option) (t *Trainer, err error) {
	if ck == nil || ck.Weights == nil {
		return nil, fmt.Errorf("gnet: checkpoint without weights")
	}
	if err := ck.Weights.Check(); err != nil {
		return nil, fmt.Errorf("gnet: %w", err)
	}
	o := defaultOptions()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	if ck.Steps < 0 || ck.Samples < 0 {
		return nil, fmt.Errorf("gnet: checkpoint at step %d, sample %d", ck.Steps, ck.Samples)
	}
	useBLAS()
	w := ck.Weights
	t = &Trainer{cfg: w.Config, o: o, sched: o.rate(), dt: tensor.Float32, step: ck.Steps, samples: ck.Samples, ck: *ck}
	t.ck.Weights, t.ck.Optimizer = nil, nil
	if o.f64 {
		t.dt = tensor.Float64
	}
	if t.specs, t.bnNames, err = specs(w.Config); err != nil {
		return nil, err
	}
	for _, p := range t.specs {
		t.values = append(t.values, newDense(t.dt, p.graph, w.Tensors[p.name]))
	}
	if t.train, err = newNet(t.cfg, o.batch, t.dt, t.values, o.bnMomentum, true, o.bf16); err != nil {
		return nil, err
	}
	// The training machine reset the running statistics when it was
	// made: set them from the weights now.
	if err := setStats(t.train, t.bnNames, w.Tensors, t.dt); err != nil {
		return nil, err
	}
	if err := t.loadOptimizer(ck.Optimizer); err != nil {
		return nil, err
	}
	return t, nil
}

// Config is the network's shape.
func (t *Trainer) Config() model.Config { return t.cfg }

// Batch is the number of positions each Step takes.
func (t *Trainer) Batch() int { return t.o.batch }

// BF16 reports whether the trainer's 3×3 products are bf16 (WithBF16):
// asked for, the kernels on, and this CPU has AVX-512 BF16.
func (t *Trainer) BF16() bool { return t.o.bf16 && bf16Kernels() }

// Steps is the number of steps taken, counting those before a resume.
func (t *Trainer) Steps() int64 { return t.step }

// Rate is the learning rate the next step takes.
func (t *Trainer) Rate() float64 { return t.sched.At(t.step) }

// Step trains on one batch: inputs holds Batch() positions of Planes×90
// floats (plane, rank, file), policyTargets Batch()×PolicySize
// probabilities (zero on illegal moves; a row of zeros for a position with
// no policy target, which then trains the value only), wdlTargets Batch()×3
// probabilities (win, draw, loss for the side to move; a row of zeros for
// a position with no value target, a recorded game without a result,
// which then trains the policy only). It returns the
// batch's losses before the update. A batch that makes a loss NaN or
// infinite is reported and not applied.
func (t *Trainer) Step(inputs, policyTargets, wdlTargets []float32) (Losses, error) {
	return t.StepBatch(&Batch{Inputs: inputs, Policy: policyTargets, WDL: wdlTargets})
}

// StepBatch is Step on b, the reply targets included.
func (t *Trainer) StepBatch(b *Batch) (Losses, error) {
	if t.dt != tensor.Float32 {
		return Losses{}, fmt.Errorf("gnet: a float64 trainer only checks gradients")
	}
	if err := t.checkBatch(b); err != nil {
		return Losses{}, err
	}
	n := t.train
	t.setBatch(n, b)
	if n.gradsDirty {
		n.zeroGrads()
	}
	if err := n.run(); err != nil {
		return Losses{}, err
	}
	l, err := t.losses(n)
	if err != nil {
		return l, err
	}
	if !finite(l.Total) {
		return l, fmt.Errorf("gnet: step %d: loss is %v (policy %v, wdl %v, L2 %v); not applied", t.step, l.Total, l.Policy, l.WDL, l.L2)
	}
	if err := t.update(t.sched.At(t.step)); err != nil {
		return l, err
	}
	n.gradsDirty = false // update cleared them
	t.step++
	t.samples += int64(t.o.batch)
	return l, nil
}

// Evaluate is the batch's losses in eval mode (batch norm with its running
// statistics), with no update.
func (t *Trainer) Evaluate(inputs, policyTargets, wdlTargets []float32) (Losses, error) {
	return t.EvaluateBatch(&Batch{Inputs: inputs, Policy: policyTargets, WDL: wdlTargets})
}

// EvaluateBatch is Evaluate on b, the reply targets included.
func (t *Trainer) EvaluateBatch(b *Batch) (Losses, error) {
	if err := t.checkBatch(b); err != nil {
		return Losses{}, err
	}
	n, err := t.evalNet()
	if err != nil {
		return Losses{}, err
	}
	t.setBatch(n, b)
	if err := n.run(); err != nil {
		return Losses{}, err
	}
	return t.losses(n)
}

// Forward runs the network in eval mode on Batch() positions: policy
// receives Batch()×PolicySize logits, wdl Batch()×3, as model.Net's
// Forward gives them.
func (t *Trainer) Forward(inputs, policy, wdl []float32) error {
	c, b := t.cfg, t.o.batch
	if len(inputs) != b*c.InputSize() || len(policy) != b*c.PolicySize || len(wdl) != b*3 {
		return fmt.Errorf("gnet: forward of %d positions needs input %d, policy %d, wdl %d floats; got %d, %d, %d",
			b, b*c.InputSize(), b*c.PolicySize, b*3, len(inputs), len(policy), len(wdl))
	}
	n, err := t.evalNet()
	if err != nil {
		return err
	}
	setInputs(n, inputs)
	// The loss nodes run too; zero targets keep them finite and cheap.
	n.pt.Zero()
	n.wt.Zero()
	if n.rt != nil {
		n.rt.Zero()
	}
	if err := n.run(); err != nil {
		return err
	}
	if err := copyOut(policy, n.policy); err != nil {
		return err
	}
	return copyOut(wdl, n.wdl)
}

// evalNet is the eval-mode graph, bound to the same parameters as the
// training graph and given its current running statistics.
func (t *Trainer) evalNet() (*net, error) {
	if t.eval == nil {
		n, err := newNet(t.cfg, t.o.batch, t.dt, t.values, t.o.bnMomentum, false, false)
		if err != nil {
			return nil, err
		}
		t.eval = n
	}
	for i, op := range t.eval.bns {
		mean, variance := t.train.bns[i].Stats()
		if err := op.SetStats(mean, variance); err != nil {
			return nil, fmt.Errorf("gnet: batch norm %s: %w", t.bnNames[i], err)
		}
	}
	return t.eval, nil
}

// losses reads the last run's losses and adds the L2 term.
func (t *Trainer) losses(n *net) (Losses, error) {
	var l Losses
	var reply float64
	var err error
	if l.Policy, l.WDL, reply, err = n.losses(); err != nil {
		return l, err
	}
	if t.o.reply > 0 { // the targets came weighted
		l.Reply = reply / t.o.reply
	}
	l.L2 = t.L2()
	l.Total = l.Policy + l.WDL + reply + l.L2
	return l, nil
}

// L2 is the loss's L2 term for the current weights: c·Σw² over the
// convolution and dense weights.
func (t *Trainer) L2() float64 {
	if t.o.l2 == 0 {
		return 0
	}
	if t.l2Known { // summed by the last update
		return t.o.l2 * t.l2Squares
	}
	var sum float64
	for i, p := range t.specs {
		if !p.decay {
			continue
		}
		switch d := t.values[i].Data().(type) {
		case []float32:
			sum += squares(d)
		case []float64:
			sum += squares(d)
		}
	}
	return t.o.l2 * sum
}

// l2Band is the band of a tensor whose squares are summed as one, so that
// update (bands on several cores) and L2 (in turn) sum alike.
const l2Band = 1 << 14

// squares is Σw², by bands of l2Band added in order.
func squares[T float](w []T) float64 {
	var sum float64
	for j := 0; j < len(w); j += l2Band {
		band := w[j:min(len(w), j+l2Band)]
		sum += dot4(band, band)
	}
	return sum
}

// checkBatch names what is wrong with a batch: lengths, then values.
func (t *Trainer) checkBatch(bt *Batch) error {
	inputs, policyTargets, wdlTargets := bt.Inputs, bt.Policy, bt.WDL
	c, b := t.cfg, t.o.batch
	if bt.Reply != nil {
		if !c.ReplyPolicy {
			return fmt.Errorf("gnet: reply targets for a network without the reply head")
		}
		if len(bt.Reply) != b*c.PolicySize {
			return fmt.Errorf("gnet: reply targets have %d floats, want %d (batch %d × %d slots)", len(bt.Reply), b*c.PolicySize, b, c.PolicySize)
		}
		if err := checkDistributions("reply", bt.Reply, c.PolicySize, true, true); err != nil {
			return err
		}
	}
	if len(inputs) != b*c.InputSize() {
		return fmt.Errorf("gnet: inputs have %d floats, want %d (batch %d × %d planes × 90)", len(inputs), b*c.InputSize(), b, c.Planes)
	}
	if len(policyTargets) != b*c.PolicySize {
		return fmt.Errorf("gnet: policy targets have %d floats, want %d (batch %d × %d slots)", len(policyTargets), b*c.PolicySize, b, c.PolicySize)
	}
	if len(wdlTargets) != b*3 {
		return fmt.Errorf("gnet: WDL targets have %d floats, want %d (batch %d × 3)", len(wdlTargets), b*3, b)
	}
	if i := firstNonFinite(inputs); i >= 0 {
		return fmt.Errorf("gnet: input %d of position %d is %v", i%c.InputSize(), i/c.InputSize(), inputs[i])
	}
	if err := checkDistributions("policy", policyTargets, c.PolicySize, true, true); err != nil {
		return err
	}
	return checkDistributions("WDL", wdlTargets, 3, true, false)
}

// checkDistributions reports a target row that is not a probability
// distribution. With zeroOK a row of zeros passes: a position without a
// target, which adds nothing to that loss (cross-entropy against zero);
// with masked, an entry of −1 marks an illegal slot (policy targets).
func checkDistributions(what string, rows []float32, size int, zeroOK, masked bool) error {
	for r := 0; r*size < len(rows); r++ {
		var sum float64
		for i, v := range rows[r*size : (r+1)*size] {
			if masked && v == IllegalTarget {
				continue
			}
			if !(v >= 0 && v <= math.MaxFloat32) { // NaN, negative or +Inf
				return fmt.Errorf("gnet: %s target of position %d has %v at %d", what, r, v, i)
			}
			sum += float64(v)
		}
		if math.Abs(sum-1) > 1e-3 && !(zeroOK && sum == 0) {
			return fmt.Errorf("gnet: %s target of position %d sums to %v, want 1", what, r, sum)
		}
	}
	return nil
}

// Weights exports every tensor of the network, batch-norm running
// statistics included, as model.NewNet reads them.
func (t *Trainer) Weights() *model.Weights {
	w := &model.Weights{Config: t.cfg, Tensors: map[string][]float32{}}
	for i, p := range t.specs {
		w.Tensors[p.name] = floatsOf(t.values[i])
	}
	t.addStats(w)
	return w
}

// AveragedWeights exports the network with the weight average
// (WithWeightAverage) in place of the weights, and the batch-norm running
// statistics as they are (themselves an average over the recent steps);
// nil for a trainer without an average.
func (t *Trainer) AveragedWeights() *model.Weights {
	if t.avg == nil {
		return nil
	}
	w := &model.Weights{Config: t.cfg, Tensors: map[string][]float32{}}
	for i, p := range t.specs {
		w.Tensors[p.name] = slices.Clone(t.avg[i])
	}
	t.addStats(w)
	return w
}

// addStats adds the batch-norm running statistics to w.
func (t *Trainer) addStats(w *model.Weights) {
	for i, name := range t.bnNames {
		mean, variance := t.train.bns[i].Stats()
		w.Tensors[name+".mean"] = floatsOf(mean.(*tensor.Dense))
		w.Tensors[name+".var"] = floatsOf(variance.(*tensor.Dense))
	}
}

// Checkpoint is the run so far: weights, optimizer state and counts, with
// the metadata of the checkpoint it resumed from (the caller sets rule
// sets, encoding version and provenance as it sees fit).
func (t *Trainer) Checkpoint() *model.Checkpoint {
	ck := t.ck
	ck.RuleSets = append([]string(nil), t.ck.RuleSets...)
	ck.Games = append([]string(nil), t.ck.Games...)
	ck.Weights = t.Weights()
	ck.Optimizer = t.Optimizer()
	ck.Steps, ck.Samples = t.step, t.samples
	if t.o.seeded {
		ck.Provenance.Seed = t.o.seed
	}
	return &ck
}

// setStats sets the graph's batch-norm running statistics from tensors.
func setStats(n *net, names []string, tensors map[string][]float32, dt tensor.Dtype) error {
	for i, name := range names {
		mean, variance := tensors[name+".mean"], tensors[name+".var"]
		m := newDense(dt, []int{len(mean)}, mean)
		v := newDense(dt, []int{len(variance)}, variance)
		if err := n.bns[i].SetStats(m, v); err != nil {
			return fmt.Errorf("gnet: batch norm %s: %w", name, err)
		}
	}
	return nil
}

// IllegalTarget marks an illegal slot in a policy target row, and
// maskedLogit is what the loss adds to its logit: far enough below any
// logit that its softmax share is 0 (and its gradient), finite so that a
// zero target times its log-softmax stays 0.
const (
	IllegalTarget = -1
	maskedLogit   = -1e9
)

// splitMask turns the illegal marks in target into 0 there and
// maskedLogit in mask, which is 0 elsewhere.
func splitMask[T float32 | float64](target, mask []T) {
	for i, v := range target {
		mask[i] = 0
		if v == IllegalTarget {
			target[i], mask[i] = 0, maskedLogit
		}
	}
}

// setBatch copies a batch into the graph's inputs, splitting the policy
// targets into the target (illegal slots 0) and the mask; the reply
// targets likewise, times the reply weight (the loss is linear in its
// target: weighted targets weigh the loss and its gradient).
func (t *Trainer) setBatch(n *net, b *Batch) {
	setInputs(n, b.Inputs)
	copyInto(n.pt, b.Policy)
	splitMaskDense(n.pt, n.pm, 1)
	copyInto(n.wt, b.WDL)
	if n.rt != nil {
		if b.Reply == nil || t.o.reply == 0 {
			n.rt.Zero()
			n.rm.Zero()
			return
		}
		copyInto(n.rt, b.Reply)
		splitMaskDense(n.rt, n.rm, t.o.reply)
	}
}

// splitMaskDense is splitMask on a graph tensor, the target then scaled by
// weight.
func splitMaskDense(target, mask *tensor.Dense, weight float64) {
	// The typed accessors, not Data: it goes through reflection and
	// allocates (as do the slices boxed for a type switch).
	switch target.Dtype() {
	case tensor.Float32:
		t := target.Float32s()
		splitMask(t, mask.Float32s())
		if weight != 1 {
			for i := range t {
				t[i] *= float32(weight)
			}
		}
	case tensor.Float64:
		t := target.Float64s()
		splitMask(t, mask.Float64s())
		if weight != 1 {
			for i := range t {
				t[i] *= weight
			}
		}
	}
}

// setInputs copies positions [batch][plane][90] into the graph's input
// [plane][batch][90].
func setInputs(n *net, inputs []float32) {
	planes, sq := n.cfg.Planes, model.Squares
	var x32 []float32
	var x64 []float64
	if n.x.Dtype() == tensor.Float32 {
		x32 = n.x.Float32s()
	} else {
		x64 = n.x.Float64s()
	}
	for b := 0; b < n.batch; b++ {
		for p := 0; p < planes; p++ {
			src, at := inputs[(b*planes+p)*sq:][:sq], (p*n.batch+b)*sq
			if x32 != nil {
				copy(x32[at:][:sq], src)
				continue
			}
			for i, v := range src {
				x64[at+i] = float64(v)
			}
		}
	}
}

func newDense(dt tensor.Dtype, shape []int, data []float32) *tensor.Dense {
	d := tensor.New(tensor.Of(dt), tensor.WithShape(shape...))
	copyInto(d, data)
	return d
}

func copyInto(d *tensor.Dense, src []float32) {
	switch d.Dtype() {
	case tensor.Float32:
		copy(d.Float32s(), src)
	case tensor.Float64:
		dst := d.Float64s()
		for i, v := range src {
			dst[i] = float64(v)
		}
	}
}

func copyOut(dst []float32, v any) error {
	d, ok := v.(*tensor.Dense)
	if !ok {
		return fmt.Errorf("gnet: the graph gave a %T for %d values", v, len(dst))
	}
	if d.Shape().TotalSize() != len(dst) {
		return fmt.Errorf("gnet: the graph gave %v values for %d", d.Shape(), len(dst))
	}
	switch src := d.Data().(type) {
	case []float32:
		copy(dst, src)
	case []float64:
		for i := range dst {
			dst[i] = float32(src[i])
		}
	}
	return nil
}

func floatsOf(d *tensor.Dense) []float32 {
	out := make([]float32, d.Shape().TotalSize())
	copyOut(out, d) // d is a Dense of that size
	return out
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// firstNonFinite is the index of the first NaN or infinity in x (an
// all-ones exponent), or −1: by bits, not through float64 and two tests
// (a batch's inputs are half a million floats).
func firstNonFinite(x []float32) int {
	const exp = 0x7f800000
	for i, v := range x {
		if math.Float32bits(v)&exp == exp {
			return i
		}
	}
	return -1
}
