//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package datasets

import "sync"

// Without flock, the lock covers this process only: give each process
// its own directory.
var dirLock sync.Mutex

func lockDir(dir string) (unlock func(), err error) {
	dirLock.Lock()
	return dirLock.Unlock, nil
}
