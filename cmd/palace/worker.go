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
	fs                *flag.FlagSet
	nats, run, bucket *string
	ackWait           *time.Duration
	maxDeliver        *int
	progress          *string
}

// defaultNATS is --nats's default: $PALACE_NATS, else the local server.
func defaultNATS() string {
	if def := os.Getenv("PALACE_NATS"); def != "" {
		return def
	}
	return "nats://127.0.0.1:4222"
}

// addClusterFlags adds them to fs; progress is the flag set's own
// --progress when it has one. A role prints log lines (what it does, as
// it does it) for every --progress but none: it has no status line.
func addClusterFlags(fs *flag.FlagSet, progress *string) *clusterFlags {
	def := defaultNATS()
	if progress == nil {
		progress = addProgressFlag(fs)
	}
	return &clusterFlags{
		fs:         fs,
		progress:   progress,
		nats:       fs.String("nats", def, "NATS server URL(s), comma-separated, with JetStream enabled (default: $PALACE_NATS, else nats://127.0.0.1:4222)"),
		run:        fs.String("run", "palace", "the run's name: its streams and key-value bucket on the server"),
		bucket:     fs.String("bucket", "", "the run's artifacts: file:///DIR (a local or shared directory), s3://BUCKET[/PREFIX]?region=R, gs://BUCKET[/PREFIX], azblob://CONTAINER[/PREFIX]; roles joining a started run default to the run's"),
		ackWait:    fs.Duration("ack-wait", cluster.DefaultAckWait, "a job not acknowledged, or signalled in progress, for this long goes to another worker (the run's setting: given to the role that starts the run, or to restart it with another; default: the run's, 1m for a new run)"),
		maxDeliver: fs.Int("max-deliver", cluster.DefaultMaxDeliver, "the most times a job is handed out before its failure stops the run (the run's setting, as --ack-wait)"),
	}
}

// clusterRole is one role's connection to a distributed run, opened by
// clusterFlags.join: its stop context, log and NATS connection.
type clusterRole struct {
	name string
	ctx  context.Context
	log  *clusterLog // nil: --progress none
	conn *cluster.Conn
	stop context.CancelFunc
}

// join checks --progress, makes the stop context (after duration, when
// positive) and connects as role; Close ends both. waiting, when not nil,
// makes a role that is not the run's creator wait for a run not created
// yet (it is told once), instead of failing.
func (f *clusterFlags) join(role string, duration time.Duration, stdout io.Writer, waiting func(*clusterRole)) (*clusterRole, error) {
	log, err := f.log(stdout)
	if err != nil {
		return nil, err
	}
	ctx, stop := stopContext(duration)
	r := &clusterRole{name: role, ctx: ctx, log: log, stop: stop}
	r.logf("connecting to NATS at %s (run %s)", cluster.Redact(*f.nats), *f.run)
	if r.conn, err = f.connect(ctx, r, waiting); err != nil {
		stop()
		return nil, err
	}
	r.logf("connected")
	return r, nil
}

// logf writes a log line of the role's own, as its cluster roles' are
// written (clusterLog).
func (r *clusterRole) logf(format string, a ...any) {
	if r.log != nil {
		r.log.printf(r.name, format, a...)
	}
}

// progress draws the cluster roles' and workers' reports; nil, which
// they take as silence, when the role shows nothing.
func (r *clusterRole) progress() func(cluster.Event) {
	if r.log == nil {
		return nil
	}
	return r.log.event
}

func (r *clusterRole) Close() {
	r.conn.Close()
	r.stop()
}

// options are the role's cluster.RoleOptions, with its work directory.
func (r *clusterRole) options(work string) cluster.RoleOptions {
	return cluster.RoleOptions{WorkDir: work, Progress: r.progress(), CodeVersion: codeVersion()}
}

// announce says on stderr which run the role serves, and where its
// artifacts are.
func (r *clusterRole) announce(stderr io.Writer, f *clusterFlags, url string) {
	fmt.Fprintf(stderr, "palace %s: run %s on %s, artifacts in %s\n", r.name, *f.run, cluster.Redact(*f.nats), url)
}

