// Package cluster runs palace's loop across many machines: any number of
// stateless workers play self-play, arena and ladder jobs, one trainer trains, one
// gatekeeper decides, all coordinated through NATS JetStream, with every
// artifact in a store.Store (a shared directory or an object store) in
// the run-directory layout of package loop. The generations, seeds, shard
// names, metrics and gate decisions are the single-machine loop's: under
// PALACE_BLAS=off a distributed run makes the very networks a local run of
// the same config makes, killed workers and a restarted trainer included
// (TestDistributedRun checks it), and both drive the same stage functions
// (loop.Stages). An arena pair is played as the local match plays it (its
// opening, colours and seeds: arena.Match.PlayPair), so the gate games are
// the local run's too, even with a search that draws random numbers
// (TestDistributedGateSeeding); a ladder stage's rung pairs likewise
// (TestDistributedLadder).
//
// # Coordination
//
// For a run named RUN (letters, digits, '-' and '_'), JetStream holds:
//
//	stream PALACE_RUN_JOBS      work queue, subjects palace.RUN.jobs.{selfplay,arena,ladder}.GEN
//	                            one durable pull consumer "workers" shared by every
//	                            worker (an asynchronous run: "arena", "ladder" and
//	                            "selfplay", pulled in that order): explicit acks,
//	                            AckWait, bounded MaxDeliver
//	stream PALACE_RUN_RESULTS   every finished job's result, palace.RUN.results.{selfplay,arena,ladder}.GEN,
//	                            kept for the run (the trainer and gatekeeper replay it
//	                            after a restart)
//	key-value bucket palace_RUN keys "run" (the config and the bucket's URL),
//	                            "state" (generation, stage, self-play rounds) and
//	                            "best" (the best network), changed only by
//	                            compare-and-swap on the revision read; an
//	                            asynchronous run's parts keep "selfplay",
//	                            "candidate" and "gated" (async.go)
//
// Both streams de-duplicate on Nats-Msg-Id (the job's ID), jobs within two
// minutes and results within an hour, so a job enqueued twice by a role
// restarted at once, or a result published twice by a redelivered job, is
// stored once; later duplicates are harmless (a worker given a block
// already in the store only reports it, and the trainer and gatekeeper
// count each block and pair once).
//
// # Jobs and idempotence
//
// A self-play job is (generation, network key, shard number, first game
// index, games, seed): one block of consecutive game indices, exactly the
// block the single-machine loop commits as that shard. The worker plays it
// (selfplay.PlayBlock) into a private temporary directory, uploads the
// game records and then the shard to selfplay/gen-NNNN/shard-NNNNNN.*
// (each upload atomic: a reader sees the whole object or none), publishes
// the result (the shard's manifest entry) and only then acks the job. The
// key is a function of the job, so a job redelivered after a worker died
// rewrites the same shard with the same games, and the trainer, which
// folds results by shard number, counts each block once. The generation's
// manifest.json is written by the trainer once every block is in: it is
// the generation's commit point, as in a local run, and lists each shard
// once, in shard order.
//
// An arena job is one pair of games (one opening, both colours). Its
// result carries the two game records; the gatekeeper folds them into the
// sequential test in pair order (arena.Summarize, as a local match does),
// rewrites arena/gen-NNNN.jsonl, and once the test decides purges the
// generation's remaining arena jobs; workers also skip jobs of a stage the
// run has left.
//
// A worker sends in-progress acks every third of AckWait while it plays, so
// a slow job stays with a live worker; a dead worker's job is redelivered
// after AckWait to another, up to MaxDeliver times. A worker that stops
// cleanly hands its jobs back whole (published anew, the delivered copy
// acknowledged), and another worker takes them at once. A job that fails on
// its last delivery is reported as a failed result, and one whose workers
// all died on it is named by the server's max-deliveries advisory: either
// stops the role waiting for it with an error, rather than waiting for
// ever.
//
// # Roles
//
// Workers watch "best" and load the new network as soon as it changes,
// so the next generation's jobs start without a load. The trainer moves
// the run through self-play (enqueue blocks, wait for them, more rounds
// until the window's minimum is reached) and training (train.Run on a
// local copy of the shards, state kept in the store, so a restarted
// trainer resumes), then hands the generation to the gatekeeper, which
// enqueues the match, decides, promotes by compare-and-swap on "best" and
// moves the run to the next generation. state.json, best.json and
// metrics.jsonl are mirrored into the store after each change, so palace
// report reads a distributed run's directory as it reads a local one.
package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	neturl "net/url"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/palace-chess/palace/loop"
)

