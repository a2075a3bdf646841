package gnet

import (
	"fmt"
	"hash"
	"io"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// xentOp is a softmax cross-entropy loss in one op: −Σ t·log softmax(z)
// over a batch of rows, divided by the batch size, with z the logits plus
// an optional mask (0, or maskedLogit on an illegal slot, whose target is
// 0). Gorgonia's own chain (add, log-softmax, product, sum, scale) took a
// sixth of a training step in copies and broadcasts on one core; this one
// keeps each row's probabilities from the forward pass for the gradient,
// skips the exponentials of masked slots (most of a policy row) and
// splits the rows across the cores. Inputs: logits [rows, size], then
// mask (if masked) and target [rows, size]; the output is a scalar.
type xentOp struct {
	pure
	rows, size int
	masked     bool
	name       string
	probs      any       // softmax(z) [rows][size], for the gradient
	targetSums []float64 // Σ t per row: 0 for a row without a target
	rowLoss    []float64
	tasks      taskSlots
	// The loss, returned from one run to the next as an output buffer is
	// (ops.go's output).
	loss32 G.F32
	loss64 G.F64
}

func newXent(name string, rows, size int, masked bool) *xentOp {
	return &xentOp{rows: rows, size: size, masked: masked, name: name,
		targetSums: make([]float64, rows), rowLoss: make([]float64, rows)}
}

func (op *xentOp) String() string {
	return fmt.Sprintf("gnet.xent(%s, %d×%d, masked %v)", op.name, op.rows, op.size, op.masked)
}
func (op *xentOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *xentOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *xentOp) Arity() int {
	if op.masked {
		return 3
	}
	return 2
}

func (op *xentOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	t := G.TensorType{Dims: 2, Of: a}
	if op.masked {
		return hm.NewFnType(t, t, t, a)
	}
	return hm.NewFnType(t, t, a)
}

func (op *xentOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return tensor.ScalarShape(), nil }

// DiffWRT: only the logits have a gradient; mask and target are data.
func (op *xentOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	d[0] = true
	return d
}

func (op *xentOp) Do(vals ...G.Value) (G.Value, error) {
	n := op.rows * op.size
	var room [3]int // append stays on the stack
	sizes := append(room[:0], n, n)
	if op.masked {
		sizes = append(sizes, n)
	}
	if err := checkSizes(op, vals, sizes...); err != nil {
		return nil, err
	}
	target := vals[len(vals)-1]
	switch vals[0].Dtype() {
	case tensor.Float32:
		var mask []float32
		if op.masked {
			mask = floats[float32](vals[1])
		}
		loss := xentForward(op, floats[float32](vals[0]), mask, floats[float32](target), scratch[float32](&op.probs, n))
		op.loss32 = G.F32(loss)
		return &op.loss32, nil
	case tensor.Float64:
		var mask []float64
		if op.masked {
			mask = floats[float64](vals[1])
		}
		op.loss64 = G.F64(xentForward(op, floats[float64](vals[0]), mask, floats[float64](target), scratch[float64](&op.probs, n)))
		return &op.loss64, nil
	}
	return nil, fmt.Errorf("gnet: %v: dtype %v", op, vals[0].Dtype())
}

// xentForward returns the mean loss over the rows, keeping each row's
// probabilities in probs. Each row's sums are in float64 in a fixed order,
// and the rows' losses are added in order: runs repeat exactly.
func xentForward[T float](op *xentOp, logits, mask, target, probs []T) float64 {
	t := slotFor[xentForwardTask[T]](&op.tasks)
	*t = xentForwardTask[T]{op, logits, mask, target, probs}
	parallel(op.rows, op.rows*op.size, t)
	var loss float64
	for _, l := range op.rowLoss {
		loss += l
	}
	return loss / float64(op.rows)
}

type xentForwardTask[T float] struct {
	op                          *xentOp
	logits, mask, target, probs []T
}

func (task *xentForwardTask[T]) run(lo, hi int) {
	op, logits, mask, target, probs := task.op, task.logits, task.mask, task.target, task.probs
	size := op.size
	for r := lo; r < hi; r++ {
		z, t, p := logits[r*size:][:size], target[r*size:][:size], probs[r*size:][:size]
		var m []T
		if mask != nil {
			m = mask[r*size:][:size]
		}
		top := math.Inf(-1)
		for i, v := range z {
			if m != nil && m[i] != 0 {
				continue
			}
			top = max(top, float64(v))
		}
		var sum, tsum, tz float64
		for i, v := range z {
			if m != nil && m[i] != 0 {
				p[i] = 0 // exp(−10⁹) is 0 in either precision
				continue
			}
			e := math.Exp(float64(v) - top)
			p[i] = T(e)
			sum += e
			tsum += float64(t[i])
			tz += float64(t[i]) * (float64(v) - top)
		}
		if sum == 0 { // every slot masked: no distribution, no loss
			op.rowLoss[r], op.targetSums[r] = 0, 0
			clear(p)
			continue
		}
		for i := range p {
			p[i] = T(float64(p[i]) / sum)
		}
		// −Σ t·(z − top − log Σ e) = Σt·log Σ e − Σ t·(z − top).
		op.rowLoss[r] = tsum*math.Log(sum) - tz
		op.targetSums[r] = tsum
	}
}

func (op *xentOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dz, err := G.ApplyOp(&xentGradOp{xent: op}, inputs[len(inputs)-1], output, grad)
	if err != nil {
		return nil, err
	}
	grads := make(G.Nodes, len(inputs))
	grads[0] = dz
	return grads, nil
}

// xentGradOp is xentOp's gradient with respect to the logits, from
// (target, loss, the loss's gradient g): g/rows · (softmax(z)·Σt − t) per
// row, from the probabilities the forward pass kept (a masked slot's are
// 0, as is its target). The loss input orders it after the forward pass.
type xentGradOp struct {
	pure
	xent *xentOp
	out  any
}

func (op *xentGradOp) String() string        { return "∂ " + op.xent.String() }
func (op *xentGradOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *xentGradOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *xentGradOp) Arity() int            { return 3 }
func (op *xentGradOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	t := G.TensorType{Dims: 2, Of: a}
	return hm.NewFnType(t, a, a, t)
}
func (op *xentGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.xent.rows, op.xent.size}, nil
}

