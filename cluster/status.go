package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/train"
)

// keyTrainer is the trainer's heartbeat in the run's bucket: where its
// training stands, written as it trains (TrainerBeat).
const keyTrainer = "trainer"

// TrainerBeat is the trainer's last report of its training.
type TrainerBeat struct {
	Generation int       `json:"generation"`
	Step       int64     `json:"step"`
	Target     int64     `json:"target"`
	SamplesPS  float64   `json:"samples_per_s"`
	At         time.Time `json:"at"`
}

// BeatEvery spaces the trainer's and the workers' heartbeats.
const BeatEvery = 5 * time.Second

// beat records the trainer's progress in the bucket, at most every
// BeatEvery; a failure is not the training's: the status just goes stale.
func (c *Conn) beat(ctx context.Context, last *time.Time, gen int, p train.Progress) {
	now := time.Now()
	if now.Sub(*last) < BeatEvery {
		return
	}
	*last = now
	data, _ := json.Marshal(TrainerBeat{Generation: gen, Step: p.Step, Target: p.Target, SamplesPS: p.SamplesPerS, At: now.UTC()})
	c.kv.Put(ctx, keyTrainer, data) //nolint:errcheck
}

// WorkerBeat is a worker's heartbeat in the run's bucket (key
// "worker.NAME"), written every BeatEvery and whenever it takes or ends a
// job, removed when it stops cleanly.
type WorkerBeat struct {
	Name  string    `json:"name"`
	Slots int       `json:"slots"`
	Jobs  []HeldJob `json:"jobs,omitempty"`
	At    time.Time `json:"at"`
}

// HeldJob is a job a worker is playing, and since when.
type HeldJob struct {
	ID    string    `json:"id"`
	Since time.Time `json:"since"`
}

// workerKeyPrefix begins the workers' heartbeat keys.
const workerKeyPrefix = "worker."

// workerKey is a worker's heartbeat key: its name with any character a
// key may not hold replaced.
func workerKey(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '=') {
			b[i] = '_'
		}
	}
	return workerKeyPrefix + string(b)
}

// putWorkerBeat writes b; a failure only leaves the status stale.
func (c *Conn) putWorkerBeat(ctx context.Context, b WorkerBeat) {
	data, _ := json.Marshal(b)
	c.kv.Put(ctx, workerKey(b.Name), data) //nolint:errcheck
}

// deleteWorkerBeat removes a worker's heartbeat as it stops.
func (c *Conn) deleteWorkerBeat(ctx context.Context, name string) {
	c.kv.Delete(ctx, workerKey(name)) //nolint:errcheck
}

// workerBeats reads every worker's heartbeat, by name.
func (c *Conn) workerBeats(ctx context.Context) ([]WorkerBeat, error) {
	keys, err := c.kv.ListKeysFiltered(ctx, workerKeyPrefix+">")
	if err != nil {
		return nil, fmt.Errorf("cluster: reading the workers' heartbeats: %w", err)
	}
	var beats []WorkerBeat
	for k := range keys.Keys() {
		var b WorkerBeat
		if rev, err := c.getJSON(ctx, k, &b); err != nil {
			return nil, err
		} else if rev > 0 {
			beats = append(beats, b)
		}
	}
	slices.SortFunc(beats, func(a, b WorkerBeat) int { return strings.Compare(a.Name, b.Name) })
	return beats, nil
}

// Status is a distributed run as its server shows it.
type Status struct {
	Run   string
	Info  RunInfo
	State State
	Best  loop.Best
	// The queue: jobs waiting, jobs held by workers (delivered, not yet
	// acknowledged: a vanished worker's job stays here until AckWait
	// ends), and deliveries beyond the first so far.
	Waiting, InHand, Redelivered uint64
	// Workers are those with a result in the last Window, busiest first.
	Window  time.Duration
	Workers []WorkerSeen
	// Trainer is its last heartbeat; nil before the first.
	Trainer *TrainerBeat
	// Beats are the workers' heartbeats: those running, and the last of
	// each that died (its jobs go back to the queue once AckWait ends).
	Beats []WorkerBeat
	// AckWait is the run's: a heartbeat older than it is a worker gone.
	AckWait time.Duration
	// Async is an asynchronous run's progress (nil for an exact run).
	Async *AsyncStatus
}

// AsyncStatus is where an asynchronous run's three parts stand.
type AsyncStatus struct {
	// Self-play generations committed (0 to Committed-1) and queued (to
	// Queued-1).
	Committed, Queued int
	// Candidate is the newest candidate (Generation 0: none yet), Gated
	// the last one decided.
	Candidate Candidate
	Gated     int
}

// WorkerSeen is one worker's results within a status's window.
type WorkerSeen struct {
	Name               string
	SelfPlay, Pairs    int // self-play blocks; arena and ladder pairs
	Games              int
	Positions          int64
	Last               time.Time
	JobsPerMinute      float64
	PositionsPerSecond float64
}

