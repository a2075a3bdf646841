//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package loop

import (
	"fmt"
	"sync"
)

// Without flock the lock covers this process only: never start two runs
// on one directory.
var (
	lockMu sync.Mutex
	locked = map[string]bool{}
)

func lockDir(path string) (unlock func(), err error) {
	lockMu.Lock()
	defer lockMu.Unlock()
	if locked[path] {
		return nil, fmt.Errorf("loop: another palace run is using %s", path)
	}
	locked[path] = true
	return func() {
		lockMu.Lock()
		delete(locked, path)
		lockMu.Unlock()
	}, nil
}
