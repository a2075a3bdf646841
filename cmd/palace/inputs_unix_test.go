//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An input that is a device (/dev/zero never ends) or a directory is a
// clear error at once, never a read for ever or out of memory.
func TestInputsThatAreNotFiles(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"net", "info", "/dev/zero"},
		{"search", "--net", "/dev/zero", "--start", "--sims", "1"},
		{"run", "--config", "/dev/zero", "--dir", filepath.Join(dir, "run")},
		{"selfplay", "--config", "/dev/zero"},
		{"train", "--games", "/dev/zero", "--out", filepath.Join(dir, "n.palnet")},
		{"perft", "--rules", "/dev/zero", "--start", "--depth", "1"},
		{"import", "/dev/zero", "--out", filepath.Join(dir, "g.jsonl")},
		{"arena", "--player", "random", "--player", "random", "--records", "/dev/zero", "--pairs", "1"},
		{"ladder", "--player", "random", "--scale", "/dev/zero"},
		{"net", "info", dir},
	} {
		code, _, errOut := runPalace(t, "", args...)
		if code != 1 && code != 2 || !strings.Contains(errOut, "not a file") {
			t.Errorf("palace %s: exit %d, %q; want an error saying it is not a file", strings.Join(args, " "), code, errOut)
		}
	}
}
