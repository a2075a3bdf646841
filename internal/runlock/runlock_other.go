//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package runlock

import "sync"

// Without flock the lock covers this process only.
var (
	mu     sync.Mutex
	locked = map[string]bool{}
)

// Lock takes the lock at path without waiting.
func Lock(path string) (unlock func(), err error) {
	mu.Lock()
	defer mu.Unlock()
	if locked[path] {
		return nil, ErrLocked
	}
	locked[path] = true
	return func() {
		mu.Lock()
		delete(locked, path)
		mu.Unlock()
	}, nil
}
