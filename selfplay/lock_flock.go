//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package selfplay

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockName is the file a run holds locked for its life, so that two runs
// never play into one directory: each would replay the other's games.
const lockName = ".selfplay.lock"

// lockRun takes dir's run lock without waiting. The kernel drops it when
// the process dies, kill -9 included.
func lockRun(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("selfplay: run lock: %w", err)
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
			return nil, fmt.Errorf("selfplay: another self-play run is writing to %s", dir)
		}
		return nil, fmt.Errorf("selfplay: run lock %s: %w", f.Name(), err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
