//go:build !amd64

package gnet

const haveTransposeAsm = false

func transpose8AVX2(src *float32, ss int, dst *float32, ds int, blocks int) {
	panic("gnet: no AVX2")
}
