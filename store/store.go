// Package store is where a run keeps its artifacts: a small key–value
// interface with two implementations, Dir (a local or shared directory)
// and Bucket (an object store through gocloud.dev/blob: S3 and
// S3-compatible stores, Google Cloud Storage, Azure Blob Storage). Open
// picks one from a URL. Keys are slash-separated paths relative to the
// store's root ("nets/gen-0001.palnet"), so a run has one layout wherever
// it lives. Both write atomically, and both can write a key only if it is
// absent (Creator), which distributed jobs use to keep the first of two
// uploads of one artifact.
package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/palace-chess/palace/internal/atomicfile"
)

// ErrNotExist is wrapped by Read for a key that holds nothing.
var ErrNotExist = fs.ErrNotExist

// Store holds a run's artifacts.
type Store interface {
	// Read returns the key's contents; errors wrap ErrNotExist when there
	// are none.
	Read(key string) ([]byte, error)
	// Write replaces the key's contents atomically: a reader, or a run
	// resumed after a crash, sees the old contents or the new, never a
	// mixture.
	Write(key string, data []byte) error
	// List returns the keys under prefix, sorted.
	List(prefix string) ([]string, error)
	// Remove deletes the key; a missing key is no error.
	Remove(key string) error
	// Local is the key's path on this machine when the store is a local
	// directory (stages that write files as they go, such as self-play's
	// shards and a match's record file, work there directly), or "".
	Local(key string) string
	// String names the store in messages.
	String() string
	// Entries returns up to n names at the store's top level (keys, and
	// the first part of longer ones), hidden names (temporary files) left
	// out: enough to tell an empty store from one that holds something,
	// without listing a whole tree.
	Entries(n int) ([]string, error)
}

// Dir is a Store over a local directory.
type Dir struct{ root string }

// NewDir is the store over directory root, created if missing.
func NewDir(root string) (*Dir, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return &Dir{root: root}, nil
}

// checkKey refuses keys that would leave the root.
func checkKey(key string) error {
	if key == "" || path.IsAbs(key) || strings.Contains(key, "\\") || path.Clean(key) != key || key == ".." || strings.HasPrefix(key, "../") {
		return fmt.Errorf("store: bad key %q", key)
	}
	return nil
}

func (d *Dir) path(key string) string { return filepath.Join(d.root, filepath.FromSlash(key)) }

// Read implements Store.
func (d *Dir) Read(key string) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(d.path(key))
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return b, nil
}

// Write implements Store: temporary file, fsync, rename, directory fsync.
func (d *Dir) Write(key string, data []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	p := d.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if err := atomicfile.WriteBytes(p, 0o644, data); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// List implements Store. Temporary files of unfinished writes are left
// out.
func (d *Dir) List(prefix string) ([]string, error) {
	var keys []string
	// The separator makes a root that is a symbolic link to a directory
	// walked as that directory (WalkDir does not follow a link it is
	// given): a run in --dir LINK saw no files (issue 47).
	err := filepath.WalkDir(d.root+string(filepath.Separator), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(d.root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if strings.HasPrefix(key, prefix) && !strings.HasPrefix(path.Base(key), ".") {
			keys = append(keys, key)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	sort.Strings(keys)
	return keys, nil
}

// Remove implements Store.
func (d *Dir) Remove(key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := os.Remove(d.path(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// Entries implements Store.
func (d *Dir) Entries(n int) ([]string, error) {
	f, err := os.Open(d.root)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	var names []string
	for len(names) < n {
		batch, err := f.Readdirnames(64)
		for _, name := range batch {
			if !strings.HasPrefix(name, ".") && len(names) < n {
				names = append(names, name)
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("store: %w", err)
		}
		if err != nil || len(batch) == 0 {
			break
		}
	}
	return names, nil
}

// Local implements Store.
func (d *Dir) Local(key string) string {
	if checkKey(key) != nil {
		return ""
	}
	return d.path(key)
}

// String is the directory.
func (d *Dir) String() string { return d.root }
