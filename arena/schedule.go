package arena

import (
	"context"
	"errors"
	"sync"

	"github.com/palace-chess/palace/internal/jsonlrec"
)

// Schedule plays a set of jobs (games, as a rule) on a number of workers:
// the one pool behind matches, experiments, a cluster worker's pairs and
// anything else that plays many games at once and records each as it
// finishes.
//
// Jobs are taken in order. Each finished job's result goes to Record, one
// call at a time, never concurrently: the place to append it to a record
// file, and to decide from what is recorded (which does not depend on the
// order games happen to finish in) whether to go on. A run cut short
// (ctx cancelled, a failed job, a stop) drops the jobs still in progress;
// a caller that resumes from its records plays them again.
type Schedule[J, R any] struct {
	// Jobs are the jobs to play, started in this order.
	Jobs []J
	// Workers is the number of jobs played at once (0: 1).
	Workers int
	// Play plays one job. It must return soon after ctx is cancelled;
	// its error then is not the run's.
	Play func(ctx context.Context, job J) (R, error)
	// Record receives a finished job's result. stop ends the run early
	// (a sequential test decided): the jobs in progress are cancelled
	// and their results dropped. An error ends the run with that error.
	Record func(job J, r R) (stop bool, err error)
}

// errStopped is the cause of a run that Record stopped.
var errStopped = errors.New("arena: stopped")

// Run plays the jobs until every one is recorded, Record stops the run,
// or ctx is cancelled. It returns nil when every job is recorded or
// Record stopped the run; else the first job's or Record's error, or
// ctx's.
func (s *Schedule[J, R]) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		mu       sync.Mutex
		next     int
		recorded int
		stopped  bool
		wg       sync.WaitGroup
	)
	for range min(max(s.Workers, 1), len(s.Jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				mu.Lock()
				if next >= len(s.Jobs) {
					mu.Unlock()
					return
				}
				job := s.Jobs[next]
				next++
				mu.Unlock()
				r, err := s.Play(ctx, job)
				if err != nil {
					if ctx.Err() == nil {
						cancel(err)
					}
					return
				}
				mu.Lock()
				if stopped {
					// Stopped while this job was played: its result
					// would change nothing.
					mu.Unlock()
					return
				}
				stop, err := s.Record(job, r)
				if err == nil {
					recorded++
					stopped = stop
				}
				mu.Unlock()
				switch {
				case err != nil:
					cancel(err)
					return
				case stop:
					cancel(errStopped)
					return
				}
			}
		}()
	}
	wg.Wait()
	if stopped || recorded == len(s.Jobs) {
		return nil // done, even if ctx ended as the last job was recorded
	}
	return context.Cause(ctx)
}

// PairGame names game Game (0 or 1) of pair Pair: the two games of a pair
// start alike and differ in one thing (the colours of a match's players,
// the rule set of an experiment's games).
type PairGame struct{ Pair, Game int }

// Unplayed lists the games of pairs 0 to pairs-1 that played does not
// hold, pair by pair: a resumed run's jobs.
func Unplayed(pairs int, played map[PairGame]bool) []PairGame {
	var todo []PairGame
	for p := range pairs {
		for g := range 2 {
			if !played[PairGame{p, g}] {
				todo = append(todo, PairGame{p, g})
			}
		}
	}
	return todo
}

// PlayRecorded is the resume of a recorded set of pairs (a match, an
// experiment): it plays the games of pairs 0 to pairs-1 that played lacks,
// workers at a time, appends each finished game's record to rf and then
// hands it to record, which says whether to stop (a test decided).
func PlayRecorded[H, R any](ctx context.Context, rf *jsonlrec.File[H, R], pairs, workers int, played map[PairGame]bool,
	play func(context.Context, PairGame) (R, error), record func(PairGame, R) (stop bool)) error {
	s := Schedule[PairGame, R]{
		Jobs: Unplayed(pairs, played), Workers: workers, Play: play,
		Record: func(job PairGame, r R) (bool, error) {
			if err := rf.Append(&r); err != nil {
				return false, err
			}
			return record(job, r), nil
		},
	}
	return s.Run(ctx)
}
