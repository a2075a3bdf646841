//go:build unix

package gib

import "syscall"

// gibCPUSeconds is the process's CPU time so far (user and system, all
// threads): benchmarks report work per CPU-second, which a machine shared
// with other jobs does not distort as it does wall-clock rates.
func gibCPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
