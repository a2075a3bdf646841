package gnet

import (
	"sync"
	"unsafe"

	"github.com/palace-chess/palace/nn/model"
)

// The tower's 3×3 convolutions in float32 go through palace's AVX-512
// GEMM kernels (model.Sgemm) where the CPU has them and the channel
// counts fit (multiples of 32), else through Gorgonia's BLAS as before.
// Activations here are channel-major ([channel][point]) and the kernels
// keep a block of an output's rows in registers with all its columns, so
// each product is taken transposed: Yᵀ = colᵀ·Wᵀ (colᵀ read in place
// through its strides), and the small transposes of W and of the
// results are copies beside the products.
//
// PALACE_KERNEL=blas (or off) keeps every product on the BLAS path. A
// variable so that tests can compare the two paths.
var useKernels = sync.OnceValue(func() bool {
	k, err := model.DefaultKernel()
	return err == nil && k != model.KernelBLAS
})

// colSlack is the floats past a chunk's im2col that a kernel product may
// read for its padded rows (at most 11), kept inside the buffer.
const colSlack = 16

// colSize is the im2col buffer of a chunk for taps rows.
func colSize(taps int) int { return taps*chunkPositions*model.Squares + colSlack }

// transpose sets dst[j·rows + i] = src[i·cols + j] for src [rows][cols].
func transpose(rows, cols int, src, dst []float32) {
	_, _ = src[rows*cols-1], dst[rows*cols-1]
	const tile = 16
	for i0 := 0; i0 < rows; i0 += tile {
		for j0 := 0; j0 < cols; j0 += tile {
			for i := i0; i < min(i0+tile, rows); i++ {
				row := src[i*cols:]
				for j := j0; j < min(j0+tile, cols); j++ {
					dst[j*rows+i] = row[j]
				}
			}
		}
	}
}

// kernelProduct is a chunk's Y[ch][p0·90 …] = Wm[ch][taps] · col[taps][n]
// through the kernel, given wt = Wmᵀ [taps][ch]: Yᵀ into yt, then
// scattered into y's channel rows (cols apart).
func kernelProduct(ch, taps, n, cols, p0 int, col, wt, yt, y []float32) {
	rows := model.PadRows(n, ch)
	yt = yt[:rows*ch]
	if !model.Sgemm(rows, ch, taps, col, 1, n, wt, yt, ch, false) {
		panic("gnet: a checked kernel shape refused") // convKernelFits checked it
	}
	scatterColumns(ch, n, yt, y[p0*model.Squares:], cols)
}

// convKernelFits reports whether a 3×3 convolution's products with ch
// output columns and taps rows (filter gradient) can take the kernels.
func convKernelFits(ch, taps int) bool {
	return useKernels() && model.KernelAVX512.Supported() && ch%32 == 0 && taps%model.PadRows(1, ch) == 0
}

// convForwardKernel is convForward's 3×3 float32 case on the kernels;
// false (nothing done) where they do not fit.
func convForwardKernel(op *convOp, xs, ws, ys []float32) bool {
	if op.winogradFits(op.in, op.out) {
		convolveWinogradBF16(op, op.in, op.out, op.forwardFilters(ws), xs, ys, op.stats)
		return true
	}
	return convolveKernel(op, op.in, op.out, ws, xs, ys)
}

// convInputGradWinograd is convInputGrad's 3×3 case in Winograd, where it
// fits (w: the filters as they are; their flip is in the transform).
func convInputGradWinograd(c *convOp, w, dys, dxs []float32) bool {
	if !c.winogradFits(c.out, c.in) {
		return false
	}
	convolveWinogradBF16(c, c.out, c.in, c.inputGradFilters(w), dys, dxs, nil)
	return true
}

// convInputGradKernel is convInputGrad's 3×3 float32 case on the kernels
// (wf: the flipped filters [in][out·9]): the convolution of dy by them.
func convInputGradKernel(c *convOp, wf, dys, dxs []float32) bool {
	return convolveKernel(c, c.out, c.in, wf, dys, dxs)
}

