package selfplay

import (
	"fmt"
	"github.com/palace-chess/palace/nn/model"
	"strings"
	"sync"
	"time"
)

// tick reports progress every interval until stop is called.
func (r *runner) tick() (stop func()) {
	if r.opt.Progress == nil {
		return func() {}
	}
	interval := r.opt.Interval
	if interval <= 0 {
		interval = 5 * time.Second
		if r.opt.Display == DisplayTerminal {
			interval = time.Second
		}
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
				r.report("progress")
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

// report shows the run's state; event is "progress", "done" or a shard's
// description ("shard name=... ...").
func (r *runner) report(event string) {
	w := r.opt.Progress
	if w == nil {
		return
	}
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	s := r.stats()
	if r.opt.Display == DisplayTerminal {
		fmt.Fprintf(w, "\r%s\x1b[K", s.StatusLine())
		if event == "done" {
			fmt.Fprintln(w)
		}
		return
	}
	fmt.Fprintf(w, "selfplay event=%s %s\n", event, s.LogFields())
}

// reportStart says what the run is about to do.
func (r *runner) reportStart(toPlay int) {
	w := r.opt.Progress
	if w == nil {
		return
	}
	kernel := "test evaluator"
	if r.opt.Evaluator == nil {
		kernel = model.BLAS()
	}
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	fmt.Fprintf(w, "selfplay event=start dir=%q rule_set=%s network=%s target=%d complete=%d to_play=%d concurrent_games=%d evaluators=%d batch_size=%d gemm=%q\n",
		r.dir, r.rs, r.netID, r.cfg.Games, r.before, toPlay, min(r.cfg.ConcurrentGames, toPlay), len(r.batch), r.cfg.batchSize(), kernel)
}

// StatusLine is the one-line summary the terminal display redraws.
func (s Stats) StatusLine() string {
	return fmt.Sprintf("games %d/%d (%d saved)  %.0f games/h  %.1f positions/s  %.0f evals/s  batch %.1f  cache %.0f%%  shards %d  %s",
		s.Before+s.Finished, s.Target, s.Before+s.Played, s.GamesPerHour(), s.PositionsPerSecond(), s.EvaluationsPerSecond(),
		s.Network.MeanBatch(), 100*s.Cache.HitRate(), s.Shards, s.Elapsed.Truncate(time.Second))
}

// LogFields are the run's counters as key=value pairs for log lines:
// evals_per_s counts network evaluations, search_evals_per_s the searches'
// (cache hits included).
func (s Stats) LogFields() string {
	var b strings.Builder
	fmt.Fprintf(&b, "elapsed_s=%.1f target=%d complete=%d finished=%d saved=%d shards=%d plies=%d positions=%d",
		s.Elapsed.Seconds(), s.Target, s.Before+s.Played, s.Finished, s.Played, s.Shards, s.Plies, s.Positions)
	fmt.Fprintf(&b, " games_per_hour=%.1f mean_plies=%.1f positions_per_s=%.1f evals_per_s=%.1f search_evals_per_s=%.1f mean_batch=%.2f cache_hit_rate=%.3f",
		s.GamesPerHour(), s.MeanPlies(), s.PositionsPerSecond(), s.EvaluationsPerSecond(), rate(float64(s.Evaluations), s.Elapsed),
		s.Network.MeanBatch(), s.Cache.HitRate())
	return b.String()
}
