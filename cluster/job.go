package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/selfplay"
)

// Job kinds.
const (
	KindSelfplay = "selfplay"
	KindArena    = "arena"
	KindLadder   = "ladder"
)

// Job is one unit of work: small, and a pure function of its fields (with
// the run's config), so playing it twice gives the same artifact.
type Job struct {
	Kind       string `json:"kind"`
	Generation int    `json:"generation"`
	// Self-play: play games First to First+Games-1 with the network at
	// Network (NetworkID its weights' ID; both empty in the asynchronous
	// loop: the worker's best of the moment) under Seed, as shard Shard.
	Network   string `json:"network,omitempty"`
	NetworkID string `json:"network_id,omitempty"`
	Shard     int    `json:"shard,omitempty"`
	First     uint64 `json:"first,omitempty"`
	Games     int    `json:"games,omitempty"`
	Seed      uint64 `json:"seed,omitempty"`
	// Arena: pair Pair of candidate Generation+1 (at Candidate) against
	// the best, generation BestGeneration at Best.
	Pair           int    `json:"pair,omitempty"`
	Candidate      string `json:"candidate,omitempty"`
	Best           string `json:"best,omitempty"`
	BestGeneration int    `json:"best_generation,omitempty"`
	// Ladder: pair Pair of the best (generation BestGeneration at Best)
	// against rung Rung (an index into the run's scale), in generation
	// Generation's ladder stage.
	Rung int `json:"rung,omitempty"`
}

// ID names the job uniquely within its run; it is the Nats-Msg-Id of the
// job and of its result.
func (j *Job) ID() string {
	switch j.Kind {
	case KindArena:
		return fmt.Sprintf("arena-g%04d-p%05d", j.Generation, j.Pair)
	case KindLadder:
		return fmt.Sprintf("ladder-g%04d-r%02d-p%05d", j.Generation, j.Rung, j.Pair)
	}
	return fmt.Sprintf("selfplay-g%04d-s%06d", j.Generation, j.Shard)
}

// Result is a finished (or finally failed) job.
type Result struct {
	Job    Job    `json:"job"`
	Worker string `json:"worker"`
	// Error is set when the job failed on its last allowed delivery.
	Error string `json:"error,omitempty"`
	// Self-play: the shard's manifest entry and the block's counts.
	Shard     *datasets.ShardInfo `json:"shard,omitempty"`
	Plies     int64               `json:"plies,omitempty"`
	Evals     int64               `json:"evals,omitempty"`
	Seconds   float64             `json:"seconds,omitempty"`
	Games     int                 `json:"games,omitempty"`
	Positions int64               `json:"positions,omitempty"`
	// Resigns are the block's resignation counts (selfplay.Stats').
	Resigns selfplay.Resignations `json:"resigns,omitzero"`
	// Played is the network that played a self-play block of the
	// asynchronous loop (absent when the block was found in the store).
	Played *loop.Best `json:"played,omitempty"`
	// Arena and ladder: the pair's two games.
	Records []arena.GameRecord `json:"records,omitempty"`
}

