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

// bnOp is batch norm's normalising, x̂ = (x − μ)/√(σ² + ε) per channel
// over the batch's batch·90 values, from x [1, ch, batch·10, 9]; affineOp
// does γ and β. In training it normalises by the batch's mean and
// (biased) variance and updates the running ones with momentum as the
// weight of each new batch, the variance unbiased (Gorgonia's BatchNormOp
// did the same, which this replaced: its statistics loops took a seventh
// of a training step). Evaluation normalises by the running statistics.
// They start at mean 0 and variance 1, as a fresh Gorgonia op's did.
type bnOp struct {
	pure
	ch, batch      int
	momentum       float64
	training       bool
	mean, variance *tensor.Dense // running statistics [ch]
	// The last training run's batch statistics, for the gradient.
	batchMean, invStd []float64
	out               any
}

// newBatchNorm makes the op for activations of ch channels.
func newBatchNorm(dt tensor.Dtype, ch, batch int, momentum float64, training bool) *bnOp {
	op := &bnOp{ch: ch, batch: batch, momentum: momentum, training: training,
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
	return fmt.Sprintf("gnet.batchnorm(%d, batch %d, training %v)", op.ch, op.batch, op.training)
}
func (op *bnOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *bnOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *bnOp) Arity() int            { return 1 }
func (op *bnOp) Type() hm.Type         { return fnType(4, 4) }
func (op *bnOp) DiffWRT(int) []bool    { return []bool{true} }
func (op *bnOp) size() int             { return op.batch * model.Squares }
func (op *bnOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return actShape(op.ch, op.batch), nil
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
	if err := checkSizes(op, vals, op.ch*op.size()); err != nil {
		return nil, err
	}
	return run(vals, &op.out, actShape(op.ch, op.batch),
		func(y G.Value) {
			bnForward(op, floats[float32](vals[0]), floats[float32](y), op.mean.Float32s(), op.variance.Float32s())
		},
		func(y G.Value) {
			bnForward(op, floats[float64](vals[0]), floats[float64](y), op.mean.Float64s(), op.variance.Float64s())
		})
}

// bnForward normalises each channel of x into y, updating the running
// statistics rm, rv in training. Sums are in float64, one channel per
// goroutine's band, in a fixed order: runs are exactly repeatable.
func bnForward[T float](op *bnOp, x, y, rm, rv []T) {
	n := op.size()
	parallel(op.ch, op.ch*n, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			xc, yc := x[c*n:][:n], y[c*n:][:n]
			var mean, invStd float64
			if op.training {
				sum, squares := sumAndSquares4(xc)
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
			mu, is := T(mean), T(invStd)
			for i, v := range xc {
				yc[i] = (v - mu) * is
			}
		}
	})
}

// SymDiff is the gradient through the batch's statistics, from (x̂, dy):
// the op's output is x̂.
func (op *bnOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if !op.training {
		return nil, fmt.Errorf("gnet: %v: no gradient in evaluation", op)
	}
	dx, err := G.ApplyOp(&bnGradOp{bn: op}, output, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}

// bnGradOp is batch norm's gradient from (x̂, dy): per channel of n values,
// dx = invStd/n · (n·dy − Σdy − x̂·Σ(dy·x̂)).
type bnGradOp struct {
	pure
	bn  *bnOp
	out any
}

func (op *bnGradOp) String() string        { return "∂ " + op.bn.String() }
func (op *bnGradOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *bnGradOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *bnGradOp) Arity() int            { return 2 }
func (op *bnGradOp) Type() hm.Type         { return fnType(4, 4, 4) }
func (op *bnGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return actShape(op.bn.ch, op.bn.batch), nil
}

func (op *bnGradOp) Do(vals ...G.Value) (G.Value, error) {
	b := op.bn
	if err := checkSizes(op, vals, b.ch*b.size(), b.ch*b.size()); err != nil {
		return nil, err
	}
	return run(vals, &op.out, actShape(b.ch, b.batch),
		func(dx G.Value) {
			bnBackward(b, floats[float32](vals[0]), floats[float32](vals[1]), floats[float32](dx))
		},
		func(dx G.Value) {
			bnBackward(b, floats[float64](vals[0]), floats[float64](vals[1]), floats[float64](dx))
		})
}

func bnBackward[T float](op *bnOp, xhat, dy, dx []T) {
	n := op.size()
	parallel(op.ch, op.ch*n, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			xc, dyc, dxc := xhat[c*n:][:n], dy[c*n:][:n], dx[c*n:][:n]
			sdy, sdyx := sum4(dyc), dot4(dyc, xc)
			k := op.invStd[c] / float64(n)
			a, b, s := T(k*float64(n)), T(k*sdy), T(k*sdyx)
			for i, g := range dyc {
				dxc[i] = a*g - b - xc[i]*s
			}
		}
	})
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
