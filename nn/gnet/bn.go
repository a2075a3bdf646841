package gnet

import (
	"fmt"
	"hash"
	"io"
	"math"

	"github.com/chewxy/hm"
	"github.com/palace-chess/palace/nn/model"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// bnOp is the tail of a residual layer in one op: batch norm, its scale
// and shift, the skip connection if any, and ReLU,
//
//	y = relu(γ·(x − μ)/√(σ² + ε) + β [+ skip])
//
// per channel over the batch's batch·90 values, from (x [1, ch, batch·10,
// 9], γ [1, ch, 1, 1], β [1, ch, 1, 1] [, skip]). In training it
// normalises by the batch's mean and (biased) variance and updates the
// running ones with momentum as the weight of each new batch, the
// variance unbiased (as Gorgonia's BatchNormOp, which this replaced, did);
// evaluation normalises by the running statistics, which start at mean 0
// and variance 1 as a fresh Gorgonia op's did. One op rather than a
// normalising op and an affine one: each pass over an activation is
// memory traffic, and x̂ need not be stored (the gradient recomputes it
// from x). Forward: the statistics, then y; backward: two passes.
type bnOp struct {
	pure
	ch, batch      int
	skip           bool
	momentum       float64
	training       bool
	mean, variance *tensor.Dense // running statistics [ch]
	// The last training run's batch statistics, for the gradient.
	batchMean, invStd []float64
	out               any
	tasks             taskSlots
	// input is x's statistics where the product that made x took them.
	input bnInput
}

// newBatchNorm makes the op for activations of ch channels.
func newBatchNorm(dt tensor.Dtype, ch, batch int, skip bool, momentum float64, training bool) *bnOp {
	op := &bnOp{ch: ch, batch: batch, skip: skip, momentum: momentum, training: training,
		mean: tensor.New(tensor.Of(dt), tensor.WithShape(ch)), variance: tensor.New(tensor.Of(dt), tensor.WithShape(ch)),
		batchMean: make([]float64, ch), invStd: make([]float64, ch)}
	switch v := op.variance.Data().(type) {
	case []float32:
		for i := range v {
			v[i] = 1
		}
	case []float64:
		for i := range v {
			v[i] = 1
		}
	}
	return op
}

func (op *bnOp) String() string {
	return fmt.Sprintf("gnet.batchnorm(%d, batch %d, skip %v, training %v)", op.ch, op.batch, op.skip, op.training)
}
func (op *bnOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *bnOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *bnOp) size() int             { return op.batch * model.Squares }
func (op *bnOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return actShape(op.ch, op.batch), nil
}

func (op *bnOp) Arity() int {
	if op.skip {
		return 4
	}
	return 3
}

func (op *bnOp) Type() hm.Type {
	if op.skip {
		return fnType(4, 4, 4, 4, 4)
	}
	return fnType(4, 4, 4, 4)
}

func (op *bnOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = true
	}
	return d
}

// Stats returns the running mean and variance (the op's own tensors).
func (op *bnOp) Stats() (mean, variance tensor.Tensor) { return op.mean, op.variance }

// SetStats copies in running statistics of the op's channels and dtype.
func (op *bnOp) SetStats(mean, variance tensor.Tensor) error {
	for _, s := range []struct {
		name     string
		dst, src tensor.Tensor
	}{{"mean", op.mean, mean}, {"variance", op.variance, variance}} {
		if s.src.Shape().TotalSize() != op.ch || s.src.Dtype() != s.dst.Dtype() {
			return fmt.Errorf("gnet: batch norm's running %s is %v %v, want %d %v", s.name, s.src.Dtype(), s.src.Shape(), op.ch, s.dst.Dtype())
		}
		if err := tensor.Copy(s.dst, s.src); err != nil {
			return fmt.Errorf("gnet: batch norm's running %s: %w", s.name, err)
		}
	}
	return nil
}

func (op *bnOp) Do(vals ...G.Value) (G.Value, error) {
	var room [4]int // append stays on the stack
	sizes := append(room[:0], op.ch*op.size(), op.ch, op.ch)
	if op.skip {
		sizes = append(sizes, op.ch*op.size())
	}
	if err := checkSizes(op, vals, sizes...); err != nil {
		return nil, err
	}
	var skip G.Value
	if op.skip {
		skip = vals[3]
	}
	return run(vals, &op.out, actShape(op.ch, op.batch),
		func(y G.Value) {
			bnForward(op, floats[float32](vals[0]), floats[float32](vals[1]), floats[float32](vals[2]), floats[float32](skip),
				floats[float32](y), op.mean.Float32s(), op.variance.Float32s())
		},
		func(y G.Value) {
			bnForward(op, floats[float64](vals[0]), floats[float64](vals[1]), floats[float64](vals[2]), floats[float64](skip),
				floats[float64](y), op.mean.Float64s(), op.variance.Float64s())
		})
}

