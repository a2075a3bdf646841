//go:build !unix

package pgn

// cpuSeconds is unknown here; BenchmarkImport then reports no CPU rate.
func cpuSeconds() float64 { return 0 }
