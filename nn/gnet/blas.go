package gnet

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"

	"github.com/palace-chess/palace/internal/openblas"
)

// Gorgonia does its matrix products through a swappable BLAS, Gonum's
// pure-Go one by default; a training step spends about half its time in
// them. Where the machine has OpenBLAS (internal/openblas loads it, single
// threaded), Sgemm goes there instead, the work split across GOMAXPROCS
// goroutines here. PALACE_BLAS=off keeps Gonum's. It is installed in
// Gorgonia (a process-wide setting) when the first Trainer is made.

var (
	blasOnce sync.Once
	blasName = "gonum"
)

// BLAS names the library doing the training graph's float32 matrix
// products: "gonum", or the OpenBLAS library and the kernels it runs.
func BLAS() string {
	useBLAS()
	return blasName
}

// useBLAS installs OpenBLAS's Sgemm in Gorgonia, once, if it loads
// (internal/openblas, shared with nn/model).
func useBLAS() {
	blasOnce.Do(func() {
		sgemm, name, ok := openblas.Load()
		if !ok {
			return
		}
		blasName = name
		G.Use(&openBLAS{sgemm: sgemm})
	})
}

// openBLAS is Gonum's BLAS with Sgemm from OpenBLAS.
type openBLAS struct {
	gonum.Implementation
	sgemm openblas.Sgemm
}

// Sgemm computes C = α·op(A)·op(B) + β·C (row-major), as Gonum's does,
// split across the cores.
func (o *openBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	o.bands(gemmParts, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// gemmParts is the bands a product is split into, whatever the number of
// cores (which share them): OpenBLAS's kernels treat a band's last rows
// apart, in another order of sums on some CPUs (AVX-512's), so bands cut
// by core count would make a run's networks depend on GOMAXPROCS.
const gemmParts = 4

// bands is Sgemm in at most parts bands.
func (o *openBLAS) bands(parts int, tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ta, tb := tA != blas.NoTrans, tB != blas.NoTrans
	// Anything odd (empty, or slices too short for their shapes) goes to
	// Gonum, which checks and panics with a message rather than letting C
	// read past a slice.
	if m <= 0 || n <= 0 || k <= 0 || ldc < n || len(c) < (m-1)*ldc+n ||
		!fits(len(a), lda, ta, m, k) || !fits(len(b), ldb, tb, k, n) {
		o.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	// Split the larger of C's sides into one band per worker; below about
	// a million multiply-adds a goroutine costs more than it saves.
	parts = min(parts, max(1, m*n*k>>20))
	if parts <= 1 {
		o.call(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	t := gemmTasks.Get().(*gemmBands)
	*t = gemmBands{o: o, parts: parts, ta: ta, tb: tb, m: m, n: n, k: k, alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, beta: beta, c: c, ldc: ldc}
	split(parts, min(parts, runtime.GOMAXPROCS(0)), t) // the cores share the bands
	*t = gemmBands{}
	gemmTasks.Put(t)
}

// gemmBands is one banded Sgemm's arguments, from a pool: a product has
// no op to keep them in.
type gemmBands struct {
	o             *openBLAS
	parts         int
	ta, tb        bool
	m, n, k       int
	alpha, beta   float32
	a, b, c       []float32
	lda, ldb, ldc int
}

var gemmTasks = sync.Pool{New: func() any { return new(gemmBands) }}

// run computes bands [lo, hi) of C: of its rows when it has more rows
// than columns, else of its columns.
func (t *gemmBands) run(lo, hi int) {
	m, n, parts := t.m, t.n, t.parts
	for i := lo; i < hi; i++ {
		if m >= n {
			i0, i1 := m*i/parts, m*(i+1)/parts
			aOff := i0 * t.lda // rows of A
			if t.ta {
				aOff = i0 // columns of the stored k×m A
			}
			t.o.call(t.ta, t.tb, i1-i0, n, t.k, t.alpha, t.a[aOff:], t.lda, t.b, t.ldb, t.beta, t.c[i0*t.ldc:], t.ldc)
		} else {
			j0, j1 := n*i/parts, n*(i+1)/parts
			bOff := j0 // columns of B
			if t.tb {
				bOff = j0 * t.ldb // rows of the stored n×k B
			}
			t.o.call(t.ta, t.tb, m, j1-j0, t.k, t.alpha, t.a, t.lda, t.b[bOff:], t.ldb, t.beta, t.c[j0:], t.ldc)
		}
	}
}

func (o *openBLAS) call(ta, tb bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	t := func(yes bool) int32 {
		if yes {
			return openblas.Trans
		}
		return openblas.NoTrans
	}
	o.sgemm(openblas.RowMajor, t(ta), t(tb), int32(m), int32(n), int32(k), alpha, &a[0], int32(lda), &b[0], int32(ldb), beta, &c[0], int32(ldc))
}

// fits reports whether a slice of length size holds a row-major rows×cols
// matrix (cols×rows if transposed) with leading dimension ld.
func fits(size, ld int, trans bool, rows, cols int) bool {
	if trans {
		rows, cols = cols, rows
	}
	return ld >= cols && size >= (rows-1)*ld+cols
}
