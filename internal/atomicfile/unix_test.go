//go:build unix

package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestRefuseFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	refuses(t, fifo, "a named pipe (FIFO)", os.ModeNamedPipe)
}

// TestRefuseDeviceNode writes to a device of its own, where root (who
// could rename over one) may make it: /dev/null's major and minor numbers
// in a temporary directory.
func TestRefuseDeviceNode(t *testing.T) {
	dev := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skip("cannot make a device node here:", err)
	}
	refuses(t, dev, "a device", os.ModeDevice|os.ModeCharDevice)
}

// ReadFile reads files and pipes, refuses devices and directories, and
// stops at its limit, before reading where the size is known (issue 25:
// --config /dev/zero and --net /dev/zero read for ever).
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("twelve bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(path, 12); err != nil || string(data) != "twelve bytes" {
		t.Errorf("a file at the limit: %q, %v", data, err)
	}
	if _, err := ReadFile(path, 11); err == nil || !strings.Contains(err.Error(), "12 bytes, more than the 11 bytes such a file can be") {
		t.Errorf("a file over the limit: %v", err)
	}
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		if _, err := os.Stat(dev); err != nil {
			continue
		}
		if _, err := ReadFile(dev, 1<<40); err == nil || err.Error() != "read "+dev+": a device, not a file" {
			t.Errorf("%s: %v", dev, err)
		}
	}
	if _, err := ReadFile(dir, 1<<20); err == nil || !strings.Contains(err.Error(), "a directory, not a file") {
		t.Errorf("a directory: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			w.Write(make([]byte, 100))
			w.Close()
		}
	}()
	if _, err := ReadFile(fifo, 10); err == nil || !strings.Contains(err.Error(), "longer than 10 bytes") {
		t.Errorf("a FIFO over the limit: %v", err)
	}
}

// A kill during a write leaves nothing that stays (issue 47): where the
// file system has O_TMPFILE the file being written has no name, and a
// named temporary file that a killed write left is removed by the next
// write of the same target, while a live write's (locked), or another
// target's, is kept.
func TestTempFilesDoNotOutliveTheirWrite(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.pgn")
	stale := filepath.Join(dir, ".out.pgn.tmp-123abc")
	live := filepath.Join(dir, ".out.pgn.tmp-456def")
	other := filepath.Join(dir, ".other.pgn.tmp-789")
	for _, p := range []string{stale, live, other} {
		os.WriteFile(p, []byte("half"), 0o644)
	}
	f, err := os.Open(live)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := lock(f); err != nil {
		t.Fatal(err)
	}
	var during []string
	err = Write(target, 0o644, func(w io.Writer) error {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			during = append(during, e.Name())
		}
		_, err := w.Write([]byte("new"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a killed write's temporary file is still there")
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if runtime.GOOS == "linux" && !slices.Equal(during, []string{".other.pgn.tmp-789", ".out.pgn.tmp-456def"}) {
		t.Errorf("during the write the directory held %q: a named temporary file a kill would leave", during)
	}
	if data, _ := os.ReadFile(target); string(data) != "new" {
		t.Errorf("wrote %q", data)
	}
}
