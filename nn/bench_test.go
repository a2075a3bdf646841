package nn

import (
	"sync"
	"sync/atomic"
	"testing"
)

// nopBackend costs nothing, so a benchmark over it measures the layer above.
type nopBackend struct{}

func (nopBackend) InputSize() int                   { return testInputSize }
func (nopBackend) PolicySize() int                  { return testPolicySize }
func (nopBackend) Evaluate([]Input, []Output) error { return nil }

// One position of 44 legal moves, a middlegame's worth, served from the table.
func BenchmarkCacheHit(b *testing.B) {
	in := positionPool(20, 1, 1)
	in[0].Legal = in[0].Legal[:0]
	for m := range int32(44) {
		in[0].Legal = append(in[0].Legal, m*37)
	}
	out := outputsFor(in)
	cache := NewCache(NewRandom(testInputSize, testPolicySize, 1), 1<<16)
	if err := cache.Evaluate(in, out); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = cache.Evaluate(in, out)
	}
	if s := cache.Stats(); s.Misses != 1 {
		b.Fatalf("stats %+v: the loop missed", s)
	}
}

// The same from every P at once, on one shared table.
func BenchmarkCacheHitParallel(b *testing.B) {
	pool := positionPool(21, 256, 60)
	cache := NewCache(NewRandom(testInputSize, testPolicySize, 1), 1<<16)
	if err := cache.Evaluate(pool, outputsFor(pool)); err != nil {
		b.Fatal(err)
	}
	outs := outputsFor(pool)
	var next atomic.Uint64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := next.Add(1) % 256
		in, out := pool[i:i+1], outs[i:i+1]
		for pb.Next() {
			_ = cache.Evaluate(in, out)
		}
	})
}

// A lone client: each call is its own batch, so this is the fixed cost of
// going through a Batcher.
func BenchmarkBatcherOneClient(b *testing.B) {
	bat := NewBatcher(nopBackend{}, 256)
	c := bat.NewClient()
	defer c.Close()
	in := positionPool(22, 1, 40)
	out := outputsFor(in)
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Evaluate(in, out)
	}
}

// 16 searches each asking for one position at a time, as self-play does: the
// cost per position of gathering, waking and answering.
func BenchmarkBatcher16Clients(b *testing.B) {
	const clients = 16
	bat := NewBatcher(nopBackend{}, 256)
	pool := positionPool(23, clients, 40)
	outs := outputsFor(pool)
	var next atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range clients {
		c := bat.NewClient()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			in, out := pool[g:g+1], outs[g:g+1]
			<-start
			for next.Add(1) <= int64(b.N) {
				_ = c.Evaluate(in, out)
			}
		}()
	}
	b.ReportAllocs()
	b.ResetTimer()
	close(start)
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(bat.Stats().MeanBatch(), "positions/batch")
}

func BenchmarkRandom(b *testing.B) {
	in := positionPool(24, 16, 80)
	out := outputsFor(in)
	r := NewRandom(testInputSize, testPolicySize, 1)
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Evaluate(in, out)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(in)), "ns/position")
}

// Misses into a fresh self-play-sized table (262,144 entries), each stored:
// a run's first pass over the table's memory, where every page is new. One
// op is one position of 44 moves; the table's creation is not timed.
func BenchmarkCacheMissFreshTable(b *testing.B) {
	const entries = 1 << 18
	in := positionPool(22, 1, 1)
	in[0].Legal = in[0].Legal[:0]
	for m := range int32(44) {
		in[0].Legal = append(in[0].Legal, m*37)
	}
	out := outputsFor(in)
	var cache *Cache
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%entries == 0 {
			b.StopTimer()
			cache = NewCache(nopBackend{}, entries)
			cache.Prefault()
			b.StartTimer()
		}
		i++
		in[0].Key = uint64(i)
		_ = cache.Evaluate(in, out)
	}
}

// Making a self-play-sized table (262,144 entries, some 77 MB) and
// faulting its pages in.
func BenchmarkNewCachePrefault(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		NewCache(nil, 1<<18).Prefault()
	}
}
