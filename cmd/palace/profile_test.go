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

// PALACE_CPUPROFILE gets --out's checks (issue 47): not an input of the
// command, not someone's file, not a device; the file it replaces is a
// profile of its own, and a write that fails is an error.
func TestCPUProfileEnvChecked(t *testing.T) {
	dir := t.TempDir()
	games := filepath.Join(dir, "g.jsonl")
	os.WriteFile(games, []byte("{}\n"), 0o644)
	prof := filepath.Join(dir, "cpu.prof")
	perft := []string{"perft", "--rules", "xiangqi", "--start", "--depth", "2"}
	runWith := func(path string, args ...string) (int, string) {
		t.Setenv("PALACE_CPUPROFILE", path)
		var out, errb bytes.Buffer
		return run(args, strings.NewReader(""), &out, &errb), errb.String()
	}
	if rc, errOut := runWith(prof, perft...); rc != 0 {
		t.Fatalf("a new profile: exit %d: %s", rc, errOut)
	}
	first, _ := os.ReadFile(prof)
	if rc, errOut := runWith(prof, perft...); rc != 0 {
		t.Fatalf("a profile over a profile: exit %d: %s", rc, errOut)
	}
	for _, tc := range []struct {
		path string
		args []string
		want string
	}{
		{games, []string{"export", games}, "PALACE_CPUPROFILE " + games + " is also an input; palace would overwrite what it reads"},
		{games, perft, "PALACE_CPUPROFILE " + games + ": a file that is not a CPU profile is there; palace would overwrite it"},
		{prof, []string{"export", "--out=" + prof, games}, "PALACE_CPUPROFILE " + prof + " is also an input"},
		{"/dev/full", perft, "PALACE_CPUPROFILE /dev/full is a device, not a regular file"},
		{dir, perft, "is a directory"},
	} {
		var before []byte
		if info, err := os.Stat(tc.path); err == nil && info.Mode().IsRegular() { // /dev/full reads forever
			before, _ = os.ReadFile(tc.path)
		}
		rc, errOut := runWith(tc.path, tc.args...)
		if rc != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("PALACE_CPUPROFILE=%s palace %s: exit %d, %q; want %q", tc.path, strings.Join(tc.args, " "), rc, errOut, tc.want)
		}
		if info, err := os.Stat(tc.path); err == nil && info.Mode().IsRegular() {
			if after, _ := os.ReadFile(tc.path); !bytes.Equal(before, after) {
				t.Errorf("PALACE_CPUPROFILE=%s palace %s changed the file", tc.path, strings.Join(tc.args, " "))
			}
		} else if tc.path == "/dev/full" && (err != nil || info.Mode()&os.ModeDevice == 0) {
			t.Errorf("/dev/full is no longer a device")
		}
	}
	if len(first) < 2 || first[0] != 0x1f || first[1] != 0x8b {
		t.Errorf("the profile is not gzipped: % x", first[:min(len(first), 4)])
	}
}
