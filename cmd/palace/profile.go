package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/palace-chess/palace/internal/atomicfile"
)

// startProfile starts a CPU profile into PALACE_CPUPROFILE's file, if set,
// for any command (go tool pprof reads it); stop ends it and writes the
// file, crash-safely, returning what failed. The file gets --out's checks
// before the command runs (issue 47: PALACE_CPUPROFILE=g.jsonl palace
// export g.jsonl overwrote its input, /dev/full took the profile in
// silence): not a device, a directory or a link loop, not one of the
// command's arguments, and not an existing file other than a profile.
func startProfile(args []string) (stop func() error, err error) {
	path := os.Getenv("PALACE_CPUPROFILE")
	if path == "" {
		return func() error { return nil }, nil
	}
	if err := checkProfilePath(path, args); err != nil {
		return nil, err
	}
	// The profile is written at the end, where pprof writes it anyway, so
	// a kill leaves the old file or none, and a write error is reported.
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return nil, fmt.Errorf("PALACE_CPUPROFILE: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := atomicfile.WriteBytes(path, 0o644, buf.Bytes()); err != nil {
			return fmt.Errorf("PALACE_CPUPROFILE: %w", err)
		}
		return nil
	}, nil
}

// checkProfilePath refuses a profile path that palace would not write
// (atomicfile.Check), that names one of args (a flag's value, --out=X's X
// too), or that holds a file which is not a CPU profile: go's profiles
// are gzipped, and anything else there is someone's data.
func checkProfilePath(path string, args []string) error {
	inputs := make([]string, 0, len(args))
	for _, a := range args {
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v
		}
		inputs = append(inputs, a)
	}
	err := atomicfile.Check(path)
	if err == nil {
		err = atomicfile.CheckNotInput(path, inputs...)
	}
	if err != nil {
		return fmt.Errorf("PALACE_CPUPROFILE %s", strings.TrimPrefix(err.Error(), "atomicfile: "))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil // none yet (or unreadable: the write will say)
	}
	defer f.Close()
	var magic [2]byte
	if n, _ := f.Read(magic[:]); n > 0 && magic != [2]byte{0x1f, 0x8b} {
		return fmt.Errorf("PALACE_CPUPROFILE %s: a file that is not a CPU profile is there; palace would overwrite it", path)
	}
	return nil
}
