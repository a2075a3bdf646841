package nn

import (
	"fmt"
	"sync"
)

// Batcher gathers the positions of many concurrently running searches into
// batches for one backend, as KataGo's NNEvaluator does for its search
// threads, but without timers: each search holds a Client, and a batch goes to
// the backend when
//
//   - it holds maxBatch positions, or
//   - every open client is blocked in Evaluate, so no more positions can come
//     until some are answered.
//
// Nothing waits on a clock, a lone client is served at once, and batch
// composition depends only on the order in which clients call.
//
// There is no background goroutine: a blocked client runs each batch on the
// backend itself (so the backend sees one goroutine at a time), and a batch
// that becomes due while the backend is busy is sent, by one of the clients
// waiting on it, as soon as the backend is free. A Batcher therefore needs no
// Close and leaks nothing; its clients must be closed.
//
// A search that stops calling Evaluate for a while without closing its client
// holds back every partial batch until it calls again or closes.
type Batcher struct {
	backend  Evaluator
	maxBatch int

	mu      sync.Mutex
	open    int       // clients not closed
	blocked int       // clients inside Evaluate with positions not yet answered
	pending int       // queued positions not yet taken into a batch
	queue   []*Client // clients with positions not yet taken, in arrival order
	busy    bool      // a client is running a batch
	due     bool      // every open client was blocked while the backend was busy
	stats   BatcherStats

	// Owned by the client running the batch (busy == true).
	in   []Input
	out  []Output
	segs []segment
}

// segment is one client's share of a batch: its inputs [from, to) sit in the
// batch at offset at.
type segment struct {
	c            *Client
	from, to, at int
}

// BatcherStats counts what the backend was sent.
type BatcherStats struct {
	Batches     uint64 // backend calls
	Positions   uint64 // positions in them
	FullBatches uint64 // calls that held maxBatch positions
	Errors      uint64 // calls that failed
}

// MeanBatch is the mean number of positions per backend call.
func (s BatcherStats) MeanBatch() float64 {
	if s.Batches == 0 {
		return 0
	}
	return float64(s.Positions) / float64(s.Batches)
}

// NewBatcher returns a Batcher sending batches of at most maxBatch positions
// (at least 1) to backend, which must not be used by anything else meanwhile.
func NewBatcher(backend Evaluator, maxBatch int) *Batcher {
	maxBatch = max(maxBatch, 1)
	return &Batcher{
		backend:  backend,
		maxBatch: maxBatch,
		in:       make([]Input, 0, maxBatch),
		out:      make([]Output, 0, maxBatch),
		segs:     make([]segment, 0, maxBatch),
	}
}

// Stats returns the counters so far.
func (b *Batcher) Stats() BatcherStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// Client is one search's handle on a Batcher. It is an Evaluator for one
// goroutine at a time, and must be closed when that search is done (or
// pauses for long), or the others wait for it.
type Client struct {
	b    *Batcher
	wake chan struct{} // a token means: look at lead and done again

	// Guarded by b.mu.
	in     []Input
	out    []Output
	taken  int   // inputs of in already put into a batch
	left   int   // inputs of in not yet answered
	err    error // the first error among in's batches
	lead   bool  // run the next batch
	done   bool  // every input answered
	closed bool
}

// NewClient registers a client. Until it is closed, batches that are not full
// wait for it to block in Evaluate.
func (b *Batcher) NewClient() *Client {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.open++
	return &Client{b: b, wake: make(chan struct{}, 1)}
}

func (c *Client) InputSize() int  { return c.b.backend.InputSize() }
func (c *Client) PolicySize() int { return c.b.backend.PolicySize() }

// Close unregisters the client; a batch that was waiting only for it goes
// out. Closing twice does nothing. It must not be called while the same
// client is in Evaluate.
func (c *Client) Close() {
	b := c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	b.open--
	b.kick(nil)
}

// Evaluate queues in and blocks until every input is answered, possibly
// running batches (its own and others') on the backend meanwhile. A backend
// error is returned to every client with inputs in the failed batch; the
// client's inputs not yet sent are then dropped.
func (c *Client) Evaluate(in []Input, out []Output) error {
	b := c.b
	if err := Validate(b.backend.InputSize(), b.backend.PolicySize(), in, out); err != nil {
		return err
	}
	if len(in) == 0 {
		return nil
	}
	b.mu.Lock()
	if c.closed {
		b.mu.Unlock()
		return ErrClosed
	}
	c.in, c.out, c.taken, c.left, c.err, c.done = in, out, 0, len(in), nil, false
	b.queue = append(b.queue, c)
	b.pending += len(in)
	b.blocked++
	b.kick(c)
	for {
		if c.lead {
			c.lead = false
			b.run(c)
			continue
		}
		if c.done {
			break
		}
		b.mu.Unlock()
		<-c.wake
		b.mu.Lock()
	}
	err := c.err
	c.in, c.out, c.err = nil, nil, nil
	b.mu.Unlock()
	return err
}