// bnForward sets y = relu(γ·x̂ + β [+ skip]) for each channel of x,
// updating the running statistics rm, rv in training. Sums are in
// float64, one channel per goroutine's band, in a fixed order: runs are
// exactly repeatable.
func bnForward[T float](op *bnOp, x, gamma, beta, skip, y, rm, rv []T) {
	t := slotFor[bnForwardTask[T]](&op.tasks)
	*t = bnForwardTask[T]{op, x, gamma, beta, skip, y, rm, rv}
	parallel(op.ch, op.ch*op.size(), t)
	op.input.fresh = false // read once: the next run's product makes them anew
}

type bnForwardTask[T float] struct {
	op                              *bnOp
	x, gamma, beta, skip, y, rm, rv []T
}

func (t *bnForwardTask[T]) run(lo, hi int) {
	op, x, gamma, beta, skip, y, rm, rv := t.op, t.x, t.gamma, t.beta, t.skip, t.y, t.rm, t.rv
	n := op.size()
	for c := lo; c < hi; c++ {
		xc, yc := x[c*n:][:n], y[c*n:][:n]
		var mean, invStd float64
		if op.training {
			var sum, squares float64
			if op.input.fresh {
				sum, squares = op.input.take(c, op.ch)
			} else {
				sum, squares = channelSums(xc)
			}
			mean = sum / float64(n)
			ss := max(squares-sum*mean, 0) // Σ(x − μ)²
			invStd = 1 / math.Sqrt(ss/float64(n)+model.BNEpsilon)
			op.batchMean[c], op.invStd[c] = mean, invStd
			m := op.momentum
			rm[c] = T(m*mean + (1-m)*float64(rm[c]))
			rv[c] = T(m*ss/float64(max(n-1, 1)) + (1-m)*float64(rv[c]))
		} else {
			mean, invStd = float64(rm[c]), 1/math.Sqrt(float64(rv[c])+model.BNEpsilon)
		}
		// γ·(x − μ)·invStd + β as one multiply-add.
		a := float64(gamma[c]) * invStd
		var kc []T
		if skip != nil {
			kc = skip[c*n:][:n]
		}
		affineReLU(xc, kc, yc, T(a), T(float64(beta[c])-a*mean))
	}
}

func (op *bnOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if !op.training {
		return nil, fmt.Errorf("gnet: %v: no gradient in evaluation", op)
	}
	// One op makes all the gradients (bnGradOp); its node is x's, the
	// others hand on its results.
	g := &bnGradOp{bn: op}
	dx, err := G.ApplyOp(g, output, grad, inputs[0], inputs[1])
	if err != nil {
		return nil, err
	}
	grads := G.Nodes{dx, nil, nil}
	parts := []byte{'g', 'b'}
	if op.skip {
		grads = append(grads, nil)
		parts = append(parts, 's')
	}
	for i, part := range parts {
		if grads[i+1], err = G.ApplyOp(&bnPartOp{grad: g, part: part}, dx); err != nil {
			return nil, err
		}
	}
	return grads, nil
}

// bnGradOp backpropagates through bnOp, from (y, dy, x, γ), per channel of
// n values with x̂ = (x − μ)·invStd:
//
//	dz = dy where y > 0, else 0   (the skip's gradient)
//	dβ = Σ dz,  dγ = Σ dz·x̂
//	dx = γ·invStd·(dz − dβ/n − x̂·dγ/n)
//
// It returns dx and keeps dγ, dβ and dz for bnPartOp to hand on.
type bnGradOp struct {
	pure
	bn             *bnOp
	dx, dz, dg, db any
}

func (op *bnGradOp) String() string        { return "∂ " + op.bn.String() }
func (op *bnGradOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *bnGradOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *bnGradOp) Arity() int            { return 4 }
func (op *bnGradOp) Type() hm.Type         { return fnType(4, 4, 4, 4, 4) }
func (op *bnGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return actShape(op.bn.ch, op.bn.batch), nil
}

