//go:build !amd64

package model

const haveAVX2 = false

func inputTileAVX2(blocks int, d *[16]*float32, v *float32, stride int) {
	panic("model: no AVX2")
}

func outputTileAVX2(blocks int, m *float32, stride int, bias *float32, y, s *[4]*float32, lo float32) {
	panic("model: no AVX2")
}