func (op *xentGradOp) Do(vals ...G.Value) (G.Value, error) {
	x := op.xent
	if len(vals) != 3 {
		return nil, fmt.Errorf("gnet: %v takes 3 inputs, got %d", op, len(vals))
	}
	if err := checkSizes(op, vals[:1], x.rows*x.size); err != nil {
		return nil, err
	}
	g, err := scalarOf(vals[2])
	if err != nil {
		return nil, fmt.Errorf("gnet: %v: %w", op, err)
	}
	return run(vals, &op.out, tensor.Shape{x.rows, x.size},
		func(dz G.Value) {
			xentBackward(x, g, scratch[float32](&x.probs, x.rows*x.size), floats[float32](vals[0]), floats[float32](dz))
		},
		func(dz G.Value) {
			xentBackward(x, g, scratch[float64](&x.probs, x.rows*x.size), floats[float64](vals[0]), floats[float64](dz))
		})
}

// xentBackward sets dz = g/rows·(p·Σt − t), row by row.
func xentBackward[T float](op *xentOp, g float64, probs, target, dz []T) {
	t := slotFor[xentBackwardTask[T]](&op.tasks)
	*t = xentBackwardTask[T]{op, g, probs, target, dz}
	parallel(op.rows, op.rows*op.size, t)
}

type xentBackwardTask[T float] struct {
	op                *xentOp
	g                 float64
	probs, target, dz []T
}

func (task *xentBackwardTask[T]) run(lo, hi int) {
	op, size := task.op, task.op.size
	for r := lo; r < hi; r++ {
		p, t, d := task.probs[r*size:][:size], task.target[r*size:][:size], task.dz[r*size:][:size]
		k, kt := T(task.g*op.targetSums[r]/float64(op.rows)), T(task.g/float64(op.rows))
		for i, v := range p {
			d[i] = v*k - t[i]*kt
		}
	}
}
