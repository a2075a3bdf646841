package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/palace-chess/palace/internal/runlock"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/rundir"
	"github.com/palace-chess/palace/store"
)

// LocalNATSDir is where a local asynchronous run keeps its queue, results
// and state, inside its run directory.
const LocalNATSDir = "nats"

// localRun is the run name of a local asynchronous run on its own server.
const localRun = "local"

// LocalOptions are a local asynchronous run's settings.
type LocalOptions struct {
	// Progress receives the roles' and the worker's reports (nil: none).
	Progress    func(Event)
	CodeVersion string
	// WorkerSlots is the number of self-play blocks (or gate pairs) the
	// run's worker plays at once (default 1: a block plays many games at
	// once, and training shares the cores).
	WorkerSlots int
}

// RunLocal runs an asynchronous run (async: enabled) on this machine
// alone (issue 46): the collector, trainer and gatekeeper of Async and one
// worker, coordinated through a NATS server inside this process that
// opens no port and keeps its JetStream store in DIR/nats, so that the run
// directory is a loop run directory (palace report reads it) and the same
// call resumes it after a stop or a kill. configYAML is the run's config
// (dir's config.yaml, which the caller has written), cfg its parse.
func RunLocal(ctx context.Context, dir string, configYAML []byte, cfg loop.Config, opt LocalOptions) error {
	if !cfg.Async.Enabled {
		return errors.New("cluster: RunLocal runs asynchronous runs (async: enabled)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	st, err := store.NewDir(abs)
	if err != nil {
		return err
	}
	// One process a run directory, as palace run's local loop.
	unlock, err := runlock.Lock(filepath.Join(abs, rundir.LockKey))
	if errors.Is(err, runlock.ErrLocked) {
		return fmt.Errorf("cluster: another palace run is using %s", abs)
	}
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	defer unlock()
	srv, err := server.NewServer(&server.Options{ServerName: "palace-local", DontListen: true, JetStream: true,
		StoreDir: filepath.Join(abs, LocalNATSDir), NoLog: true, NoSigs: true})
	if err != nil {
		return fmt.Errorf("cluster: the run's NATS server: %w", err)
	}
	go srv.Start()
	defer func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	}()
	if !srv.ReadyForConnections(30 * time.Second) {
		return fmt.Errorf("cluster: the run's NATS server (store %s) did not start", filepath.Join(abs, LocalNATSDir))
	}
	connect := func(name string) (*Conn, error) {
		nc, err := nats.Connect("", nats.InProcessServer(srv), nats.Name(name))
		if err != nil {
			return nil, fmt.Errorf("cluster: connecting to the run's NATS server: %w", err)
		}
		c, err := create(ctx, nc, localRun, Settings{})
		if err != nil {
			nc.Close()
			return nil, err
		}
		return c, nil
	}
	roles, err := connect("palace run (roles)")
	if err != nil {
		return err
	}
	defer roles.Close()
	if _, err := Start(ctx, roles, st, "file://"+abs, configYAML, opt.CodeVersion); err != nil {
		return err
	}
	// The worker's connection of its own, as a worker process's.
	wc, err := connect("palace run (worker)")
	if err != nil {
		return err
	}
	defer wc.Close()
	a, err := NewAsync(roles, st, cfg, RoleOptions{WorkDir: abs, Progress: opt.Progress, CodeVersion: opt.CodeVersion})
	if err != nil {
		return err
	}
	// The worker's temporary block directories inside the run's too:
	// nothing is written outside the paths the user gave. Those a killed
	// run left are its own (the run is locked): removed.
	tmp := filepath.Join(abs, "tmp")
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	w, err := NewWorker(ctx, wc, WorkerOptions{Name: "local", Slots: max(opt.WorkerSlots, 1), WorkDir: tmp, Progress: opt.Progress,
		CodeVersion: opt.CodeVersion, Bucket: st, UntilDone: true})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var werr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if werr = w.Run(ctx); werr != nil {
			cancel(werr)
		}
	}()
	// Done or stopped: the worker hands back what it holds (a finished
	// run's queue holds nothing it needs).
	err = a.Run(ctx)
	cancel(nil)
	<-done
	return errors.Join(err, werr)
}
