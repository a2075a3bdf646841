package nn

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// runClients runs n clients of b concurrently, each making rounds calls of
// 1–maxIn random inputs, and checks every answer against rnd directly. It
// returns the first error any client saw.
func runClients(t *testing.T, b *Batcher, rnd Evaluator, n, rounds, maxIn int) {
	t.Helper()
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := b.NewClient()
			defer c.Close()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for r := range rounds {
				in := make([]Input, 1+rng.IntN(maxIn))
				for i := range in {
					key := uint64(g)<<32 | uint64(r)<<8 | uint64(i) + 1
					if rng.IntN(8) == 0 {
						key = 0
					}
					in[i] = randInput(rng, key, 60)
				}
				got := outputsFor(in)
				if err := c.Evaluate(in, got); err != nil {
					errs <- fmt.Errorf("client %d round %d: %w", g, r, err)
					return
				}
				want := outputsFor(in)
				_ = rnd.Evaluate(in, want)
				if i, ok := sameOutputs(got, want); !ok {
					errs <- fmt.Errorf("client %d round %d: output %d differs from the backend's", g, r, i)
					return
				}
			}
		}()
	}
	within(t, 60*time.Second, wg.Wait)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// noGoroutineLeak fails the test if goroutines started during it are still
// running shortly after it ends.
func noGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<16)
				t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func TestBatcherMatchesBackend(t *testing.T) {
	for _, clients := range []int{1, 2, 16} {
		for _, maxBatch := range []int{1, 5, 256} {
			t.Run(fmt.Sprintf("clients=%d,maxBatch=%d", clients, maxBatch), func(t *testing.T) {
				noGoroutineLeak(t)
				rnd := NewRandom(testInputSize, testPolicySize, 3)
				backend := newCounting(rnd)
				b := NewBatcher(backend, maxBatch)
				runClients(t, b, rnd, clients, 60, 3)
				if backend.concurrent.Load() {
					t.Fatal("the backend was called from two goroutines at once")
				}
				calls := backend.calls()
				var sum int
				for _, n := range calls {
					if n < 1 || n > maxBatch {
						t.Fatalf("a batch of %d positions (maxBatch %d)", n, maxBatch)
					}
					sum += n
				}
				s := b.Stats()
				if s.Batches != uint64(len(calls)) || s.Positions != uint64(sum) || s.Errors != 0 {
					t.Fatalf("stats %+v, backend saw %d calls of %d positions", s, len(calls), sum)
				}
				if s.MeanBatch() != float64(sum)/float64(len(calls)) {
					t.Fatalf("MeanBatch %v", s.MeanBatch())
				}
				if clients >= 16 && maxBatch > 1 && (slices.Max(calls) == 1 || s.MeanBatch() < 2) {
					t.Fatalf("%d clients: batches %v never grew", clients, calls)
				}
				t.Logf("%d batches, mean %.1f, %d full", s.Batches, s.MeanBatch(), s.FullBatches)
			})
		}
	}
}

// With every client blocked the batch goes out whole, so n clients making one
// call each give one backend call of n positions.
func TestBatcherFlushesWhenAllBlocked(t *testing.T) {
	noGoroutineLeak(t)
	backend := newCounting(NewUniform(testInputSize, testPolicySize))
	b := NewBatcher(backend, 256)
	const n = 12
	clients := make([]*Client, n)
	for i := range clients {
		clients[i] = b.NewClient()
	}
	pool := positionPool(10, n, 30)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := []Input{pool[i]}
			if err := c.Evaluate(in, outputsFor(in)); err != nil {
				t.Error(err)
			}
		}()
	}
	within(t, 10*time.Second, wg.Wait)
	if calls := backend.calls(); !slices.Equal(calls, []int{n}) {
		t.Fatalf("backend calls %v, want one of %d", calls, n)
	}
	for _, c := range clients {
		c.Close()
	}
}

