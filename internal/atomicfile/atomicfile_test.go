package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWriteReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := WriteBytes(path, 0o644, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, 0o644, func(w io.Writer) error {
		w.Write([]byte("half of the new"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "old" {
		t.Errorf("a failed write left %q, want the old content", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("a failed write left %d files behind, want 1", len(entries))
	}
	if err := WriteBytes(path, 0o600, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "new" {
		t.Errorf("got %q, want new", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}

// writeThrough writes data to path and checks that target got it and
// that path is still a symlink.
func writeThrough(t *testing.T, path, target, data string) {
	t.Helper()
	if err := Check(path); err != nil {
		t.Fatalf("Check(%s): %v", path, err)
	}
	if err := WriteBytes(path, 0o644, []byte(data)); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(target); err != nil || string(got) != data {
		t.Errorf("target %s holds %q (%v), want %q", target, got, err, data)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s is no longer a symlink: %v %v", path, fi.Mode(), err)
	}
}

func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	writeThrough(t, link, target, "new")
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files in the directory, want the link and its target", len(entries))
	}
}

func TestWriteThroughRelativeChain(t *testing.T) {
	// a/link1 -> ../b/link2 -> ../c/target, every link relative to its
	// own directory, and a/ itself reached through a symlinked directory
	// (where a lexical .. would leave the wrong directory).
	root := t.TempDir()
	for _, d := range []string{"a", "b", "c", "elsewhere"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(root, "c", "target")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../c/target", filepath.Join(root, "b", "link2")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := os.Symlink("../b/link2", filepath.Join(root, "a", "link1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "elsewhere", "via")); err != nil {
		t.Fatal(err)
	}
	writeThrough(t, filepath.Join(root, "a", "link1"), target, "first")
	writeThrough(t, filepath.Join(root, "elsewhere", "via", "link1"), target, "second")
	if fi, err := os.Lstat(filepath.Join(root, "b", "link2")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the middle link is no longer a symlink")
	}
	// The current directory's relative path too.
	t.Chdir(filepath.Join(root, "a"))
	writeThrough(t, "link1", target, "third")
}

func TestWriteDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "sub", "link")
	if err := os.Symlink("../new", link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	writeThrough(t, link, filepath.Join(dir, "new"), "created")
	if _, err := os.Stat(filepath.Join(dir, "sub", "new")); err == nil {
		t.Errorf("the link text was read from the wrong directory")
	}
}

func TestWriteSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.Symlink("b", a); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := os.Symlink("a", b); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{Check(a), WriteBytes(a, 0o644, []byte("x"))} {
		if err == nil || !strings.Contains(err.Error(), "atomicfile: "+a+": ") || !strings.Contains(err.Error(), "loop") {
			t.Errorf("error %v, want one naming %s and a loop", err, a)
		}
	}
	for _, p := range []string{a, b} {
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symlink", p)
		}
	}
}

// refuses checks that Check and Write refuse path as kind and leave it
// as it was (still of mode type want).
func refuses(t *testing.T, path, kind string, want os.FileMode) {
	t.Helper()
	for _, err := range []error{Check(path), WriteBytes(path, 0o644, []byte("x"))} {
		if err == nil || !strings.HasPrefix(err.Error(), "atomicfile: "+path) || !strings.Contains(err.Error(), "is "+kind+", not a regular file") {
			t.Errorf("error %v, want %s refused as %s", err, path, kind)
		}
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().Type() != want {
		t.Errorf("%s is now %v (%v), want type %v", path, fi.Mode(), err, want)
	}
}

func TestRefuseDevice(t *testing.T) {
	fi, err := os.Lstat("/dev/null")
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skip("no /dev/null device here")
	}
	if os.Geteuid() == 0 {
		// Root could rename over /dev/null: a broken Write would break
		// the machine, so only Check is tried here, and Write on a
		// device node of the test's own (TestRefuseDeviceNode).
		err := Check("/dev/null")
		if err == nil || err.Error() != "atomicfile: /dev/null is a device, not a regular file; palace writes files only" {
			t.Errorf("error %v, want /dev/null refused as a device", err)
		}
	} else {
		refuses(t, "/dev/null", "a device", fi.Mode().Type())
	}
	// Through a symlink too: the device, not the link, is what is refused.
	link := filepath.Join(t.TempDir(), "null")
	if err := os.Symlink("/dev/null", link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	err = WriteBytes(link, 0o644, []byte("x"))
	if err == nil || !strings.Contains(err.Error(), link+" (a link to /dev/null) is a device") {
		t.Errorf("error %v, want the link and its device named", err)
	}
}

func TestRefuseDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	refuses(t, dir, "a directory", os.ModeDir)
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("a refused write left %d files behind, want 1", len(entries))
	}
}

func TestCheckMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none", "f")
	if err := Check(path); err == nil || !strings.Contains(err.Error(), "no directory") {
		t.Errorf("error %v, want the missing directory named", err)
	}
}

func TestCheckNotInput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, f := range []string{"x.pgn", "y.pgn"} {
		if err := os.WriteFile(f, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link("x.pgn", "hard.pgn"); err != nil {
		t.Fatal(err)
	}
	symlinks := os.Symlink("x.pgn", "soft.pgn") == nil
	for _, c := range []struct {
		out    string
		inputs []string
		want   string // "" for no error
	}{
		{"x.pgn", []string{"x.pgn"}, "atomicfile: x.pgn is also an input; palace would overwrite what it reads"},
		{"x.pgn", []string{"y.pgn", "./x.pgn"}, "atomicfile: x.pgn is also the input ./x.pgn; palace would overwrite what it reads"},
		{"x.pgn", []string{filepath.Join(dir, "x.pgn")}, "is also the input"},
		{"hard.pgn", []string{"x.pgn"}, "hard.pgn is also the input x.pgn"},
		{"soft.pgn", []string{"x.pgn"}, "soft.pgn is also the input x.pgn"},
		{"x.pgn", []string{"soft.pgn"}, "x.pgn is also the input soft.pgn"},
		{"y.pgn", []string{"x.pgn"}, ""},
		{"new.pgn", []string{"x.pgn"}, ""},
		{"x.pgn", []string{"missing.pgn"}, ""},
		{"x.pgn", nil, ""},
	} {
		if !symlinks && (c.out == "soft.pgn" || slices.Contains(c.inputs, "soft.pgn")) {
			continue
		}
		err := CheckNotInput(c.out, c.inputs...)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckNotInput(%s, %v): %v, want nil", c.out, c.inputs, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("CheckNotInput(%s, %v): %v, want %q", c.out, c.inputs, err, c.want)
		}
	}
}

// OtherFiles passes over the lock and a killed write's temporary file,
// and names at most three of the rest, in name order.
func TestOtherFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"job.lock", ".state.tmp-abc123"} {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	if got := OtherFiles(dir, "job.lock"); len(got) != 0 {
		t.Errorf("a directory of a lock and a temporary file: %q", got)
	}
	for _, name := range []string{"d", "a", "c", "b"} {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	if got := OtherFiles(dir, "job.lock"); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("OtherFiles = %q, want [a b c]", got)
	}
	if got := OtherFiles(filepath.Join(dir, "missing"), "job.lock"); len(got) != 0 {
		t.Errorf("a missing directory: %q", got)
	}
}
