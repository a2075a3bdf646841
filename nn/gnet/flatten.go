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

// flattenOp makes a head's activation [1, ch, batch·10, 9] (channel-major)
// into [batch, ch·90], channel-major per position as model's dense layers
// read it: one copy into its own buffer, where Gorgonia's reshape,
// transpose and reshape allocated a new tensor or header each run.
type flattenOp struct {
	pure
	ch, batch int
	out       any
}

func (op *flattenOp) String() string {
	return fmt.Sprintf("gnet.flatten(%d channels, batch %d)", op.ch, op.batch)
}
func (op *flattenOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *flattenOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *flattenOp) Arity() int            { return 1 }
func (op *flattenOp) Type() hm.Type         { return fnType(4, 2) }
func (op *flattenOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.batch, op.ch * model.Squares}, nil
}

func (op *flattenOp) Do(vals ...G.Value) (G.Value, error) {
	n := op.ch * op.batch * model.Squares
	if err := checkSizes(op, vals, n); err != nil {
		return nil, err
	}
	shape, _ := op.InferShape()
	return run(vals, &op.out, shape,
		func(y G.Value) { flatten(op.ch, op.batch, floats[float32](vals[0]), floats[float32](y), false) },
		func(y G.Value) { flatten(op.ch, op.batch, floats[float64](vals[0]), floats[float64](y), false) })
}

func (op *flattenOp) DiffWRT(int) []bool { return []bool{true} }

func (op *flattenOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dx, err := G.ApplyOp(&unflattenOp{ch: op.ch, batch: op.batch}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}

// unflattenOp is flattenOp's gradient: [batch, ch·90] back to the
// activation's layout.
type unflattenOp struct {
	pure
	ch, batch int
	out       any
}

func (op *unflattenOp) String() string {
	return fmt.Sprintf("gnet.unflatten(%d channels, batch %d)", op.ch, op.batch)
}
func (op *unflattenOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *unflattenOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *unflattenOp) Arity() int            { return 1 }
func (op *unflattenOp) Type() hm.Type         { return fnType(2, 4) }
func (op *unflattenOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return actShape(op.ch, op.batch), nil
}

func (op *unflattenOp) Do(vals ...G.Value) (G.Value, error) {
	n := op.ch * op.batch * model.Squares
	if err := checkSizes(op, vals, n); err != nil {
		return nil, err
	}
	return run(vals, &op.out, actShape(op.ch, op.batch),
		func(x G.Value) { flatten(op.ch, op.batch, floats[float32](x), floats[float32](vals[0]), true) },
		func(x G.Value) { flatten(op.ch, op.batch, floats[float64](x), floats[float64](vals[0]), true) })
}

// flatten copies between act ([ch][batch][90]) and flat ([batch][ch][90]):
// act to flat, or back when back is set.
func flatten[T float](ch, batch int, act, flat []T, back bool) {
	const sq = model.Squares
	for c := 0; c < ch; c++ {
		for b := 0; b < batch; b++ {
			a, f := act[(c*batch+b)*sq:][:sq], flat[(b*ch+c)*sq:][:sq]
			if back {
				copy(a, f)
			} else {
				copy(f, a)
			}
		}
	}
}