// A full batch goes out without waiting for the other clients.
func TestBatcherFlushesFullBatch(t *testing.T) {
	noGoroutineLeak(t)
	backend := newCounting(NewUniform(testInputSize, testPolicySize))
	b := NewBatcher(backend, 4)
	idle := b.NewClient() // never evaluates: only full batches can go
	c := b.NewClient()
	pool := positionPool(11, 10, 30)
	within(t, 10*time.Second, func() {
		if err := c.Evaluate(pool[:8], outputsFor(pool[:8])); err != nil {
			t.Error(err)
		}
	})
	if calls := backend.calls(); !slices.Equal(calls, []int{4, 4}) {
		t.Fatalf("backend calls %v, want two full batches", calls)
	}
	// The rest of a call that does not fill a batch waits for idle...
	done := make(chan error, 1)
	in := pool[:6]
	out := outputsFor(in)
	go func() { done <- c.Evaluate(in, out) }()
	waitBlocked(t, b, 1)
	if calls := backend.calls(); !slices.Equal(calls, []int{4, 4, 4}) {
		t.Fatalf("backend calls %v, want a third full batch and the rest waiting", calls)
	}
	// ...until idle closes.
	idle.Close()
	within(t, 10*time.Second, func() {
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	if calls := backend.calls(); !slices.Equal(calls, []int{4, 4, 4, 2}) {
		t.Fatalf("backend calls %v", calls)
	}
	if s := b.Stats(); s.FullBatches != 3 {
		t.Fatalf("stats %+v, want 3 full batches", s)
	}
	c.Close()
}

// waitBlocked waits until n clients are blocked with nothing in flight.
func waitBlocked(t *testing.T, b *Batcher, n int) {
	t.Helper()
	within(t, 10*time.Second, func() {
		for {
			b.mu.Lock()
			ok := b.blocked == n && !b.busy
			b.mu.Unlock()
			if ok {
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
}

// Clients that close early, before or between calls, never hold the others.
func TestBatcherEarlyClose(t *testing.T) {
	noGoroutineLeak(t)
	rnd := NewRandom(testInputSize, testPolicySize, 5)
	b := NewBatcher(rnd, 64)
	pool := positionPool(12, 50, 40)
	var wg sync.WaitGroup
	for g := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := b.NewClient()
			defer c.Close()
			// Client g stops after g*g calls: some never call, some close
			// while the others are blocked.
			for r := range g * g {
				in := []Input{pool[(g+r)%len(pool)]}
				got := outputsFor(in)
				if err := c.Evaluate(in, got); err != nil {
					t.Error(err)
					return
				}
				want := outputsFor(in)
				_ = rnd.Evaluate(in, want)
				if _, ok := sameOutputs(got, want); !ok {
					t.Error("output differs from the backend's")
					return
				}
			}
		}()
	}
	within(t, 30*time.Second, wg.Wait)
}

// Clients blocked on one open, idle client are released when it closes.
func TestBatcherCloseReleasesWaiters(t *testing.T) {
	noGoroutineLeak(t)
	backend := newCounting(NewUniform(testInputSize, testPolicySize))
	b := NewBatcher(backend, 64)
	idle := b.NewClient()
	pool := positionPool(13, 3, 40)
	var wg sync.WaitGroup
	for i := range 3 {
		c := b.NewClient()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			in := pool[i : i+1]
			if err := c.Evaluate(in, outputsFor(in)); err != nil {
				t.Error(err)
			}
		}()
	}
	waitBlocked(t, b, 3)
	if calls := backend.calls(); len(calls) != 0 {
		t.Fatalf("backend calls %v while a client was open and idle", calls)
	}
	idle.Close()
	idle.Close() // twice is harmless
	within(t, 10*time.Second, wg.Wait)
	if calls := backend.calls(); !slices.Equal(calls, []int{3}) {
		t.Fatalf("backend calls %v, want one of 3", calls)
	}
	if err := idle.Evaluate(pool[:1], outputsFor(pool[:1])); !errors.Is(err, ErrClosed) {
		t.Fatalf("Evaluate after Close: %v, want ErrClosed", err)
	}
}

// A lone client is never made to wait, and a call longer than maxBatch is
// split into batches of at most maxBatch.
func TestBatcherLoneClient(t *testing.T) {
	rnd := NewRandom(testInputSize, testPolicySize, 5)
	backend := newCounting(rnd)
	b := NewBatcher(backend, 4)
	c := b.NewClient()
	defer c.Close()
	pool := positionPool(14, 10, 40)
	for _, n := range []int{1, 3, 4, 10} {
		got := outputsFor(pool[:n])
		within(t, 10*time.Second, func() {
			if err := c.Evaluate(pool[:n], got); err != nil {
				t.Error(err)
			}
		})
		if i, ok := sameOutputs(got, direct(t, rnd, pool[:n])); !ok {
			t.Fatalf("n=%d: output %d differs from the backend's", n, i)
		}
	}
	if calls := backend.calls(); !slices.Equal(calls, []int{1, 3, 4, 4, 4, 2}) {
		t.Fatalf("backend calls %v", calls)
	}
}

// A failing batch fails exactly the calls with inputs in it.
func TestBatcherBackendErrors(t *testing.T) {
	noGoroutineLeak(t)
	rnd := NewRandom(testInputSize, testPolicySize, 5)
	backend := newCounting(rnd)
	b := NewBatcher(backend, 6)
	const clients, rounds = 8, 40
	type call struct {
		keys []uint64
		err  error
	}
	calls := make([][]call, clients)
	poisoned := 0
	for g := range clients {
		for r := range rounds {
			if (g*rounds+r)%23 == 5 {
				backend.poison[uint64(g)<<32|uint64(r)<<8|1] = true
				poisoned++
			}
		}
	}
	var wg sync.WaitGroup
	for g := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := b.NewClient()
			defer c.Close()
			rng := rand.New(rand.NewPCG(uint64(g), 3))
			for r := range rounds {
				in := make([]Input, 1+rng.IntN(4)) // up to 4 of maxBatch 6: some calls are split
				var keys []uint64
				for i := range in {
					in[i] = randInput(rng, uint64(g)<<32|uint64(r)<<8|uint64(i+1), 30)
					keys = append(keys, in[i].Key)
				}
				got := outputsFor(in)
				err := c.Evaluate(in, got)
				if err == nil {
					want := outputsFor(in)
					_ = rnd.Evaluate(in, want)
					if _, ok := sameOutputs(got, want); !ok {
						err = errors.New("output differs from the backend's")
					}
				}
				calls[g] = append(calls[g], call{keys, err})
			}
		}()
	}
	within(t, 30*time.Second, wg.Wait)
	failedCalls := 0
	for g := range calls {
		for r, c := range calls[g] {
			inFailed := false
			for _, k := range c.keys {
				inFailed = inFailed || backend.failedKeys[k]
			}
			switch {
			case inFailed && !errors.Is(c.err, errBackend):
				t.Errorf("client %d round %d: inputs in a failed batch, error %v", g, r, c.err)
			case !inFailed && c.err != nil:
				t.Errorf("client %d round %d: no input in a failed batch, error %v", g, r, c.err)
			}
			if c.err != nil {
				failedCalls++
			}
		}
	}
	if s := b.Stats(); s.Errors == 0 || failedCalls < poisoned {
		t.Fatalf("stats %+v, %d failed calls for %d poisoned keys", s, failedCalls, poisoned)
	}
}

func TestBatcherDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	b := NewBatcher(NewUniform(testInputSize, testPolicySize), 8)
	c := b.NewClient()
	defer c.Close()
	in := positionPool(15, 12, 40)
	out := outputsFor(in)
	if n := testing.AllocsPerRun(100, func() { _ = c.Evaluate(in, out) }); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}

