package gnet

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// The kernels' parallel loops run on a pool of goroutines that live as
// long as the process, and a loop's arguments live in a task value its
// op keeps (taskSlots) or a sync.Pool holds: starting goroutines and making
// closures for every loop cost some 250 allocations a training step.

// A task is a loop body over [lo, hi).
type task interface{ run(lo, hi int) }

// parallel runs t over [0, n) in one band per core when work (a rough
// count of values touched) makes the cores worth it.
func parallel(n, work int, t task) {
	split(n, min(runtime.GOMAXPROCS(0), n, max(1, work>>16)), t)
}

// fanOut runs t.run(i, i+1) for i in [0, parts), each on a core of its
// own where one is free.
func fanOut(parts int, t task) { split(parts, parts, t) }

// split runs t over [0, n) in parts bands, band i being
// [n·i/parts, n·(i+1)/parts): which goroutine runs a band never changes
// what it computes. The caller queues bands 1 to parts−1 for the
// workers, runs band 0, then runs queued bands itself until its own are
// done: so a worker still on its way back to the queue costs no band its
// core, and a band that splits again never waits on workers that are all
// busy. A panic in a band comes back on the caller's goroutine, where the
// graph's run recovers it.
func split(n, parts int, t task) {
	if parts <= 1 {
		t.run(0, n)
		return
	}
	workers.start(parts - 1)
	g := groups.Get().(*group)
	g.pending.Store(int32(parts))
	for i := 1; i < parts; i++ {
		select {
		case workers.jobs <- job{t: t, lo: n * i / parts, hi: n * (i + 1) / parts, g: g}:
		default: // the queue is full: the cores are busy anyway
			g.do(t, n*i/parts, n*(i+1)/parts)
		}
	}
	g.do(t, 0, n/parts)
wait:
	for {
		select {
		case <-g.done:
			break wait
		case j := <-workers.jobs:
			j.g.do(j.t, j.lo, j.hi)
		}
	}
	panicked := g.panicked
	g.panicked = nil
	groups.Put(g)
	if panicked != nil {
		panic(panicked)
	}
}

// A group is one split's bands in flight.
type group struct {
	pending  atomic.Int32  // bands not yet done
	done     chan struct{} // receives once the last is
	mu       sync.Mutex
	panicked any
}

var groups = sync.Pool{New: func() any { return &group{done: make(chan struct{}, 1)} }}

// do runs one band and marks it done, keeping its panic.
func (g *group) do(t task, lo, hi int) {
	defer func() {
		if r := recover(); r != nil {
			g.mu.Lock()
			g.panicked = r
			g.mu.Unlock()
		}
		if g.pending.Add(-1) == 0 {
			g.done <- struct{}{}
		}
	}()
	t.run(lo, hi)
}

type job struct {
	t      task
	lo, hi int
	g      *group
}

// workerPool is the goroutines that take queued bands: started as splits
// need them, never stopped.
type workerPool struct {
	mu      sync.Mutex
	started int
	jobs    chan job
}

var workers = &workerPool{jobs: make(chan job, 1024)}

// start makes sure n workers run.
func (p *workerPool) start(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for ; p.started < n; p.started++ {
		go func() {
			for j := range p.jobs {
				j.g.do(j.t, j.lo, j.hi)
			}
		}()
	}
}

// taskSlots keeps one task of each type for an op (or a graph's ops,
// which run one at a time) from one run to the next.
type taskSlots []any

// slotFor returns s's task of type V, making it the first time.
func slotFor[V any](s *taskSlots) *V {
	for _, x := range *s {
		if v, ok := x.(*V); ok {
			return v
		}
	}
	v := new(V)
	*s = append(*s, v)
	return v
}