// KV keys.
const (
	keyRun   = "run"
	keyState = "state"
	keyBest  = "best"
)

// The queue's durable consumers. The exact loop's workers pull every job
// from one ("workers"); an asynchronous run's pull from one a job kind,
// gate pairs first, then ladder pairs, then self-play blocks, so that the
// pairs go before the blocks queued ahead of them (one filter subject
// each: nats-server before 2.10 takes no more). A work queue's consumers
// must not overlap, so a run has one layout or the other (UseAsyncQueue
// switches a new run's).
const workersConsumer = "workers"

// asyncConsumers are the asynchronous layout's consumers, named by the
// kind of job each holds, in the order workers pull from them.
var asyncConsumers = []string{KindArena, KindLadder, KindSelfplay}

// Settings are the queue's delivery settings, the run's own: the process
// that creates the run sets them, and a zero field leaves the run's
// setting as it is (so a role that connects never resets them).
type Settings struct {
	// AckWait is how long a job may go without an ack or an in-progress
	// signal before it is redelivered (default 1 minute).
	AckWait time.Duration
	// MaxDeliver bounds a job's deliveries (default 5).
	MaxDeliver int
}

// Defaults for a new run's Settings.
const (
	DefaultAckWait    = time.Minute
	DefaultMaxDeliver = 5
)

// Conn is one process's connection to a run's streams and bucket.
type Conn struct {
	Run     string
	nc      *nats.Conn
	js      jetstream.JetStream
	kv      jetstream.KeyValue
	jobs    jetstream.Stream
	results jetstream.Stream
}

var runName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ErrNoRun is wrapped by Join when the server holds no run of the name.
var ErrNoRun = errors.New("cluster: no such run")

// Connect connects to the NATS server at url and creates the run's
// streams, consumer and bucket unless they exist (so a restarted trainer
// finds its run as it left it): what the one role that starts a run (the
// trainer, palace run --distributed) does. set's nonzero fields change the
// run's delivery settings; other roles Join. name names the connection in
// the server's monitoring.
func Connect(ctx context.Context, url, run, name string, set Settings) (*Conn, error) {
	nc, err := dial(url, run, name)
	if err != nil {
		return nil, err
	}
	c, err := create(ctx, nc, run, set)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// Join connects to the NATS server at url and opens a run that exists,
// creating nothing, so that a mistyped run name leaves nothing behind on
// the server. With waiting nil, a run that does not exist is an error
// wrapping ErrNoRun; otherwise waiting is called once and Join polls until
// the run's trainer creates it (or ctx ends).
func Join(ctx context.Context, url, run, name string, waiting func()) (*Conn, error) {
	nc, err := dial(url, run, name)
	if err != nil {
		return nil, err
	}
	for said := false; ; said = true {
		c, err := open(ctx, nc, run)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, ErrNoRun) || waiting == nil {
			nc.Close()
			return nil, err
		}
		if !said {
			waiting()
		}
		select {
		case <-ctx.Done():
			nc.Close()
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func dial(url, run, name string) (*nats.Conn, error) {
	if !runName.MatchString(run) {
		return nil, fmt.Errorf("cluster: run name %q: want 1 to 64 letters, digits, '-' or '_'", run)
	}
	if url == "" {
		return nil, errors.New("cluster: no NATS URL (nats://HOST:4222)")
	}
	nc, err := nats.Connect(url, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second))
	if err != nil {
		return nil, fmt.Errorf("cluster: connecting to NATS at %s: %w", Redact(url), err)
	}
	return nc, nil
}

// Redact is url (one or several, comma-separated) with any password
// replaced by "xxxxx", for messages and logs.
func Redact(url string) string {
	parts := strings.Split(url, ",")
	for i, p := range parts {
		if u, err := neturl.Parse(strings.TrimSpace(p)); err == nil && u.User != nil {
			if _, ok := u.User.Password(); ok {
				parts[i] = u.Redacted()
			}
		}
	}
	return strings.Join(parts, ",")
}

func newConn(nc *nats.Conn, run string) (*Conn, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return &Conn{Run: run, nc: nc, js: js}, nil
}

// open finds the run's streams, consumer and bucket.
func open(ctx context.Context, nc *nats.Conn, run string) (*Conn, error) {
	c, err := newConn(nc, run)
	if err != nil {
		return nil, err
	}
	noRun := func(what string, err error) error {
		if errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrConsumerNotFound) ||
			errors.Is(err, jetstream.ErrBucketNotFound) {
			return fmt.Errorf("%w %q on the server (no %s): start it with palace trainer or palace run --distributed, or check --run", ErrNoRun, run, what)
		}
		if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
			return fmt.Errorf("cluster: %s (is JetStream enabled on the server? nats-server -js): %w", what, err)
		}
		return fmt.Errorf("cluster: %s: %w", what, err)
	}
	if c.jobs, err = c.js.Stream(ctx, c.jobsStream()); err != nil {
		return nil, noRun("stream "+c.jobsStream(), err)
	}
	if c.results, err = c.js.Stream(ctx, c.resultsStream()); err != nil {
		return nil, noRun("stream "+c.resultsStream(), err)
	}
	if names, err := c.consumerNames(ctx); err != nil {
		return nil, err
	} else if len(names) == 0 {
		return nil, noRun("consumer "+workersConsumer, jetstream.ErrConsumerNotFound)
	}
	if c.kv, err = c.js.KeyValue(ctx, c.kvBucket()); err != nil {
		return nil, noRun("key-value bucket "+c.kvBucket(), err)
	}
	return c, nil
}

