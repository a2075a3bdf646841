package main

import (
	"errors"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/cluster"
	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/ladder"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/nn/gnet"
	"github.com/palace-chess/palace/stats"
	"github.com/palace-chess/palace/train"
)

// The roles' and workers' reports say what the cluster package's own
// log lines said before it stopped writing words.
func TestClusterLines(t *testing.T) {
	block := &cluster.Result{Worker: "w1", Job: cluster.Job{Kind: cluster.KindSelfplay, Games: 4}, Shard: &datasets.ShardInfo{Records: 321}}
	pair := &cluster.Result{Worker: "w2", Job: cluster.Job{Kind: cluster.KindArena, Pair: 3}}
	sum := arena.Summary{Games: 8, WDL: stats.WDL{Wins: 3, Draws: 4, Losses: 1}, LLR: 1.234,
		Elo: stats.EloEstimate{Elo: 87.6, CI: stats.Interval{Lo: -12.3, Hi: 190}}}
	job := cluster.Job{Kind: cluster.KindArena, Generation: 2, Pair: 7}
	boom := errors.New("boom")
	rating := &ladder.Rating{Player: "gen3:0123456789abcdef/sims=32", Elo: 1234.4, Lo: 1100, Hi: 1350.6, Games: 40}
	seen := map[cluster.EventKind]bool{}
	for _, tc := range []struct {
		e    cluster.Event
		want string
	}{
		{cluster.Event{Kind: cluster.EventComplete, Generation: 2}, "run complete: 2 generations"},
		{cluster.Event{Kind: cluster.EventWaiting, Generation: 1, Stage: loop.StageArena}, "waiting for the other role: gen 1, stage arena"},
		{cluster.Event{Kind: cluster.EventBlocks, Generation: 1, Jobs: 6, Best: loop.Best{Generation: 1, Key: loop.NetKey(1)}}, "gen 1: 6 self-play blocks with generation 1's network"},
		{cluster.Event{Kind: cluster.EventBlocks, Generation: 3, Jobs: 2}, "gen 3: 2 self-play blocks queued, each for its worker's best network"},
		{cluster.Event{Kind: cluster.EventWorkerStopped, Seconds: 1800, Busy: 1710, Slots: 1}, "stopping after 30m0s: busy 95.0% of the time (jobs in hand 1710s)"},
		{cluster.Event{Kind: cluster.EventAwaitingData, Generation: -1}, "waiting for self-play's positions to train on"},
		{cluster.Event{Kind: cluster.EventAwaitingData, Generation: 4}, "trained on generations 0-4; waiting for generation 5's self-play"},
		{cluster.Event{Kind: cluster.EventBlock, Generation: 1, Done: 2, Jobs: 6, Result: block}, "gen 1: self-play block 2/6 from w1: 4 games, 321 positions"},
		{cluster.Event{Kind: cluster.EventMoreSelfplay, Generation: 1, Round: loop.SelfplayRound{Generation: 1, Positions: 99, MinRows: 100, Games: 5}},
			"gen 1: 99 positions, training starts at 100: another 5 games"},
		{cluster.Event{Kind: cluster.EventSelfplayDone, Generation: 1, Metric: loop.Metric{Games: 24, Positions: 2000, TotalPositions: 5000}},
			"gen 1: self-play done: 24 games, 2000 positions (5000 in the run)"},
		{cluster.Event{Kind: cluster.EventTraining, Generation: 1, Target: 40, Positions: 5000}, "gen 1: training to step 40 on 5000 positions"},
		{cluster.Event{Kind: cluster.EventTrain, Generation: 1, Train: train.Progress{Step: 20, Target: 40, Losses: gnet.Losses{Total: 3.21, Policy: 2.1, WDL: 1.11},
			Rate: 0.02, SamplesPerS: 1234.4, Window: 1000}}, "gen 1: step 20/40 loss 3.210 (policy 2.100 wdl 1.110) lr 0.02 1234 samples/s window 1000"},
		{cluster.Event{Kind: cluster.EventCandidate, Generation: 1, Metric: loop.Metric{TotalSteps: 80}}, "gen 1: candidate nets/gen-0002.palnet after 80 steps"},
		{cluster.Event{Kind: cluster.EventMatch, Generation: 1, Players: [2]string{"a", "b"}, Jobs: 100}, "gen 1: match of a against b: up to 100 pairs"},
		{cluster.Event{Kind: cluster.EventPair, Generation: 1, Result: pair, Summary: sum}, "gen 1: pair 3 from w2: 8 games W/D/L 3/4/1 LLR 1.23"},
		{cluster.Event{Kind: cluster.EventMatchOver, Generation: 1, Summary: sum}, "gen 1: match over: 8 games W/D/L 3/4/1 Elo +88 [-12, +190] LLR 1.23"},
		{cluster.Event{Kind: cluster.EventGate, Generation: 1, Metric: loop.Metric{Promoted: true, Reason: "SPRT accepted"}}, "gen 2 gate: promoted (SPRT accepted)"},
		{cluster.Event{Kind: cluster.EventRating, Generation: 2, Best: loop.Best{Key: "nets/gen-0002.palnet"}, Scale: "xiangqi/fsf"},
			"gen 2: rating nets/gen-0002.palnet on xiangqi/fsf through the workers"},
		{cluster.Event{Kind: cluster.EventRung, Generation: 2, Players: [2]string{"a", "b"}, Jobs: 4}, "gen 2: a against b: 4 pairs"},
		{cluster.Event{Kind: cluster.EventRated, Generation: 2, Metric: loop.Metric{Rating: rating}},
			"gen 2 ladder: gen3:0123456789abcdef/sims=32 rated +1234 [+1100, +1351] (40 games)"},

		{cluster.Event{Kind: cluster.EventWaitingRun, Run: "r"}, "waiting for run r to start"},
		{cluster.Event{Kind: cluster.EventJoined, Run: "r", Bucket: "file:///b"}, "joined run r: artifacts in file:///b"},
		{cluster.Event{Kind: cluster.EventIdle, Slots: 1}, "waiting for jobs (1 slot)"},
		{cluster.Event{Kind: cluster.EventIdle, Slots: 2}, "waiting for jobs (2 slots)"},
		{cluster.Event{Kind: cluster.EventRunDone, Generation: 3}, "the run has played its 3 generations"},
		{cluster.Event{Kind: cluster.EventFetchFailed, Err: boom}, "fetching jobs: boom"},
		{cluster.Event{Kind: cluster.EventBestUnreadable, Err: boom}, "best: boom"},
		{cluster.Event{Kind: cluster.EventBestFailed, Err: boom}, "loading the new best network: boom"},
		{cluster.Event{Kind: cluster.EventBest, Best: loop.Best{Generation: 2, NetworkID: "0123456789abcdef"}}, "best network: generation 2 (0123456789abcdef)"},
		{cluster.Event{Kind: cluster.EventMalformed, Subject: "s.jobs", Err: boom}, "dropping a malformed job on s.jobs: boom"},
		{cluster.Event{Kind: cluster.EventSkipped, Job: job}, "arena-g0002-p00007: skipped, the run has left its stage"},
		{cluster.Event{Kind: cluster.EventTaken, Job: job, Delivery: 2}, "arena-g0002-p00007: taken (delivery 2)"},
		{cluster.Event{Kind: cluster.EventHandedBack, Job: job}, "arena-g0002-p00007: handed back to the queue"},
		{cluster.Event{Kind: cluster.EventHandedBack, Job: job, Err: boom}, "arena-g0002-p00007: handed back to the queue: boom"},
		{cluster.Event{Kind: cluster.EventJobFailed, Job: job, Delivery: 3, Err: boom}, "arena-g0002-p00007 (delivery 3): boom"},
		{cluster.Event{Kind: cluster.EventPublishFailed, Job: job, Err: boom}, "boom"},
		{cluster.Event{Kind: cluster.EventAckFailed, Job: job, Err: boom}, "acking arena-g0002-p00007: boom"},
		{cluster.Event{Kind: cluster.EventJobDone, Job: job, Seconds: 12.34}, "arena-g0002-p00007 done in 12.3s, result returned"},
		{cluster.Event{Kind: cluster.EventRequeueFailed, Job: job, Err: boom}, "arena-g0002-p00007: requeueing: boom"},
		{cluster.Event{Kind: cluster.EventRequeueAckFailed, Job: job, Err: boom}, "arena-g0002-p00007: acknowledging the requeued copy: boom"},
		{cluster.Event{Kind: cluster.EventInStore, Job: job}, "arena-g0002-p00007: already in the store"},
	} {
		seen[tc.e.Kind] = true
		if got := clusterText(tc.e); got != tc.want {
			t.Errorf("event %d:\n got %q\nwant %q", tc.e.Kind, got, tc.want)
		}
	}
	for k := cluster.EventComplete; k <= cluster.EventInStore; k++ {
		if !seen[k] {
			t.Errorf("event %d is not tested", k)
		}
	}
}
