//go:build amd64

package model

import "testing"

// BenchmarkPeak: this core's multiply-add peak, bf16 (VDPBF16PS) and
// float32 (VFMADD231PS on 512-bit registers), from 24 independent chains
// in registers: the ceiling the GEMM kernels' rates are shares of.
func BenchmarkPeak(b *testing.B) {
	const iters = 1 << 16
	b.Run("bf16", func(b *testing.B) {
		if !HaveBF16() {
			b.Skip("no AVX-512 BF16 here")
		}
		for b.Loop() {
			peakBF16(iters)
		}
		b.ReportMetric(float64(b.N)*iters*768/b.Elapsed().Seconds()/1e9, "GMAC/s")
	})
	b.Run("fp32", func(b *testing.B) {
		if !haveAVX512 {
			b.Skip("no AVX-512 here")
		}
		for b.Loop() {
			peakFMA(iters)
		}
		b.ReportMetric(float64(b.N)*iters*384/b.Elapsed().Seconds()/1e9, "GMAC/s")
	})
}
