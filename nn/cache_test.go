package nn

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// positionPool is a fixed set of positions: the same key always comes with
// the same planes and legal moves, as it would from a real search.
func positionPool(seed uint64, n, maxMoves int) []Input {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	pool := make([]Input, n)
	for i := range pool {
		pool[i] = randInput(rng, uint64(i+1)*0x9e3779b97f4a7c15, maxMoves)
	}
	return pool
}

func TestCacheReturnsWhatTheBackendReturns(t *testing.T) {
	rnd := NewRandom(testInputSize, testPolicySize, 11)
	backend := newCounting(rnd)
	// Few entries for the pool, so slots are reused and policies in the
	// ring overwritten: hits, misses and evictions all happen.
	cache := NewCache(backend, 40)
	pool := positionPool(1, 150, 120)
	rng := rand.New(rand.NewPCG(12, 13))
	lookups, bypassed := 0, 0
	for range 2000 {
		in := make([]Input, 1+rng.IntN(6))
		for i := range in {
			in[i] = pool[rng.IntN(len(pool))]
			if rng.IntN(10) == 0 {
				in[i].Key = 0
				bypassed++
			} else {
				lookups++
			}
		}
		got := outputsFor(in)
		if err := cache.Evaluate(in, got); err != nil {
			t.Fatal(err)
		}
		if i, ok := sameOutputs(got, direct(t, rnd, in)); !ok {
			t.Fatalf("output %d differs from the backend's", i)
		}
	}
	s := cache.Stats()
	if s.Hits == 0 || s.Misses == 0 {
		t.Fatalf("stats %+v: want both hits and misses", s)
	}
	if s.Hits+s.Misses != uint64(lookups) || s.Bypassed != uint64(bypassed) {
		t.Fatalf("stats %+v: want %d lookups, %d bypassed", s, lookups, bypassed)
	}
	var sent int
	for _, n := range backend.calls() {
		sent += n
	}
	if sent != int(s.Misses+s.Bypassed) {
		t.Fatalf("backend saw %d positions, want misses + bypassed = %d", sent, s.Misses+s.Bypassed)
	}
	if s.Entries != 40 {
		t.Fatalf("Entries = %d", s.Entries)
	}
}

func TestCacheCountsAndBatchesMisses(t *testing.T) {
	rnd := NewRandom(testInputSize, testPolicySize, 1)
	backend := newCounting(rnd)
	cache := NewCache(backend, 1024)
	pool := positionPool(2, 4, 50)
	eval := func(in ...Input) {
		t.Helper()
		got := outputsFor(in)
		if err := cache.Evaluate(in, got); err != nil {
			t.Fatal(err)
		}
		if i, ok := sameOutputs(got, direct(t, rnd, in)); !ok {
			t.Fatalf("output %d differs from the backend's", i)
		}
	}
	expect := func(hits, misses uint64, calls ...int) {
		t.Helper()
		if s := cache.Stats(); s.Hits != hits || s.Misses != misses {
			t.Fatalf("stats %+v, want %d hits and %d misses", s, hits, misses)
		}
		if got := backend.calls(); !slices.Equal(got, calls) {
			t.Fatalf("backend calls %v, want %v", got, calls)
		}
	}
	eval(pool[0], pool[1])
	expect(0, 2, 2)
	eval(pool[0], pool[1])
	expect(2, 2, 2)
	// Misses spread through a call reach the backend as one batch.
	eval(pool[2], pool[0], pool[3], pool[1])
	expect(4, 4, 2, 2)
	if r := cache.Stats().HitRate(); r != 0.5 {
		t.Fatalf("HitRate %v, want 0.5", r)
	}
}

// evalOne evaluates in through cache and checks the output against the
// backend's own.
func evalOne(t *testing.T, cache *Cache, backend Evaluator, in Input) {
	t.Helper()
	got := outputsFor([]Input{in})
	if err := cache.Evaluate([]Input{in}, got); err != nil {
		t.Fatal(err)
	}
	if _, ok := sameOutputs(got, direct(t, backend, []Input{in})); !ok {
		t.Fatalf("key %d: output differs from the backend's", in.Key)
	}
}

