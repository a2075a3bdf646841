package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/palace-chess/palace/cluster"
	"github.com/palace-chess/palace/store"
)

// clusterFlags are the flags every role of a distributed run takes.
type clusterFlags struct {
	nats, run, bucket *string
	ackWait           *time.Duration
	maxDeliver        *int
	progress          *string
}

// addClusterFlags adds them to fs; progress is the flag set's own
// --progress when it has one. A role prints log lines (what it does, as
// it does it) for every --progress but none: it has no status line.
func addClusterFlags(fs *flag.FlagSet, progress *string) *clusterFlags {
	def := os.Getenv("PALACE_NATS")
	if def == "" {
		def = "nats://127.0.0.1:4222"
	}
	if progress == nil {
		progress = addProgressFlag(fs)
	}
	return &clusterFlags{
		progress:   progress,
		nats:       fs.String("nats", def, "NATS server URL(s), comma-separated, with JetStream enabled (default: $PALACE_NATS, else nats://127.0.0.1:4222)"),
		run:        fs.String("run", "palace", "the run's name: its streams and key-value bucket on the server"),
		bucket:     fs.String("bucket", "", "the run's artifacts: file:///DIR (a local or shared directory), s3://BUCKET[/PREFIX]?region=R, gs://BUCKET[/PREFIX], azblob://CONTAINER[/PREFIX]; roles joining a started run default to the run's"),
		ackWait:    fs.Duration("ack-wait", time.Minute, "a job not acknowledged, or signalled in progress, for this long goes to another worker"),
		maxDeliver: fs.Int("max-deliver", 5, "the most times a job is handed out before its failure stops the run"),
	}
}

// clusterRole is one role's connection to a distributed run, opened by
// clusterFlags.join: its stop context, log and NATS connection.
type clusterRole struct {
	name string
	ctx  context.Context
	log  io.Writer
	conn *cluster.Conn
	stop context.CancelFunc
}

// join checks --progress, makes the stop context (after duration, when
// positive) and connects as role; Close ends both.
func (f *clusterFlags) join(role string, duration time.Duration, stdout io.Writer) (*clusterRole, error) {
	log, err := f.log(stdout)
	if err != nil {
		return nil, err
	}
	ctx, stop := stopContext(duration)
	r := &clusterRole{name: role, ctx: ctx, log: log, stop: stop}
	r.logf("connecting to NATS at %s (run %s)", *f.nats, *f.run)
	if r.conn, err = f.connect(ctx, role); err != nil {
		stop()
		return nil, err
	}
	r.logf("connected")
	return r, nil
}

// logf writes a log line as the cluster package's roles do: the time,
// the role, what it does.
func (r *clusterRole) logf(format string, a ...any) {
	if r.log != nil {
		fmt.Fprintf(r.log, "%s %s: %s\n", time.Now().UTC().Format(time.RFC3339), r.name, fmt.Sprintf(format, a...))
	}
}

func (r *clusterRole) Close() {
	r.conn.Close()
	r.stop()
}

// options are the role's cluster.RoleOptions, with its work directory.
func (r *clusterRole) options(work string) cluster.RoleOptions {
	return cluster.RoleOptions{WorkDir: work, Log: r.log, CodeVersion: codeVersion()}
}

// announce says on stderr which run the role serves, and where its
// artifacts are.
func (r *clusterRole) announce(stderr io.Writer, f *clusterFlags, url string) {
	fmt.Fprintf(stderr, "palace %s: run %s on %s, artifacts in %s\n", r.name, *f.run, *f.nats, url)
}

func (f *clusterFlags) connect(ctx context.Context, role string) (*cluster.Conn, error) {
	if *f.ackWait < time.Second || *f.maxDeliver < 1 {
		return nil, usageError{"--ack-wait must be at least 1s and --max-deliver at least 1"}
	}
	host, _ := os.Hostname()
	return cluster.Connect(ctx, *f.nats, *f.run, fmt.Sprintf("palace %s %s-%d", role, host, os.Getpid()),
		cluster.Settings{AckWait: *f.ackWait, MaxDeliver: *f.maxDeliver})
}

func (f *clusterFlags) log(stdout io.Writer) (io.Writer, error) {
	show, _, err := progressFlag(*f.progress, stdout)
	if err != nil || !show {
		return nil, err
	}
	return newStatus(stdout, true, false).writer(), nil
}

// store opens --bucket, or the bucket the run was started with.
func (f *clusterFlags) store(ctx context.Context, c *cluster.Conn) (store.Store, string, error) {
	url := *f.bucket
	if url == "" {
		ri, ok, err := c.Info(ctx)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			return nil, "", usagef("run %q is not started on %s: give --bucket (and start it with palace trainer or palace run --distributed)", *f.run, *f.nats)
		}
		url = ri.Bucket
	}
	st, err := store.Open(url)
	return st, url, err
}

func runWorker(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("worker", stderr)
	cf := addClusterFlags(fs, nil)
	slots := fs.Int("slots", 1, "jobs played at once (a self-play job already plays many games at once)")
	name := fs.String("name", "", "the worker's name in logs and results (default HOST-PID)")
	work := fs.String("work", "", "directory for the jobs' temporary files (default: the system's)")
	duration := fs.Duration("duration", 0, "stop after this long (jobs in hand go back to the queue); 0: until interrupted")
	untilDone := fs.Bool("until-done", false, "stop once the run has played its config's generations")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *slots < 1 || *duration < 0 {
		return usageError{"--slots must be at least 1 and --duration not negative"}
	}
	role, err := cf.join("worker", *duration, stdout)
	if err != nil {
		return err
	}
	defer role.Close()
	ctx, c := role.ctx, role.conn
	opt := cluster.WorkerOptions{Name: *name, Slots: *slots, WorkDir: *work, Log: role.log, CodeVersion: codeVersion(), UntilDone: *untilDone}
	if *cf.bucket != "" {
		if opt.Bucket, _, err = cf.store(ctx, c); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "palace worker: run %s on %s; waiting for jobs (Ctrl-C hands jobs in progress back)\n", *cf.run, *cf.nats)
	w, err := cluster.NewWorker(ctx, c, opt)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	err = w.Run(ctx)
	fmt.Fprintf(stderr, "palace worker: %d jobs played\n", w.Played())
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