// kick starts a batch if one is due and the backend is free, choosing a
// blocked client to run it: self if it is blocked (no wake-up needed), else
// the longest waiting. Called with b.mu held after every change of state.
func (b *Batcher) kick(self *Client) {
	if b.pending == 0 {
		b.due = false
		return
	}
	all := b.blocked >= b.open // > only if a client was misused: closed while in Evaluate
	if b.busy {
		// Remember that nothing more can come, so the queue goes out as
		// soon as the backend is free instead of waiting for the clients
		// now being answered to come back.
		b.due = b.due || all
		return
	}
	if !all && !b.due && b.pending < b.maxBatch {
		return
	}
	b.busy = true
	if self != nil && !self.done {
		self.lead = true
		return
	}
	leader := b.queue[0]
	leader.lead = true
	select {
	case leader.wake <- struct{}{}:
	default: // a token is already there; the leader will look at lead
	}
}

// run sends one batch from the head of the queue to the backend and answers
// its clients. Called with b.mu held and b.busy set, by a blocked client; it
// releases b.mu during the backend call.
func (b *Batcher) run(leader *Client) {
	in, out, segs := b.in[:0], b.out[:0], b.segs[:0]
	popped := 0
	for _, c := range b.queue {
		k := min(len(c.in)-c.taken, b.maxBatch-len(in))
		segs = append(segs, segment{c: c, from: c.taken, to: c.taken + k, at: len(in)})
		in = append(in, c.in[c.taken:c.taken+k]...)
		for _, o := range c.out[c.taken : c.taken+k] {
			// The backend writes the policy straight into the client's buffer.
			out = append(out, Output{Policy: o.Policy})
		}
		c.taken += k
		b.pending -= k
		if c.taken < len(c.in) {
			break // the batch is full; c stays at the head
		}
		popped++
		if len(in) == b.maxBatch {
			break
		}
	}
	b.popQueue(popped)
	// What is left stays due if it was, and becomes due if every client is
	// blocked (the ones just taken still are).
	b.due = b.pending > 0 && (b.due || b.blocked >= b.open)
	b.stats.Batches++
	b.stats.Positions += uint64(len(in))
	if len(in) == b.maxBatch {
		b.stats.FullBatches++
	}
	b.in, b.out, b.segs = in, out, segs
	b.mu.Unlock()

	err := b.backend.Evaluate(in, out)

	b.mu.Lock()
	if err != nil {
		b.stats.Errors++
		err = fmt.Errorf("nn: batcher: backend on %d positions: %w", len(in), err)
	}
	for _, s := range segs {
		c := s.c
		if err == nil {
			for j := s.from; j < s.to; j++ {
				c.out[j].WDL = out[s.at+j-s.from].WDL
			}
		} else if c.err == nil {
			c.err = err
			b.dropRest(c)
		}
		c.left -= s.to - s.from
		if c.left == 0 {
			c.done = true
			b.blocked--
			if c != leader {
				select {
				case c.wake <- struct{}{}:
				default:
				}
			}
		}
	}
	clear(in)
	clear(out)
	clear(segs)
	b.busy = false
	b.kick(leader)
}

// dropRest abandons the inputs of c not yet taken into a batch, after c's
// call has already failed.
func (b *Batcher) dropRest(c *Client) {
	rest := len(c.in) - c.taken
	if rest == 0 {
		return
	}
	c.taken = len(c.in)
	c.left -= rest
	b.pending -= rest
	for i, q := range b.queue {
		if q == c {
			last := len(b.queue) - 1
			copy(b.queue[i:], b.queue[i+1:])
			b.queue[last] = nil
			b.queue = b.queue[:last]
			break
		}
	}
}

// popQueue removes the first n clients, keeping the slice's start so that
// appends reuse its array.
func (b *Batcher) popQueue(n int) {
	if n == 0 {
		return
	}
	k := copy(b.queue, b.queue[n:])
	clear(b.queue[k:])
	b.queue = b.queue[:k]
}
