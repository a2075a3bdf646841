package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// PALACE_CPUPROFILE writes a CPU profile of any command; a path that
// cannot be created fails before the command runs.
func TestCPUProfileEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	t.Setenv("PALACE_CPUPROFILE", path)
	var out, errb bytes.Buffer
	if rc := run([]string{"perft", "--rules", "xiangqi", "--start", "--depth", "3"}, strings.NewReader(""), &out, &errb); rc != 0 {
		t.Fatalf("perft with a profile: exit %d: %s", rc, errb.String())
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("no profile written: %v", err)
	}
	t.Setenv("PALACE_CPUPROFILE", filepath.Join(t.TempDir(), "missing", "cpu.prof"))
	out.Reset()
	errb.Reset()
	if rc := run([]string{"perft", "--rules", "xiangqi", "--start", "--depth", "1"}, strings.NewReader(""), &out, &errb); rc == 0 || !strings.Contains(errb.String(), "PALACE_CPUPROFILE") || out.Len() != 0 {
		t.Fatalf("an unwritable profile: exit %d, stdout %q, stderr %q", rc, out.String(), errb.String())
	}
}
