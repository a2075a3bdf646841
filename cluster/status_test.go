package cluster

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/train"
)

// Status shows the queue (jobs waiting, a job held by a worker that has
// not finished it), the workers with results in the window and their
// counts, and the trainer's heartbeat.
func TestStatus(t *testing.T) {
	url := looptest.NATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Connect(ctx, url, "s", "test", Settings{AckWait: time.Minute, MaxDeliver: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Three jobs; one is taken and not finished (a worker mid-job, or
	// one that vanished: it stays in hand until AckWait ends).
	if err := c.enqueue(ctx, []Job{{Kind: KindSelfplay, Generation: 1}, {Kind: KindSelfplay, Generation: 1, Shard: 1}, {Kind: KindSelfplay, Generation: 1, Shard: 2}}); err != nil {
		t.Fatal(err)
	}
	cons, err := c.js.Consumer(ctx, c.jobsStream(), workersConsumer)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cons.Fetch(1)
	if err != nil {
		t.Fatal(err)
	}
	var taken []jetstream.Msg
	for m := range b.Messages() {
		taken = append(taken, m)
	}
	var last time.Time
	c.beat(ctx, &last, 3, train.Progress{Step: 40, Target: 100, SamplesPerS: 512})
	s, err := c.Status(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(taken) != 1 || s.Waiting != 2 || s.InHand != 1 || s.Redelivered != 0 {
		t.Errorf("queue: %d waiting, %d in hand, %d redelivered; want 2, 1, 0", s.Waiting, s.InHand, s.Redelivered)
	}
	if s.Trainer == nil || s.Trainer.Generation != 3 || s.Trainer.Step != 40 || s.Trainer.Target != 100 || s.Trainer.SamplesPS != 512 {
		t.Errorf("trainer heartbeat %+v", s.Trainer)
	}
	if len(s.Workers) != 0 {
		t.Errorf("workers seen before any played: %+v", s.Workers)
	}
	for _, m := range taken {
		m.Ack() //nolint:errcheck
	}

	// Two workers play the other two and four more.
	handler := func(ctx context.Context, j Job) (Result, error) {
		return Result{Games: 2, Positions: 100}, nil
	}
	var wg sync.WaitGroup
	wctx, stop := context.WithCancel(ctx)
	for _, name := range []string{"a", "b"} {
		w, err := NewWorker(ctx, c, WorkerOptions{Name: name, Handler: handler})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); w.Run(wctx) }()
	}
	var jobs []Job
	for i := range 4 {
		jobs = append(jobs, Job{Kind: KindSelfplay, Shard: i})
	}
	if err := c.enqueue(ctx, jobs); err != nil {
		t.Fatal(err)
	}
	for gen, want := range []int{4, 2} {
		n := 0
		if err := c.followResults(ctx, KindSelfplay, gen, func(*Result) (bool, error) { n++; return n == want, nil }); err != nil {
			t.Fatal(err)
		}
	}
	// Worker b may not have started when a has played all six (a loaded
	// machine): its heartbeat is waited for, a few seconds at most.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if s, err = c.Status(ctx, time.Minute); err != nil {
			t.Fatal(err)
		}
		if len(s.Beats) == 2 || time.Now().After(deadline) {
			break
		}
	}
	if len(s.Beats) != 2 || s.Beats[0].Name != "a" || s.Beats[1].Name != "b" || s.AckWait != time.Minute {
		t.Errorf("running workers' heartbeats %+v, AckWait %v", s.Beats, s.AckWait)
	}
	stop()
	wg.Wait()
	if s, err = c.Status(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if len(s.Beats) != 0 {
		t.Errorf("workers stopped cleanly left heartbeats: %+v", s.Beats)
	}
	blocks, games, positions := 0, 0, int64(0)
	for _, w := range s.Workers {
		if w.Name != "a" && w.Name != "b" || w.Last.IsZero() || w.JobsPerMinute <= 0 {
			t.Errorf("worker %+v", w)
		}
		blocks += w.SelfPlay
		games += w.Games
		positions += w.Positions
	}
	if blocks != 6 || games != 12 || positions != 600 {
		t.Errorf("workers seen: %d blocks, %d games, %d positions; want 6, 12, 600 (%+v)", blocks, games, positions, s.Workers)
	}
	// A worker that died holding a job leaves its last heartbeat, the
	// job named.
	dead := WorkerBeat{Name: "host.9", Slots: 1, Jobs: []HeldJob{{ID: "selfplay-g0002-s000000", Since: time.Now().Add(-time.Minute).UTC()}}, At: time.Now().Add(-30 * time.Second).UTC()}
	c.putWorkerBeat(ctx, dead)
	if s, err = c.Status(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if len(s.Beats) != 1 || s.Beats[0].Name != "host.9" || len(s.Beats[0].Jobs) != 1 || s.Beats[0].Jobs[0].ID != dead.Jobs[0].ID {
		t.Errorf("a dead worker's heartbeat: %+v", s.Beats)
	}
	// A window with no results in it sees no worker.
	if s, err := c.Status(ctx, time.Nanosecond); err != nil || len(s.Workers) != 0 {
		t.Errorf("a window of 1 ns: %v, workers %+v", err, s.Workers)
	}
}