// A call whose first batch fails drops its inputs not yet sent, and the
// client works again afterwards.
func TestBatcherErrorDropsRest(t *testing.T) {
	rnd := NewRandom(testInputSize, testPolicySize, 5)
	backend := newCounting(rnd)
	b := NewBatcher(backend, 4)
	c := b.NewClient()
	defer c.Close()
	pool := positionPool(16, 10, 40)
	backend.poison[pool[0].Key] = true
	within(t, 10*time.Second, func() {
		if err := c.Evaluate(pool, outputsFor(pool)); !errors.Is(err, errBackend) {
			t.Errorf("error %v, want the backend's", err)
		}
	})
	if calls := backend.calls(); !slices.Equal(calls, []int{4}) {
		t.Fatalf("backend calls %v, want the failed batch only", calls)
	}
	got := outputsFor(pool[1:])
	within(t, 10*time.Second, func() {
		if err := c.Evaluate(pool[1:], got); err != nil {
			t.Errorf("after a failure: %v", err)
		}
	})
	if i, ok := sameOutputs(got, direct(t, rnd, pool[1:])); !ok {
		t.Fatalf("after a failure: output %d differs from the backend's", i)
	}
}

// gatedBackend holds each call until the test lets it go.
type gatedBackend struct {
	Evaluator
	entered, release chan struct{}
}

func (g *gatedBackend) Evaluate(in []Input, out []Output) error {
	g.entered <- struct{}{}
	<-g.release
	return g.Evaluator.Evaluate(in, out)
}

// Positions queued while the backend is busy, with every client blocked, go
// out as soon as it is free: they do not wait for the clients being answered
// to call again.
func TestBatcherSendsDueBatchWhenBackendFrees(t *testing.T) {
	noGoroutineLeak(t)
	gate := &gatedBackend{NewUniform(testInputSize, testPolicySize), make(chan struct{}), make(chan struct{})}
	backend := newCounting(gate)
	b := NewBatcher(backend, 2)
	a, bb, c := b.NewClient(), b.NewClient(), b.NewClient()
	defer a.Close()
	defer bb.Close()
	defer c.Close()
	pool := positionPool(17, 3, 40)
	var wg sync.WaitGroup
	eval := func(cl *Client, x Input) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cl.Evaluate([]Input{x}, outputsFor([]Input{x})); err != nil {
				t.Error(err)
			}
		}()
	}
	eval(a, pool[0])
	eval(bb, pool[1])
	within(t, 10*time.Second, func() { <-gate.entered }) // a and b fill a batch
	eval(c, pool[2])
	within(t, 10*time.Second, func() {
		for {
			b.mu.Lock()
			due := b.due
			b.mu.Unlock()
			if due {
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
	gate.release <- struct{}{}
	// a and b are answered and stay open without calling again; c's
	// position must still go.
	within(t, 10*time.Second, func() { <-gate.entered })
	gate.release <- struct{}{}
	within(t, 10*time.Second, wg.Wait)
	if calls := backend.calls(); !slices.Equal(calls, []int{2, 1}) {
		t.Fatalf("backend calls %v", calls)
	}
}
