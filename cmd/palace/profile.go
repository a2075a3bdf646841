package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// startProfile starts a CPU profile into PALACE_CPUPROFILE's file, if set,
// for any command (go tool pprof reads it); stop ends it. A file that
// cannot be written is an error before the command runs.
func startProfile(stderr io.Writer) (stop func(), err error) {
	path := os.Getenv("PALACE_CPUPROFILE")
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("PALACE_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("PALACE_CPUPROFILE: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "palace: PALACE_CPUPROFILE: %v\n", err)
		}
	}, nil
}