// create makes the run's streams, consumer and bucket, each unless it
// exists; the consumer's delivery settings are set's nonzero ones, else
// the run's (the defaults for a new run).
func create(ctx context.Context, nc *nats.Conn, run string, set Settings) (*Conn, error) {
	c, err := newConn(nc, run)
	if err != nil {
		return nil, err
	}
	// Jobs are de-duplicated for two minutes (a role restarted at once
	// re-enqueues what the queue still holds); results for an hour.
	const dedup = time.Hour
	c.jobs, err = c.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: c.jobsStream(), Subjects: []string{c.subject("jobs", ">")}, Retention: jetstream.WorkQueuePolicy,
		Storage: jetstream.FileStorage, Duplicates: 2 * time.Minute, Description: "palace run " + run + ": self-play and arena jobs",
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: jobs stream (is JetStream enabled on the server? nats-server -js): %w", err)
	}
	c.results, err = c.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: c.resultsStream(), Subjects: []string{c.subject("results", ">")}, Retention: jetstream.LimitsPolicy,
		Storage: jetstream.FileStorage, Duplicates: dedup, Description: "palace run " + run + ": job results",
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: results stream: %w", err)
	}
	names, err := c.consumerNames(ctx)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		names = []string{workersConsumer} // a new run's
	}
	if err := c.setConsumers(ctx, names, set); err != nil {
		return nil, err
	}
	c.kv, err = c.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: c.kvBucket(), History: 8,
		Storage: jetstream.FileStorage, Description: "palace run " + run + ": state and best network"})
	if err != nil {
		return nil, fmt.Errorf("cluster: key-value bucket: %w", err)
	}
	return c, nil
}

// consumerNames are the queue's consumers that exist: the exact layout's
// or the asynchronous one's (priority first), or none.
func (c *Conn) consumerNames(ctx context.Context) ([]string, error) {
	for _, layout := range [][]string{asyncConsumers, {workersConsumer}} {
		_, err := c.js.Consumer(ctx, c.jobsStream(), layout[0])
		if err == nil {
			return layout, nil
		}
		if !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return nil, fmt.Errorf("cluster: the workers' consumer %s: %w", layout[0], err)
		}
	}
	return nil, nil
}