// connect connects role r: the roles that start a run (trainer, run)
// create it, with the delivery settings given on their command line;
// the others join a run that exists and change none of its settings.
func (f *clusterFlags) connect(ctx context.Context, r *clusterRole, waiting func(*clusterRole)) (*cluster.Conn, error) {
	if *f.ackWait < time.Second || *f.maxDeliver < 1 {
		return nil, usageError{"--ack-wait must be at least 1s and --max-deliver at least 1"}
	}
	var set cluster.Settings
	f.fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "ack-wait":
			set.AckWait = *f.ackWait
		case "max-deliver":
			set.MaxDeliver = *f.maxDeliver
		}
	})
	host, _ := os.Hostname()
	name := fmt.Sprintf("palace %s %s-%d", r.name, host, os.Getpid())
	if r.name == "trainer" || r.name == "run" {
		// A run is created on the server only once its bucket is known
		// to be fit for it: nothing is left behind for a run that cannot
		// start.
		c, err := cluster.Join(ctx, *f.nats, *f.run, name, nil)
		switch {
		case errors.Is(err, cluster.ErrNoRun):
			if *f.bucket == "" {
				return nil, usagef("run %q does not exist on %s: --bucket is needed to start a run", *f.run, cluster.Redact(*f.nats))
			}
			st, err := cluster.OpenStore(*f.bucket)
			if err != nil {
				return nil, err
			}
			err = cluster.CheckNewBucket(st)
			if c, ok := st.(io.Closer); ok {
				c.Close()
			}
			if err != nil {
				return nil, err
			}
		case err != nil:
			return nil, err
		case set == (cluster.Settings{}):
			return c, nil
		default:
			c.Close()
		}
		return cluster.Connect(ctx, *f.nats, *f.run, name, set)
	}
	if set != (cluster.Settings{}) {
		return nil, usagef("--ack-wait and --max-deliver are the run's settings: give them to palace trainer (or palace run --distributed), not to palace %s", r.name)
	}
	var wait func()
	if waiting != nil {
		wait = func() { waiting(r) }
	}
	return cluster.Join(ctx, *f.nats, *f.run, name, wait)
}

// log is where the role's lines go: nil for --progress none; log lines
// only for every other value.
func (f *clusterFlags) log(stdout io.Writer) (*clusterLog, error) {
	show, _, err := progressFlag(*f.progress, stdout)
	if err != nil || !show {
		return nil, err
	}
	return &clusterLog{newStatus(stdout, true, false)}, nil
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
			return nil, "", usagef("run %q is not started on %s: give --bucket (and start it with palace trainer or palace run --distributed)", *f.run, cluster.Redact(*f.nats))
		}
		url = ri.Bucket
	}
	st, err := cluster.OpenStore(url)
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
	var engines stringList
	fs.Var(&engines, "engine", "an engine program this worker may run (repeatable): a run whose ladder plays another is refused, as its config comes from the NATS server")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *slots < 1 || *duration < 0 {
		return usageError{"--slots must be at least 1 and --duration not negative"}
	}
	role, err := cf.join("worker", *duration, stdout, func(r *clusterRole) {
		r.logf("waiting for run %s to start (no such run on the server yet: its trainer creates it)", *cf.run)
		fmt.Fprintf(stderr, "palace worker: no run %s on %s yet; waiting for its trainer to start it (is --run right?)\n", *cf.run, cluster.Redact(*cf.nats))
	})
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil // stopped (Ctrl-C, --duration) while waiting for the run
		}
		return err
	}
	defer role.Close()
	ctx, c := role.ctx, role.conn
	opt := cluster.WorkerOptions{Name: *name, Slots: *slots, WorkDir: *work, Progress: role.progress(), CodeVersion: codeVersion(), UntilDone: *untilDone,
		Engines: engines}
	if *cf.bucket != "" {
		if opt.Bucket, _, err = cf.store(ctx, c); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "palace worker: run %s on %s; waiting for jobs (Ctrl-C hands jobs in progress back)\n", *cf.run, cluster.Redact(*cf.nats))
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