// convolveKernel is the 3×3 convolution y [outCh] = w [outCh][inCh·9] ∗ x
// [inCh] over c's batch on the kernels, a chunk of positions per product
// (Winograd's products are dispatched before: convForwardKernel,
// convInputGradWinograd).
func convolveKernel(c *convOp, inCh, outCh int, w, x, y []float32) bool {
	taps := inCh * 9
	if !convKernelFits(outCh, taps) {
		return false
	}
	if c.bf16Products(inCh) {
		convolveBF16(c, inCh, outCh, w, x, y)
		return true
	}
	wt := scratch[float32](&c.s.wt, taps*outCh)
	transpose(outCh, taps, w, wt)
	t := slotFor[kernelForward](&c.s.tasks)
	*t = kernelForward{c: c, inCh: inCh, outCh: outCh, x: x, wt: wt, y: y}
	c.chunks(t)
	*t = kernelForward{}
	return true
}

type kernelForward struct {
	c           *convOp
	inCh, outCh int
	x, wt, y    []float32
}

func (t *kernelForward) chunk(worker, _, p0, p1 int, _ bool) {
	c, taps, cols := t.c, t.inCh*9, t.c.cols()
	n := (p1 - p0) * model.Squares
	col := scratch[float32](&c.s.col[worker], colSize(taps))[:taps*n+colSlack]
	im2col3(t.inCh, cols, p0, p1, t.x, col[:taps*n])
	yt := scratch[float32](&c.s.yt[worker], model.PadRows(chunkPositions*model.Squares, t.outCh)*t.outCh)
	kernelProduct(t.outCh, taps, n, cols, p0, col, t.wt, yt, t.y)
}

// convFilterGradKernel is convFilterGrad's 3×3 float32 case on the
// kernels: each worker sums dWᵀ[taps][out] = col · dyᵀ over its chunks,
// and the workers' sums, transposed, make dW [out][taps].
func convFilterGradKernel(c *convOp, xs, dys, dws []float32) bool {
	taps := c.taps()
	if !convKernelFits(c.out, taps) {
		return false
	}
	if c.winogradFits(c.in, c.out) {
		filterGradWinogradBF16(c, xs, dys, dws)
		return true
	}
	t := slotFor[kernelFilterGrad](&c.s.tasks)
	*t = kernelFilterGrad{c: c, bf16: c.bf16Products(c.in), xs: xs, dys: dys}
	parts := c.chunkSums(t)
	*t = kernelFilterGrad{}
	sumFilterGrads(c, taps, dws, parts)
	return true
}

type kernelFilterGrad struct {
	c       *convOp
	bf16    bool
	xs, dys []float32
}

func (t *kernelFilterGrad) chunk(worker, p, p0, p1 int, first bool) {
	c, taps, cols := t.c, t.c.taps(), t.c.cols()
	if t.bf16 {
		filterGradChunkBF16(c, taps, cols, worker, p, p0, p1, first, t.xs, t.dys)
		return
	}
	n := (p1 - p0) * model.Squares
	col := scratch[float32](&c.s.col[worker], colSize(taps))[:taps*n]
	im2col3(c.in, cols, p0, p1, t.xs, col)
	dyt := scratch[float32](&c.s.yt[worker], max(model.PadRows(chunkPositions*model.Squares, c.out), chunkPositions*model.Squares)*c.out)[:n*c.out]
	for o := 0; o < c.out; o++ {
		src := t.dys[o*cols+p0*model.Squares:][:n]
		for p, v := range src {
			dyt[p*c.out+o] = v
		}
	}
	part := scratch[float32](&c.s.part[p], taps*c.out)
	if !model.Sgemm(taps, c.out, n, col, n, 1, dyt, part, c.out, !first) {
		panic("gnet: a checked kernel shape refused")
	}
}

