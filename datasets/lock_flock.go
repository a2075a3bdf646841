//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes the directory's manifest lock, so that writers in several
// processes (or goroutines: each open is its own lock) that list shards
// in one directory take turns at reading and rewriting the manifest.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("datasets: manifest lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("datasets: manifest lock %s: %w", f.Name(), err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