func TestCacheChangedLegalListIsAMiss(t *testing.T) {
	rnd := NewRandom(testInputSize, testPolicySize, 1)
	backend := newCounting(rnd)
	cache := NewCache(backend, 64)
	x := positionPool(3, 1, 40)[0]
	for len(x.Legal) < 3 {
		x = positionPool(4, 1, 40)[0]
	}
	variants := map[string]func() []int32{
		"shorter": func() []int32 { return x.Legal[1:] },
		"longer": func() []int32 {
			for m := int32(0); ; m++ {
				if !slices.Contains(x.Legal, m) {
					return append(slices.Clone(x.Legal), m)
				}
			}
		},
		"one index changed": func() []int32 {
			l := slices.Clone(x.Legal)
			for l[0] = 0; slices.Contains(x.Legal, l[0]); l[0]++ {
			}
			return l
		},
		"reordered": func() []int32 {
			l := slices.Clone(x.Legal)
			l[0], l[1] = l[1], l[0]
			return l
		},
	}
	for name, legal := range variants {
		t.Run(name, func(t *testing.T) {
			evalOne(t, cache, rnd, x) // stored (or already there)
			before := cache.Stats()
			y := x
			y.Legal = legal()
			evalOne(t, cache, rnd, y)
			after := cache.Stats()
			if after.Misses != before.Misses+1 || after.Hits != before.Hits {
				t.Fatalf("changed legal list: stats went from %+v to %+v, want one more miss", before, after)
			}
			evalOne(t, cache, rnd, y) // now stored under the same key with the new list
			if s := cache.Stats(); s.Hits != after.Hits+1 {
				t.Fatalf("second lookup of the changed list: stats %+v, want a hit", s)
			}
		})
	}
}

func TestCacheBypassesKeyZeroAndLongLists(t *testing.T) {
	rnd := NewRandom(testInputSize, testPolicySize, 1)
	backend := newCounting(rnd)
	cache := NewCache(backend, 4) // the smallest store: 4096 floats, lists of up to 1024 moves
	x := positionPool(5, 1, 40)[0]
	x.Key = 0
	long := randInput(rand.New(rand.NewPCG(1, 1)), 77, 1)
	long.Legal = make([]int32, 1025)
	for i := range long.Legal {
		long.Legal[i] = int32(i)
	}
	for range 3 {
		in := []Input{x, long}
		got := outputsFor(in)
		if err := cache.Evaluate(in, got); err != nil {
			t.Fatal(err)
		}
		if i, ok := sameOutputs(got, direct(t, rnd, in)); !ok {
			t.Fatalf("output %d differs from the backend's", i)
		}
	}
	if s := cache.Stats(); s.Hits != 0 || s.Misses != 0 || s.Bypassed != 6 {
		t.Fatalf("stats %+v, want 6 bypassed and no lookups", s)
	}
	if calls := backend.calls(); !slices.Equal(calls, []int{2, 2, 2}) {
		t.Fatalf("backend calls %v, want every input every time", calls)
	}
}

// An entry whose policy the ring has since overwritten must read as a miss,
// even though its slot still holds its key.
func TestCacheRingOverwriteIsAMiss(t *testing.T) {
	rnd := NewRandom(testInputSize, testPolicySize, 1)
	cache := NewCache(newCounting(rnd), 8) // ring of 4096 floats, 8 slots
	mk := func(key uint64) Input {
		x := randInput(rand.New(rand.NewPCG(key, 0)), key, 1)
		x.Legal = make([]int32, 1000)
		for i := range x.Legal {
			x.Legal[i] = int32((int(key) + i) % testPolicySize)
		}
		return x
	}
	first := mk(1)
	// Keys in other slots than first's, so only the ring can evict it.
	var others []Input
	for k := uint64(2); len(others) < 5; k++ {
		if cache.t.slot(k) != cache.t.slot(first.Key) {
			others = append(others, mk(k))
		}
	}
	evalOne(t, cache, rnd, first)
	evalOne(t, cache, rnd, first)
	if s := cache.Stats(); s.Hits != 1 {
		t.Fatalf("stats %+v: want first stored", s)
	}
	for _, x := range others { // 5000 floats: past the ring's 4096, wrapping once
		evalOne(t, cache, rnd, x)
	}
	before := cache.Stats()
	evalOne(t, cache, rnd, first)
	if s := cache.Stats(); s.Misses != before.Misses+1 {
		t.Fatalf("stats went from %+v to %+v: an overwritten policy was not a miss", before, s)
	}
	// The newest entries, one stored after the wrap, still hit with the right policy.
	evalOne(t, cache, rnd, others[len(others)-1])
	if s := cache.Stats(); s.Hits != before.Hits+1 {
		t.Fatalf("stats %+v: the newest entry did not hit", s)
	}
}

