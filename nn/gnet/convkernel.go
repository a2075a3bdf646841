package gnet

import (
	"sync"

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
	for o := 0; o < ch; o++ {
		dst := y[o*cols+p0*model.Squares:][:n]
		for p := range dst {
			dst[p] = yt[p*ch+o]
		}
	}
}

// convKernelFits reports whether a 3×3 convolution's products with ch
// output columns and taps rows (filter gradient) can take the kernels.
func convKernelFits(ch, taps int) bool {
	return useKernels() && model.KernelAVX512.Supported() && ch%32 == 0 && taps%model.PadRows(1, ch) == 0
}

// convForwardKernel is convForward's 3×3 float32 case on the kernels;
// false (nothing done) where they do not fit.
func convForwardKernel(op *convOp, xs, ws, ys []float32) bool {
	return convolveKernel(op, op.in, op.out, ws, xs, ys)
}

// convInputGradKernel is convInputGrad's 3×3 float32 case on the kernels
// (wf: the flipped filters [in][out·9]): the convolution of dy by them.
func convInputGradKernel(c *convOp, wf, dys, dxs []float32) bool {
	return convolveKernel(c, c.out, c.in, wf, dys, dxs)
}

// convolveKernel is the 3×3 convolution y [outCh] = w [outCh][inCh·9] ∗ x
// [inCh] over c's batch on the kernels, a chunk of positions per product.
func convolveKernel(c *convOp, inCh, outCh int, w, x, y []float32) bool {
	taps := inCh * 9
	if !convKernelFits(outCh, taps) {
		return false
	}
	cols := c.cols()
	wt := scratch[float32](&c.s.wt, taps*outCh)
	transpose(outCh, taps, w, wt)
	c.chunks(func(worker, p0, p1 int, _ bool) {
		n := (p1 - p0) * model.Squares
		col := scratch[float32](&c.s.col[worker], colSize(taps))[:taps*n+colSlack]
		im2col3(inCh, cols, p0, p1, x, col[:taps*n])
		yt := scratch[float32](&c.s.yt[worker], model.PadRows(chunkPositions*model.Squares, outCh)*outCh)
		kernelProduct(outCh, taps, n, cols, p0, col, wt, yt, y)
	})
	return true
}

// convFilterGradKernel is convFilterGrad's 3×3 float32 case on the
// kernels: each worker sums dWᵀ[taps][out] = col · dyᵀ over its chunks,
// and the workers' sums, transposed, make dW [out][taps].
func convFilterGradKernel(c *convOp, xs, dys, dws []float32) bool {
	taps := c.taps()
	if !convKernelFits(c.out, taps) {
		return false
	}
	cols := c.cols()
	workers := c.chunks(func(worker, p0, p1 int, first bool) {
		n := (p1 - p0) * model.Squares
		col := scratch[float32](&c.s.col[worker], colSize(taps))[:taps*n]
		im2col3(c.in, cols, p0, p1, xs, col)
		dyt := scratch[float32](&c.s.yt[worker], max(model.PadRows(chunkPositions*model.Squares, c.out), chunkPositions*model.Squares)*c.out)[:n*c.out]
		for o := 0; o < c.out; o++ {
			src := dys[o*cols+p0*model.Squares:][:n]
			for p, v := range src {
				dyt[p*c.out+o] = v
			}
		}
		part := scratch[float32](&c.s.part[worker], taps*c.out)
		if !model.Sgemm(taps, c.out, n, col, n, 1, dyt, part, c.out, !first) {
			panic("gnet: a checked kernel shape refused")
		}
	})
	transpose(taps, c.out, scratch[float32](&c.s.part[0], taps*c.out), dws)
	for w := 1; w < workers; w++ {
		part := scratch[float32](&c.s.part[w], taps*c.out)
		for t := 0; t < taps; t++ {
			row := part[t*c.out:][:c.out]
			for o, v := range row {
				dws[o*taps+t] += v
			}
		}
	}
	return true
}
