//go:build !linux

package atomicfile

import "os"

// createTemp opens the file a write goes into: a named temporary file
// (Linux's is unnamed until whole: temp_linux.go).
func createTemp(dir, base string) (f *os.File, link func() (string, error), err error) {
	return createNamedTemp(dir, base)
}
