package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/cluster"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/store"
)

// startClusterRun starts run on the NATS server at url with config yaml and its
// bucket in a new directory, as palace trainer would, and returns the
// bucket's directory.
func startClusterRun(t *testing.T, url, run, yaml string) string {
	t.Helper()
	dir := t.TempDir()
	c, err := cluster.Connect(context.Background(), url, run, "test", cluster.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, _ := store.NewDir(dir)
	if _, err := cluster.Start(context.Background(), c, st, "file://"+dir, []byte(yaml), "test"); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A worker runs only the engines its operator named: a run whose ladder
// plays another program (the config comes from the NATS server, which
// anyone who reaches it can write) is refused, and the program never runs.
func TestWorkerRunsOnlyAllowedEngines(t *testing.T) {
	url := looptest.NATS(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	evil := filepath.Join(dir, "evil.sh")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	startClusterRun(t, url, "eng", looptest.Merge(t, tinyRunYAML(t), "ladder: {every: 1, engine: "+evil+"}"))
	var out bytes.Buffer
	for _, extra := range [][]string{nil, {"--engine", "/bin/sh"}} {
		args := append([]string{"--nats", url, "--run", "eng", "--duration", "5s", "--work", t.TempDir()}, extra...)
		err := runWorker(args, nil, &out, &out)
		if err == nil || !strings.Contains(err.Error(), "ladder plays engine "+evil) || !strings.Contains(err.Error(), "--engine "+evil) {
			t.Errorf("palace worker %q: %v, want a refusal of %s", extra, err, evil)
		}
	}
	err := runWorker([]string{"--nats", url, "--run", "eng", "--duration", "1s", "--work", t.TempDir(), "--engine", evil, "--progress", "none"}, nil, &out, &out)
	if err != nil {
		t.Errorf("palace worker --engine %s: %v\n%s", evil, err, out.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the run's engine ran on the worker")
	}
}

// A worker checks its own set-up before it takes a job.
func TestWorkerChecksWorkDir(t *testing.T) {
	url := looptest.NATS(t)
	startClusterRun(t, url, "wd", tinyRunYAML(t))
	var out bytes.Buffer
	err := runWorker([]string{"--nats", url, "--run", "wd", "--duration", "5s", "--work", "/no/such/dir"}, nil, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "work directory /no/such/dir") {
		t.Errorf("palace worker --work /no/such/dir: %v", err)
	}
}

// A distributed run's bucket must be fit for a run, and is checked
// before anything is created on the server: a directory holding other
// files (/ among them), dot segments (percent-encoded too), a query or
// fragment on a file URL, mem://.
func TestDistributedBucketRefused(t *testing.T) {
	url := looptest.NATS(t)
	busy := t.TempDir()
	os.WriteFile(filepath.Join(busy, "notes.txt"), []byte("x"), 0o644)
	esc := t.TempDir()
	for _, tc := range []struct{ bucket, want string }{
		{"file://" + busy, "is not a run (no config.yaml) and holds other files (notes.txt)"},
		{"file:///", "is not a run"},
		{"file://" + esc + "/bk/%2e%2e/%2e%2e/esc", `".." segment`},
		{"file://" + esc + "?x=1", "no query"},
		{"file://" + esc + "#x", "fragment"},
		{"mem://", "mem:// lives in one process"},
	} {
		var out bytes.Buffer
		err := runTrainer([]string{"--nats", url, "--run", "bk", "--bucket", tc.bucket, "--progress", "none"}, nil, &out, &out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("palace trainer --bucket %s: %v, want an error about %s", tc.bucket, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(esc); len(entries) != 0 {
		t.Errorf("a refused bucket's directory was written to: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(esc), "esc")); err == nil {
		t.Error("the escaping path was created")
	}
	var out bytes.Buffer
	err := runGatekeeper([]string{"--nats", url, "--run", "bk", "--progress", "none"}, nil, &out, &out)
	if err == nil || !strings.Contains(err.Error(), `no such run "bk"`) {
		t.Errorf("after refused starts, the run exists on the server: %v", err)
	}
}

// The run's delivery settings are set by the role that starts it: a
// worker or gatekeeper given them is refused (it would reset them), and
// a worker given a mistyped run name creates nothing on the server.
func TestRunSettingsAndNames(t *testing.T) {
	url := looptest.NATS(t)
	var out bytes.Buffer
	for _, run := range []func([]string, *bytes.Buffer) error{
		func(a []string, b *bytes.Buffer) error { return runWorker(a, nil, b, b) },
		func(a []string, b *bytes.Buffer) error { return runGatekeeper(a, nil, b, b) },
	} {
		for _, flag := range []string{"--ack-wait=5s", "--max-deliver=2"} {
			err := run([]string{"--nats", url, "--run", "x", flag}, &out)
			if err == nil || !strings.Contains(err.Error(), "the run's settings") {
				t.Errorf("%s: %v", flag, err)
			}
		}
	}
	if err := runWorker([]string{"--nats", url, "--run", "typo", "--duration", "2s", "--progress", "none"}, nil, &out, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "no run typo on") {
		t.Errorf("a worker waiting for a run that does not exist says nothing:\n%s", out.String())
	}
	err := runGatekeeper([]string{"--nats", url, "--run", "typo", "--progress", "none"}, nil, &out, &out)
	if err == nil || !strings.Contains(err.Error(), `no such run "typo"`) {
		t.Errorf("a worker's mistyped run exists on the server: %v", err)
	}
}

// palace run --distributed's own workers may play the ladder engine of
// the config its command line gave, not that of a config only read from
// the server, unless --engine names it.
func TestRunDistributedEngines(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a distributed run")
	}
	url := looptest.NATS(t)
	dir := t.TempDir()
	evil := filepath.Join(dir, "engine.sh")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(cfgFile, []byte(looptest.Merge(t, tinyRunYAML(t), "ladder: {every: 1, engine: "+evil+"}")), 0o644); err != nil {
		t.Fatal(err)
	}
	bucket := "file://" + filepath.Join(dir, "bucket")
	var out bytes.Buffer
	base := []string{"--distributed", "--nats", url, "--run", "own", "--workers", "1", "--duration", "2s", "--progress", "none", "--work", t.TempDir()}
	if err := runRun(append(base, "--bucket", bucket, "--config", cfgFile), nil, &out, &out); err != nil {
		t.Fatalf("starting with its own config: %v\n%s", err, out.String())
	}
	err := runRun(base, nil, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "--engine "+evil) {
		t.Errorf("joining with a config read from the server: %v, want a refusal naming --engine", err)
	}
	if err := runRun(append(base, "--engine", evil), nil, &out, &out); err != nil {
		t.Errorf("joining with --engine: %v\n%s", err, out.String())
	}
}
