//go:build !windows

package openblas

import (
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// open loads OpenBLAS (choice: a library path, or "" for the usual
// names) and returns its sgemm and a description, or nil.
func open(choice string) (Sgemm, string) {
	candidates := []string{"libopenblas.so.0", "libopenblas.so", "/usr/lib/x86_64-linux-gnu/libopenblas.so.0", "/usr/lib/aarch64-linux-gnu/libopenblas.so.0"}
	if choice != "" {
		candidates = []string{choice}
	}
	for _, name := range candidates {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			continue
		}
		sym, err := purego.Dlsym(h, "cblas_sgemm")
		if err != nil {
			continue
		}
		var f Sgemm
		if fortran, err := purego.Dlsym(h, "sgemm_"); err == nil {
			f = fortranSgemm(fortran)
		} else {
			purego.RegisterFunc(&f, sym)
		}
		desc := name
		if core, err := purego.Dlsym(h, "openblas_get_corename"); err == nil {
			var corename func() string
			purego.RegisterFunc(&corename, core)
			desc += " (" + corename() + ")"
		}
		if threads, err := purego.Dlsym(h, "openblas_set_num_threads"); err == nil {
			var set func(int32)
			purego.RegisterFunc(&set, threads)
			set(1)
		}
		return f, desc
	}
	return nil, ""
}

// fortranArgs are sgemm_'s by-reference arguments, on the heap (pooled) so
// that a call allocates nothing and no pointer refers to a stack that
// could move.
type fortranArgs struct {
	transA, transB byte
	m, n, k        int32
	lda, ldb, ldc  int32
	alpha, beta    float32
	args           [13]uintptr
	// matrices holds a, b and c as pointers while the call runs: storing
	// them in a heap object makes them escape, so a caller's array is on
	// the heap too, never on a stack that could move under a uintptr.
	matrices [3]unsafe.Pointer
}

var fortranPool = sync.Pool{New: func() any { return new(fortranArgs) }}

// fortranSgemm calls the Fortran interface, sgemm_, whose arguments are
// all pointers: purego's SyscallN then makes the call directly, where the
// cblas_sgemm binding (floats by value) goes through reflection at about a
// microsecond and a dozen allocations a call, which the small GEMMs of a
// batch-1 forward pass feel. Row-major products are column-major ones
// transposed: C = op(A)·op(B) is Cᵀ = op(B)ᵀ·op(A)ᵀ, so the operands and
// m and n swap places. Only row-major calls come here (palace's callers).
func fortranSgemm(fn uintptr) Sgemm {
	flag := func(t int32) byte {
		if t == Trans {
			return 'T'
		}
		return 'N'
	}
	return func(order, transA, transB, m, n, k int32, alpha float32, a *float32, lda int32, b *float32, ldb int32, beta float32, c *float32, ldc int32) {
		if order != RowMajor {
			panic("openblas: only row-major products are bound")
		}
		p := fortranPool.Get().(*fortranArgs)
		p.transA, p.transB, p.m, p.n, p.k = flag(transB), flag(transA), n, m, k
		p.lda, p.ldb, p.ldc, p.alpha, p.beta = ldb, lda, ldc, alpha, beta
		// The arguments go as a slice the pooled struct holds: a variadic
		// list would be allocated at every call. Everything they point to
		// is on the heap, which does not move, and stays referenced (p
		// until Put, the matrices through p.matrices) through the call.
		p.matrices = [3]unsafe.Pointer{unsafe.Pointer(a), unsafe.Pointer(b), unsafe.Pointer(c)}
		p.args = [13]uintptr{
			uintptr(unsafe.Pointer(&p.transA)), uintptr(unsafe.Pointer(&p.transB)),
			uintptr(unsafe.Pointer(&p.m)), uintptr(unsafe.Pointer(&p.n)), uintptr(unsafe.Pointer(&p.k)),
			uintptr(unsafe.Pointer(&p.alpha)),
			uintptr(unsafe.Pointer(b)), uintptr(unsafe.Pointer(&p.lda)),
			uintptr(unsafe.Pointer(a)), uintptr(unsafe.Pointer(&p.ldb)),
			uintptr(unsafe.Pointer(&p.beta)),
			uintptr(unsafe.Pointer(c)), uintptr(unsafe.Pointer(&p.ldc)),
		}
		purego.SyscallN(fn, p.args[:]...)
		p.matrices = [3]unsafe.Pointer{}
		fortranPool.Put(p)
	}
}
