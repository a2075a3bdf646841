//go:build unix

package uci

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the engine in a process group of its own: a Ctrl-C at the
// terminal goes to the caller, which ends its engines in order, and not
// straight to the engines (whose sudden deaths would read as crashes).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the engine and whatever it started.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		cmd.Process.Kill()
	}
}
