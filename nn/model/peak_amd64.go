package model

// peakBF16 and peakFMA run the core at its multiply-add peak
// (peak_amd64.s), for BenchmarkPeak: the figure the kernels' shares are
// stated against.

//go:noescape
func peakBF16(n int)

//go:noescape
func peakFMA(n int)
