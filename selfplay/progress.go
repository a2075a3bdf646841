package selfplay

import (
	"fmt"
	"sync"
	"time"

	"github.com/palace-chess/palace/nn/model"
)

// EventKind says what an Event reports.
type EventKind uint8

const (
	// EventStart comes first: what the run is about to do (Event.Start).
	EventStart EventKind = iota
	// EventProgress comes every Options.Interval while games are played.
	EventProgress
	// EventShard follows each shard the run commits (Event.Shard).
	EventShard
	// EventDone comes last, also after an error or a cancel.
	EventDone
)

// String is the kind's name in log lines: start, progress, shard or done.
func (k EventKind) String() string {
	switch k {
	case EventStart:
		return "start"
	case EventProgress:
		return "progress"
	case EventShard:
		return "shard"
	case EventDone:
		return "done"
	}
	return "unknown"
}

// Event is one report of a run; Stats are its counters at the time.
type Event struct {
	Kind  EventKind
	Stats Stats
	Start Start       // EventStart only
	Shard ShardReport // EventShard only
}

// Start is what a run is about to do.
type Start struct {
	Dir             string
	ToPlay          int // games this run plays
	ConcurrentGames int // games played at once (at most ToPlay)
	Evaluators      int
	BatchSize       int
	// Kernel names the network's kernel path and what does its other
	// products (model.Evaluator.Kernel, model.BLAS), or "test
	// evaluator" when Options.Evaluator stands in for the network.
	Kernel string
}

// ShardReport is a shard the run committed.
type ShardReport struct {
	Name                string
	Games               int
	Records             int64
	FirstGame, LastGame uint64
}

// tick reports progress every interval until stop is called.
func (r *runner) tick() (stop func()) {
	if r.opt.Progress == nil {
		return func() {}
	}
	interval := r.opt.Interval
	if interval <= 0 {
		interval = 5 * time.Second
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				r.report(Event{Kind: EventProgress})
			case <-done:
				return
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// report hands ev, with the run's counters, to Options.Progress; the
// ticker and the shard writer both report, one at a time.
func (r *runner) report(ev Event) {
	if r.opt.Progress == nil {
		return
	}
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	ev.Stats = r.stats()
	r.opt.Progress(ev)
}

// reportStart says what the run is about to do.
func (r *runner) reportStart(toPlay int) {
	kernel := "test evaluator"
	if ev, ok := r.backend[0].(*model.Evaluator); ok {
		kernel = fmt.Sprintf("%v kernel, other GEMMs by %s", ev.Kernel(), model.BLAS())
	}
	r.report(Event{Kind: EventStart, Start: Start{Dir: r.dir, ToPlay: toPlay, ConcurrentGames: min(r.cfg.ConcurrentGames, toPlay),
		Evaluators: len(r.batch), BatchSize: r.cfg.batchSize(), Kernel: kernel}})
}

// reportShard says that the shard name, of games, is committed.
func (r *runner) reportShard(name string, games int, records int64, first, last uint64) {
	r.report(Event{Kind: EventShard, Shard: ShardReport{Name: name, Games: games, Records: records, FirstGame: first, LastGame: last}})
}

// SearchEvaluationsPerSecond is the rate of the searches' evaluations,
// cache hits included.
func (s Stats) SearchEvaluationsPerSecond() float64 { return rate(float64(s.Evaluations), s.Elapsed) }
