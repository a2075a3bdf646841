// Package memlimit sizes a large allocation against the memory this
// process may use before it is made, so that a setting too big for the
// machine is refused with the numbers instead of killing the process
// with Go's "fatal error: out of memory", which no caller can recover
// from (issue 47: the engine's Hash at its advertised maximum, a cache of
// 2^24 entries, under a 4 GiB address-space limit).
//
// The memory is the least of: the address-space limit (RLIMIT_AS) less
// the address space in use, the cgroup's limit less its use, and the
// machine's available memory. Where none can be read, nothing is refused.
package memlimit

import (
	"fmt"
)

// reserve is left free beside the allocation: the Go heap grows in
// arenas of 64 MiB, and the rest of the job (networks, trees, batches)
// needs room too.
const reserve = 256 << 20

// Limit is the memory the process may still take and what bounds it
// ("the address-space limit (ulimit -v)", "the cgroup's memory limit",
// "available memory"); ok is false where none could be read.
func Limit() (free uint64, what string, ok bool) {
	return limit()
}

// Check returns an error when bytes for what (a noun phrase, "a cache of
// 16777216 entries") would not fit in the memory the process may still
// take, naming both sizes and the bound.
func Check(what string, bytes uint64) error {
	free, bound, ok := Limit()
	if !ok || bytes+reserve <= free {
		return nil
	}
	return fmt.Errorf("memlimit: %s needs %s, and this process may take %s more (%s) less %s for the rest: give a smaller size",
		what, Size(bytes), Size(free), bound, Size(reserve))
}

// Size is n bytes in MiB or GiB, for messages.
func Size(n uint64) string {
	if n >= 10<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", n>>20)
}
