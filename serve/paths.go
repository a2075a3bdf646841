package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// errOutside is a request for something that is not under a served path:
// a parent reference, a symbolic link, an encoded slash, an unknown root.
// It is answered 404 with the same words whatever the cause, so that the
// answer tells nothing about what lies outside.
var errOutside = errors.New("serve: not under a served path")

// root is one PATH of the command line: a directory or a file.
type root struct {
	// abs is the path made absolute, its own symbolic links resolved
	// (the operator named it, so where it points is what they serve).
	abs   string
	given string
	dir   bool
}

func newRoot(path string) (root, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return root{}, fmt.Errorf("serve: %s: %w", path, err)
	}
	abs, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return root{}, fmt.Errorf("serve: %s: %w", path, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return root{}, fmt.Errorf("serve: %s: %w", path, err)
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		return root{}, fmt.Errorf("serve: %s is neither a directory nor a file", path)
	}
	return root{abs: abs, given: path, dir: info.IsDir()}, nil
}

// resolve names the file or directory rel (slash-separated, relative)
// under the root, or errOutside. Every element is checked with Lstat,
// so no symbolic link below the root is followed, whatever it points to.
func (r root) resolve(rel string) (string, error) {
	if rel == "" {
		return r.abs, nil
	}
	if !r.dir || !cleanRel(rel) {
		return "", errOutside
	}
	p := r.abs
	for _, elem := range strings.Split(rel, "/") {
		p = filepath.Join(p, elem)
		info, err := os.Lstat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", errOutside
			}
			return "", fmt.Errorf("serve: %w", err)
		}
		if info.Mode()&fs.ModeSymlink != 0 || (!info.IsDir() && !info.Mode().IsRegular()) {
			return "", errOutside
		}
	}
	return p, nil
}

// cleanRel reports whether rel is a plain relative path: no empty, "."
// or ".." element, no backslash, no NUL, not absolute.
func cleanRel(rel string) bool {
	if strings.ContainsAny(rel, "\\\x00") || strings.HasPrefix(rel, "/") {
		return false
	}
	for _, elem := range strings.Split(rel, "/") {
		if elem == "" || elem == "." || elem == ".." {
			return false
		}
	}
	return true
}

// rel is p (an absolute path under the root) relative to it, slashed.
func (r root) rel(p string) string {
	rel, err := filepath.Rel(r.abs, p)
	if err != nil || rel == "." {
		return ""
	}
	return filepath.ToSlash(rel)
}

// checkNoLinks refuses a directory that holds a symbolic link anywhere
// below it: the readers that walk a directory (rundir.Collect, the run's
// metrics) would follow it out of the served tree.
func checkNoLinks(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		return linkError(p, d)
	})
}

// linkError is the refusal of a walk's entry that is a symbolic link.
func linkError(p string, d fs.DirEntry) error {
	if d.Type()&fs.ModeSymlink != 0 {
		return fmt.Errorf("serve: %s is a symbolic link: a directory that holds one is not served, since reading it would leave the served paths", p)
	}
	return nil
}
