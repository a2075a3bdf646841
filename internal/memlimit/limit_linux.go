package memlimit

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

func limit() (free uint64, what string, ok bool) {
	consider := func(f uint64, w string) {
		if !ok || f < free {
			free, what, ok = f, w, true
		}
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err == nil && rl.Cur != ^uint64(0) {
		used := vmSize()
		consider(sub(rl.Cur, used), "the address-space limit (ulimit -v) of "+Size(rl.Cur)+", "+Size(used)+" in use")
	}
	if max, used, ok := cgroup(); ok {
		consider(sub(max, used), "the cgroup's memory limit of "+Size(max)+", "+Size(used)+" in use")
	}
	if avail, ok := meminfo("MemAvailable:"); ok {
		consider(avail, "the machine's available memory")
	}
	return
}

func sub(a, b uint64) uint64 {
	if b >= a {
		return 0
	}
	return a - b
}

// vmSize is the process's address space in use (/proc/self/statm's first
// field, in pages).
func vmSize() uint64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[0], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// cgroup is the memory limit and use of the process's cgroup (v2, else
// v1); ok is false without a limit.
func cgroup() (max, used uint64, ok bool) {
	read := func(path string) (uint64, bool) {
		data, err := os.ReadFile(path)
		if err != nil {
			return 0, false
		}
		n, err := strconv.ParseUint(string(bytes.TrimSpace(data)), 10, 64)
		return n, err == nil // "max" (v2's no limit) is no number
	}
	for _, dir := range []string{"/sys/fs/cgroup" + cgroupPath(), "/sys/fs/cgroup"} {
		if m, ok := read(dir + "/memory.max"); ok {
			u, _ := read(dir + "/memory.current")
			return m, u, true
		}
	}
	if m, ok := read("/sys/fs/cgroup/memory/memory.limit_in_bytes"); ok && m < 1<<62 {
		u, _ := read("/sys/fs/cgroup/memory/memory.usage_in_bytes")
		return m, u, true
	}
	return 0, 0, false
}

// cgroupPath is the process's cgroup v2 path ("" where unknown).
func cgroupPath() string {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return strings.TrimSpace(p)
		}
	}
	return ""
}

// meminfo is one /proc/meminfo field in bytes.
func meminfo(field string) (uint64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
