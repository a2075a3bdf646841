package cluster

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/palace-chess/palace/loop/looptest"
)

// BenchmarkJobThroughput measures coordination alone: b.N jobs enqueued,
// four workers (a connection each, 64 jobs in hand at a time) fetch them,
// publish a result each and ack, and a collector reads the results, with
// evaluation stubbed out. jobs/s is what the queue sustains end to end on
// one embedded server (file storage, as a deployment uses).
func BenchmarkJobThroughput(b *testing.B) {
	const workers, slots = 4, 64
	url := looptest.NATS(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := connect(b, url, "bench")
	stub := func(ctx context.Context, j Job) (Result, error) { return Result{Games: 1}, nil }
	var wg sync.WaitGroup
	for i := range workers {
		w, err := NewWorker(ctx, connect(b, url, "bench-worker"), WorkerOptions{Name: fmt.Sprint(i), Slots: slots, Handler: stub})
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(ctx); err != nil {
				b.Error(err)
			}
		}()
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	// A generation of its own per call, so that the streams'
	// de-duplication never meets an earlier call's IDs.
	gen := int(start.UnixNano() % 1e9)
	jobs := make([]Job, b.N)
	for i := range jobs {
		jobs[i] = Job{Kind: KindSelfplay, Generation: gen, Shard: i, Games: 1}
	}
	enqueued := make(chan error, 1)
	go func() { enqueued <- c.enqueue(ctx, jobs) }()
	got := 0
	err := c.followResults(ctx, KindSelfplay, gen, func(*Result) (bool, error) {
		got++
		return got == b.N, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := <-enqueued; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "jobs/s")
	cancel()
	wg.Wait()
}
