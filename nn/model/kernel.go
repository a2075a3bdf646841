package model

import (
	"fmt"
	"math"
	"os"
)

// Palace's own GEMM kernels for the network's products. For the shapes a
// convolution has (a few hundred rows of tiles, 32·j output channels),
// OpenBLAS's general sgemm spends most of its time packing its operands,
// behind a purego call; these kernels read A and B where they lie and keep
// a block of C in registers (kernel_amd64.s, kernel_bf16_amd64.s).
//
// Paths, picked at NewNet by the CPU's features or forced by PALACE_KERNEL:
//   - bf16: the tower's Winograd products and the policy layer with A (the
//     transformed tiles, the flat policy convolution) and B (weights,
//     packed once at load) in bfloat16, products accumulated in float32
//     (AVX-512 BF16's VDPBF16PS): twice the products an instruction.
//   - avx512: float32 throughout, AVX-512 FMA.
//   - blas: OpenBLAS where it loads, else the portable Go kernel (the path
//     of CPUs without AVX-512, and the reference).
//
// On both kernel paths the heads' 1×1 convolutions are float32 kernel
// products (their few output channels padded to 32); the value head's
// dense layers stay in Go. Every output row is one fixed sequence of
// instructions, so a position's outputs never depend on its batch.
type Kernel int

// The kernel paths, slowest first.
const (
	KernelBLAS Kernel = iota
	KernelAVX512
	KernelBF16
)

var kernelNames = [...]string{KernelBLAS: "blas", KernelAVX512: "avx512", KernelBF16: "bf16"}

func (k Kernel) String() string {
	if k < 0 || int(k) >= len(kernelNames) {
		return fmt.Sprintf("Kernel(%d)", int(k))
	}
	return kernelNames[k]
}

// Supported reports whether this CPU runs path k.
func (k Kernel) Supported() bool {
	switch k {
	case KernelBLAS:
		return true
	case KernelAVX512:
		return haveAVX512
	case KernelBF16:
		return haveAVX512 && haveBF16
	}
	return false
}

// BestKernel is the fastest path this CPU runs.
func BestKernel() Kernel {
	for k := KernelBF16; k > KernelBLAS; k-- {
		if k.Supported() {
			return k
		}
	}
	return KernelBLAS
}

// BestFloat32Kernel is the fastest path that keeps float32 throughout,
// for checks that compare to training's numbers.
func BestFloat32Kernel() Kernel {
	if KernelAVX512.Supported() {
		return KernelAVX512
	}
	return KernelBLAS
}

// ParseKernel reads a path's name; "auto" (or "") is BestKernel.
func ParseKernel(s string) (Kernel, error) {
	switch s {
	case "", "auto":
		return BestKernel(), nil
	case "off":
		return KernelBLAS, nil
	}
	for k, name := range kernelNames {
		if s == name {
			if !Kernel(k).Supported() {
				return 0, fmt.Errorf("model: kernel %q needs a CPU with %s; this one has not (paths here: %s)", s, kernelNeeds[k], SupportedKernels())
			}
			return Kernel(k), nil
		}
	}
	return 0, fmt.Errorf("model: unknown kernel %q (auto, bf16, avx512, blas or off)", s)
}

var kernelNeeds = [...]string{KernelBLAS: "nothing", KernelAVX512: "AVX-512", KernelBF16: "AVX-512 BF16"}

// SupportedKernels lists the paths this CPU runs, fastest first.
func SupportedKernels() string {
	s := ""
	for k := KernelBF16; k >= KernelBLAS; k-- {
		if k.Supported() {
			if s != "" {
				s += ", "
			}
			s += k.String()
		}
	}
	return s
}

// DefaultKernel is the path NewNet takes: PALACE_KERNEL's, else the best.
func DefaultKernel() (Kernel, error) {
	k, err := ParseKernel(os.Getenv("PALACE_KERNEL"))
	if err != nil {
		return 0, fmt.Errorf("%w (PALACE_KERNEL)", err)
	}
	return k, nil
}

// kernelRows is the row multiple the kernels need for n columns: six for
// a multiple of 64 (blocks of 6×64), else twelve (12×32). Callers pad
// their row counts to it (the padding rows are computed and ignored).
func kernelRows(n int) int {
	if n%64 == 0 {
		return 6
	}
	return 12
}

// padRows rounds m up to the row multiple of a product with n columns
// where the kernels run (n 0: any product's).
func (k Kernel) padRows(m, n int) int {
	if k == KernelBLAS {
		return m
	}
	r := kernelRows(n)
	return (m + r - 1) / r * r
}

