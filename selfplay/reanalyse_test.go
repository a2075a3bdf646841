package selfplay

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
)

// readRecords reads every record of the shards dir's manifest lists, in
// order.
func readRecords(t *testing.T, dir string) []datasets.Record {
	t.Helper()
	m, err := datasets.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var all []datasets.Record
	for _, s := range m.Shards {
		rd, err := datasets.Open(filepath.Join(dir, s.Name))
		if err != nil {
			t.Fatal(err)
		}
		for rec, err := range rd.Records() {
			if err != nil {
				t.Fatal(err)
			}
			r := *rec
			r.Policy = slices.Clone(rec.Policy) // the reader reuses its buffers
			all = append(all, r)
		}
		rd.Close()
	}
	return all
}

// countingEvaluator is the Random test evaluator that calls stop after
// its first after batches.
type countingEvaluator struct {
	*nn.Random
	calls *atomic.Int64
	after int64
	stop  func()
}

func (c countingEvaluator) Evaluate(in []nn.Input, out []nn.Output) error {
	if c.calls.Add(1) == c.after && c.stop != nil {
		c.stop()
	}
	return c.Random.Evaluate(in, out)
}

// TestReanalyse plays games, then searches a sample of their positions
// again: every record is the source's position (board, history, result,
// the move played) with a fresh full search's targets; a run cancelled
// mid-way and resumed writes what an uninterrupted one writes; the
// directory refuses another job.
func TestReanalyse(t *testing.T) {
	defer func(n int) { reanalyseShard = n }(reanalyseShard)
	reanalyseShard = 40
	for _, game := range []string{"xiangqi", "janggi"} {
		t.Run(game, func(t *testing.T) {
			run := tinyConfig(t, game, 8)
			mustRun(t, run)
			source := readRecords(t, run.Output)
			type key struct {
				id  uint64
				ply int
			}
			byKey := map[key]datasets.Record{}
			for _, r := range source {
				byKey[key{r.GameID, r.Ply}] = r
			}

			var calls atomic.Int64
			reanalyse := func(dir string, seed uint64, ctx context.Context, stop func(), after int64) (ReanalyseStats, error) {
				cfg := run.Config
				cfg.Search.Simulations = 16
				job := ReanalyseJob{Output: dir, Sources: []string{run.Output}, Rules: run.Rules, Positions: 100, Seed: seed}
				return Reanalyse(ctx, cfg, job, Options{CodeVersion: "test", Evaluator: func() (nn.Evaluator, string, error) {
					return countingEvaluator{Random: nn.NewRandom(encode.InputSize, encode.PolicySize(), 5), calls: &calls, after: after, stop: stop}, "random-5", nil
				}})
			}
			whole := filepath.Join(t.TempDir(), "whole")
			st, err := reanalyse(whole, 11, context.Background(), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if st.Target != 100 || st.Before != 0 || st.Committed != 100 || st.Searched != 100 {
				t.Fatalf("stats %+v, want 100 positions searched and committed", st)
			}
			got := readRecords(t, whole)
			if len(got) != 100 {
				t.Fatalf("%d records, want 100", len(got))
			}
			full := 0
			for i, r := range got {
				src, ok := byKey[key{r.GameID, r.Ply}]
				if !ok {
					t.Fatalf("record %d: game %d ply %d is not a source position", i, r.GameID, r.Ply)
				}
				if r.Board != src.Board || r.Side != src.Side || r.History != src.History || r.NumHistory != src.NumHistory ||
					r.HalfmoveClock != src.HalfmoveClock || r.Repetitions != src.Repetitions || r.InCheck != src.InCheck ||
					r.PassLegal != src.PassLegal || r.Move != src.Move || r.Result != src.Result || r.FinalMaterial != src.FinalMaterial {
					t.Fatalf("record %d (game %d ply %d) is not its source position:\n got %+v\nwant %+v", i, r.GameID, r.Ply, r, src)
				}
				if i > 0 && (got[i-1].GameID > r.GameID || got[i-1].GameID == r.GameID && got[i-1].Ply >= r.Ply) {
					t.Fatalf("records %d and %d out of game order", i-1, i)
				}
				if len(r.Policy) != len(src.Policy) {
					t.Fatalf("record %d: %d policy entries, its source %d (the legal moves)", i, len(r.Policy), len(src.Policy))
				}
				for j := range r.Policy {
					if r.Policy[j].Index != src.Policy[j].Index {
						t.Fatalf("record %d: policy slot %d is %d, its source's %d\n%v\n%v", i, j, r.Policy[j].Index, src.Policy[j].Index, r.Policy, src.Policy)
					}
				}
				if r.Full {
					full++
					var sum float32
					for _, e := range r.Policy {
						sum += e.P
					}
					if sum < 0.99 || sum > 1.01 {
						t.Fatalf("record %d: policy sums to %v", i, sum)
					}
				} else if len(r.Policy) > 1 {
					t.Fatalf("record %d: %d legal moves, yet not a full search", i, len(r.Policy))
				}
			}
			if full < 90 {
				t.Fatalf("%d of 100 records are full searches", full)
			}

			// Cancelled in its second shard, then resumed.
			cut := filepath.Join(t.TempDir(), "cut")
			ctx, cancel := context.WithCancel(context.Background())
			total := calls.Load()
			calls.Store(0)
			st, err = reanalyse(cut, 11, ctx, cancel, total*6/10)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if st.Committed != 40 && st.Committed != 80 {
				t.Fatalf("cancelled run committed %d positions, want whole shards (40 or 80)", st.Committed)
			}
			before := st.Committed
			st, err = reanalyse(cut, 11, context.Background(), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if int64(st.Before) != before || st.Committed != 100-before {
				t.Fatalf("resumed: %+v, want %d before and the rest committed", st, before)
			}
			resumed := readRecords(t, cut)
			if len(resumed) != len(got) {
				t.Fatalf("resumed run holds %d records, the whole one %d", len(resumed), len(got))
			}
			for i := range got {
				a, b := got[i], resumed[i]
				if a.GameID != b.GameID || a.Ply != b.Ply || a.Value != b.Value || a.WDL != b.WDL || len(a.Policy) != len(b.Policy) {
					t.Fatalf("record %d differs after the resume", i)
				}
				for j := range a.Policy {
					if a.Policy[j] != b.Policy[j] {
						t.Fatalf("record %d's policy differs after the resume", i)
					}
				}
			}
			st, err = reanalyse(cut, 11, context.Background(), nil, 0)
			if err != nil || st.Before != 100 || st.Searched != 0 {
				t.Fatalf("a finished reanalysis run again: %+v, %v; want nothing searched", st, err)
			}
			if _, err := reanalyse(cut, 12, context.Background(), nil, 0); err == nil || !strings.Contains(err.Error(), "another job") {
				t.Fatalf("another seed in the same directory: %v, want a refusal naming another job", err)
			}
		})
	}
}

// TestReanalyseRefuses checks the job's errors: no sources, games of
// another rule set, no positions.
func TestReanalyseRefuses(t *testing.T) {
	run := tinyConfig(t, "xiangqi", 2)
	mustRun(t, run)
	opt := Options{Evaluator: func() (nn.Evaluator, string, error) {
		return nn.NewRandom(encode.InputSize, encode.PolicySize(), 5), "random-5", nil
	}}
	dir := filepath.Join(t.TempDir(), "re")
	for _, c := range []struct {
		job  ReanalyseJob
		want string
	}{
		{ReanalyseJob{Output: dir, Rules: run.Rules, Positions: 10}, "sources: none"},
		{ReanalyseJob{Output: dir, Sources: []string{run.Output}, Rules: run.Rules}, "positions: 0"},
		{ReanalyseJob{Output: dir, Sources: []string{run.Output}, Rules: preset(t, "janggi", 40), Positions: 10}, "played under xiangqi"},
		{ReanalyseJob{Output: dir, Sources: []string{filepath.Join(t.TempDir(), "none")}, Rules: run.Rules, Positions: 10}, "manifest"},
	} {
		_, err := Reanalyse(context.Background(), run.Config, c.job, opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", c.job, err, c.want)
		}
	}
}
