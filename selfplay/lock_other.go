//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package selfplay

import (
	"fmt"
	"sync"
)

const lockName = ".selfplay.lock"

// Without flock the lock covers this process only: never start two runs
// on one directory.
var (
	lockMu sync.Mutex
	locked = map[string]bool{}
)

func lockRun(dir string) (unlock func(), err error) {
	lockMu.Lock()
	defer lockMu.Unlock()
	if locked[dir] {
		return nil, fmt.Errorf("selfplay: another self-play run is writing to %s", dir)
	}
	locked[dir] = true
	return func() {
		lockMu.Lock()
		delete(locked, dir)
		lockMu.Unlock()
	}, nil
}
