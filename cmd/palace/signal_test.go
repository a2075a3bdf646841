//go:build unix

package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// asPalaceEnv makes the test binary palace itself (TestMain calls main),
// for tests that need a process to signal without building palace.
const asPalaceEnv = "PALACE_TEST_AS_PALACE"

// A job stopped by SIGTERM or Ctrl-C keeps what it finished, says how to
// resume, and exits 128 + the signal (issue 25: selfplay exited 0, as if
// it had finished), so that a script can tell.
func TestSignalExitStatus(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run.yaml")
	os.WriteFile(run, []byte(tinyRunYAML(t)), 0o644)
	for _, tc := range []struct {
		sig   syscall.Signal
		code  int
		name  string
		args  []string
		after string // the output line after which to signal
		want  string // on standard error
	}{
		{syscall.SIGTERM, 143, "SIGTERM",
			[]string{"selfplay", "--config", tinySelfplayConfig(t, filepath.Join(dir, "sp1"), "janggi", 400, 200, ""), "--progress", "log", "--interval", "50ms"},
			"event=shard", " of 400 games in " + filepath.Join(dir, "sp1") + "; run the same command again to continue"},
		{syscall.SIGINT, 130, "SIGINT (Ctrl-C)",
			[]string{"selfplay", "--config", tinySelfplayConfig(t, filepath.Join(dir, "sp2"), "janggi", 400, 200, ""), "--progress", "log", "--interval", "50ms"},
			"event=shard", " of 400 games in " + filepath.Join(dir, "sp2") + "; run the same command again to continue"},
		{syscall.SIGTERM, 143, "SIGTERM",
			[]string{"arena", "--rules", "xiangqi", "--pairs", "5000", "--openings", "100", "--player", "random", "--player", "random", "--records", filepath.Join(dir, "a.jsonl"), "--progress", "log"},
			"games", " of at most 10000 games recorded in " + filepath.Join(dir, "a.jsonl") + "; run the same command again to resume"},
		{syscall.SIGINT, 130, "SIGINT (Ctrl-C)",
			[]string{"run", "--config", run, "--dir", filepath.Join(dir, "run"), "--progress", "log"},
			"selfplay", "the same command resumes the run in " + filepath.Join(dir, "run")},
	} {
		cmd := exec.Command(os.Args[0], tc.args...)
		cmd.Env = append(os.Environ(), asPalaceEnv+"=1")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		for sc.Scan() && !strings.Contains(sc.Text(), tc.after) {
		}
		cmd.Process.Signal(tc.sig)
		for sc.Scan() {
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err = <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%s %s: still running 60 s after the signal", tc.args[0], tc.name)
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != tc.code {
			t.Errorf("%s %s: %v, want exit status %d; stderr:\n%s", tc.args[0], tc.name, err, tc.code, stderr.String())
			continue
		}
		want := "palace " + tc.args[0] + ": interrupted by " + tc.name + "; "
		if !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s %s: stderr %q, want %q and %q", tc.args[0], tc.name, stderr.String(), want, tc.want)
		}
	}
}

// A signal during an external engine's start-up handshake stops the job
// at once, not after the handshake's 30 s (issue 25's hostile pass:
// ladder calibrate with an engine that never answers outlived SIGTERM).
func TestSignalDuringEngineStart(t *testing.T) {
	if _, err := os.Stat("/bin/cat"); err != nil {
		t.Skip("no /bin/cat")
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"arena", "--player", "uci:/bin/cat,nodes=1", "--player", "random", "--pairs", "1", "--records", filepath.Join(dir, "a.jsonl"), "--progress", "none"},
		{"ladder", "calibrate", "--out", filepath.Join(dir, "s.json"), "--engine", "/bin/cat", "--nodes", "1,2", "--pairs", "1", "--dir", filepath.Join(dir, "cal"), "--progress", "none"},
	} {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), asPalaceEnv+"=1")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 143 || !strings.Contains(stderr.String(), "interrupted by SIGTERM") {
				t.Errorf("%s: %v, stderr %q; want exit 143, interrupted", args[0], err, stderr.String())
			}
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			t.Errorf("%s: still running 5 s after SIGTERM", args[0])
		}
	}
}
