package gnet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"
)

// TestOpenBLAS checks the OpenBLAS Sgemm, split into bands by rows or
// columns, against Gonum's for every transpose and a leading dimension
// wider than the matrix.
func TestOpenBLAS(t *testing.T) {
	useBLAS()
	impl, ok := G.WhichBLAS().(*openBLAS)
	if !ok {
		t.Skipf("BLAS is %s: no OpenBLAS here (apt-get install libopenblas0-pthread)", BLAS())
	}
	t.Log(BLAS())
	rng := rand.New(rand.NewPCG(1, 1))
	for _, d := range [][3]int{{1, 1, 1}, {7, 5, 3}, {64, 90, 576}, {200, 30, 300}, {30, 200, 300}} {
		for _, tr := range [][2]blas.Transpose{{blas.NoTrans, blas.NoTrans}, {blas.Trans, blas.NoTrans}, {blas.NoTrans, blas.Trans}, {blas.Trans, blas.Trans}} {
			for _, parts := range []int{1, 3} {
				m, n, k := d[0], d[1], d[2]
				name := fmt.Sprintf("%dx%dx%d %c%c in %d", m, n, k, tr[0], tr[1], parts)
				ra, ca := m, k
				if tr[0] == blas.Trans {
					ra, ca = k, m
				}
				rb, cb := k, n
				if tr[1] == blas.Trans {
					rb, cb = n, k
				}
				lda, ldb, ldc := ca+2, cb+1, n+3
				a, b := make([]float32, (ra-1)*lda+ca), make([]float32, (rb-1)*ldb+cb)
				c1 := make([]float32, (m-1)*ldc+n)
				for i := range a {
					a[i] = rng.Float32() - 0.5
				}
				for i := range b {
					b[i] = rng.Float32() - 0.5
				}
				for i := range c1 {
					c1[i] = rng.Float32()
				}
				c2 := append([]float32(nil), c1...)
				impl.bands(parts, tr[0], tr[1], m, n, k, 0.5, a, lda, b, ldb, 2, c1, ldc)
				gonum.Implementation{}.Sgemm(tr[0], tr[1], m, n, k, 0.5, a, lda, b, ldb, 2, c2, ldc)
				for i := range c1 {
					if math.Abs(float64(c1[i]-c2[i])) > 1e-4 {
						t.Fatalf("%s: c[%d] OpenBLAS %v, Gonum %v", name, i, c1[i], c2[i])
					}
				}
			}
		}
	}
}