func (op *bnGradOp) Do(vals ...G.Value) (G.Value, error) {
	b := op.bn
	n := b.ch * b.size()
	if err := checkSizes(op, vals, n, n, n, b.ch); err != nil {
		return nil, err
	}
	dt := vals[0].Dtype()
	dx, err := output(&op.dx, dt, actShape(b.ch, b.batch))
	if err != nil {
		return nil, err
	}
	dz, err := output(&op.dz, dt, actShape(b.ch, b.batch))
	if err != nil {
		return nil, err
	}
	dg, err := output(&op.dg, dt, tensor.Shape{1, b.ch, 1, 1})
	if err != nil {
		return nil, err
	}
	db, err := output(&op.db, dt, tensor.Shape{1, b.ch, 1, 1})
	if err != nil {
		return nil, err
	}
	switch dt {
	case tensor.Float32:
		bnBackward(b, floats[float32](vals[0]), floats[float32](vals[1]), floats[float32](vals[2]), floats[float32](vals[3]),
			floats[float32](dx), floats[float32](dz), floats[float32](dg), floats[float32](db))
	case tensor.Float64:
		bnBackward(b, floats[float64](vals[0]), floats[float64](vals[1]), floats[float64](vals[2]), floats[float64](vals[3]),
			floats[float64](dx), floats[float64](dz), floats[float64](dg), floats[float64](db))
	default:
		return nil, fmt.Errorf("gnet: dtype %v", dt)
	}
	return dx, nil
}

// bnBackward is bnGradOp's arithmetic, a channel at a time (its values
// stay in the core's L1 between the passes), sums in float64.
func bnBackward[T float](op *bnOp, y, dy, x, gamma, dx, dz, dg, db []T) {
	t := slotFor[bnBackwardTask[T]](&op.tasks)
	*t = bnBackwardTask[T]{op, y, dy, x, gamma, dx, dz, dg, db}
	parallel(op.ch, op.ch*op.size(), t)
}

type bnBackwardTask[T float] struct {
	op                              *bnOp
	y, dy, x, gamma, dx, dz, dg, db []T
}

func (t *bnBackwardTask[T]) run(lo, hi int) {
	op, y, dy, x, gamma, dx, dz, dg, db := t.op, t.y, t.dy, t.x, t.gamma, t.dx, t.dz, t.dg, t.db
	n := op.size()
	for c := lo; c < hi; c++ {
		yc, dyc, xc := y[c*n:][:n], dy[c*n:][:n], x[c*n:][:n]
		dzc, dxc := dz[c*n:][:n], dx[c*n:][:n]
		sdz, sdzx := maskSumDot(yc, dyc, xc, dzc)
		mean, invStd := op.batchMean[c], op.invStd[c]
		sdzx = invStd * (sdzx - mean*sdz) // Σ dz·x̂
		dg[c], db[c] = T(sdzx), T(sdz)
		// dx = A·dz + B·x + C: γ·invStd·(dz − Σdz/n − (x − μ)·invStd·Σdz·x̂/n).
		g, fn := float64(gamma[c]), float64(n)
		a := g * invStd
		bx := -a * invStd * sdzx / fn
		axpbyc(dzc, xc, dxc, T(a), T(bx), T(-a*sdz/fn-bx*mean))
	}
}

// The loops of bnForward and bnBackward, in AVX2 for float32 where the
// CPU has it (bn_amd64.s) and in Go otherwise and for the tails.

// channelSums is Σx and Σx², in float64.
func channelSums[T float](x []T) (sum, squares float64) {
	if x32, ok := any(x).([]float32); ok && haveBNAsm && len(x) >= 8 {
		var out [2]float64
		n := len(x) &^ 7
		sumSquaresAVX2(&x32[0], n, &out)
		s, q := sumAndSquares4(x[n:])
		return out[0] + s, out[1] + q
	}
	return sumAndSquares4(x)
}

// affineReLU sets y = max(a·x + b [+ skip], 0).
func affineReLU[T float](x, skip, y []T, a, b T) {
	y = y[:len(x)]
	i := 0
	if x32, ok := any(x).([]float32); ok && haveBNAsm && len(x) >= 8 {
		i = len(x) &^ 7
		var k *float32
		if skip != nil {
			k = &any(skip).([]float32)[0]
		}
		affineReLUAVX2(&x32[0], k, &any(y).([]float32)[0], i, float32(a), float32(b))
	}
	// max, not an if: the sign is a coin toss, and a mispredicted
	// branch per value costs 6× the loop.
	if skip != nil {
		skip = skip[:len(x)]
		for ; i < len(x); i++ {
			y[i] = max(a*x[i]+b+skip[i], 0)
		}
		return
	}
	for ; i < len(x); i++ {
		y[i] = max(a*x[i]+b, 0)
	}
}

