package gnet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/palace-chess/palace/nn/model"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The kernel path of the 3×3 convolution's forward pass and both its
// gradients agrees with the BLAS path, for the channel counts the kernels
// take (32 and 64 columns; the stem's 80 inputs, whose input gradient
// stays on BLAS), for whole and partial
// chunks of positions.
func TestConvKernelMatchesBLAS(t *testing.T) {
	if !model.KernelAVX512.Supported() {
		t.Skip("no AVX-512 here: the kernels do not run")
	}
	defer func(f func() bool) { useKernels = f }(useKernels)
	rng := rand.New(rand.NewPCG(21, 22))
	rnd := func(n int) *tensor.Dense {
		x := make([]float32, n)
		for i := range x {
			x[i] = rng.Float32()*2 - 1
		}
		return tensor.New(tensor.WithBacking(x), tensor.WithShape(n))
	}
	for _, d := range [][3]int{{64, 64, 8}, {80, 64, 3}, {32, 32, 11}, {64, 32, 17}, {32, 64, 1}} {
		in, out, batch := d[0], d[1], d[2]
		t.Run(fmt.Sprintf("%d→%d/batch%d", in, out, batch), func(t *testing.T) {
			useKernels = func() bool { return true }
			if !convKernelFits(out, in*9) || (in%32 == 0 && !convKernelFits(in, out*9)) {
				t.Fatal("the kernels refuse this shape: the test would compare BLAS with itself")
			}
			cols := batch * model.Squares
			x, w, dy := rnd(in*cols), rnd(out*in*9), rnd(out*cols)
			var results [2][3][]float32
			for i, on := range []bool{false, true} {
				useKernels = func() bool { return on }
				results[i] = convAll(&convOp{k: 3, in: in, out: out, batch: batch, inputGrad: true, s: &convScratch{}}, x, w, dy)
			}
			for k, name := range []string{"y", "∂x", "∂w"} {
				blas, kern := results[0][k], results[1][k]
				for i := range blas {
					if math.Abs(float64(blas[i]-kern[i])) > 1e-5*float64(cols) {
						t.Fatalf("%s[%d]: BLAS %v, kernel %v", name, i, blas[i], kern[i])
					}
				}
			}
		})
	}
}

// The bf16 products (WithBF16) compute the convolution of the operands
// rounded to bfloat16, summed in float32: the forward pass and both
// gradients match the float32 kernels run on pre-rounded operands, for
// whole and partial chunks and the stem's 80 inputs. (Operands not
// rounded first differ by far more than the tolerance: the check fails
// where the products were float32.)
func TestConvBF16MatchesRoundedOperands(t *testing.T) {
	if !bf16Kernels() {
		t.Skip("no AVX-512 BF16 here, or the kernels are off (PALACE_KERNEL): training's products stay float32")
	}
	rng := rand.New(rand.NewPCG(23, 24))
	rnd := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = rng.Float32()*2 - 1
		}
		return x
	}
	rounded := func(x []float32) *tensor.Dense {
		r := make([]float32, len(x))
		for i, v := range x {
			r[i] = model.FromBF16(model.ToBF16(v))
		}
		return tensor.New(tensor.WithBacking(r), tensor.WithShape(len(r)))
	}
	dense := func(x []float32) *tensor.Dense {
		return tensor.New(tensor.WithBacking(append([]float32(nil), x...)), tensor.WithShape(len(x)))
	}
	for _, d := range [][3]int{{64, 64, 8}, {80, 64, 3}, {32, 32, 11}, {64, 32, 17}, {64, 64, 1}} {
		in, out, batch := d[0], d[1], d[2]
		t.Run(fmt.Sprintf("%d→%d/batch%d", in, out, batch), func(t *testing.T) {
			cols := batch * model.Squares
			x, w, dy := rnd(in*cols), rnd(out*in*9), rnd(out*cols)
			var results [2][3][]float32
			for i, bf16 := range []bool{false, true} {
				op := &convOp{k: 3, in: in, out: out, batch: batch, inputGrad: true, s: &convScratch{bf16: bf16}}
				if bf16 {
					results[i] = convAll(op, dense(x), dense(w), dense(dy))
				} else {
					results[i] = convAll(op, rounded(x), rounded(w), rounded(dy))
				}
			}
			for k, name := range []string{"y", "∂x", "∂w"} {
				if name == "∂x" && !convKernelFits(in, out*9) {
					continue // the stem's 80 inputs: this product stays float32 (and training never asks it)
				}
				f32, bf := results[0][k], results[1][k]
				worst := 0.0
				for i := range f32 {
					worst = max(worst, math.Abs(float64(f32[i]-bf[i])))
				}
				if tol := 1e-6 * float64(cols); worst > tol {
					t.Fatalf("%s: largest difference %g from float32 on rounded operands, want ≤ %g", name, worst, tol)
				}
			}
		})
	}
}

// convAll runs op's forward pass on x and w and both its gradients from
// dy: y, ∂x, ∂w.
func convAll(op *convOp, x, w, dy *tensor.Dense) [3][]float32 {
	cols := op.batch * model.Squares
	y := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(op.out*cols))
	convForward[float32](op, G.Value(x), G.Value(w), G.Value(y))
	dx := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(op.in*cols))
	convInputGrad[float32](&convInputGradOp{conv: op}, G.Value(w), G.Value(dy), G.Value(dx))
	dw := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(op.out*op.in*9))
	convFilterGrad[float32](&convFilterGradOp{conv: op}, G.Value(x), G.Value(dy), G.Value(dw))
	return [3][]float32{y.Data().([]float32), dx.Data().([]float32), dw.Data().([]float32)}
}
