//go:build !amd64

package model

const (
	haveAVX512 = false
	haveBF16   = false
)

func sgemm6x64(blocks, k int, a *float32, rs, ks int, b *float32, ldb int, c *float32, ldc int, acc bool) {
	panic("model: no AVX-512")
}

func sgemm12x32(blocks, k int, a *float32, rs, ks int, b *float32, ldb int, c *float32, ldc int, acc bool) {
	panic("model: no AVX-512")
}

func sbgemm6x64(blocks, kpairs int, a *uint16, rs, ks int, b *uint16, ldb int, c *float32, ldc int, acc bool) {
	panic("model: no AVX-512 BF16")
}

func sbgemm12x32(blocks, kpairs int, a *uint16, rs, ks int, b *uint16, ldb int, c *float32, ldc int, acc bool) {
	panic("model: no AVX-512 BF16")
}

func cvtBF16(blocks int, src *float32, dst *uint16) { panic("model: no AVX-512 BF16") }

func pairBF16(blocks int, lo, hi *float32, dst *uint16) { panic("model: no AVX-512 BF16") }

func inputTileAVX512(blocks int, d *[16]*float32, v *float32, stride int) {
	panic("model: no AVX-512")
}

func outputTileAVX512(blocks int, m *float32, stride int, bias *float32, y, s *[4]*float32, lo float32) {
	panic("model: no AVX-512")
}

func inputTileBF16(blocks int, d *[16]*float32, v *uint16, stride int) {
	panic("model: no AVX-512 BF16")
}
