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
// transpose and reshape allocated a new tensor or header each run. With
// back set it is the inverse, its own gradient.
type flattenOp struct {
	pure
	ch, batch int
	back      bool
	out       any
}

func (op *flattenOp) String() string {
	name := "flatten"
	if op.back {
		name = "unflatten"
	}
	return fmt.Sprintf("gnet.%s(%d channels, batch %d)", name, op.ch, op.batch)
}
func (op *flattenOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *flattenOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *flattenOp) Arity() int            { return 1 }
func (op *flattenOp) DiffWRT(int) []bool    { return []bool{true} }
func (op *flattenOp) Type() hm.Type {
	if op.back {
		return fnType(2, 4)
	}
	return fnType(4, 2)
}
func (op *flattenOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	if op.back {
		return actShape(op.ch, op.batch), nil
	}
	return tensor.Shape{op.batch, op.ch * model.Squares}, nil
}

func (op *flattenOp) Do(vals ...G.Value) (G.Value, error) {
	if err := checkSizes(op, vals, op.ch*op.batch*model.Squares); err != nil {
		return nil, err
	}
	shape, _ := op.InferShape()
	return run(vals, &op.out, shape,
		func(y G.Value) { flatten(op.ch, op.batch, floats[float32](vals[0]), floats[float32](y), op.back) },
		func(y G.Value) { flatten(op.ch, op.batch, floats[float64](vals[0]), floats[float64](y), op.back) })
}

func (op *flattenOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dx, err := G.ApplyOp(&flattenOp{ch: op.ch, batch: op.batch, back: !op.back}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}

// flatten copies src into dst: an activation ([ch][batch][90]) into its
// flat form ([batch][ch][90]), or the flat form back when back is set.
func flatten[T float](ch, batch int, src, dst []T, back bool) {
	const sq = model.Squares
	for c := 0; c < ch; c++ {
		for b := 0; b < batch; b++ {
			act, flat := (c*batch+b)*sq, (b*ch+c)*sq
			if back {
				act, flat = flat, act
			}
			copy(dst[flat:][:sq], src[act:][:sq])
		}
	}
}
