package gnet

import (
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"slices"
	"unsafe"

	"github.com/chewxy/hm"
	"github.com/palace-chess/palace/nn/model"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Custom Gorgonia ops for the layers where Gorgonia's own are slow: its
// Conv2d is im2col per position, a GEMM and two transposes; its batch
// norm's scale and shift, and its dense bias, materialise broadcast
// copies; its ReLU is a comparison and a product, each with a backward.
// These ops work on activations laid out [1, channels, batch·10, 9] —
// every channel's batch contiguous — and give Gorgonia their derivatives
// symbolically (SymDiff), so the graph's gradients are still Gorgonia's
// reverse-mode differentiation, checked against finite differences in
// the tests. Batch norm with its scale, shift, skip and ReLU is bnOp
// (bn.go); the losses are xentOp (loss.go).

// actShape is the shape of an activation of ch channels.
func actShape(ch, batch int) tensor.Shape {
	return tensor.Shape{1, ch, batch * model.Ranks, model.Files}
}

func fnType(dims ...int) hm.Type {
	a := hm.TypeVariable('a')
	ts := make([]hm.Type, len(dims))
	for i, d := range dims {
		ts[i] = G.TensorType{Dims: d, Of: a}
	}
	return hm.NewFnType(ts...)
}

func hashOf(s string) uint32 {
	h := fnv.New32a()
	io.WriteString(h, s)
	return h.Sum32()
}

// pure holds the methods every op here shares: it returns a new value
// and leaves its inputs alone.
type pure struct{}

func (pure) ReturnsPtr() bool     { return false }
func (pure) CallsExtern() bool    { return false }
func (pure) OverwritesInput() int { return -1 }

// checkSizes reports inputs whose sizes are not the ones an op was built
// for (sizes, not shapes: a reshape may have relabelled a value in place).
func checkSizes(op fmt.Stringer, vals []G.Value, sizes ...int) error {
	if len(vals) != len(sizes) {
		return fmt.Errorf("gnet: %v takes %d inputs, got %d", op, len(sizes), len(vals))
	}
	for i, v := range vals {
		d, ok := v.(*tensor.Dense)
		if !ok {
			return fmt.Errorf("gnet: %v input %d is a %T", op, i, v)
		}
		if d.Shape().TotalSize() != sizes[i] {
			return fmt.Errorf("gnet: %v input %d has shape %v, want %d values", op, i, d.Shape(), sizes[i])
		}
		if d.Dtype() != vals[0].Dtype() {
			return fmt.Errorf("gnet: %v input %d is %v, input 0 %v", op, i, d.Dtype(), vals[0].Dtype())
		}
	}
	return nil
}

func floats[T float](v G.Value) []T {
	if v == nil {
		return nil
	}
	d := v.(*tensor.Dense)
	// Dense.Data builds its slice through reflection, an allocation a
	// call; the typed accessors do not.
	var zero T
	if any(zero) == any(float32(0)) {
		if d.Dtype() != tensor.Float32 {
			panic(fmt.Sprintf("gnet: a %v tensor read as float32", d.Dtype()))
		}
		s := d.Float32s()
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
	}
	if d.Dtype() != tensor.Float64 {
		panic(fmt.Sprintf("gnet: a %v tensor read as float64", d.Dtype()))
	}
	s := d.Float64s()
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// output is an op's output buffer, kept in *buf and reused run after
// run: a graph runs one op at a time and each op once per run, so within
// a run it is a fresh value as far as Gorgonia can tell, and reusing it
// spares allocating, zeroing and page-faulting hundreds of megabytes a
// step.
//
// shape is copied where kept, so that the callers' shape literals stay on
// their stacks: no allocation a run.
func output(buf *any, dt tensor.Dtype, shape tensor.Shape) (*tensor.Dense, error) {
	out, ok := (*buf).(*tensor.Dense)
	if !ok || out.Dtype() != dt || out.Shape().TotalSize() != shape.TotalSize() {
		out = tensor.New(tensor.Of(dt), tensor.WithShape(slices.Clone(shape)...))
		*buf = out
		return out, nil
	}
	// An in-place reshape downstream may have relabelled it. (Reshape
	// allocates: only then.)
	if slices.Equal(out.Shape(), shape) {
		return out, nil
	}
	if err := out.Reshape(slices.Clone(shape)...); err != nil {
		return nil, fmt.Errorf("gnet: reshaping an output: %w", err)
	}
	return out, nil
}

// run fills an op's output (see output) by f32 or f64 according to the
// inputs' dtype.
func run(vals []G.Value, buf *any, shape tensor.Shape, f32 func(out G.Value), f64 func(out G.Value)) (G.Value, error) {
	dt := vals[0].Dtype()
	out, err := output(buf, dt, shape)
	if err != nil {
		return nil, err
	}
	switch dt {
	case tensor.Float32:
		f32(out)
	case tensor.Float64:
		f64(out)
	default:
		return nil, fmt.Errorf("gnet: dtype %v", dt)
	}
	return out, nil
}

// scratch is a buffer of n values of T kept in *p, grown as needed and
// otherwise reused.
func scratch[T any](p *any, n int) []T {
	if s, ok := (*p).([]T); ok && cap(s) >= n {
		return s[:n]
	}
	s := make([]T, n)
	*p = s
	return s
}

// reluGradOp passes dy where the ReLU's output y is positive, from
// (y, dy).
type reluGradOp struct {
	pure
	shape tensor.Shape
	out   any
	tasks taskSlots
}

func (op *reluGradOp) String() string        { return fmt.Sprintf("gnet.reluGrad%v", op.shape) }
func (op *reluGradOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *reluGradOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *reluGradOp) Arity() int            { return 2 }
func (op *reluGradOp) Type() hm.Type {
	d := op.shape.Dims()
	return fnType(d, d, d)
}
func (op *reluGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape.Clone(), nil }

func (op *reluGradOp) Do(vals ...G.Value) (G.Value, error) {
	n := op.shape.TotalSize()
	if err := checkSizes(op, vals, n, n); err != nil {
		return nil, err
	}
	return run(vals, &op.out, op.shape,
		func(dz G.Value) {
			reluGrad(&op.tasks, floats[float32](vals[0]), floats[float32](vals[1]), floats[float32](dz))
		},
		func(dz G.Value) {
			reluGrad(&op.tasks, floats[float64](vals[0]), floats[float64](vals[1]), floats[float64](dz))
		})
}

// linearOp is a dense layer, x·wᵀ + b then ReLU if asked, from
// (x [batch, in], w [out, in] as model keeps it, b [1, out]): one GEMM with
// w transposed in place.
type linearOp struct {
	pure
	batch, in, out int
	relu           bool
	buf            any
}

func (op *linearOp) String() string {
	return fmt.Sprintf("gnet.linear(%d→%d, batch %d, relu %v)", op.in, op.out, op.batch, op.relu)
}
func (op *linearOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *linearOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *linearOp) Arity() int            { return 3 }
func (op *linearOp) Type() hm.Type         { return fnType(2, 2, 2, 2) }
func (op *linearOp) DiffWRT(int) []bool    { return []bool{true, true, true} }
func (op *linearOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.batch, op.out}, nil
}

func (op *linearOp) Do(vals ...G.Value) (G.Value, error) {
	if err := checkSizes(op, vals, op.batch*op.in, op.out*op.in, op.out); err != nil {
		return nil, err
	}
	return run(vals, &op.buf, tensor.Shape{op.batch, op.out},
		func(y G.Value) { linear[float32](op, vals, y) },
		func(y G.Value) { linear[float64](op, vals, y) })
}

func linear[T float](op *linearOp, vals []G.Value, y G.Value) {
	ys := floats[T](y)
	gemm(false, true, op.batch, op.out, op.in, floats[T](vals[0]), op.in, floats[T](vals[1]), op.in, 0, ys, op.out)
	addRows(ys, floats[T](vals[2]), op.relu)
}

func (op *linearOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dz := grad
	var err error
	if op.relu {
		if dz, err = G.ApplyOp(&reluGradOp{shape: tensor.Shape{op.batch, op.out}}, output, grad); err != nil {
			return nil, err
		}
	}
	dx, err := G.ApplyOp(&linearGradOp{linear: op, wrt: 'x'}, dz, inputs[1])
	if err != nil {
		return nil, err
	}
	dw, err := G.ApplyOp(&linearGradOp{linear: op, wrt: 'w'}, dz, inputs[0])
	if err != nil {
		return nil, err
	}
	db, err := G.ApplyOp(&linearGradOp{linear: op, wrt: 'b'}, dz)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx, dw, db}, nil
}

