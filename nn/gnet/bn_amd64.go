package gnet

import "golang.org/x/sys/cpu"

// haveBNAsm: batch norm's float32 loops in AVX2 (bn_amd64.s); Go's
// compiler does not vectorise them, and they are a seventh of a step.
var haveBNAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// The assembly loops take n, a multiple of 8; the callers do the rest.

//go:noescape
func sumSquaresAVX2(x *float32, n int, out *[2]float64)

//go:noescape
func affineReLUAVX2(x, skip, y *float32, n int, a, b float32)

//go:noescape
func maskSumDotAVX2(y, dy, x, dz *float32, n int, out *[2]float64)

//go:noescape
func axpbycAVX2(dz, x, dx *float32, n int, a, b, c float32)

// colSumSquaresAVX2 sets out[0:8] = Σx and out[8:16] = Σx² of the 8
// channels at x over rows rows ld floats apart (bnstats_amd64.s).
//
//go:noescape
func colSumSquaresAVX2(x *float32, rows, ld int, out *[16]float64)
