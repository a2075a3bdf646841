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
				op := &convOp{k: 3, in: in, out: out, batch: batch, inputGrad: true, s: &convScratch{}}
				y := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(out*cols))
				convForward[float32](op, G.Value(x), G.Value(w), G.Value(y))
				dx := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(in*cols))
				convInputGrad[float32](&convInputGradOp{conv: op}, G.Value(w), G.Value(dy), G.Value(dx))
				dw := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(out*in*9))
				convFilterGrad[float32](&convFilterGradOp{conv: op}, G.Value(x), G.Value(dy), G.Value(dw))
				results[i] = [3][]float32{y.Data().([]float32), dx.Data().([]float32), dw.Data().([]float32)}
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