// linearGradOp is a dense layer's gradient with respect to x (from dz, w:
// dz·w), w (from dz, x: dzᵀ·x) or b (from dz: its column sums).
type linearGradOp struct {
	pure
	linear *linearOp
	wrt    byte
	out    any
}

func (op *linearGradOp) String() string        { return fmt.Sprintf("∂%c %v", op.wrt, op.linear) }
func (op *linearGradOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *linearGradOp) Hashcode() uint32      { return hashOf(op.String()) }

func (op *linearGradOp) Arity() int {
	if op.wrt == 'b' {
		return 1
	}
	return 2
}

func (op *linearGradOp) Type() hm.Type {
	if op.wrt == 'b' {
		return fnType(2, 2)
	}
	return fnType(2, 2, 2)
}

func (op *linearGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	l := op.linear
	switch op.wrt {
	case 'x':
		return tensor.Shape{l.batch, l.in}, nil
	case 'w':
		return tensor.Shape{l.out, l.in}, nil
	}
	return tensor.Shape{1, l.out}, nil
}

func (op *linearGradOp) Do(vals ...G.Value) (G.Value, error) {
	l := op.linear
	var room [2]int // append stays on the stack
	sizes := append(room[:0], l.batch*l.out)
	switch op.wrt {
	case 'x':
		sizes = append(sizes, l.out*l.in)
	case 'w':
		sizes = append(sizes, l.batch*l.in)
	}
	if err := checkSizes(op, vals, sizes...); err != nil {
		return nil, err
	}
	shape, _ := op.InferShape()
	return run(vals, &op.out, shape,
		func(out G.Value) { linearGrad[float32](op, vals, out) },
		func(out G.Value) { linearGrad[float64](op, vals, out) })
}

func linearGrad[T float](op *linearGradOp, vals []G.Value, out G.Value) {
	l, dz, o := op.linear, floats[T](vals[0]), floats[T](out)
	switch op.wrt {
	case 'x':
		gemm(false, false, l.batch, l.in, l.out, dz, l.out, floats[T](vals[1]), l.in, 0, o, l.in)
	case 'w':
		gemm(true, false, l.out, l.in, l.batch, dz, l.out, floats[T](vals[1]), l.in, 0, o, l.in)
	default:
		colSum(dz, o)
	}
}
