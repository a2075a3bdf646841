// Package atomicfile writes files crash-safely: into a temporary file in
// the same directory, fsynced, then renamed over the target and the
// directory fsynced, so a reader (or a restart after kill -9) sees either
// the old file or the whole new one, never a torn one.
//
// The rename is what makes it safe, and also what makes it dangerous where
// the path is not a plain file: renamed over, a symlink would become a
// file (its target never written) and a device such as /dev/full a file
// in /dev. So Write follows symlinks to the file they name and refuses
// anything but a regular file.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxLinks bounds a chain of symlinks, as the kernel's own limit does
// (Linux: 40); a longer chain is taken for a loop.
const maxLinks = 40

// Write creates or replaces path with what write produces. A symlink is
// written through: its final target is replaced (a dangling link's target
// created) and the link kept. A path that is not a regular file (a
// device, a directory, a FIFO, a socket) is refused untouched.
func Write(path string, perm os.FileMode, write func(w io.Writer) error) (err error) {
	target, err := resolve(path)
	if err != nil {
		return err
	}
	dir, base := filepath.Dir(target), filepath.Base(target)
	removeStale(dir, base)
	tmp, link, err := createTemp(dir, base)
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	tmpName := ""
	if link == nil {
		tmpName = tmp.Name()
	}
	defer func() {
		if err != nil {
			tmp.Close()
			if tmpName != "" {
				os.Remove(tmpName)
			}
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("atomicfile: syncing %s: %w", path, err)
	}
	if link != nil {
		if tmpName, err = link(); err != nil {
			return err
		}
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	// What was a regular file when resolved may have been swapped since;
	// look again so that the window for renaming over a device is the
	// width of two system calls, not of the whole write.
	if _, err = resolve(target); err != nil {
		return err
	}
	if err = os.Rename(tmpName, target); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	SyncDir(dir)
	return nil
}

// createNamedTemp is a temporary file for a write of dir/base, named as
// IsTemp knows, and locked while the write lives (see removeStale).
func createNamedTemp(dir, base string) (*os.File, func() (string, error), error) {
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, nil, err
	}
	lock(f)
	return f, nil, nil
}

// removeStale removes the temporary files of earlier writes of dir/base
// that a kill left (issue 47: the next run of a command clears its own):
// those whose write is dead, its lock free; a live write's are kept.
func removeStale(dir, base string) {
	old, err := filepath.Glob(filepath.Join(dir, "."+globEscape(base)+".tmp-*"))
	if err != nil {
		return
	}
	for _, p := range old {
		name := filepath.Base(p)
		if !IsTemp(name) || name[1:strings.LastIndex(name, ".tmp-")] != base {
			continue
		}
		if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() && isDead(p) {
			os.Remove(p)
		}
	}
}

// globEscape escapes filepath.Match's special characters in name.
func globEscape(name string) string {
	var b strings.Builder
	for _, r := range name {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// randomSuffix is a temporary file name's suffix: letters and digits.
func randomSuffix() string {
	return strconv.FormatUint(rand.Uint64(), 36)
}

// Check reports, without writing anything, the error Write would give for
// path before it writes: a symlink loop, a target that is not a regular
// file, a directory to write in that does not exist. Commands call it
// before their work, so that a bad --out fails in a second, not after an
// hour's import or training.
func Check(path string) error {
	target, err := resolve(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(target)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("atomicfile: %s: no directory %s to write it in", path, dir)
	case err != nil:
		return fmt.Errorf("atomicfile: %s: %w", path, err)
	case !info.IsDir():
		return fmt.Errorf("atomicfile: %s: %s is not a directory", path, dir)
	}
	return nil
}

// resolve follows path's symlinks to the file a write should replace: a
// regular file, or a name where none exists yet. A relative link is read
// from the link's own directory, as the kernel reads it.
func resolve(path string) (string, error) {
	p := path
	for range maxLinks {
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", fmt.Errorf("atomicfile: %s: %w", path, err)
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			if kind := irregular(info.Mode()); kind != "" {
				return "", fmt.Errorf("atomicfile: %s is %s, not a regular file; palace writes files only", named(path, p), kind)
			}
			return p, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", fmt.Errorf("atomicfile: %s: %w", path, err)
		}
		// The link's directory may itself be reached through symlinks,
		// where a lexical ".." would go astray: resolve it first.
		dir := filepath.Dir(p)
		if d, err := filepath.EvalSymlinks(dir); err == nil {
			dir = d
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(dir, link)
		}
		p = link
	}
	return "", fmt.Errorf("atomicfile: %s: more than %d symlinks to follow, a loop", path, maxLinks)
}

// irregular names what a file of mode m is when it is not a regular file
// ("" when it is).
func irregular(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a directory"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// named is path for messages, with the file it links to when they differ.
func named(path, target string) string {
	if path == target {
		return path
	}
	return path + " (a link to " + target + ")"
}

// CheckNotInput reports an error when out is the same file as one of
// inputs (os.SameFile: a hard link, a symlink or ./x for x is caught):
// palace writes its output after reading its inputs, and would replace
// what it read. An out or an input that does not exist yet cannot be the
// same. Its errors, as Check's, begin with the path, for a command to put
// its flag's name before.
func CheckNotInput(out string, inputs ...string) error {
	o, err := os.Stat(out)
	if err != nil {
		return nil
	}
	for _, in := range inputs {
		if i, err := os.Stat(in); err == nil && os.SameFile(o, i) {
			if in == out {
				return fmt.Errorf("atomicfile: %s is also an input; palace would overwrite what it reads", out)
			}
			return fmt.Errorf("atomicfile: %s is also the input %s; palace would overwrite what it reads", out, in)
		}
	}
	return nil
}

// OtherFiles lists (up to three of) the entries of dir that a job killed
// before it wrote its description would not have left: anything but its
// lock file and temporary files. A new job goes only where there is none.
func OtherFiles(dir, lock string) []string {
	entries, _ := os.ReadDir(dir)
	var other []string
	for _, e := range entries {
		name := e.Name()
		if name == lock || IsTemp(name) {
			continue
		}
		if other = append(other, name); len(other) == 3 {
			break
		}
	}
	return other
}

// IsTemp reports whether name is a temporary file's as Write names them
// ("." + the target's name + ".tmp-" + a random suffix of letters and
// digits; palace's other crash-safe writers, the shard writer's and the
// store's Create, follow it): what a kill during a write leaves behind.
func IsTemp(name string) bool {
	i := strings.LastIndex(name, ".tmp-")
	if !strings.HasPrefix(name, ".") || i < 2 {
		return false
	}
	suffix := name[i+len(".tmp-"):]
	return suffix != "" && strings.IndexFunc(suffix, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0
}

// SyncDir fsyncs a directory, so that a rename or a new entry in it
// survives a crash; not every file system supports it, and where it
// fails nothing more can be done.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// WriteBytes is Write for data already in memory.
func WriteBytes(path string, perm os.FileMode, data []byte) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
