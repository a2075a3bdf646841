//go:build !unix

package gib

// gibCPUSeconds is unknown here; benchmarks then report no CPU rate.
func gibCPUSeconds() float64 { return 0 }