// sumFilterGrads makes dW [out][taps] from the parts' partial sums
// dWᵀ [taps][out]: the first transposed, the others added.
func sumFilterGrads(c *convOp, taps int, dws []float32, parts int) {
	transpose(taps, c.out, scratch[float32](&c.s.part[0], taps*c.out), dws)
	for p := 1; p < parts; p++ {
		part := scratch[float32](&c.s.part[p], taps*c.out)
		for t := 0; t < taps; t++ {
			row := part[t*c.out:][:c.out]
			for o, v := range row {
				dws[o*taps+t] += v
			}
		}
	}
}

// bf16Products reports whether c's 3×3 products over inCh input
// channels take the bf16 kernels: the trainer asked for them (WithBF16),
// the CPU has them, and the channels pair up.
func (c *convOp) bf16Products(inCh int) bool {
	return c.s.bf16 && bf16Kernels() && inCh%2 == 0
}

// bf16Kernels reports whether training's bf16 products can run: nn/model's
// kernels are on (not PALACE_KERNEL=blas) and the CPU has AVX-512 BF16.
func bf16Kernels() bool { return useKernels() && model.HaveBF16() }

// The bf16 products' layouts. A k pair, the two bf16 values the kernels
// multiply by one 32-bit word, is two neighbouring input channels at one
// tap for the forward and input-gradient products (the depth ordered tap
// by tap, k = t·in + c): the chunk's activations are interleaved by
// channel pairs once (model.PairBF16), and each tap's columns are then
// 32-bit shifted copies of them (shift3), with no float32 im2col. The
// filter gradient sums over points, so its pair is two neighbouring
// points: the chunk's activations rounded as they lie, then im2col'd in
// bf16.

// words is w's bytes as bf16 values (two a word, the low one first).
func words(w []uint32) []uint16 {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&w[0])), 2*len(w))
}

// convolveBF16 is convolveKernel's product in bf16: Yᵀ = colᵀ·Wᵀ with
// colᵀ's k pairs channel pairs at a tap ([9·in/2][n] words, read as A by
// strides) and Wᵀ packed in the same depth order. The sums stay float32,
// as PyTorch's autocast keeps them.
func convolveBF16(c *convOp, inCh, outCh int, w, x, y []float32) {
	taps := inCh * 9
	wb := scratch[uint16](&c.s.wB, taps*outCh)
	packTapMajorBF16(outCh, inCh, w, wb)
	t := slotFor[forwardBF16](&c.s.tasks)
	*t = forwardBF16{c: c, inCh: inCh, outCh: outCh, x: x, y: y, wb: wb}
	c.chunks(t)
	*t = forwardBF16{}
}

type forwardBF16 struct {
	c           *convOp
	inCh, outCh int
	x, y        []float32
	wb          []uint16
}

func (task *forwardBF16) chunk(worker, _, p0, p1 int, _ bool) {
	c, inCh, outCh, x, y, wb := task.c, task.inCh, task.outCh, task.x, task.y, task.wb
	taps, cols, pairs := inCh*9, c.cols(), inCh/2
	n := (p1 - p0) * model.Squares
	rows := model.PadRows(n, outCh)
	xp := scratch[uint32](&c.s.xB[worker], pairs*chunkPositions*model.Squares)[:pairs*n]
	for cp := 0; cp < pairs; cp++ {
		model.PairBF16(x[2*cp*cols+p0*model.Squares:][:n], x[(2*cp+1)*cols+p0*model.Squares:][:n], words(xp[cp*n:][:n]))
	}
	// The padded rows read up to rows−n words past the last pair row.
	col := scratch[uint32](&c.s.colB[worker], 9*pairs*chunkPositions*model.Squares+colSlack)[:9*pairs*n+rows-n]
	for t := 0; t < 9; t++ {
		for cp := 0; cp < pairs; cp++ {
			shift3(p1-p0, t/3-1, t%3-1, xp[cp*n:][:n], col[(t*pairs+cp)*n:][:n])
		}
	}
	yt := scratch[float32](&c.s.yt[worker], model.PadRows(chunkPositions*model.Squares, outCh)*outCh)[:rows*outCh]
	if !model.GemmBF16(rows, outCh, taps, words(col), 2, 2*n, wb, yt, outCh, false) {
		panic("gnet: a checked bf16 kernel shape refused")
	}
	scatterColumns(outCh, n, yt, y[p0*model.Squares:], cols)
}

