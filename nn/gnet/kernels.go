package gnet

import (
	"math"

	"github.com/palace-chess/palace/nn/model"
	"gonum.org/v1/gonum/blas"
	G "gorgonia.org/gorgonia"
)

// The kernels behind the custom ops, for float32 (training) and float64
// (gradient checks). Activations are laid out [channel][position·90]: a
// channel's values for the whole batch are contiguous, so a convolution
// is a GEMM per chunk of positions (as nn/model does it for the batch)
// and batch norm sees one "image" of batch·90 pixels per channel.

type float interface{ ~float32 | ~float64 }

// gemm computes c = op(a)·op(b) + beta·c through Gorgonia's BLAS (Gonum
// or OpenBLAS, see blas.go).
func gemm[T float](ta, tb bool, m, n, k int, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	tA, tB := blas.NoTrans, blas.NoTrans
	if ta {
		tA = blas.Trans
	}
	if tb {
		tB = blas.Trans
	}
	switch a := any(a).(type) {
	case []float32:
		G.WhichBLAS().Sgemm(tA, tB, m, n, k, 1, a, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		G.WhichBLAS().Dgemm(tA, tB, m, n, k, 1, a, lda, any(b).([]float64), ldb, float64(beta), any(c).([]float64), ldc)
	}
}

// gemmSerial is gemm on the calling goroutine only, for work already
// spread across the cores.
func gemmSerial[T float](ta, tb bool, m, n, k int, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if o, ok := G.WhichBLAS().(*openBLAS); ok {
		if a32, ok := any(a).([]float32); ok {
			tA, tB := blas.NoTrans, blas.NoTrans
			if ta {
				tA = blas.Trans
			}
			if tb {
				tB = blas.Trans
			}
			o.bands(1, tA, tB, m, n, k, 1, a32, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
			return
		}
	}
	gemm(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc)
}

// im2col3 lays out the 3×3 neighbourhoods (zero beyond each position's
// board) of positions [p0, p1) of in ([ch][batch·90], batch·90 = cols) as
// col ([ch·9][(p1−p0)·90]).
func im2col3[T float | ~uint16](ch, cols, p0, p1 int, in, col []T) {
	n := (p1 - p0) * model.Squares
	for c := 0; c < ch; c++ {
		src := in[c*cols+p0*model.Squares:][:n]
		for t := 0; t < 9; t++ {
			shift3(p1-p0, t/3-1, t%3-1, src, col[(c*9+t)*n:][:n])
		}
	}
}

// shift3 sets dst[b][r][f] = src[b][r+dy][f+dx], zero off the board. The
// whole batch moves as one copy by dy·9+dx; what that brings in from a
// neighbouring row or position lies exactly on the rows and files then
// cleared.
func shift3[T float | ~uint16 | ~uint32](batch, dy, dx int, src, dst []T) {
	const R, F = model.Ranks, model.Files
	n, off := len(dst), dy*F+dx
	switch {
	case off >= 0:
		copy(dst[:n-off], src[off:])
		clear(dst[n-off:])
	default:
		copy(dst[-off:], src[:n+off])
		clear(dst[:-off])
	}
	if dy == 0 && dx == 0 {
		return
	}
	for b := 0; b < batch; b++ {
		p := dst[b*R*F:][:R*F]
		switch dy {
		case -1:
			clear(p[:F])
		case 1:
			clear(p[(R-1)*F:])
		}
		if dx != 0 {
			f := 0 // the file that reads off the board
			if dx == 1 {
				f = F - 1
			}
			for r := 0; r < R; r++ {
				p[r*F+f] = 0
			}
		}
	}
}

// flip3 sets wf[i][o][ky][kx] = w[o][i][2−ky][2−kx]: the filters that
// convolve a layer's output gradient into its input gradient.
func flip3[T float](out, in int, w, wf []T) {
	for o := 0; o < out; o++ {
		for i := 0; i < in; i++ {
			src := w[(o*in+i)*9:][:9]
			dst := wf[(i*out+o)*9:][:9]
			for k := range dst {
				dst[k] = src[8-k]
			}
		}
	}
}

// reluGrad sets dz = dy where the ReLU output y is positive, else 0.
func reluGrad[T float](tasks *taskSlots, y, dy, dz []T) {
	t := slotFor[reluGradTask[T]](tasks)
	*t = reluGradTask[T]{y, dy, dz}
	parallel(len(y), len(y), t)
}

type reluGradTask[T float] struct{ y, dy, dz []T }

func (t *reluGradTask[T]) run(lo, hi int) { reluMask(t.y[lo:hi], t.dy[lo:hi], t.dz[lo:hi]) }

// reluMask sets dz = dy where the ReLU output y (≥ 0) is positive, else
// 0. In float32 it masks bits rather than branching: whether y is 0 is a
// coin toss, and a mispredicted branch per value costs 5× the loop.
func reluMask[T float](y, dy, dz []T) {
	dy, dz = dy[:len(y)], dz[:len(y)]
	if y32, ok := any(y).([]float32); ok {
		dy32, dz32 := any(dy).([]float32), any(dz).([]float32)
		for i, yv := range y32 {
			b := math.Float32bits(yv)
			keep := uint32(int32(b|-b) >> 31) // all ones unless y is +0
			dz32[i] = math.Float32frombits(math.Float32bits(dy32[i]) & keep)
		}
		return
	}
	for i, yv := range y {
		if yv > 0 {
			dz[i] = dy[i]
		} else {
			dz[i] = 0
		}
	}
}

// colSum sets out[j] = Σᵢ x[i][j] for x [rows][len(out)].
func colSum[T float](x, out []T) {
	n := len(out)
	clear(out)
	for i := 0; i+n <= len(x); i += n {
		for j, v := range x[i : i+n] {
			out[j] += v
		}
	}
}

// addRows adds bias to every row of x [rows][len(bias)], then ReLU if asked.
func addRows[T float](x, bias []T, relu bool) {
	n := len(bias)
	for i := 0; i+n <= len(x); i += n {
		row := x[i : i+n]
		for j, b := range bias {
			if relu {
				row[j] = max(row[j]+b, 0)
			} else {
				row[j] += b
			}
		}
	}
}