// Status reads the run's state, best network, queue and trainer heartbeat,
// and the workers with results in the last window.
func (c *Conn) Status(ctx context.Context, window time.Duration) (Status, error) {
	s := Status{Run: c.Run, Window: window}
	var err error
	if s.Info, _, err = c.Info(ctx); err != nil {
		return s, err
	}
	if s.State, _, _, err = c.State(ctx); err != nil {
		return s, err
	}
	if _, err = c.getJSON(ctx, keyBest, &s.Best); err != nil { // none before the trainer's first network
		return s, err
	}
	var beat TrainerBeat
	if rev, err := c.getJSON(ctx, keyTrainer, &beat); err != nil {
		return s, err
	} else if rev > 0 {
		s.Trainer = &beat
	}
	var sp asyncSelfplay
	if rev, err := c.getJSON(ctx, keySelfplay, &sp); err != nil {
		return s, err
	} else if rev > 0 {
		a := &AsyncStatus{Committed: sp.Committed, Queued: sp.Queued}
		var gd asyncGated
		if a.Candidate, _, err = c.candidate(ctx); err != nil {
			return s, err
		}
		if _, err := c.getJSON(ctx, keyGated, &gd); err != nil {
			return s, err
		}
		a.Gated = gd.Candidate
		s.Async = a
	}
	jobs, err := c.jobs.Info(ctx)
	if err != nil {
		return s, fmt.Errorf("cluster: reading the queue: %w", err)
	}
	s.Waiting = jobs.State.Msgs
	conss, err := c.queue(ctx)
	if err != nil {
		return s, fmt.Errorf("cluster: reading the queue: %w", err)
	}
	for _, cons := range conss {
		ci, err := cons.Info(ctx)
		if err != nil {
			return s, fmt.Errorf("cluster: reading the queue: %w", err)
		}
		s.InHand += uint64(ci.NumAckPending)
		s.Redelivered += uint64(ci.NumRedelivered)
		s.AckWait = ci.Config.AckWait
	}
	if s.Beats, err = c.workerBeats(ctx); err != nil {
		return s, err
	}
	// A work queue keeps a delivered job until its ack: those in hand are
	// among the stream's messages.
	s.Waiting -= min(s.Waiting, s.InHand)
	s.Workers, err = c.workersSeen(ctx, window)
	return s, err
}

// workersSeen tallies the results published within the last window by
// worker.
func (c *Conn) workersSeen(ctx context.Context, window time.Duration) ([]WorkerSeen, error) {
	since := time.Now().Add(-window)
	info, err := c.results.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster: reading results: %w", err)
	}
	if info.State.Msgs == 0 || info.State.LastTime.Before(since) {
		return nil, nil
	}
	cons, err := c.js.OrderedConsumer(ctx, c.resultsStream(), jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartTimePolicy, OptStartTime: &since})
	if err != nil {
		return nil, fmt.Errorf("cluster: reading results: %w", err)
	}
	seen := map[string]*WorkerSeen{}
	// Up to the last result there was when the status began: a busy run
	// publishes more meanwhile.
	for done := false; !done; {
		batch, err := cons.Fetch(256, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			return nil, fmt.Errorf("cluster: reading results: %w", err)
		}
		n := 0
		for m := range batch.Messages() {
			n++
			md, err := m.Metadata()
			if err != nil {
				return nil, fmt.Errorf("cluster: reading results: %w", err)
			}
			done = done || md.Sequence.Stream >= info.State.LastSeq
			var r Result
			if json.Unmarshal(m.Data(), &r) != nil || r.Worker == "" {
				continue // not a worker's result: nothing to tally
			}
			w := seen[r.Worker]
			if w == nil {
				w = &WorkerSeen{Name: r.Worker}
				seen[r.Worker] = w
			}
			if r.Job.Kind == KindSelfplay {
				w.SelfPlay++
			} else {
				w.Pairs++
			}
			w.Games += r.Games + len(r.Records)
			w.Positions += r.Positions
			if md.Timestamp.After(w.Last) {
				w.Last = md.Timestamp
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && !errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("cluster: reading results: %w", err)
		}
		done = done || n == 0
	}
	out := make([]WorkerSeen, 0, len(seen))
	minutes := window.Minutes()
	for _, w := range seen {
		w.JobsPerMinute = float64(w.SelfPlay+w.Pairs) / minutes
		w.PositionsPerSecond = float64(w.Positions) / window.Seconds()
		out = append(out, *w)
	}
	slices.SortFunc(out, func(a, b WorkerSeen) int {
		if a.SelfPlay+a.Pairs != b.SelfPlay+b.Pairs {
			return (b.SelfPlay + b.Pairs) - (a.SelfPlay + a.Pairs)
		}
		if a.Name < b.Name {
			return -1
		}
		return 1
	})
	return out, nil
}
