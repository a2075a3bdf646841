//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package loop

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockDir takes the run's lock file without waiting, so that two processes
// never run one directory (both would train and promote). The kernel drops
// it when the process dies, kill -9 included.
func lockDir(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("loop: run lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("loop: another palace run is using %s", path)
		}
		return nil, fmt.Errorf("loop: run lock %s: %w", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
