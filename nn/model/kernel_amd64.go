package model

import "golang.org/x/sys/cpu"

var (
	haveAVX512 = cpu.X86.HasAVX512F
	haveBF16   = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BF16
)

// Each block: C[6×64] (+)= A[6×k]·B[k×64], A's entry (i, p) at
// a[i·rs + p·ks] (strides in floats); a and c advance six rows a block.
//
//go:noescape
func sgemm6x64(blocks, k int, a *float32, rs, ks int, b *float32, ldb int, c *float32, ldc int, acc bool)

// Each block: C[12×32] (+)= A[12×k]·B[k×32]; a and c advance twelve rows.
//
//go:noescape
func sgemm12x32(blocks, k int, a *float32, rs, ks int, b *float32, ldb int, c *float32, ldc int, acc bool)

// The bf16 kernels (kernel_amd64.s, generated): A's k pair q of row i
// at a[i·rs + q·ks] (bf16 elements), B packBF16's layout (ldb: n), C
// float32.
//
//go:noescape
func sbgemm6x64(blocks, kpairs int, a *uint16, rs, ks int, b *uint16, ldb int, c *float32, ldc int, acc bool)

//go:noescape
func sbgemm12x32(blocks, kpairs int, a *uint16, rs, ks int, b *uint16, ldb int, c *float32, ldc int, acc bool)

//go:noescape
func cvtBF16(blocks int, src *float32, dst *uint16)

// dst[2j], dst[2j+1] = lo[j], hi[j] rounded to bf16, 16 j a block.
//
//go:noescape
func pairBF16(blocks int, lo, hi *float32, dst *uint16)

// The AVX-512 Winograd tile transforms (kernel_amd64.s, generated
// from winograd_amd64.s's AVX2 ones), 16 channels a block; inputTileBF16
// writes V rounded to bf16 (stride in bf16 values).
//
//go:noescape
func inputTileAVX512(blocks int, d *[16]*float32, v *float32, stride int)

//go:noescape
func outputTileAVX512(blocks int, m *float32, stride int, bias *float32, y, s *[4]*float32, lo float32)

//go:noescape
func inputTileBF16(blocks int, d *[16]*float32, v *uint16, stride int)
