package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/palace-chess/palace/cluster"
	"github.com/palace-chess/palace/loop"
)

// runStatus prints a distributed run's state as its NATS server holds
// it: the generation and stage, the best network, the queue, the
// trainer's last heartbeat, the workers seen lately with their rates, and
// the last gates (from the run's bucket, when it can be read here).
func runStatus(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("status", stderr)
	url := fs.String("nats", defaultNATS(), "NATS server URL(s), comma-separated (default: $PALACE_NATS, else nats://127.0.0.1:4222)")
	run := fs.String("run", "palace", "the run's name")
	window := fs.Duration("window", time.Minute, "the workers seen are those with a result this recently; their rates are over it")
	bucket := fs.String("bucket", "", "the run's artifacts, for its last gates (default: the run's own bucket URL)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *window <= 0 {
		return usagef("--window %v: want a positive duration", *window)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := cluster.Join(ctx, *url, *run, "palace status", nil)
	if err != nil {
		return err
	}
	defer c.Close()
	s, err := c.Status(ctx, *window)
	if err != nil {
		return err
	}
	writeClusterStatus(stdout, s, time.Now())
	b := *bucket
	if b == "" {
		b = s.Info.Bucket
	}
	if b == "" {
		fmt.Fprintln(stdout, "last gates: the run names no bucket yet")
	} else if st, err := cluster.OpenStore(b); err != nil {
		fmt.Fprintf(stdout, "last gates: the bucket %s cannot be read here (%v)\n", cluster.Redact(b), err)
	} else if ms, err := loop.ReadMetrics(st); err != nil {
		fmt.Fprintf(stdout, "last gates: %v\n", err)
	} else {
		writeLastGates(stdout, ms, 3)
	}
	return nil
}

// writeClusterStatus prints s as of now.
func writeClusterStatus(w io.Writer, s cluster.Status, now time.Time) {
	ago := func(t time.Time) string { return now.Sub(t).Round(time.Second).String() + " ago" }
	switch a := s.Async; {
	case a != nil:
		fmt.Fprintf(w, "run %s (asynchronous): self-play generations 0-%d committed, up to %d queued; ", s.Run, a.Committed-1, a.Queued-1)
		if a.Candidate.Generation == 0 {
			fmt.Fprintln(w, "no candidate yet")
		} else {
			fmt.Fprintf(w, "newest candidate generation %d (step %d), last decided %d\n", a.Candidate.Generation, a.Candidate.Steps, a.Gated)
		}
	case s.State.Stage == "":
		fmt.Fprintf(w, "run %s: not started yet (no trainer has set its state)\n", s.Run)
	case s.State.Rounds > 0:
		fmt.Fprintf(w, "run %s: generation %d, stage %s (self-play round %d)\n", s.Run, s.State.Generation, s.State.Stage, s.State.Rounds)
	default:
		fmt.Fprintf(w, "run %s: generation %d, stage %s\n", s.Run, s.State.Generation, s.State.Stage)
	}
	if s.Best.Key != "" {
		fmt.Fprintf(w, "best: generation %d, %s\n", s.Best.Generation, s.Best.Key)
	}
	fmt.Fprintf(w, "queue: %d jobs waiting, %d in workers' hands, %d redelivered so far\n", s.Waiting, s.InHand, s.Redelivered)
	if t := s.Trainer; t != nil {
		fmt.Fprintf(w, "trainer: generation %d, step %d of %d, %.0f samples/s, %s\n", t.Generation, t.Step, t.Target, t.SamplesPS, ago(t.At))
	} else {
		fmt.Fprintln(w, "trainer: no training reported yet")
	}
	fmt.Fprintf(w, "workers' heartbeats: %d\n", len(s.Beats))
	for _, b := range s.Beats {
		var jobs []string
		for _, j := range b.Jobs {
			jobs = append(jobs, fmt.Sprintf("%s (for %v)", j.ID, now.Sub(j.Since).Round(time.Second)))
		}
		held := "idle"
		if len(jobs) > 0 {
			held = "playing " + strings.Join(jobs, ", ")
		}
		if silent := now.Sub(b.At); silent > 3*cluster.BeatEvery {
			fmt.Fprintf(w, "  %s: silent for %v, %s: gone? a job it held goes back to the queue once %v pass without a sign from it\n",
				b.Name, silent.Round(time.Second), held, s.AckWait)
			continue
		}
		fmt.Fprintf(w, "  %s: %s, heard %s\n", b.Name, held, ago(b.At))
	}
	fmt.Fprintf(w, "workers with a result in the last %v: %d\n", s.Window, len(s.Workers))
	for _, x := range s.Workers {
		fmt.Fprintf(w, "  %s: %d self-play blocks, %d pairs, %d games, %d positions (%.1f jobs/min, %.0f positions/s), last %s\n",
			x.Name, x.SelfPlay, x.Pairs, x.Games, x.Positions, x.JobsPerMinute, x.PositionsPerSecond, ago(x.Last))
	}
}

// writeLastGates prints the run's last n gate decisions, newest first.
func writeLastGates(w io.Writer, ms []loop.Metric, n int) {
	var gates []loop.Metric
	for i := len(ms) - 1; i >= 0 && len(gates) < n; i-- {
		if ms[i].Stage == loop.StageGate {
			gates = append(gates, ms[i])
		}
	}
	if len(gates) == 0 {
		fmt.Fprintln(w, "last gates: none yet")
		return
	}
	fmt.Fprintln(w, "last gates:")
	for _, m := range gates {
		line := fmt.Sprintf("  gen %d gate: %s (%s)", m.Generation+1, verdict(m.Promoted), m.Reason)
		if s := m.Match; s != nil && s.Games > 0 {
			line += fmt.Sprintf(", %d games W/D/L %d/%d/%d", s.Games, s.WDL.Wins, s.WDL.Draws, s.WDL.Losses)
		}
		fmt.Fprintln(w, line)
	}
}
