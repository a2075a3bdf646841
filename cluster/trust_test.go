package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/store"
)

// Only the run's creator makes anything on the server: Join, the other
// roles' connection, finds no run of a mistyped name and leaves no
// stream or bucket behind; told to wait, it returns once the run exists.
func TestJoinCreatesNothing(t *testing.T) {
	url := looptest.NATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := Join(ctx, url, "typo", "t", nil); !errors.Is(err, ErrNoRun) || !strings.Contains(err.Error(), `no such run "typo"`) {
		t.Fatalf("joining a run that does not exist: %v", err)
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	for name := range js.StreamNames(ctx).Name() {
		t.Errorf("Join created stream %s", name)
	}
	if _, err := js.KeyValue(ctx, "palace_typo"); !errors.Is(err, jetstream.ErrBucketNotFound) {
		t.Errorf("Join created the key-value bucket: %v", err)
	}

	waited := make(chan struct{})
	joined := make(chan error, 1)
	go func() {
		c, err := Join(ctx, url, "later", "t", func() { close(waited) })
		if err == nil {
			c.Close()
		}
		joined <- err
	}()
	<-waited
	c := connectRun(t, url, "later", Settings{})
	defer c.Close()
	if err := <-joined; err != nil {
		t.Errorf("a Join waiting for the run: %v", err)
	}
}

// The run's delivery settings are its own: a role connecting with none
// given (a restarted trainer) or joining keeps them, and only settings
// given change them.
func TestSettingsKept(t *testing.T) {
	url := looptest.NATS(t)
	ctx := context.Background()
	check := func(c *Conn, want Settings) {
		t.Helper()
		got, err := c.Settings(ctx)
		if err != nil || got != want {
			t.Errorf("settings %+v, %v; want %+v", got, err, want)
		}
	}
	c := connectRun(t, url, "s", Settings{})
	check(c, Settings{AckWait: DefaultAckWait, MaxDeliver: DefaultMaxDeliver})
	c.Close()
	c = connectRun(t, url, "s", Settings{AckWait: 10 * time.Second})
	check(c, Settings{AckWait: 10 * time.Second, MaxDeliver: DefaultMaxDeliver})
	c.Close()
	c = connectRun(t, url, "s", Settings{})
	check(c, Settings{AckWait: 10 * time.Second, MaxDeliver: DefaultMaxDeliver})
	c.Close()
	j, err := Join(ctx, url, "s", "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	check(j, Settings{AckWait: 10 * time.Second, MaxDeliver: DefaultMaxDeliver})
	j.Close()
	c = connectRun(t, url, "s", Settings{MaxDeliver: 2})
	check(c, Settings{AckWait: 10 * time.Second, MaxDeliver: 2})
	c.Close()
}

func connectRun(tb testing.TB, url, run string, set Settings) *Conn {
	tb.Helper()
	c, err := Connect(context.Background(), url, run, "t", set)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// A worker runs only the engines its operator allowed: a run whose
// ladder names another program is refused before the worker takes a job,
// and the program never runs.
func TestWorkerEngineAllowed(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	evil := filepath.Join(dir, "evil.sh")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	url := looptest.NATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bucket := filepath.Join(dir, "bucket")
	st, err := store.Open("file://" + bucket)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, url, "roles")
	yaml := looptest.Merge(t, tinyYAML(t), "ladder: {every: 1, engine: "+evil+"}")
	if _, err := Start(ctx, c, st, "file://"+bucket, []byte(yaml), "test"); err != nil {
		t.Fatal(err)
	}
	for _, allowed := range [][]string{nil, {"/bin/sh"}, {filepath.Join(dir, "other.sh")}} {
		_, err := NewWorker(ctx, connect(t, url, "w"), WorkerOptions{WorkDir: t.TempDir(), Engines: allowed})
		if !errors.Is(err, ErrWorkerSetup) || !strings.Contains(err.Error(), "--engine "+evil) {
			t.Errorf("engines %q: %v, want a refusal naming --engine %s", allowed, err, evil)
		}
	}
	// Allowed by a link to it: the same program.
	link := filepath.Join(dir, "link.sh")
	if err := os.Symlink(evil, link); err != nil {
		t.Fatal(err)
	}
	if _, err := NewWorker(ctx, connect(t, url, "w"), WorkerOptions{WorkDir: t.TempDir(), Engines: []string{link}}); err != nil {
		t.Errorf("an allowed engine: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the engine ran")
	}
}

func TestEngineAllowed(t *testing.T) {
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct {
		program string
		allowed []string
		want    bool
	}{
		{"/bin/sh", []string{"/bin/sh"}, true},
		{"/bin/sh", []string{sh}, true},
		{"sh", []string{"/bin/sh"}, os.Getenv("PATH") != ""},
		{"/bin/sh", nil, false},
		{"/bin/sh", []string{"/no/such/program", "/bin/true"}, false},
	} {
		got, err := EngineAllowed(tc.program, tc.allowed)
		if err != nil || got != tc.want {
			t.Errorf("EngineAllowed(%q, %q) = %v, %v; want %v", tc.program, tc.allowed, got, err, tc.want)
		}
	}
	if _, err := EngineAllowed("/no/such/program", []string{"/no/such/program"}); err == nil {
		t.Error("a program that is not there was allowed")
	}
}

// A worker checks its own set-up before it takes a job: a work directory
// it cannot use is refused at once, with no job taken.
func TestWorkerWorkDir(t *testing.T) {
	url := looptest.NATS(t)
	c := connect(t, url, "w")
	_, err := NewWorker(context.Background(), c, WorkerOptions{WorkDir: "/no/such/dir", Handler: func(context.Context, Job) (Result, error) {
		t.Error("a job was played")
		return Result{}, nil
	}})
	if !errors.Is(err, ErrWorkerSetup) || !strings.Contains(err.Error(), "work directory /no/such/dir") {
		t.Errorf("a missing work directory: %v", err)
	}
}

// A job that fails for its worker's own reason goes back to the queue
// with its deliveries not counted, the worker stops, and another worker
// plays the job: with MaxDeliver 1, a plain failure would have ended the
// run.
func TestWorkerSetupFailureRequeues(t *testing.T) {
	ctx, c := oneJobQueued(t, "rq")
	broken, err := NewWorker(ctx, c, WorkerOptions{Name: "broken", Handler: func(context.Context, Job) (Result, error) {
		return Result{}, fmt.Errorf("%w: disk full", ErrWorkerSetup)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := broken.Run(ctx); !errors.Is(err, ErrWorkerSetup) {
		t.Fatalf("the broken worker's Run: %v, want its set-up error", err)
	}
	playedWhole(ctx, t, c)
}

// A worker stopped while it plays hands its job back whole: with
// MaxDeliver 1, a nak would have spent the job's only delivery.
func TestWorkerStopHandsJobBack(t *testing.T) {
	ctx, c := oneJobQueued(t, "st")
	taken := make(chan struct{})
	stopping, err := NewWorker(ctx, c, WorkerOptions{Name: "stopping", Slots: 2, Handler: func(jctx context.Context, _ Job) (Result, error) {
		close(taken)
		<-jctx.Done()
		return Result{}, jctx.Err()
	}})
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- stopping.Run(wctx) }()
	<-taken
	stop()
	if err := <-done; err != nil {
		t.Fatalf("the stopped worker's Run: %v", err)
	}
	playedWhole(ctx, t, c)
}

// oneJobQueued connects to a new server as run name with MaxDeliver 1 and
// queues self-play job 7: one delivery, so a job spent on anything but
// its own failure is lost.
func oneJobQueued(t *testing.T, name string) (context.Context, *Conn) {
	t.Helper()
	url := looptest.NATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	c, err := Connect(ctx, url, name, "test", Settings{AckWait: 5 * time.Second, MaxDeliver: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if err := c.enqueue(ctx, []Job{{Kind: KindSelfplay, Shard: 7}}); err != nil {
		t.Fatal(err)
	}
	return ctx, c
}

// playedWhole runs a worker that plays job 7 of a test's queue and checks
// that it came as a first delivery and that its result is the one folded.
func playedWhole(ctx context.Context, t *testing.T, c *Conn) {
	t.Helper()
	var mu sync.Mutex
	var delivered []uint64
	good, err := NewWorker(ctx, c, WorkerOptions{Name: "good", Handler: func(context.Context, Job) (Result, error) { return Result{Games: 1}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	good.onJob = func(j Job, n uint64) {
		mu.Lock()
		delivered = append(delivered, n)
		mu.Unlock()
	}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- good.Run(wctx) }()
	var got *Result
	// Played at once when it came back whole; a lost job fails the test
	// here (it would come back only after AckWait, past MaxDeliver).
	fctx, fcancel := context.WithTimeout(ctx, 20*time.Second)
	defer fcancel()
	err = c.followResults(fctx, KindSelfplay, 0, func(r *Result) (bool, error) { got = r; return true, nil })
	stop()
	<-done
	if err != nil || got == nil || got.Worker != "good" || got.Job.Shard != 7 {
		t.Fatalf("the job handed back by its first worker: %+v, %v", got, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(delivered) != 1 || delivered[0] != 1 {
		t.Errorf("the second worker's deliveries of the job: %v, want [1]", delivered)
	}
}

// A distributed run's bucket is a run's or new: one that holds other
// files, another run's config, or (for a started run) not the run's
// config is refused, and so is an in-memory one.
func TestStartBucketChecks(t *testing.T) {
	url := looptest.NATS(t)
	ctx := context.Background()
	c := connect(t, url, "b")
	busy := t.TempDir()
	os.WriteFile(filepath.Join(busy, "notes.txt"), []byte("x"), 0o644)
	st, _ := store.NewDir(busy)
	if _, err := Start(ctx, c, st, "file://"+busy, []byte(tinyYAML(t)), "test"); err == nil || !strings.Contains(err.Error(), "is not a run (no config.yaml) and holds other files (notes.txt)") {
		t.Errorf("a bucket with other files: %v", err)
	}
	if _, err := os.Stat(filepath.Join(busy, loop.ConfigKey)); err == nil {
		t.Error("the refused bucket was written to")
	}
	if _, ok, _ := c.Info(ctx); ok {
		t.Error("a run was started on a refused bucket")
	}
	good := t.TempDir()
	gst, _ := store.NewDir(good)
	if _, err := Start(ctx, c, gst, "file://"+good, []byte(tinyYAML(t)), "test"); err != nil {
		t.Fatal(err)
	}
	other, _ := store.NewDir(t.TempDir())
	if _, err := Start(ctx, c, other, "file:///elsewhere", nil, "test"); err == nil || !strings.Contains(err.Error(), "does not hold run t1's config.yaml") {
		t.Errorf("joining with another bucket: %v", err)
	}
	other.Write(loop.ConfigKey, []byte("seed: 5\n"))
	if _, err := Start(ctx, c, other, "file:///elsewhere", nil, "test"); err == nil || !strings.Contains(err.Error(), "another run's config.yaml") {
		t.Errorf("joining with another run's bucket: %v", err)
	}
	if _, err := OpenStore("mem://"); err == nil || !strings.Contains(err.Error(), "mem://") {
		t.Errorf("an in-memory bucket: %v", err)
	}
}

// A server that requires a user and password takes them from the URL,
// and messages show the URL with the password hidden.
func TestConnectWithCredentials(t *testing.T) {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(),
		NoLog: true, NoSigs: true, Username: "palace", Password: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("the NATS server did not start")
	}
	defer s.Shutdown()
	addr := strings.TrimPrefix(s.ClientURL(), "nats://")
	c, err := Connect(context.Background(), "nats://palace:s3cret@"+addr, "cred", "t", Settings{})
	if err != nil {
		t.Fatalf("with credentials: %v", err)
	}
	c.Close()
	_, err = Connect(context.Background(), "nats://palace:wrong@"+addr, "cred", "t", Settings{})
	if err == nil || strings.Contains(err.Error(), "wrong") {
		t.Errorf("a wrong password: %v (it must fail, and not show the password)", err)
	}
	if got := Redact("nats://u:pw@h:1,nats://h2:2"); got != "nats://u:xxxxx@h:1,nats://h2:2" {
		t.Errorf("Redact: %s", got)
	}
}
