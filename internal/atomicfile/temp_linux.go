package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// createTemp opens the file a write goes into. Where the file system has
// O_TMPFILE, the file has no name until it is whole (link gives it one,
// the moment before the rename), so a kill during the write leaves
// nothing (issue 47: export, openings, import and train left their
// temporary files behind); elsewhere it is a named temporary file.
func createTemp(dir, base string) (f *os.File, link func() (string, error), err error) {
	if _, err := os.Stat("/proc/self/fd"); err == nil {
		fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
		if err == nil {
			f := os.NewFile(uintptr(fd), filepath.Join(dir, "."+base+".tmp-(unnamed)"))
			lock(f) // kept once it is named, until the rename
			return f, func() (string, error) { return linkTemp(f, dir, base) }, nil
		}
	}
	return createNamedTemp(dir, base)
}

// linkTemp gives an O_TMPFILE file a temporary file's name in dir.
func linkTemp(f *os.File, dir, base string) (string, error) {
	proc := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	for range 100 {
		name := filepath.Join(dir, "."+base+".tmp-"+randomSuffix())
		err := unix.Linkat(unix.AT_FDCWD, proc, unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, unix.EEXIST) {
			return "", fmt.Errorf("atomicfile: naming the new %s: %w", filepath.Join(dir, base), err)
		}
	}
	return "", fmt.Errorf("atomicfile: no free temporary name for %s", filepath.Join(dir, base))
}
