//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
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
