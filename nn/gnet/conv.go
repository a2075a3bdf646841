package gnet

import (
	"fmt"
	"hash"
	"io"
	"runtime"

	"github.com/chewxy/hm"
	"github.com/palace-chess/palace/nn/model"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// A 3×3 convolution runs in chunks of chunkPositions positions, spread
// over the cores: each chunk's im2col (in·9 rows of chunk·90 values, 2 MB
// at most for the stem) stays in the core's cache for its GEMM, where one
// im2col of the whole batch (16 MB) would go through memory twice.
const chunkPositions = 8

// filterGradParts is the number of partial sums a 3×3 filter gradient is
// summed from, whatever the number of cores: a sum split by cores would
// make a run's networks depend on the machine (GOMAXPROCS) in their last
// bits, and so everything after.
const filterGradParts = 4

// convScratch is the per-core im2col buffers and filter-gradient partial
// sums a graph's convolutions share: the graph runs one op at a time.
type convScratch struct {
	col, yt []any // per worker (yt: the kernels' transposed products)
	part    []any // per filter-gradient part (filterGradParts)
	wf, wt  any   // flipped filters for the input gradient; transposed filters (kernels)
	// bf16: the 3×3 products on the kernels take bfloat16 operands and
	// sum in float32 (WithBF16). Per worker, as []uint32 (bf16 pairs):
	// xB the chunk's activations, colB their columns, dyB the packed
	// output gradient; wB the packed filters ([]uint16).
	bf16          bool
	xB, colB, dyB []any
	wB            any
	// Winograd (winograd.go): per worker, and the filters' transform,
	// float32 and packed bf16; wgDU the filter gradient's parts.
	wg        []*wgScratch
	wgDU      [][]float32
	wgU, wgUB any
	tasks     taskSlots // the parallel loops' arguments (pool.go)
}

// convOp is a k×k convolution (k = 1 or 3, zero-padded to keep 10×9) of x
// [1, in, batch·10, 9] by w [out, in, k, k].
type convOp struct {
	pure
	k, in, out, batch int
	inputGrad         bool // false for the stem: the network's input needs no gradient
	// stats, in a training graph, is where the forward product leaves its
	// output's channel sums for the batch norm that reads it (bnstats.go).
	stats *bnInput
	buf   any
	s     *convScratch
	pm    wgCache // Winograd's transformed filters (winograd.go)
}

func (op *convOp) String() string {
	return fmt.Sprintf("gnet.conv%d(%d→%d, batch %d)", op.k, op.in, op.out, op.batch)
}
func (op *convOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *convOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *convOp) Arity() int            { return 2 }
func (op *convOp) Type() hm.Type         { return fnType(4, 4, 4) }
func (op *convOp) DiffWRT(int) []bool    { return []bool{op.inputGrad, true} }
func (op *convOp) cols() int             { return op.batch * model.Squares }
func (op *convOp) taps() int             { return op.in * op.k * op.k }
func (op *convOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return actShape(op.out, op.batch), nil
}

// chunks calls t.chunk for every chunk of positions [p0, p1), the chunks
// split into one run per core (a loop with no sum: part is the worker's
// index, and no task of chunks uses it).
func (op *convOp) chunks(t chunkTask) { op.runChunks(t, 0) }

// chunkSums calls t.chunk for every chunk of positions as chunks does,
// the chunks in a fixed number of parts (filterGradParts, or fewer
// chunks), each summed in chunk order from its first; the cores share the
// parts. It returns the number of parts: their sum, in part order, is the
// same on any number of cores.
func (op *convOp) chunkSums(t chunkTask) int {
	parts := min(filterGradParts, op.chunkCount())
	op.runChunks(t, parts)
	return parts
}

func (op *convOp) chunkCount() int { return (op.batch + chunkPositions - 1) / chunkPositions }

// runChunks runs t's chunks over the cores: by worker (parts 0), or by
// parts, each worker taking the same parts every time.
func (op *convOp) runChunks(t chunkTask, parts int) {
	n := op.chunkCount()
	workers := min(runtime.GOMAXPROCS(0), n)
	if parts > 0 {
		workers = min(workers, parts)
	}
	for len(op.s.col) < workers {
		op.s.col = append(op.s.col, nil)
		op.s.yt = append(op.s.yt, nil)
		op.s.xB = append(op.s.xB, nil)
		op.s.colB = append(op.s.colB, nil)
		op.s.dyB = append(op.s.dyB, nil)
	}
	for len(op.s.part) < parts {
		op.s.part = append(op.s.part, nil)
		op.s.wgDU = append(op.s.wgDU, nil)
	}
	for len(op.s.wg) < workers {
		op.s.wg = append(op.s.wg, &wgScratch{})
	}
	c := slotFor[chunker](&op.s.tasks)
	*c = chunker{batch: op.batch, chunks: n, workers: workers, parts: parts, t: t}
	fanOut(workers, c)
	*c = chunker{}
}

// A chunkTask is the body of a loop over chunks of positions: worker
// names its scratch, part its partial sum, first the part's first chunk.
type chunkTask interface {
	chunk(worker, part, p0, p1 int, first bool)
}

// chunker runs a chunkTask's chunks for workers [lo, hi).
type chunker struct {
	batch, chunks, workers, parts int
	t                             chunkTask
}

func (c *chunker) run(lo, hi int) {
	for w := lo; w < hi; w++ {
		if c.parts == 0 {
			c.span(w, w, w*c.chunks/c.workers, (w+1)*c.chunks/c.workers)
			continue
		}
		for p := w * c.parts / c.workers; p < (w+1)*c.parts/c.workers; p++ {
			c.span(w, p, p*c.chunks/c.parts, (p+1)*c.chunks/c.parts)
		}
	}
}

// span runs chunks [k0, k1) on worker w's scratch into part p.
func (c *chunker) span(w, p, k0, k1 int) {
	for k := k0; k < k1; k++ {
		c.t.chunk(w, p, k*chunkPositions, min(c.batch, (k+1)*chunkPositions), k == k0)
	}
}

func (op *convOp) Do(vals ...G.Value) (G.Value, error) {
	if err := checkSizes(op, vals, op.in*op.cols(), op.out*op.taps()); err != nil {
		return nil, err
	}
	return run(vals, &op.buf, actShape(op.out, op.batch),
		func(y G.Value) { convForward[float32](op, vals[0], vals[1], y) },
		func(y G.Value) { convForward[float64](op, vals[0], vals[1], y) })
}

func convForward[T float](op *convOp, x, w, y G.Value) {
	cols, xs, ws, ys := op.cols(), floats[T](x), floats[T](w), floats[T](y)
	if op.k == 1 {
		gemm(false, false, op.out, cols, op.in, ws, op.in, xs, cols, 0, ys, cols)
		return
	}
	if x32, ok := any(xs).([]float32); ok && convForwardKernel(op, x32, any(ws).([]float32), any(ys).([]float32)) {
		return
	}
	t := slotFor[im2colProduct[T]](&op.s.tasks)
	*t = im2colProduct[T]{c: op, inCh: op.in, outCh: op.out, w: ws, src: xs, dst: ys}
	op.chunks(t)
}

// im2colProduct is a 3×3 convolution by im2col and a GEMM, chunk by
// chunk: dst [outCh] = w [outCh][inCh·9] ∗ src [inCh] (the forward pass;
// the input gradient is the convolution of dy by the flipped filters).
type im2colProduct[T float] struct {
	c           *convOp
	inCh, outCh int
	w, src, dst []T
}

func (t *im2colProduct[T]) chunk(worker, _, p0, p1 int, _ bool) {
	c, taps, cols := t.c, t.inCh*9, t.c.cols()
	n := (p1 - p0) * model.Squares
	col := scratch[T](&c.s.col[worker], colSize(taps))[:taps*n]
	im2col3(t.inCh, cols, p0, p1, t.src, col)
	gemmSerial(false, false, t.outCh, n, taps, t.w, taps, col, n, 0, t.dst[p0*model.Squares:], cols)
}

func (op *convOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	var dx *G.Node
	var err error
	if op.inputGrad {
		if dx, err = G.ApplyOp(&convInputGradOp{conv: op}, inputs[1], grad); err != nil {
			return nil, err
		}
	}
	dw, err := G.ApplyOp(&convFilterGradOp{conv: op}, inputs[0], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx, dw}, nil
}

// convInputGradOp is a convolution's gradient with respect to its input,
// from (w, dy): for 1×1, wᵀ·dy; for 3×3, the convolution of dy by the
// flipped, transposed filters (im2col and GEMM again, cheaper than the
// GEMM and col2im fold it equals).
type convInputGradOp struct {
	pure
	conv *convOp
	out  any
}

func (op *convInputGradOp) String() string        { return "∂x " + op.conv.String() }
func (op *convInputGradOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *convInputGradOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *convInputGradOp) Arity() int            { return 2 }
func (op *convInputGradOp) Type() hm.Type         { return fnType(4, 4, 4) }
func (op *convInputGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return actShape(op.conv.in, op.conv.batch), nil
}

func (op *convInputGradOp) Do(vals ...G.Value) (G.Value, error) {
	c := op.conv
	if err := checkSizes(op, vals, c.out*c.taps(), c.out*c.cols()); err != nil {
		return nil, err
	}
	return run(vals, &op.out, actShape(c.in, c.batch),
		func(dx G.Value) { convInputGrad[float32](op, vals[0], vals[1], dx) },
		func(dx G.Value) { convInputGrad[float64](op, vals[0], vals[1], dx) })
}

func convInputGrad[T float](op *convInputGradOp, w, dy, dx G.Value) {
	c := op.conv
	cols, ws, dys, dxs := c.cols(), floats[T](w), floats[T](dy), floats[T](dx)
	if c.k == 1 {
		gemm(true, false, c.in, cols, c.out, ws, c.in, dys, cols, 0, dxs, cols)
		return
	}
	if w32, ok := any(ws).([]float32); ok && convInputGradWinograd(c, w32, any(dys).([]float32), any(dxs).([]float32)) {
		return
	}
	wf := scratch[T](&c.s.wf, c.in*c.out*9)
	flip3(c.out, c.in, ws, wf)
	if wf32, ok := any(wf).([]float32); ok && convInputGradKernel(c, wf32, any(dys).([]float32), any(dxs).([]float32)) {
		return
	}
	t := slotFor[im2colProduct[T]](&c.s.tasks)
	*t = im2colProduct[T]{c: c, inCh: c.out, outCh: c.in, w: wf, src: dys, dst: dxs}
	c.chunks(t)
}

// convFilterGradOp is a convolution's gradient with respect to its
// filters, from (x, dy): dy·colᵀ, summed over the chunks.
type convFilterGradOp struct {
	pure
	conv *convOp
	out  any
}

func (op *convFilterGradOp) String() string        { return "∂w " + op.conv.String() }
func (op *convFilterGradOp) WriteHash(h hash.Hash) { io.WriteString(h, op.String()) }
func (op *convFilterGradOp) Hashcode() uint32      { return hashOf(op.String()) }
func (op *convFilterGradOp) Arity() int            { return 2 }
func (op *convFilterGradOp) Type() hm.Type         { return fnType(4, 4, 4) }
func (op *convFilterGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	c := op.conv
	return tensor.Shape{c.out, c.in, c.k, c.k}, nil
}

func (op *convFilterGradOp) Do(vals ...G.Value) (G.Value, error) {
	c := op.conv
	if err := checkSizes(op, vals, c.in*c.cols(), c.out*c.cols()); err != nil {
		return nil, err
	}
	shape, _ := op.InferShape()
	return run(vals, &op.out, shape,
		func(dw G.Value) { convFilterGrad[float32](op, vals[0], vals[1], dw) },
		func(dw G.Value) { convFilterGrad[float64](op, vals[0], vals[1], dw) })
}

func convFilterGrad[T float](op *convFilterGradOp, x, dy, dw G.Value) {
	c := op.conv
	cols, taps, xs, dys, dws := c.cols(), c.taps(), floats[T](x), floats[T](dy), floats[T](dw)
	if c.k == 1 {
		gemm(false, true, c.out, taps, cols, dys, cols, xs, cols, 0, dws, taps)
		return
	}
	if x32, ok := any(xs).([]float32); ok && convFilterGradKernel(c, x32, any(dys).([]float32), any(dws).([]float32)) {
		return
	}
	t := slotFor[im2colFilterGrad[T]](&c.s.tasks)
	*t = im2colFilterGrad[T]{c: c, xs: xs, dys: dys}
	parts := c.chunkSums(t)
	copy(dws, scratch[T](&c.s.part[0], c.out*taps))
	for p := 1; p < parts; p++ {
		for i, v := range scratch[T](&c.s.part[p], c.out*taps) {
			dws[i] += v
		}
	}
}

type im2colFilterGrad[T float] struct {
	c       *convOp
	xs, dys []T
}

func (t *im2colFilterGrad[T]) chunk(worker, p, p0, p1 int, first bool) {
	c, taps, cols := t.c, t.c.taps(), t.c.cols()
	n := (p1 - p0) * model.Squares
	col := scratch[T](&c.s.col[worker], colSize(taps))[:taps*n]
	im2col3(c.in, cols, p0, p1, t.xs, col)
	part := scratch[T](&c.s.part[p], c.out*taps)
	var beta T
	if !first {
		beta = 1
	}
	gemmSerial(false, true, c.out, taps, n, t.dys[p0*model.Squares:], cols, col, n, beta, part, taps)
}
