package model

import "github.com/palace-chess/palace/internal/openblas"

// BLAS names the library doing the GEMMs (and OpenBLAS's kernels), or "go"
// for the portable kernel.
func BLAS() string {
	if _, name, ok := openblas.Load(); ok {
		return name
	}
	return "go"
}

// gemm computes c[m×n] = a[m×k] · b[k×n] (+ c when accumulate), row-major,
// with OpenBLAS when it loads (internal/openblas), else with the Go kernel;
// tiny products stay in Go, where a foreign call would cost more than it
// saves.
func gemm(m, n, k int, a, b, c []float32, accumulate bool) {
	sgemm, _, ok := openblas.Load()
	if !ok || m*n*k < 4096 {
		if !accumulate {
			clear(c[:m*n])
		}
		goSgemm(m, n, k, a, b, c)
		return
	}
	_, _, _ = a[m*k-1], b[k*n-1], c[m*n-1]
	beta := float32(0)
	if accumulate {
		beta = 1
	}
	sgemm(openblas.RowMajor, openblas.NoTrans, openblas.NoTrans, int32(m), int32(n), int32(k),
		1, &a[0], int32(k), &b[0], int32(n), beta, &c[0], int32(n))
}