// queue is the run's consumers, in the order workers pull from them.
func (c *Conn) queue(ctx context.Context) ([]jetstream.Consumer, error) {
	names, err := c.consumerNames(ctx)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("cluster: the run's queue has no consumer: %w", jetstream.ErrConsumerNotFound)
	}
	var cs []jetstream.Consumer
	for _, n := range names {
		cons, err := c.js.Consumer(ctx, c.jobsStream(), n)
		if err != nil {
			return nil, fmt.Errorf("cluster: the workers' consumer %s: %w", n, err)
		}
		cs = append(cs, cons)
	}
	return cs, nil
}

// setConsumers creates or updates the consumers names with the run's
// delivery settings (the first existing one's, else the defaults),
// changed by set's nonzero fields.
func (c *Conn) setConsumers(ctx context.Context, names []string, set Settings) error {
	cur := Settings{AckWait: DefaultAckWait, MaxDeliver: DefaultMaxDeliver}
	if old, err := c.Settings(ctx); err == nil {
		cur = old
	} else if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return err
	}
	if set.AckWait > 0 {
		cur.AckWait = set.AckWait
	}
	if set.MaxDeliver > 0 {
		cur.MaxDeliver = set.MaxDeliver
	}
	for _, n := range names {
		// The exact layout's takes every job; the others their kind's.
		filter, description := c.subject("jobs", n, ">"), "palace workers: "+n+" jobs"
		if n == workersConsumer {
			filter, description = "", "palace workers"
		}
		_, err := c.js.CreateOrUpdateConsumer(ctx, c.jobsStream(), jetstream.ConsumerConfig{
			Durable: n, AckPolicy: jetstream.AckExplicitPolicy, AckWait: cur.AckWait,
			MaxDeliver: cur.MaxDeliver, MaxAckPending: -1, MaxWaiting: 4096, FilterSubject: filter,
			Description: description,
		})
		if err != nil {
			return fmt.Errorf("cluster: workers' consumer %s: %w", n, err)
		}
	}
	return nil
}

// UseAsyncQueue gives the run the asynchronous queue's consumers in
// place of the exact one, keeping its delivery settings; a run that has
// them already is left as it is. Only a run whose queue is empty is
// switched (a new one: Start does it).
func (c *Conn) UseAsyncQueue(ctx context.Context) error {
	names, err := c.consumerNames(ctx)
	if err != nil || len(names) == len(asyncConsumers) {
		return err
	}
	set, err := c.Settings(ctx)
	if err != nil {
		return err
	}
	info, err := c.jobs.Info(ctx)
	if err != nil {
		return fmt.Errorf("cluster: reading the queue: %w", err)
	}
	if info.State.Msgs > 0 {
		return fmt.Errorf("cluster: run %s has %d jobs queued for the exact loop's workers; an asynchronous run needs a queue of its own (start a run of another name)", c.Run, info.State.Msgs)
	}
	if err := c.js.DeleteConsumer(ctx, c.jobsStream(), workersConsumer); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return fmt.Errorf("cluster: the workers' consumer: %w", err)
	}
	return c.setConsumers(ctx, asyncConsumers, set)
}

// Settings reads the run's delivery settings (an error wrapping
// jetstream.ErrConsumerNotFound for a run without a queue yet).
func (c *Conn) Settings(ctx context.Context) (Settings, error) {
	names, err := c.consumerNames(ctx)
	if err != nil {
		return Settings{}, err
	}
	if len(names) == 0 {
		return Settings{}, fmt.Errorf("cluster: the workers' consumer: %w", jetstream.ErrConsumerNotFound)
	}
	cons, err := c.js.Consumer(ctx, c.jobsStream(), names[0])
	if err != nil {
		return Settings{}, fmt.Errorf("cluster: the workers' consumer: %w", err)
	}
	cfg := cons.CachedInfo().Config
	return Settings{AckWait: cfg.AckWait, MaxDeliver: cfg.MaxDeliver}, nil
}

// Close closes the connection after flushing what was published.
func (c *Conn) Close() {
	c.nc.Drain() //nolint:errcheck // closing; nothing to do about it
	c.nc.Close()
}

func (c *Conn) jobsStream() string    { return "PALACE_" + c.Run + "_JOBS" }
func (c *Conn) resultsStream() string { return "PALACE_" + c.Run + "_RESULTS" }
func (c *Conn) kvBucket() string      { return "palace_" + c.Run }

