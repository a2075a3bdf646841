package gnet

import (
	"fmt"
	"math"
	"strings"

	"github.com/palace-chess/palace/nn/model"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// paramSpec is one learnable tensor: its model name and shape, the shape
// the graph gives it (batch norm's γ and β [1, C, 1, 1], dense biases
// [1, out]; the data is the same), and whether L2 applies.
type paramSpec struct {
	name  string
	shape []int
	graph []int
	decay bool
}

// specs splits the network's tensors into learnable parameters and the
// batch norms (by prefix, "stem.bn"), whose running statistics live in the
// Gorgonia ops.
func specs(c model.Config) (params []paramSpec, bns []string, err error) {
	for _, t := range c.Tensors() {
		p := paramSpec{name: t.Name, shape: t.Shape, graph: t.Shape}
		switch {
		case strings.HasSuffix(t.Name, ".bn.mean"):
			bns = append(bns, strings.TrimSuffix(t.Name, ".mean"))
			continue
		case strings.HasSuffix(t.Name, ".bn.var"):
			continue
		case strings.HasSuffix(t.Name, ".gamma"), strings.HasSuffix(t.Name, ".beta"):
			p.graph = []int{1, t.Shape[0], 1, 1}
		case strings.HasSuffix(t.Name, ".b"):
			p.graph = []int{1, t.Shape[0]}
		case strings.HasSuffix(t.Name, ".w"):
			p.decay = true
		default:
			return nil, nil, fmt.Errorf("gnet: tensor %s is of no kind gnet knows", t.Name)
		}
		params = append(params, p)
	}
	return params, bns, nil
}

// net is the network as one Gorgonia graph for a fixed batch: in training
// mode (batch statistics, gradients of the loss with respect to every
// parameter) or in eval mode (running statistics, forward only). Two nets
// can share parameter values: the training and eval graphs of a Trainer
// are bound to the same tensors.
type net struct {
	cfg    model.Config
	batch  int
	dt     tensor.Dtype
	g      *G.ExprGraph
	vm     G.VM          // Gorgonia's tape machine (useTape), else exec
	exec   *executor     // palace's own: no allocation a run (exec.go)
	x      *tensor.Dense // [1, planes, batch·10, 9]: see kernels.go
	pt     *tensor.Dense // [batch, policy size]
	pm     *tensor.Dense // [batch, policy size]: 0, or maskedLogit for an illegal slot
	wt     *tensor.Dense // [batch, 3]
	rt, rm *tensor.Dense // the reply head's target and mask (as pt, pm); nil without one
	params []*G.Node     // in specs order
	bns    []*bnOp
	// Read after each run; Gorgonia copies into them after the first.
	lossP, lossW, lossR G.Value // lossR: the reply head's (nil without one)
	policy, wdl         G.Value // eval mode only: logits
	// Whether the gradients may be nonzero: a run leaves them so.
	gradsDirty bool
	// The loss, logit and gradient nodes, read from exec after a run.
	lossPN, lossWN, lossRN, policyN, wdlN *G.Node
	gradNs                                G.Nodes
}

// useTape runs the graphs on Gorgonia's tape machine instead of the
// executor: a variable so that tests can compare the two.
var useTape = false

// newNet builds the graph with parameters bound to values (in specs
// order, graph shapes, dtype dt).
func newNet(c model.Config, batch int, dt tensor.Dtype, values []*tensor.Dense, bnMomentum float64, training, bf16 bool) (n *net, err error) {
	defer recoverTo(&err, "building the graph")
	n = &net{cfg: c, batch: batch, dt: dt, g: G.NewGraph()}
	pspecs, _, err := specs(c)
	if err != nil {
		return nil, err
	}
	if len(values) != len(pspecs) {
		return nil, fmt.Errorf("gnet: %d parameter tensors, the network has %d", len(values), len(pspecs))
	}
	b := &builder{g: n.g, dt: dt, batch: batch, nodes: map[string]*G.Node{}, bnMomentum: bnMomentum, training: training, scratch: convScratch{bf16: bf16}}
	for i, p := range pspecs {
		b.nodes[p.name] = G.NewTensor(n.g, dt, len(p.graph), G.WithShape(p.graph...), G.WithName(p.name), G.WithValue(values[i]))
		n.params = append(n.params, b.nodes[p.name])
	}
	n.x = tensor.New(tensor.Of(dt), tensor.WithShape(actShape(c.Planes, batch)...))
	n.pt = tensor.New(tensor.Of(dt), tensor.WithShape(batch, c.PolicySize))
	n.pm = tensor.New(tensor.Of(dt), tensor.WithShape(batch, c.PolicySize))
	n.wt = tensor.New(tensor.Of(dt), tensor.WithShape(batch, 3))
	x := G.NewTensor(n.g, dt, 4, G.WithShape(n.x.Shape()...), G.WithName("input"), G.WithValue(n.x))
	pt := G.NewTensor(n.g, dt, 2, G.WithShape(n.pt.Shape()...), G.WithName("policy.target"), G.WithValue(n.pt))
	pm := G.NewTensor(n.g, dt, 2, G.WithShape(n.pm.Shape()...), G.WithName("policy.mask"), G.WithValue(n.pm))
	wt := G.NewTensor(n.g, dt, 2, G.WithShape(n.wt.Shape()...), G.WithName("wdl.target"), G.WithValue(n.wt))

	h := b.conv(x, "stem", 3, nil, false)
	for i := 0; i < c.Blocks; i++ {
		t := b.conv(h, fmt.Sprintf("block%d.conv1", i), 3, nil, true)
		h = b.conv(t, fmt.Sprintf("block%d.conv2", i), 3, h, true)
	}
	p := b.flatten(b.conv(h, "policy.conv", 1, nil, true))
	p = b.dense(p, "policy.fc", false)
	v := b.flatten(b.conv(h, "value.conv", 1, nil, true))
	v = b.dense(v, "value.fc1", true)
	v = b.dense(v, "value.fc2", false)
	// The loss reads the logits with illegal slots masked out (lc0's
	// masking); the eval graph's logits stay unmasked, as model.Net's.
	lossP := b.crossEntropy(newXent("policy", batch, c.PolicySize, true), p, pm, pt)
	lossW := b.crossEntropy(newXent("wdl", batch, 3, false), v, wt)
	var lossR *G.Node
	if c.ReplyPolicy {
		// The reply head: the policy head's shape, its own weights; its
		// targets come weighted (setBatch), so the loss is added as is.
		n.rt = tensor.New(tensor.Of(dt), tensor.WithShape(batch, c.PolicySize))
		n.rm = tensor.New(tensor.Of(dt), tensor.WithShape(batch, c.PolicySize))
		rt := G.NewTensor(n.g, dt, 2, G.WithShape(n.rt.Shape()...), G.WithName("reply.target"), G.WithValue(n.rt))
		rm := G.NewTensor(n.g, dt, 2, G.WithShape(n.rm.Shape()...), G.WithName("reply.mask"), G.WithValue(n.rm))
		r := b.dense(b.flatten(b.conv(h, "reply.conv", 1, nil, true)), "reply.fc", false)
		lossR = b.crossEntropy(newXent("reply", batch, c.PolicySize, true), r, rm, rt)
	}
	if b.err != nil {
		return nil, fmt.Errorf("gnet: building the graph: %w", b.err)
	}
	n.bns = b.bns
	n.lossPN, n.lossWN, n.lossRN = lossP, lossW, lossR
	if useTape {
		G.Read(lossP, &n.lossP)
		G.Read(lossW, &n.lossW)
		if lossR != nil {
			G.Read(lossR, &n.lossR)
		}
	}
	if training {
		cost, err := G.Add(lossP, lossW)
		if err == nil && lossR != nil {
			cost, err = G.Add(cost, lossR)
		}
		if err != nil {
			return nil, fmt.Errorf("gnet: building the cost: %w", err)
		}
		if n.gradNs, err = G.Grad(cost, n.params...); err != nil {
			return nil, fmt.Errorf("gnet: differentiating the graph: %w", err)
		}
		if useTape {
			// Gradients go to the parameters' dual values, where they
			// accumulate until zeroed (net.zeroGrads).
			n.vm = G.NewTapeMachine(n.g, G.BindDualValues(n.params...))
		}
	} else {
		n.policyN, n.wdlN = p, v
		if useTape {
			G.Read(p, &n.policy)
			G.Read(v, &n.wdl)
			n.vm = G.NewTapeMachine(n.g, G.EvalMode())
		}
	}
	if !useTape {
		if n.exec, err = newExecutor(n.g); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// builder adds layers to a graph, keeping the first error.
type builder struct {
	g          *G.ExprGraph
	dt         tensor.Dtype
	batch      int
	nodes      map[string]*G.Node
	bnMomentum float64
	training   bool // batch norm by the batch's statistics
	bns        []*bnOp
	scratch    convScratch
	err        error
}

func (b *builder) check(n *G.Node, err error) *G.Node {
	if err != nil && b.err == nil {
		b.err = err
	}
	return n
}

func (b *builder) scalar(v float64) *G.Node {
	if b.dt == tensor.Float64 {
		return G.NewConstant(v)
	}
	return G.NewConstant(float32(v))
}

// conv is a k×k convolution (zero-padded to keep 10×9), batch norm, the
// skip connection if any, and ReLU. inputGrad is false where x needs no
// gradient (the network's input).
func (b *builder) conv(x *G.Node, name string, k int, skip *G.Node, inputGrad bool) *G.Node {
	if b.err != nil {
		return nil
	}
	w := b.nodes[name+".w"]
	in, out := w.Shape()[1], w.Shape()[0]
	conv := &convOp{k: k, in: in, out: out, batch: b.batch, inputGrad: inputGrad, s: &b.scratch}
	y := b.check(G.ApplyOp(conv, x, w))
	if b.err != nil {
		return nil
	}
	// Batch norm, γ and β, the skip and ReLU: one op (bnOp, bn.go), which
	// reads its statistics from the product where it takes them.
	op := newBatchNorm(b.dt, out, b.batch, skip != nil, b.bnMomentum, b.training)
	if b.training && bnStatsInProduct {
		conv.stats = &op.input
	}
	b.bns = append(b.bns, op)
	args := []*G.Node{y, b.nodes[name+".bn.gamma"], b.nodes[name+".bn.beta"]}
	if skip != nil {
		args = append(args, skip)
	}
	return b.check(G.ApplyOp(op, args...))
}

// flatten makes an activation [1, C, batch·10, 9] into [batch, C·90],
// channel-major per position as model's dense layers read it (flattenOp).
func (b *builder) flatten(x *G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	return b.check(G.ApplyOp(&flattenOp{ch: x.Shape()[1], batch: b.batch}, x))
}

// dense is x·wᵀ + bias (w is [out, in] as in model), then ReLU if asked.
func (b *builder) dense(x *G.Node, name string, relu bool) *G.Node {
	if b.err != nil {
		return nil
	}
	w := b.nodes[name+".w"]
	op := &linearOp{batch: b.batch, in: w.Shape()[1], out: w.Shape()[0], relu: relu}
	return b.check(G.ApplyOp(op, x, w, b.nodes[name+".b"]))
}

// crossEntropy is −Σ target·log softmax(logits [+ mask]) over the batch,
// divided by the batch size (xentOp).
func (b *builder) crossEntropy(op *xentOp, inputs ...*G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	return b.check(G.ApplyOp(op, inputs...))
}

// run executes the graph once on the values in x, pt and wt.
func (n *net) run() (err error) {
	defer recoverTo(&err, "running the graph")
	n.gradsDirty = true
	if n.exec != nil {
		if err := n.exec.run(); err != nil {
			return fmt.Errorf("gnet: running the graph: %w", err)
		}
		n.lossP, n.lossW = n.exec.value(n.lossPN), n.exec.value(n.lossWN)
		if n.lossRN != nil {
			n.lossR = n.exec.value(n.lossRN)
		}
		if n.policyN != nil {
			n.policy, n.wdl = n.exec.value(n.policyN), n.exec.value(n.wdlN)
		}
		return nil
	}
	n.vm.Reset()
	if err := n.vm.RunAll(); err != nil {
		return fmt.Errorf("gnet: running the graph: %w", err)
	}
	return nil
}

// losses are the last run's policy, WDL and reply losses (the reply's 0
// without the head; weighted, as its targets are).
func (n *net) losses() (policy, wdl, reply float64, err error) {
	if policy, err = scalarOf(n.lossP); err == nil {
		wdl, err = scalarOf(n.lossW)
	}
	if err == nil && n.lossRN != nil {
		reply, err = scalarOf(n.lossR)
	}
	return policy, wdl, reply, err
}

func scalarOf(v G.Value) (float64, error) {
	switch s := v.(type) {
	case *G.F32:
		return float64(*s), nil
	case *G.F64:
		return float64(*s), nil
	case tensor.Tensor:
		switch d := s.Data().(type) {
		case float32:
			return float64(d), nil
		case float64:
			return d, nil
		case []float32:
			if len(d) == 1 {
				return float64(d[0]), nil
			}
		case []float64:
			if len(d) == 1 {
				return d[0], nil
			}
		}
	}
	return math.NaN(), fmt.Errorf("gnet: the graph gave a loss of %T", v)
}

// grad is parameter i's accumulated gradient (nil before the first run).
func (n *net) grad(i int) *tensor.Dense {
	if n.exec != nil {
		d, _ := n.exec.value(n.gradNs[i]).(*tensor.Dense)
		return d
	}
	g, err := n.params[i].Grad()
	if err != nil {
		return nil
	}
	d, _ := g.(*tensor.Dense)
	return d
}

// zeroGrads clears the accumulated gradients, so that the next run's are
// its own.
func (n *net) zeroGrads() {
	if n.exec != nil { // each run's gradients are its own
		n.gradsDirty = false
		return
	}
	for i := range n.params {
		if g := n.grad(i); g != nil {
			g.Zero()
		}
	}
	n.gradsDirty = false
}

// recoverTo turns a Gorgonia panic into an error: bad input must not
// bring a training process down without a word.
func recoverTo(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("gnet: %s: gorgonia panicked: %v", what, r)
	}
}