// enqueue publishes jobs, de-duplicated by ID, and waits for the stream
// to store them all (in windows, so that the client's queue of
// unacknowledged publishes never fills).
func (c *Conn) enqueue(ctx context.Context, jobs []Job) error {
	const window = 1024
	for len(jobs) > 0 {
		n := min(window, len(jobs))
		futures := make([]jetstream.PubAckFuture, 0, n)
		for i := range n {
			data, err := json.Marshal(&jobs[i])
			if err != nil {
				return fmt.Errorf("cluster: %w", err)
			}
			f, err := c.js.PublishMsgAsync(&nats.Msg{Subject: c.jobSubject(jobs[i].Kind, jobs[i].Generation), Data: data},
				jetstream.WithMsgID(jobs[i].ID()))
			if err != nil {
				return fmt.Errorf("cluster: enqueueing %s: %w", jobs[i].ID(), err)
			}
			futures = append(futures, f)
		}
		for i, f := range futures {
			select {
			case <-f.Ok():
			case err := <-f.Err():
				return fmt.Errorf("cluster: enqueueing %s: %w", jobs[i].ID(), err)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		jobs = jobs[n:]
	}
	return nil
}

// publishResult stores r in the results stream, de-duplicated by job ID.
func (c *Conn) publishResult(ctx context.Context, r *Result) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	id := r.Job.ID()
	if r.Error != "" {
		id += "-failed"
	}
	_, err = c.js.PublishMsg(ctx, &nats.Msg{Subject: c.resultSubject(r.Job.Kind, r.Job.Generation), Data: data},
		jetstream.WithMsgID(id))
	if err != nil {
		return fmt.Errorf("cluster: publishing the result of %s: %w", id, err)
	}
	return nil
}

// followResults follows the results of one kind and generation (gen < 0:
// every generation) from the first one: each goes to fold, until fold returns done (or an error) or
// ctx ends. A job that fails for good ends it with an error: a failed
// result published after the call began (those before it are of an
// earlier attempt, whose jobs the caller has just enqueued again), or the
// server's advisory that one of this kind and generation's jobs reached
// MaxDeliver (its workers died on it, so none could report).
func (c *Conn) followResults(ctx context.Context, kind string, gen int, fold func(*Result) (done bool, err error)) error {
	info, err := c.results.Info(ctx)
	if err != nil {
		return fmt.Errorf("cluster: reading results: %w", err)
	}
	before := info.State.LastSeq
	adv := make(chan *nats.Msg, 64)
	sub, err := c.nc.ChanSubscribe(maxDeliveriesAdvisory+"."+c.jobsStream()+".*", adv)
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	defer sub.Unsubscribe() //nolint:errcheck
	cons, err := c.js.OrderedConsumer(ctx, c.resultsStream(), jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{c.resultSubject(kind, gen)}, DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return fmt.Errorf("cluster: reading results: %w", err)
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(256))
	if err != nil {
		return fmt.Errorf("cluster: reading results: %w", err)
	}
	defer it.Stop()
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	type next struct {
		m   jetstream.Msg
		err error
	}
	ch := make(chan next)
	quit := make(chan struct{})
	defer close(quit) // runs before it.Stop: the reader is told before it is woken
	go func() {
		for {
			m, err := it.Next()
			select {
			case ch <- next{m, err}:
			case <-quit:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case m := <-adv:
			if err := c.deliveriesExceeded(ctx, m.Data, kind, gen); err != nil {
				return err
			}
		case n := <-ch:
			if n.err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if errors.Is(n.err, jetstream.ErrMsgIteratorClosed) {
					return errors.New("cluster: the results feed closed")
				}
				return fmt.Errorf("cluster: reading results: %w", n.err)
			}
			var r Result
			if err := json.Unmarshal(n.m.Data(), &r); err != nil {
				return fmt.Errorf("cluster: a result on %s: %w", n.m.Subject(), err)
			}
			if r.Error != "" {
				if md, err := n.m.Metadata(); err == nil && md.Sequence.Stream <= before {
					continue
				}
				return fmt.Errorf("cluster: job %s failed on its last delivery (worker %s): %s", r.Job.ID(), r.Worker, r.Error)
			}
			done, err := fold(&r)
			if err != nil || done {
				return err
			}
		}
	}
}

// maxDeliveriesAdvisory is the subject prefix of the server's advisories
// about messages that reached a consumer's MaxDeliver.
const maxDeliveriesAdvisory = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES"

// deliveriesExceeded reads a max-deliveries advisory: an error when the
// job it names is of this kind and generation.
func (c *Conn) deliveriesExceeded(ctx context.Context, data []byte, kind string, gen int) error {
	var a struct {
		StreamSeq  uint64 `json:"stream_seq"`
		Deliveries uint64 `json:"deliveries"`
	}
	if json.Unmarshal(data, &a) != nil {
		return nil
	}
	raw, err := c.jobs.GetMsg(ctx, a.StreamSeq)
	if err != nil || !(raw.Subject == c.jobSubject(kind, gen) || gen < 0 && strings.HasPrefix(raw.Subject, c.subject("jobs", kind)+".")) {
		return nil // gone (a failed result's job is ended), or another stage's
	}
	var j Job
	if json.Unmarshal(raw.Data, &j) != nil {
		return nil
	}
	// Removed, so that a restarted role's enqueue is not refused as a
	// duplicate of a job no worker will be given again.
	c.jobs.DeleteMsg(ctx, a.StreamSeq) //nolint:errcheck
	return fmt.Errorf("cluster: job %s was handed out %d times and never finished (do workers die on it?); fix the cause and restart this role", j.ID(), a.Deliveries)
}

// purge drops the queued jobs of a kind and generation: a decided match's
// remaining pairs.
func (c *Conn) purge(ctx context.Context, kind string, gen int) error {
	if err := c.jobs.Purge(ctx, jetstream.WithPurgeSubject(c.jobSubject(kind, gen))); err != nil {
		return fmt.Errorf("cluster: purging %s jobs of generation %d: %w", kind, gen, err)
	}
	return nil
}
