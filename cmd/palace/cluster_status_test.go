package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/cluster"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/stats"
)

// palace status on a run just created: its state, an empty queue, no
// trainer heartbeat or workers yet, and the bucket it cannot read; on a
// run that does not exist, an error naming it.
func TestClusterStatus(t *testing.T) {
	url := looptest.NATS(t)
	code, _, errOut := runPalace(t, "", "status", "--nats", url, "--run", "nosuch")
	if code == 0 || !strings.Contains(errOut, `no such run "nosuch"`) {
		t.Errorf("a missing run: exit %d, %q", code, errOut)
	}
	c, err := cluster.Connect(context.Background(), url, "st1", "test", cluster.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	code, out, errOut := runPalace(t, "", "status", "--nats", url, "--run", "st1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"run st1: not started yet", "queue: 0 jobs waiting, 0 in workers' hands, 0 redelivered so far",
		"trainer: no training reported yet", "workers' heartbeats: 0", "workers with a result in the last 1m0s: 0", "last gates: the run names no bucket yet"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// The status of a run under way: its stage and round, the best network,
// the queue, the trainer's heartbeat and the workers seen, then its last
// gates newest first with their matches.
func TestWriteClusterStatus(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	s := cluster.Status{Run: "xq1", State: cluster.State{State: loop.State{Generation: 4, Stage: loop.StageSelfplay}, Rounds: 2},
		Best: loop.Best{Generation: 3, Key: "nets/gen-0003.palnet"}, Waiting: 5, InHand: 2, Redelivered: 1, Window: time.Minute,
		Trainer: &cluster.TrainerBeat{Generation: 3, Step: 900, Target: 900, SamplesPS: 970, At: now.Add(-90 * time.Second)},
		AckWait: time.Minute, Beats: []cluster.WorkerBeat{
			{Name: "w1", Slots: 1, Jobs: []cluster.HeldJob{{ID: "selfplay-g0004-s000002", Since: now.Add(-45 * time.Second)}}, At: now.Add(-3 * time.Second)},
			{Name: "w2", Slots: 1, At: now.Add(-time.Second)},
			{Name: "w3", Slots: 1, Jobs: []cluster.HeldJob{{ID: "selfplay-g0004-s000003", Since: now.Add(-3 * time.Minute)}}, At: now.Add(-2 * time.Minute)}},
		Workers: []cluster.WorkerSeen{{Name: "w1", SelfPlay: 3, Games: 96, Positions: 12000, Last: now.Add(-5 * time.Second), JobsPerMinute: 3, PositionsPerSecond: 200}}}
	var b strings.Builder
	writeClusterStatus(&b, s, now)
	writeLastGates(&b, []loop.Metric{
		{Generation: 1, Stage: loop.StageGate, Promoted: true, Reason: "SPRT accepted", Match: &arena.Summary{Games: 20, WDL: stats.WDL{Wins: 12, Draws: 2, Losses: 6}}},
		{Generation: 2, Stage: loop.StageTrain},
		{Generation: 2, Stage: loop.StageGate, Reason: "SPRT rejected"},
	}, 3)
	want := `run xq1: generation 4, stage selfplay (self-play round 2)
best: generation 3, nets/gen-0003.palnet
queue: 5 jobs waiting, 2 in workers' hands, 1 redelivered so far
trainer: generation 3, step 900 of 900, 970 samples/s, 1m30s ago
workers' heartbeats: 3
  w1: playing selfplay-g0004-s000002 (for 45s), heard 3s ago
  w2: idle, heard 1s ago
  w3: silent for 2m0s, playing selfplay-g0004-s000003 (for 3m0s): gone? a job it held goes back to the queue once 1m0s pass without a sign from it
workers with a result in the last 1m0s: 1
  w1: 3 self-play blocks, 0 pairs, 96 games, 12000 positions (3.0 jobs/min, 200 positions/s), last 5s ago
last gates:
  gen 3 gate: kept the best (SPRT rejected)
  gen 2 gate: promoted (SPRT accepted), 20 games W/D/L 12/2/6
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// An asynchronous run's first line says where its three parts stand.
func TestWriteClusterStatusAsync(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		a    cluster.AsyncStatus
		want string
	}{
		{cluster.AsyncStatus{Committed: 1, Queued: 3}, "run xq2 (asynchronous): self-play generations 0-0 committed, up to 2 queued; no candidate yet\n"},
		{cluster.AsyncStatus{Committed: 7, Queued: 9, Candidate: cluster.Candidate{Generation: 6, Steps: 5120}, Gated: 4},
			"run xq2 (asynchronous): self-play generations 0-6 committed, up to 8 queued; newest candidate generation 6 (step 5120), last decided 4\n"},
	} {
		a := c.a
		var b strings.Builder
		writeClusterStatus(&b, cluster.Status{Run: "xq2", Async: &a, Window: time.Minute}, now)
		if first, _, _ := strings.Cut(b.String(), "\n"); first+"\n" != c.want {
			t.Errorf("got %q, want %q", first, c.want)
		}
	}
}
