//go:build !amd64

package model

func outputGradTileAVX2(blocks int, y *[4]*float32, m *float32, stride int) {
	panic("model: no AVX2")
}