// subject is palace.RUN.PARTS...
func (c *Conn) subject(parts ...string) string {
	s := "palace." + c.Run
	for _, p := range parts {
		s += "." + p
	}
	return s
}

func (c *Conn) jobSubject(kind string, gen int) string {
	return c.subject("jobs", kind, fmt.Sprint(gen))
}

// resultSubject is the subject of kind's results of generation gen (gen <
// 0: a filter for every generation's).
func (c *Conn) resultSubject(kind string, gen int) string {
	if gen < 0 {
		return c.subject("results", kind, "*")
	}
	return c.subject("results", kind, fmt.Sprint(gen))
}

// RunInfo is what a worker needs to join a run: the config and where the
// artifacts are.
type RunInfo struct {
	Bucket string `json:"bucket"`
	Config string `json:"config"` // the run's YAML
}

// State is where a distributed run stands: the loop's state plus the
// number of self-play rounds of the generation enqueued so far.
type State struct {
	loop.State
	Rounds int `json:"rounds,omitempty"`
	// Target is the asynchronous trainer's step target for the candidate
	// it trains (stage train), recorded before it starts.
	Target int64 `json:"target,omitempty"`
}

// getJSON reads a KV key into v; the revision is 0 when the key is absent.
func (c *Conn) getJSON(ctx context.Context, key string, v any) (uint64, error) {
	e, err := c.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("cluster: reading %s: %w", key, err)
	}
	if err := json.Unmarshal(e.Value(), v); err != nil {
		return 0, fmt.Errorf("cluster: key %s: %w", key, err)
	}
	return e.Revision(), nil
}

// ErrConflict is wrapped when a compare-and-swap finds the key changed
// since it was read: another process moved the run on.
var ErrConflict = errors.New("cluster: the run's state changed under this process (is a second trainer or gatekeeper running?)")

// casJSON writes v to key if the key's revision is still rev (0: the key
// must not exist) and returns the new revision.
func (c *Conn) casJSON(ctx context.Context, key string, v any, rev uint64) (uint64, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return 0, fmt.Errorf("cluster: %w", err)
	}
	var n uint64
	if rev == 0 {
		n, err = c.kv.Create(ctx, key, data)
	} else {
		n, err = c.kv.Update(ctx, key, data, rev)
	}
	if errors.Is(err, jetstream.ErrKeyExists) || isWrongSequence(err) {
		return 0, fmt.Errorf("%w: %s: %v", ErrConflict, key, err)
	}
	if err != nil {
		return 0, fmt.Errorf("cluster: writing %s: %w", key, err)
	}
	return n, nil
}

func isWrongSequence(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}

// State reads the run's state; ok is false before the trainer started it.
func (c *Conn) State(ctx context.Context) (s State, rev uint64, ok bool, err error) {
	rev, err = c.getJSON(ctx, keyState, &s)
	return s, rev, rev != 0, err
}

// Best reads the best-network pointer.
func (c *Conn) Best(ctx context.Context) (loop.Best, uint64, error) {
	var b loop.Best
	rev, err := c.getJSON(ctx, keyBest, &b)
	if err == nil && rev == 0 {
		err = errors.New("cluster: the run has no best network yet (start the trainer)")
	}
	return b, rev, err
}

// Info reads the run's config and bucket URL; ok is false before a
// trainer or palace run --distributed published them.
func (c *Conn) Info(ctx context.Context) (RunInfo, bool, error) {
	var ri RunInfo
	rev, err := c.getJSON(ctx, keyRun, &ri)
	return ri, rev != 0, err
}

// waitChange blocks until key changes from revision rev (or ctx ends).
func (c *Conn) waitChange(ctx context.Context, key string, rev uint64) error {
	w, err := c.kv.Watch(ctx, key)
	if err != nil {
		return fmt.Errorf("cluster: watching %s: %w", key, err)
	}
	defer w.Stop() //nolint:errcheck
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-w.Updates():
			if !ok {
				return fmt.Errorf("cluster: watch of %s ended", key)
			}
			if e != nil && e.Revision() != rev {
				return nil
			}
		}
	}
}