// scatterColumns sets y[o·cols + p] = yt[p·ch + o] for the n points p of
// a chunk: the product's transpose into the channel-major activations,
// in 8×8 blocks (AVX2) or tiles of 16 points, so that yt's rows stay in
// cache.
func scatterColumns(ch, n int, yt, y []float32, cols int) {
	whole := 0
	if haveTransposeAsm && ch%8 == 0 && n >= 8 {
		whole = n / 8 * 8
		_, _ = yt[n*ch-1], y[(ch-1)*cols+n-1]
		for p0 := 0; p0 < whole; p0 += 8 {
			transpose8AVX2(&yt[p0*ch], ch, &y[p0], cols, ch/8)
		}
	}
	const tile = 16
	for p0 := whole; p0 < n; p0 += tile {
		p1 := min(p0+tile, n)
		for o := 0; o < ch; o++ {
			dst := y[o*cols+p0:][:p1-p0]
			for i := range dst {
				dst[i] = yt[(p0+i)*ch+o]
			}
		}
	}
}

// filterGradChunkBF16 is one chunk's dWᵀ[taps][out] (+)= col·dyᵀ in bf16:
// col the chunk's activations rounded, then im2col'd ([taps][n], a k pair
// two neighbouring points), dyᵀ packed ([n/2][out][2]).
func filterGradChunkBF16(c *convOp, taps, cols, worker, p, p0, p1 int, first bool, xs, dys []float32) {
	n := (p1 - p0) * model.Squares
	chunk := chunkPositions * model.Squares
	xb := words(scratch[uint32](&c.s.xB[worker], c.in/2*chunk))[:c.in*n]
	for ch := 0; ch < c.in; ch++ {
		model.ConvertBF16(xs[ch*cols+p0*model.Squares:][:n], xb[ch*n:][:n])
	}
	colB := words(scratch[uint32](&c.s.colB[worker], 9*c.in/2*chunk+colSlack))[:taps*n]
	im2col3(c.in, n, 0, p1-p0, xb, colB)
	// dyᵀ packed: word (j, o) is channel o's points 2j and 2j+1, which lie
	// side by side in dy's row: each row rounded (into xb, free again),
	// then its words scattered.
	dyB := scratch[uint32](&c.s.dyB[worker], c.out/2*chunk)[:n/2*c.out]
	row := xb[:n]
	for o := 0; o < c.out; o++ {
		model.ConvertBF16(dys[o*cols+p0*model.Squares:][:n], row)
		for j, v := range unsafe.Slice((*uint32)(unsafe.Pointer(&row[0])), n/2) {
			dyB[j*c.out+o] = v
		}
	}
	part := scratch[float32](&c.s.part[p], taps*c.out)
	if !model.GemmBF16(taps, c.out, n, colB, n, 2, words(dyB), part, c.out, !first) {
		panic("gnet: a checked bf16 kernel shape refused")
	}
}

// packTapMajorBF16 sets dst to Wᵀ for w [out][in·9] ([out][in][3][3]),
// rounded and packed as the bf16 kernels read B, the depth ordered as
// convolveBF16's columns are (k = t·in + c): [9·in/2][out][2].
func packTapMajorBF16(out, in int, w []float32, dst []uint16) {
	_, _ = w[out*in*9-1], dst[out*in*9-1]
	for o := 0; o < out; o++ {
		for c := 0; c < in; c++ {
			src := w[(o*in+c)*9:][:9]
			for t, v := range src {
				dst[((t*in+c)/2*out+o)*2+c%2] = model.ToBF16(v)
			}
		}
	}
}