// padCols rounds n up to a multiple of 32, or of 64 from 64 up.
func padCols(n int) int {
	if n <= 32 {
		return 32
	}
	return (n + 63) / 64 * 64
}

// kernelGemm computes c[m×n] (+)= a[m×k] · b[k×n] (row strides lda, n and
// ldc) with the AVX-512 float32 kernels and reports whether it could: n a
// multiple of 32 and m of kernelRows(n).
func kernelGemm(m, n, k int, a []float32, lda int, b []float32, c []float32, ldc int, acc bool) bool {
	return Sgemm(m, n, k, a, lda, 1, b, c, ldc, acc)
}

// Sgemm computes c[m×n] (+)= A·b[k×n] with palace's AVX-512 float32
// kernels, A's entry (i, p) being a[i·rs + p·ks]: rs = lda, ks = 1 for a
// row-major A, rs = 1, ks = lda for one stored transposed (so training's
// channel-major activations need no copy). It reports false, doing
// nothing, where the CPU lacks AVX-512 or the shape is not a kernel's: n
// a multiple of 32, m of 6 (n a multiple of 64) or 12. A is read up to
// its padded rows: callers pad m (PadRows) and give a that many rows.
func Sgemm(m, n, k int, a []float32, rs, ks int, b []float32, c []float32, ldc int, acc bool) bool {
	if !haveAVX512 || n%32 != 0 || m < 1 || m%kernelRows(n) != 0 || k < 1 {
		return false
	}
	_, _, _ = a[(m-1)*rs+(k-1)*ks], b[k*n-1], c[(m-1)*ldc+n-1]
	j := 0
	for ; j+64 <= n; j += 64 {
		sgemm6x64(m/6, k, &a[0], rs, ks, &b[j], n, &c[j], ldc, acc)
	}
	if j < n {
		sgemm12x32(m/12, k, &a[0], rs, ks, &b[j], n, &c[j], ldc, acc)
	}
	return true
}

// PadRows rounds m up to the row multiple Sgemm needs for n columns.
func PadRows(m, n int) int { return KernelAVX512.padRows(m, n) }

// toBF16 rounds f to bfloat16, to nearest with ties to even, as
// VCVTNEPS2BF16 does: subnormals become a signed zero, NaN stays NaN.
func toBF16(f float32) uint16 {
	b := math.Float32bits(f)
	switch {
	case b&0x7fffffff > 0x7f800000:
		return uint16(b>>16) | 0x40
	case b&0x7f800000 == 0:
		return uint16(b>>16) & 0x8000
	}
	b += 0x7fff + (b >> 16 & 1)
	return uint16(b >> 16)
}

// fromBF16 widens a bfloat16 exactly.
func fromBF16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// packBF16 lays b ([k][n] float32, k even) out as the bf16 kernels read it:
// [k/2][n][2], each column's two consecutive products in one 32-bit word.
func packBF16(k, n int, b []float32) []uint16 {
	p := make([]uint16, k*n)
	for i := 0; i < k; i++ {
		for j := 0; j < n; j++ {
			p[((i/2)*n+j)*2+i%2] = toBF16(b[i*n+j])
		}
	}
	return p
}

// convertBF16 rounds src into dst[:len(src)].
func convertBF16(src []float32, dst []uint16) {
	if len(src) == 0 {
		return
	}
	_ = dst[len(src)-1]
	whole := len(src) / 16 * 16
	if whole > 0 {
		cvtBF16(whole/16, &src[0], &dst[0])
	}
	for i := whole; i < len(src); i++ {
		dst[i] = toBF16(src[i])
	}
}

// kernelGemmBF16 computes c[m×n] (+)= a[m×k] · b (a: bf16 [m][k] with row
// stride lda; b: packBF16's [k/2][n][2]) and reports whether it could: m a
// n a multiple of 32, m of kernelRows(n), k even.
func kernelGemmBF16(m, n, k int, a []uint16, lda int, b []uint16, c []float32, ldc int, acc bool) bool {
	if !haveBF16 || n%32 != 0 || m%kernelRows(n) != 0 || k < 2 || k%2 != 0 {
		return false
	}
	_, _, _ = a[(m-1)*lda+k-1], b[k*n-1], c[(m-1)*ldc+n-1]
	j := 0
	for ; j+64 <= n; j += 64 {
		sbgemm6x64(m/6, k/2, &a[0], lda, &b[2*j], n, &c[j], ldc, acc)
	}
	if j < n {
		sbgemm12x32(m/12, k/2, &a[0], lda, &b[2*j], n, &c[j], ldc, acc)
	}
	return true
}
