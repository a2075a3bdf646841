package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Limits for ReadFile: a config or a rule set, a checkpoint, a collection
// of games or a record file.
const (
	MaxConfigBytes     = 16 << 20
	MaxCheckpointBytes = 16 << 30
	MaxGamesBytes      = 8 << 30
)

// ReadFile reads path whole, as os.ReadFile does, but only what can be a
// file a user means: a device (/dev/zero, /dev/urandom would never end),
// a directory or a socket is refused, and anything longer than limit
// bytes is an error, before it is read where its size is known (a pipe or
// FIFO, as `--config <(…)` gives, is read up to the limit). Errors are
// *fs.PathError, for the caller to prefix with its package.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, info, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Mode().IsRegular() && info.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: tooLong(info.Size(), limit)}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: tooLong(-1, limit)}
	}
	return data, nil
}

// Open opens path for reading, as os.Open does, but refuses what ReadFile
// refuses: a device, a directory, a socket (a pipe or FIFO is read). For
// a reader that streams the file and bounds its own lines.
func Open(path string) (*os.File, error) {
	f, _, err := open(path)
	return f, err
}

func open(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if mode := info.Mode(); !mode.IsRegular() && mode&fs.ModeNamedPipe == 0 {
		f.Close()
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%s, not a file", irregular(mode))}
	}
	return f, info, nil
}

func tooLong(size, limit int64) error {
	if size < 0 {
		return fmt.Errorf("longer than %s, more than any such file", bytesText(limit))
	}
	return fmt.Errorf("%s, more than the %s such a file can be", bytesText(size), bytesText(limit))
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.3g GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.3g MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// CheckRegular reports f, just opened, when it is not a regular file: for
// a file palace appends to and reads back (a record file), where a device
// or a pipe is never meant.
func CheckRegular(f *os.File) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if kind := irregular(info.Mode()); kind != "" {
		return &fs.PathError{Op: "open", Path: f.Name(), Err: errors.New(kind + ", not a file")}
	}
	return nil
}
