package model

import (
	"os"
	"sync"

	"github.com/ebitengine/purego"
)

// OpenBLAS, when the machine has it, does the GEMMs: it is loaded at run
// time (no cgo), so a plain `go build` works everywhere and falls back to
// the portable Go kernel. PALACE_BLAS=off forces the Go kernel;
// PALACE_BLAS=/path/to/libopenblas.so picks a library.

var blas struct {
	once  sync.Once
	sgemm func(order, transA, transB, m, n, k int32, alpha float32, a *float32, lda int32, b *float32, ldb int32, beta float32, c *float32, ldc int32)
	name  string
}

const (
	cblasRowMajor = 101
	cblasNoTrans  = 111
)

func loadBLAS() {
	choice := os.Getenv("PALACE_BLAS")
	if choice == "off" {
		return
	}
	candidates := []string{"libopenblas.so.0", "libopenblas.so", "/usr/lib/x86_64-linux-gnu/libopenblas.so.0", "/usr/lib/aarch64-linux-gnu/libopenblas.so.0"}
	if choice != "" {
		candidates = []string{choice}
	}
	for _, name := range candidates {
		lib, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			continue
		}
		sym, err := purego.Dlsym(lib, "cblas_sgemm")
		if err != nil {
			continue
		}
		purego.RegisterFunc(&blas.sgemm, sym)
		// One worker per core, each single-threaded: OpenBLAS's own
		// threads would fight the workers for the cores.
		if threads, err := purego.Dlsym(lib, "openblas_set_num_threads"); err == nil {
			var set func(int32)
			purego.RegisterFunc(&set, threads)
			set(1)
		}
		blas.name = name
		return
	}
}

// BLAS names the library doing the GEMMs, or "go" for the portable kernel.
func BLAS() string {
	blas.once.Do(loadBLAS)
	if blas.sgemm == nil {
		return "go"
	}
	return blas.name
}

// gemm computes c[m×n] += a[m×k] · b[k×n] (row-major) with OpenBLAS when
// loaded, else with the Go kernel.
func gemm(m, n, k int, a, b, c []float32) {
	blas.once.Do(loadBLAS)
	if blas.sgemm == nil || m*n*k < 4096 {
		sgemm(m, n, k, a, b, c)
		return
	}
	_, _, _ = a[m*k-1], b[k*n-1], c[m*n-1]
	blas.sgemm(cblasRowMajor, cblasNoTrans, cblasNoTrans, int32(m), int32(n), int32(k),
		1, &a[0], int32(k), &b[0], int32(n), 1, &c[0], int32(n))
}
