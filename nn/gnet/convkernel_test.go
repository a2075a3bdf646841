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
	defer func(f func() bool) { useWinograd = f }(useWinograd)
	useWinograd = func() bool { return false } // the direct products: Winograd rounds transformed operands
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

// Winograd's bf16 products (the default with WithBF16) compute the same
// convolution and gradients as the direct float32 products, within bf16's
// rounding: their largest difference from float32 is at most three times
// the direct bf16 products' (about twice, measured: the transformed
// operands, sums of up to four values, round coarser), for whole and partial chunks (odd tile counts
// among them) and the stem's 80 inputs. A wrong transform differs by the
// values themselves, far beyond that.
func TestWinogradBF16MatchesFloat32(t *testing.T) {
	if !bf16Kernels() {
		t.Skip("no AVX-512 BF16 here, or the kernels are off (PALACE_KERNEL): training's products stay float32")
	}
	defer func(f func() bool) { useWinograd = f }(useWinograd)
	rng := rand.New(rand.NewPCG(25, 26))
	rnd := func(n int) *tensor.Dense {
		x := make([]float32, n)
		for i := range x {
			x[i] = rng.Float32()*2 - 1
		}
		return tensor.New(tensor.WithBacking(x), tensor.WithShape(n))
	}
	for _, d := range [][3]int{{64, 64, 8}, {80, 64, 3}, {32, 32, 11}, {64, 32, 17}, {64, 64, 1}, {64, 64, 13}} {
		in, out, batch := d[0], d[1], d[2]
		t.Run(fmt.Sprintf("%d→%d/batch%d", in, out, batch), func(t *testing.T) {
			cols := batch * model.Squares
			x, w, dy := rnd(in*cols), rnd(out*in*9), rnd(out*cols)
			var results [3][3][]float32 // float32, direct bf16, Winograd bf16
			for i, mode := range []string{"f32", "direct", "winograd"} {
				useWinograd = func() bool { return mode == "winograd" }
				op := &convOp{k: 3, in: in, out: out, batch: batch, inputGrad: true, s: &convScratch{bf16: mode != "f32"}}
				if mode == "winograd" && !op.winogradFits(in, out) {
					t.Fatal("Winograd refuses this shape: the test would compare the direct products with themselves")
				}
				results[i] = convAll(op, x, w, dy)
			}
			for k, name := range []string{"y", "∂x", "∂w"} {
				if name == "∂x" && !convKernelFits(in, out*9) {
					continue // the stem's 80 inputs: this product stays float32
				}
				var worst [2]float64
				for j := range worst {
					for i, v := range results[0][k] {
						worst[j] = max(worst[j], math.Abs(float64(v-results[j+1][k][i])))
					}
				}
				t.Logf("%s: largest difference from float32: direct bf16 %.3g, Winograd bf16 %.3g", name, worst[0], worst[1])
				if worst[1] > 3*worst[0] || worst[0] == 0 {
					t.Fatalf("%s: Winograd's largest difference from float32 %g, the direct bf16 products' %g", name, worst[1], worst[0])
				}
				if name == "∂x" {
					// Alone, without the forward pass whose transformed
					// filters it rearranges: transformed from w itself.
					useWinograd = func() bool { return true }
					op := &convOp{k: 3, in: in, out: out, batch: batch, inputGrad: true, s: &convScratch{bf16: true}}
					dx := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(in*cols))
					convInputGrad[float32](&convInputGradOp{conv: op}, G.Value(w), G.Value(dy), G.Value(dx))
					alone := 0.0
					for i, v := range dx.Data().([]float32) {
						alone = max(alone, math.Abs(float64(v-results[2][1][i])))
					}
					if alone > worst[0]/10 {
						t.Fatalf("∂x alone differs from ∂x after the forward pass by up to %g", alone)
					}
				}
			}
		})
	}
}

// The activations' transposes between channel-major and point-major
// (AVX2 blocks where the CPU has them, and the scalar remainder) are each
// other's inverse and put every value where its index says, for point
// counts with and without a remainder of 8.
func TestGatherScatterPoints(t *testing.T) {
	for _, d := range [][3]int{{64, 360, 720}, {16, 90, 270}, {80, 7, 100}, {8, 8, 8}, {32, 270, 1000}} {
		ch, n, cols := d[0], d[1], d[2]
		src := make([]float32, ch*cols)
		for i := range src {
			src[i] = float32(i)
		}
		pm := make([]float32, n*ch)
		gatherPoints(ch, n, src, cols, pm)
		for j := 0; j < n; j++ {
			for c := 0; c < ch; c++ {
				if got, want := pm[j*ch+c], src[c*cols+j]; got != want {
					t.Fatalf("%v: gather: point %d channel %d is %v, want %v", d, j, c, got, want)
				}
			}
		}
		back := make([]float32, ch*cols)
		scatterColumns(ch, n, pm, back, cols)
		for c := 0; c < ch; c++ {
			for j := 0; j < cols; j++ {
				want := float32(0)
				if j < n {
					want = src[c*cols+j]
				}
				if back[c*cols+j] != want {
					t.Fatalf("%v: scatter: channel %d point %d is %v, want %v", d, c, j, back[c*cols+j], want)
				}
			}
		}
	}
}
