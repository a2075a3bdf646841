package gnet

import (
	"fmt"
	"hash"
	"io"

	"github.com/chewxy/hm"
	"github.com/palace-chess/palace/nn/model"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Batch norm's normalising is Gorgonia's BatchNormOp: it keeps the
// running mean and variance (Stats, SetStats), updates them in training
// mode with momentum as the weight of each new batch (the unbiased batch
// variance), uses them in eval mode, and is reset (mean 0, variance 1) by
// SetTraining(true), which NewTapeMachine calls unless given EvalMode.
//
// G.BatchNorm, which makes the op, also multiplies by γ and adds β
// through broadcasts that copy γ and β out to the activation's size, so
// the op is made on a stand-in in a scratch graph and applied here alone;
// affineOp does γ and β. bnOp wraps it for two reasons. The op's
// UsePreallocDo reads its output buffer as its input (Do clones the input
// into it first), so the VM passing a register still holding another
// node's value would normalise garbage: bnOp always copies the input in.
// And its Do and its gradient's allocate a fresh batch-sized tensor every
// run; bnOp and bnGradOp reuse theirs.

// newBatchNorm makes the op for activations of ch channels.
func newBatchNorm(dt tensor.Dtype, ch int, momentum float64) (*bnOp, error) {
	scratch := G.NewGraph()
	stand := G.NewTensor(scratch, dt, 4, G.WithShape(1, ch, 1, 1), G.WithName("x"), G.WithInit(G.Zeroes()))
	gamma := G.NewTensor(scratch, dt, 4, G.WithShape(1, ch, 1, 1), G.WithName("γ"), G.WithInit(G.Ones()))
	beta := G.NewTensor(scratch, dt, 4, G.WithShape(1, ch, 1, 1), G.WithName("β"), G.WithInit(G.Zeroes()))
	_, _, _, op, err := G.BatchNorm(stand, gamma, beta, momentum, model.BNEpsilon)
	if err != nil {
		return nil, err
	}
	return &bnOp{BatchNormOp: op, ch: ch}, nil
}

// bnOp is Gorgonia's BatchNormOp with its own output buffer.
type bnOp struct {
	*G.BatchNormOp
	ch  int
	out any
}

func (op *bnOp) String() string        { return fmt.Sprintf("gnet.%v(%d)", op.BatchNormOp, op.ch) }
func (op *bnOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *bnOp) Hashcode() uint32      { return hashOf(op.String()) }

func (op *bnOp) Do(vals ...G.Value) (G.Value, error) {
	if len(vals) != 1 {
		return nil, fmt.Errorf("gnet: %v takes 1 input, got %d", op, len(vals))
	}
	x, ok := vals[0].(*tensor.Dense)
	if !ok || x.Dims() != 4 || x.Shape()[1] != op.ch {
		return nil, fmt.Errorf("gnet: %v input is %T %v", op, vals[0], vals[0].Shape())
	}
	out, err := output(&op.out, x.Dtype(), x.Shape())
	if err != nil {
		return nil, err
	}
	if err := tensor.Copy(out, x); err != nil {
		return nil, fmt.Errorf("gnet: %v: %w", op, err)
	}
	return op.BatchNormOp.UsePreallocDo(out, x)
}

// UsePreallocDo ignores the VM's buffer: see above.
func (op *bnOp) UsePreallocDo(_ G.Value, vals ...G.Value) (G.Value, error) { return op.Do(vals...) }

// SymDiff is the op's own, with its gradient op wrapped. That op is
// unexported; the op's SymDiff makes one, here in a scratch graph.
func (op *bnOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("gnet: %v takes 1 input, got %d", op, len(inputs))
	}
	x := inputs[0]
	scratch := G.NewGraph()
	sx := G.NewTensor(scratch, x.Dtype(), 4, G.WithShape(x.Shape()...), G.WithName("x"))
	sg := G.NewTensor(scratch, x.Dtype(), 4, G.WithShape(x.Shape()...), G.WithName("dy"))
	grads, err := op.BatchNormOp.SymDiff(G.Nodes{sx}, nil, sg)
	if err != nil {
		return nil, err
	}
	inner, ok := grads[0].Op().(interface {
		G.Op
		G.UsePreallocDoer
	})
	if !ok {
		return nil, fmt.Errorf("gnet: batch norm's gradient op %T cannot take a buffer", grads[0].Op())
	}
	dx, err := G.ApplyOp(&bnGradOp{inner: inner, ch: op.ch}, x, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}

// bnGradOp is Gorgonia's batch-norm gradient op, from (x, dy), with its
// own output buffer (which that op overwrites without reading).
type bnGradOp struct {
	pure
	inner interface {
		G.Op
		G.UsePreallocDoer
	}
	ch  int
	out any
}

func (op *bnGradOp) String() string        { return fmt.Sprintf("gnet.%v(%d)", op.inner, op.ch) }
func (op *bnGradOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *bnGradOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *bnGradOp) Arity() int            { return 2 }
func (op *bnGradOp) Type() hm.Type         { return fnType(4, 4, 4) }
func (op *bnGradOp) InferShape(ns ...G.DimSizer) (tensor.Shape, error) {
	return op.inner.InferShape(ns...)
}

func (op *bnGradOp) Do(vals ...G.Value) (G.Value, error) {
	if len(vals) != 2 {
		return nil, fmt.Errorf("gnet: %v takes 2 inputs, got %d", op, len(vals))
	}
	x, ok := vals[0].(*tensor.Dense)
	if !ok || x.Dims() != 4 || x.Shape()[1] != op.ch || vals[1].Shape().TotalSize() != x.Shape().TotalSize() {
		return nil, fmt.Errorf("gnet: %v inputs are %v and %v", op, vals[0].Shape(), vals[1].Shape())
	}
	out, err := output(&op.out, x.Dtype(), x.Shape())
	if err != nil {
		return nil, err
	}
	return op.inner.UsePreallocDo(out, vals...)
}
