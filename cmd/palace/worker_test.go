package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/store"
)

// palace run --distributed with two local workers runs a generation into a
// file:// bucket that palace report reads as it reads a local run.
func TestRunDistributed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a distributed generation")
	}
	url := looptest.NATS(t)
	dir := t.TempDir()
	cfgFile := filepath.Join(t.TempDir(), "tiny.yaml")
	yaml := looptest.Merge(t, tinyRunYAML(t), "generations: 1")
	if err := os.WriteFile(cfgFile, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	// A worker started before the run waits for it, plays, and stops
	// when the run is done. The run starts once the worker says it waits:
	// a worker slower to connect than the run to start would join a
	// running run and never wait.
	var wout lockedBuffer
	worker := make(chan error, 1)
	go func() {
		worker <- runWorker([]string{"--nats", url, "--run", "cmdtest", "--until-done", "--name", "w1"}, nil, &wout, &wout)
	}()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(wout.String(), "waiting for run cmdtest to start"); {
		if time.Now().After(deadline) {
			t.Fatalf("palace worker does not wait for the run:\n%s", wout.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	var out, errOut bytes.Buffer
	args := []string{"--distributed", "--nats", url, "--run", "cmdtest", "--bucket", "file://" + dir, "--config", cfgFile,
		"--workers", "1", "--progress", "log", "--ack-wait", "5s", "--work", t.TempDir()}
	if err := runRun(args, nil, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s%s", err, errOut.String(), out.String())
	}
	select {
	case err := <-worker:
		if err != nil || !strings.Contains(wout.String(), "jobs played") {
			t.Errorf("palace worker: %v\n%s", err, wout.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("palace worker --until-done did not stop after the run")
	}
	// Each role says what it does as it does it: connecting, waiting,
	// taking and returning jobs, training steps.
	for _, want := range []string{"run: connecting to NATS at " + url, "run: connected", "trainer: gen 0: step ", "trainer: gen 0: self-play block 1/",
		"gatekeeper: gen 0: pair ", "worker local-0: waiting for jobs (1 slot)", ": taken (delivery 1)", "done in "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("palace run --distributed's log lacks %q:\n%s", want, out.String())
		}
	}
	for _, want := range []string{"worker: connecting to NATS", "worker: waiting for run cmdtest to start", "worker w1: joined run cmdtest"} {
		if !strings.Contains(wout.String(), want) {
			t.Errorf("palace worker's log lacks %q:\n%s", want, wout.String())
		}
	}
	st, _ := store.NewDir(dir)
	if b, err := st.Read(loop.StateKey); err != nil || !strings.Contains(string(b), `"generation":1`) {
		t.Fatalf("state %s, %v\n%s", b, err, out.String())
	}
	out.Reset()
	if err := runReport([]string{dir}, nil, &out, &errOut); err != nil {
		t.Fatalf("palace report on the bucket: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "gen") {
		t.Errorf("report:\n%s", out.String())
	}
	// A second start with another config is refused; joining without one works.
	other := filepath.Join(t.TempDir(), "other.yaml")
	os.WriteFile(other, []byte(strings.Replace(yaml, "seed: 3", "seed: 4", 1)), 0o644)
	err := runRun([]string{"--distributed", "--nats", url, "--run", "cmdtest", "--bucket", "file://" + dir, "--config", other, "--progress", "none"}, nil, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "another configuration") {
		t.Errorf("restarting with another config: %v", err)
	}
	err = runGatekeeper([]string{"--nats", url, "--run", "cmdtest", "--progress", "none"}, nil, &out, &errOut)
	if err != nil {
		t.Errorf("joining a finished run: %v", err)
	}
}

// A worker says what it does from its first second: connecting, then
// waiting for a run that is not started yet.
func TestWorkerSaysItWaits(t *testing.T) {
	url := looptest.NATS(t)
	var out, errOut bytes.Buffer
	err := runWorker([]string{"--nats", url, "--run", "idle", "--name", "w9", "--duration", "1s"}, nil, &out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"worker: connecting to NATS at " + url + " (run idle)\n", "worker: waiting for run idle to start (no such run on the server yet: its trainer creates it)\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := runWorker([]string{"--nats", url, "--run", "idle", "--duration", "1s", "--progress", "none"}, nil, &out, &errOut); err != nil || out.Len() != 0 {
		t.Errorf("--progress none: %v, %q", err, out.String())
	}
}

func TestClusterFlagErrors(t *testing.T) {
	url := looptest.NATS(t)
	for _, tc := range []struct {
		run  func([]string, *bytes.Buffer) error
		args []string
		want string
	}{
		{func(a []string, b *bytes.Buffer) error { return runWorker(a, nil, b, b) }, []string{"--slots", "0"}, "--slots"},
		{func(a []string, b *bytes.Buffer) error { return runWorker(a, nil, b, b) }, []string{"--nats", url, "--run", "a b"}, "run name"},
		{func(a []string, b *bytes.Buffer) error { return runWorker(a, nil, b, b) }, []string{"--nats", url, "--progress", "x"}, "--progress"},
		{func(a []string, b *bytes.Buffer) error { return runTrainer(a, nil, b, b) }, []string{"--nats", url, "--run", "fresh"}, "--bucket"},
		{func(a []string, b *bytes.Buffer) error { return runTrainer(a, nil, b, b) }, []string{"--nats", url, "--run", "fresh", "--bucket", "ftp://x"}, "unknown scheme"},
		{func(a []string, b *bytes.Buffer) error { return runGatekeeper(a, nil, b, b) }, []string{"--nats", url, "--run", "fresh"}, "no such run \"fresh\""},
		{func(a []string, b *bytes.Buffer) error { return runRun(a, nil, b, b) }, []string{"--workers", "2"}, "--distributed"},
		{func(a []string, b *bytes.Buffer) error { return runRun(a, nil, b, b) }, []string{"--distributed", "--dir", "x"}, "--bucket"},
	} {
		var buf bytes.Buffer
		err := tc.run(tc.args, &buf)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error about %s", tc.args, err, tc.want)
		}
	}
}

// lockedBuffer is a bytes.Buffer that a goroutine writes while the test
// reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
