//go:build linux

package memlimit

import (
	"strings"
	"syscall"
	"testing"
)

// Under an address-space limit, an allocation that does not fit is
// refused with the numbers and one that fits is not (issue 47: Go's
// fatal out of memory instead).
func TestCheckUnderAddressSpaceLimit(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &old); err != nil {
		t.Skip(err)
	}
	low := syscall.Rlimit{Cur: vmSize() + 1<<30, Max: old.Max}
	if old.Cur < low.Cur {
		t.Skip("already under a lower limit")
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &low); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_AS, &old)
	err := Check("a cache of 2 GiB", 2<<30)
	if err == nil || !strings.Contains(err.Error(), "memlimit: a cache of 2 GiB needs 2048 MiB, and this process may take") ||
		!strings.Contains(err.Error(), "the address-space limit (ulimit -v)") {
		t.Errorf("2 GiB under a limit 1 GiB above the use: %v", err)
	}
	if err := Check("a cache of 100 MiB", 100<<20); err != nil {
		t.Errorf("100 MiB: %v", err)
	}
}
