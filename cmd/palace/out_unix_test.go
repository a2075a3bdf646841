//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutSpecialFiles: a FIFO, a directory and (where this user may make
// one) a device node as --out are refused before any reading, and left
// as they were.
func TestOutSpecialFiles(t *testing.T) {
	dir, pgnPath, games := outFixture(t)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	paths := map[string]os.FileMode{fifo: os.ModeNamedPipe, dir: os.ModeDir}
	kinds := map[string]string{fifo: "a named pipe (FIFO)", dir: "a directory"}
	dev := filepath.Join(dir, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		paths[dev], kinds[dev] = os.ModeDevice|os.ModeCharDevice, "a device"
	} else {
		t.Log("no device node:", err)
	}
	link := filepath.Join(dir, "to-fifo")
	if err := os.Symlink("fifo", link); err != nil {
		t.Fatal(err)
	}
	paths[link], kinds[link] = os.ModeSymlink, "a named pipe (FIFO)"
	for path, kind := range kinds {
		for _, args := range [][]string{
			{"import", "--out", path, pgnPath},
			{"export", "--out", path, games},
			{"openings", "--out", path, games},
			{"train", "--games", games, "--out", path},
		} {
			code, _, stderr := runPalace(t, "", args...)
			if code != 2 || !strings.Contains(stderr, "--out "+path) || !strings.Contains(stderr, "is "+kind+", not a regular file") {
				t.Errorf("%s: exit %d, %q", strings.Join(args, " "), code, stderr)
			}
		}
	}
	for path, want := range paths {
		if fi, err := os.Lstat(path); err != nil || fi.Mode().Type() != want {
			t.Errorf("%s is now %v (%v), want type %v", path, fi.Mode(), err, want)
		}
	}
}
