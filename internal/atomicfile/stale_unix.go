//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// lock marks f as a live write's (flock, dropped by the kernel when the
// process dies), so that removeStale leaves it alone.
func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}

// isDead tells whether the temporary file at path is no live write's:
// its lock can be taken.
func isDead(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return lock(f) == nil
}