func TestCacheBackendError(t *testing.T) {
	backend := newCounting(NewRandom(testInputSize, testPolicySize, 1))
	cache := NewCache(backend, 16)
	x := positionPool(6, 1, 30)[0]
	backend.poison[x.Key] = true
	err := cache.Evaluate([]Input{x}, outputsFor([]Input{x}))
	if !errors.Is(err, errBackend) {
		t.Fatalf("error %v, want the backend's", err)
	}
	// A failed evaluation is not stored.
	delete(backend.poison, x.Key)
	if err := cache.Evaluate([]Input{x}, outputsFor([]Input{x})); err != nil {
		t.Fatal(err)
	}
	if s := cache.Stats(); s.Hits != 0 || s.Misses != 2 {
		t.Fatalf("stats %+v, want two misses", s)
	}
}

func TestCacheWithoutBackend(t *testing.T) {
	table := NewCache(nil, 16)
	x := positionPool(7, 1, 30)[0]
	if err := table.Evaluate([]Input{x}, outputsFor([]Input{x})); err == nil {
		t.Fatal("a Cache with no backend evaluated")
	}
	// Its fronts share its entries and counters.
	rnd := NewRandom(testInputSize, testPolicySize, 1)
	a, b := table.WithBackend(rnd), table.WithBackend(rnd)
	for _, ev := range []*Cache{a, b} {
		got := outputsFor([]Input{x})
		if err := ev.Evaluate([]Input{x}, got); err != nil {
			t.Fatal(err)
		}
	}
	if s := table.Stats(); s.Misses != 1 || s.Hits != 1 {
		t.Fatalf("stats %+v: want the second front to hit the first's entry", s)
	}
}

func TestCacheConcurrent(t *testing.T) {
	for _, mode := range []string{"one cache", "fronts"} {
		t.Run(mode, func(t *testing.T) {
			rnd := NewRandom(testInputSize, testPolicySize, 21)
			shared := newCounting(rnd)
			cache := NewCache(shared, 32) // much smaller than the pool: constant eviction
			pool := positionPool(8, 100, 80)
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			var backends []*countingBackend
			for g := range 8 {
				ev, backend := cache, shared
				if mode == "fronts" {
					backend = newCounting(rnd)
					ev = cache.WithBackend(backend)
				}
				backends = append(backends, backend)
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(g), 99))
					for range 300 {
						in := make([]Input, 1+rng.IntN(4))
						for i := range in {
							in[i] = pool[rng.IntN(len(pool))]
						}
						got := outputsFor(in)
						if err := ev.Evaluate(in, got); err != nil {
							errs <- err
							return
						}
						want := outputsFor(in)
						_ = rnd.Evaluate(in, want)
						if i, ok := sameOutputs(got, want); !ok {
							errs <- fmt.Errorf("output %d differs from the backend's", i)
							return
						}
					}
				}()
			}
			within(t, 30*time.Second, wg.Wait)
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			for _, b := range backends {
				if b.concurrent.Load() {
					t.Fatal("the cache called a backend from two goroutines at once")
				}
			}
			if s := cache.Stats(); s.Hits == 0 || s.Misses == 0 {
				t.Fatalf("stats %+v", s)
			}
		})
	}
}

func TestCacheHitDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	cache := NewCache(NewRandom(testInputSize, testPolicySize, 1), 1024)
	in := positionPool(9, 4, 100)
	out := outputsFor(in)
	_ = cache.Evaluate(in, out)
	if n := testing.AllocsPerRun(100, func() { _ = cache.Evaluate(in, out) }); n != 0 {
		t.Errorf("hits: %v allocations per call", n)
	}
	// Misses too, once the scratch space has grown.
	in[0].Key = 0
	_ = cache.Evaluate(in, out)
	if n := testing.AllocsPerRun(100, func() { _ = cache.Evaluate(in, out) }); n != 0 {
		t.Errorf("with a miss: %v allocations per call", n)
	}
}

// Prefault leaves a new table working as before, and a used one as it was:
// the hits after it return the backend's numbers.
func TestCachePrefault(t *testing.T) {
	rnd := NewRandom(testInputSize, testPolicySize, 4)
	cache := NewCache(rnd, 5000) // the ring spans many pages
	cache.Prefault()
	pool := positionPool(4, 200, 60)
	for round := range 2 {
		got := outputsFor(pool)
		if err := cache.Evaluate(pool, got); err != nil {
			t.Fatal(err)
		}
		if i, ok := sameOutputs(got, direct(t, rnd, pool)); !ok {
			t.Fatalf("round %d: output %d differs from the backend's", round, i)
		}
		cache.Prefault() // on a used table: nothing changes
	}
	if s := cache.Stats(); s.Hits < uint64(len(pool))*3/4 {
		t.Fatalf("stats %+v: the second round of %d mostly missed", s, len(pool))
	}
}
