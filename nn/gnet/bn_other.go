//go:build !amd64

package gnet

const haveBNAsm = false

func sumSquaresAVX2(x *float32, n int, out *[2]float64)            { panic("gnet: no AVX2") }
func affineReLUAVX2(x, skip, y *float32, n int, a, b float32)      { panic("gnet: no AVX2") }
func maskSumDotAVX2(y, dy, x, dz *float32, n int, out *[2]float64) { panic("gnet: no AVX2") }
func axpbycAVX2(dz, x, dx *float32, n int, a, b, c float32)        { panic("gnet: no AVX2") }
func colSumSquaresAVX2(x *float32, rows, ld int, out *[16]float64) { panic("gnet: no AVX2") }
