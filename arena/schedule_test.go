package arena_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/palace-chess/palace/arena"
)

func TestScheduleRecordsEveryJobOnce(t *testing.T) {
	jobs := make([]int, 50)
	for i := range jobs {
		jobs[i] = i
	}
	var busy, most atomic.Int32
	seen := map[int]int{}
	s := arena.Schedule[int, int]{Jobs: jobs, Workers: 4,
		Play: func(_ context.Context, j int) (int, error) {
			n := busy.Add(1)
			defer busy.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			return j * j, nil
		},
		Record: func(j, r int) (bool, error) {
			if r != j*j {
				t.Errorf("job %d: result %d", j, r)
			}
			seen[j]++ // never concurrently: the race detector watches
			return false, nil
		},
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(jobs) || most.Load() > 4 {
		t.Errorf("%d of %d jobs recorded, %d at once (want at most 4)", len(seen), len(jobs), most.Load())
	}
	for j, n := range seen {
		if n != 1 {
			t.Errorf("job %d recorded %d times", j, n)
		}
	}
}

func TestScheduleStopsAndFails(t *testing.T) {
	jobs := make([]int, 100)
	for i := range jobs {
		jobs[i] = i
	}
	play := func(ctx context.Context, j int) (int, error) { return j, ctx.Err() }

	// A stop ends the run without an error; nothing is recorded after it.
	recorded, after := 0, 0
	stopped := false
	s := arena.Schedule[int, int]{Jobs: jobs, Workers: 3, Play: play,
		Record: func(int, int) (bool, error) {
			if stopped {
				after++
			}
			recorded++
			stopped = recorded == 10
			return stopped, nil
		}}
	if err := s.Run(context.Background()); err != nil || recorded != 10 || after != 0 {
		t.Errorf("stop at 10: err %v, %d recorded, %d after the stop", err, recorded, after)
	}

	// A failed job or record ends the run with its error.
	bad := errors.New("bad job")
	s = arena.Schedule[int, int]{Jobs: jobs, Workers: 3,
		Play: func(ctx context.Context, j int) (int, error) {
			if j == 7 {
				return 0, bad
			}
			return play(ctx, j)
		},
		Record: func(int, int) (bool, error) { return false, nil }}
	if err := s.Run(context.Background()); !errors.Is(err, bad) {
		t.Errorf("a failing job: err %v, want %v", err, bad)
	}
	s.Play = play
	s.Record = func(j, _ int) (bool, error) {
		if j == 5 {
			return false, bad
		}
		return false, nil
	}
	if err := s.Run(context.Background()); !errors.Is(err, bad) {
		t.Errorf("a failing record: err %v, want %v", err, bad)
	}

	// Cancelled, the run returns ctx's error; the jobs in progress are
	// dropped.
	ctx, cancel := context.WithCancel(context.Background())
	recorded = 0
	s.Record = func(int, int) (bool, error) {
		recorded++
		if recorded == 3 {
			cancel()
		}
		return false, nil
	}
	if err := s.Run(ctx); !errors.Is(err, context.Canceled) || recorded >= len(jobs) {
		t.Errorf("cancelled: err %v after %d records", err, recorded)
	}

	// No jobs: nothing to do.
	s.Jobs = nil
	if err := s.Run(context.Background()); err != nil {
		t.Errorf("no jobs: %v", err)
	}
}

// A match's pairs played without a record file are the games Play records.
func TestPlayPairsEqualsPlay(t *testing.T) {
	rs := capped(t, "xiangqi", 30)
	ops, err := arena.RandomOpenings(rs, 3, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	m := arena.Match{RuleSet: rs, Openings: ops, A: arena.Random{}, B: arena.Random{}, Pairs: 3, Concurrency: 3,
		Records: filepath.Join(t.TempDir(), "m.jsonl"), Seed: 9}
	if _, err := arena.Play(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	_, want, err := arena.ReadRecords(m.Records)
	if err != nil {
		t.Fatal(err)
	}
	m.Records = ""
	got, err := arena.PlayPairs(context.Background(), m, []int{2, 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || !reflect.DeepEqual(got[:2], want[4:6]) || !reflect.DeepEqual(got[2:], want[:2]) {
		t.Errorf("PlayPairs(2, 0):\n%+v\nPlay's pairs 2 and 0:\n%+v", got, append(want[4:6:6], want[:2]...))
	}
	if _, err := arena.PlayPairs(context.Background(), m, []int{3}); err == nil {
		t.Error("pair 3 of a 3-pair match: no error")
	}
}