// maskSumDot sets dz = dy where y > 0, else 0, and returns Σdz and Σdz·x
// in float64.
func maskSumDot[T float](y, dy, x, dz []T) (sum, dot float64) {
	i := 0
	if y32, ok := any(y).([]float32); ok && haveBNAsm && len(y) >= 8 {
		i = len(y) &^ 7
		var out [2]float64
		maskSumDotAVX2(&y32[0], &any(dy).([]float32)[0], &any(x).([]float32)[0], &any(dz).([]float32)[0], i, &out)
		sum, dot = out[0], out[1]
	}
	reluMask(y[i:], dy[i:], dz[i:])
	return sum + sum4(dz[i:len(y)]), dot + dot4(dz[i:len(y)], x[i:])
}

// axpbyc sets dx = a·dz + b·x + c.
func axpbyc[T float](dz, x, dx []T, a, b, c T) {
	i := 0
	if dz32, ok := any(dz).([]float32); ok && haveBNAsm && len(dz) >= 8 {
		i = len(dz) &^ 7
		axpbycAVX2(&dz32[0], &any(x).([]float32)[0], &any(dx).([]float32)[0], i, float32(a), float32(b), float32(c))
	}
	x, dx = x[:len(dz)], dx[:len(dz)]
	for ; i < len(dz); i++ {
		dx[i] = a*dz[i] + b*x[i] + c
	}
}

// bnPartOp hands on one of bnGradOp's results: γ's, β's or the skip's
// gradient. Its input is bnGradOp's output, so it runs after it.
type bnPartOp struct {
	pure
	grad *bnGradOp
	part byte
}

func (op *bnPartOp) String() string        { return fmt.Sprintf("%v[%c]", op.grad, op.part) }
func (op *bnPartOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *bnPartOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *bnPartOp) Arity() int            { return 1 }
func (op *bnPartOp) Type() hm.Type         { return fnType(4, 4) }
func (op *bnPartOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	if op.part == 's' {
		return actShape(op.grad.bn.ch, op.grad.bn.batch), nil
	}
	return tensor.Shape{1, op.grad.bn.ch, 1, 1}, nil
}

func (op *bnPartOp) Do(vals ...G.Value) (G.Value, error) {
	var v any
	switch op.part {
	case 'g':
		v = op.grad.dg
	case 'b':
		v = op.grad.db
	default:
		v = op.grad.dz
	}
	d, ok := v.(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("gnet: %v ran before the gradient it hands on", op)
	}
	return d, nil
}

// sum4, sumAndSquares4 and dot4 sum in float64 over four running sums, so
// that the adds do not wait on one another (a single sum is bound by the
// add's latency); the order is fixed, so results repeat exactly.
func sum4[T float](x []T) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i])
		s1 += float64(x[i+1])
		s2 += float64(x[i+2])
		s3 += float64(x[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// sumAndSquares4 is Σx and Σx² in one pass (float64 keeps Σx² − (Σx)²/n
// exact enough: activations' means are not thousands of deviations).
func sumAndSquares4[T float](x []T) (sum, squares float64) {
	var s0, s1, s2, s3, q0, q1, q2, q3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v0, v1, v2, v3 := float64(x[i]), float64(x[i+1]), float64(x[i+2]), float64(x[i+3])
		s0 += v0
		s1 += v1
		s2 += v2
		s3 += v3
		q0 += v0 * v0
		q1 += v1 * v1
		q2 += v2 * v2
		q3 += v3 * v3
	}
	for ; i < len(x); i++ {
		v := float64(x[i])
		s0 += v
		q0 += v * v
	}
	return (s0 + s1) + (s2 + s3), (q0 + q1) + (q2 + q3)
}

// dot4 is Σ x·y.
func dot4[T float](x, y []T) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i]) * float64(y[i])
		s1 += float64(x[i+1]) * float64(y[i+1])
		s2 += float64(x[i+2]) * float64(y[i+2])
		s3 += float64(x[i+3]) * float64(y[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i]) * float64(y[i])
	}
	return (s0 + s1) + (s2 + s3)
}
