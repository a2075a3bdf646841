//go:build unix

package pgn

import "syscall"

// cpuSeconds is the process's CPU time so far (user and system, all
// threads): BenchmarkImport reports games per CPU-second too, which a
// machine shared with other jobs does not distort as it does games/s.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
