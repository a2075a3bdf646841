// Package openblas loads OpenBLAS at run time (through purego, no cgo), so a
// plain `go build` works on any machine and the network's matrix products
// use OpenBLAS where it is installed. Both the inference forward pass
// (nn/model) and training (nn/gnet) go through this one loader: OpenBLAS's
// kernel choice and thread count are per process and fixed at load.
//
// PALACE_BLAS=off disables it; PALACE_BLAS=/path/to/libopenblas.so picks a
// library.
package openblas

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
)

// CBLAS constants.
const (
	RowMajor = 101
	NoTrans  = 111
	Trans    = 112
)

// Sgemm is cblas_sgemm: c = alpha·op(a)·op(b) + beta·c.
type Sgemm func(order, transA, transB, m, n, k int32, alpha float32, a *float32, lda int32, b *float32, ldb int32, beta float32, c *float32, ldc int32)

var lib struct {
	once  sync.Once
	sgemm Sgemm
	name  string
}

// Load returns OpenBLAS's sgemm and a description (library and kernels),
// or ok false where it is absent or disabled. OpenBLAS runs single-threaded:
// palace runs one worker per core and splits work itself.
func Load() (sgemm Sgemm, name string, ok bool) {
	lib.once.Do(load)
	return lib.sgemm, lib.name, lib.sgemm != nil
}

// Check reports a PALACE_BLAS that names no library this process can
// load (issue 47: PALACE_BLAS=garbage quietly ran the Go kernel). Unset
// it picks OpenBLAS where it is installed, off the Go kernel; anything
// else is a library's file or name, which must load.
func Check() error {
	choice := os.Getenv("PALACE_BLAS")
	if choice == "" || choice == "off" {
		return nil
	}
	if _, _, ok := Load(); !ok {
		return fmt.Errorf("openblas: PALACE_BLAS=%q: no OpenBLAS library loads from it (want off, or the file or name of an OpenBLAS library, such as libopenblas.so.0)", choice)
	}
	return nil
}

func load() {
	choice := os.Getenv("PALACE_BLAS")
	if choice == "off" {
		return
	}
	pickCoreType()
	// Without this the pthreads build starts a worker per core at load, and
	// those spin (sched_yield) beside palace's own workers.
	if os.Getenv("OPENBLAS_NUM_THREADS") == "" {
		os.Setenv("OPENBLAS_NUM_THREADS", "1")
	}
	lib.sgemm, lib.name = open(choice)
}

// pickCoreType names OpenBLAS's kernels by the CPU's features (SkylakeX
// for AVX-512, Haswell for AVX2 and FMA) through OPENBLAS_CORETYPE, since
// OpenBLAS 0.3.21 (Debian 12) takes CPUs newer than it knows, such as
// Sapphire Rapids, for a Prescott and runs SSE3 kernels, 2–3× slower than
// its AVX-512 ones. On CPUs it knows these are the kernels it picks, or
// their equals for single precision. An OPENBLAS_CORETYPE already set wins.
func pickCoreType() {
	if os.Getenv("OPENBLAS_CORETYPE") != "" || runtime.GOARCH != "amd64" {
		return
	}
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return
	}
	var flags map[string]bool
	for _, line := range strings.Split(string(info), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			flags = map[string]bool{}
			for _, f := range strings.Fields(v) {
				flags[f] = true
			}
			break
		}
	}
	switch {
	case flags["avx512f"] && flags["avx512bw"] && flags["avx512dq"] && flags["avx512vl"]:
		os.Setenv("OPENBLAS_CORETYPE", "SkylakeX")
	case flags["avx2"] && flags["fma"]:
		os.Setenv("OPENBLAS_CORETYPE", "Haswell")
	}
}
