package main

import (
	"fmt"
	"time"

	"github.com/palace-chess/palace/cluster"
	"github.com/palace-chess/palace/loop"
)

// clusterLog draws a distributed run's log lines on s: the time, who
// (the command's role, a cluster role, or "worker NAME"), what. A role
// has no status line.
type clusterLog struct{ s *status }

// printf writes one line for who.
func (l clusterLog) printf(who, format string, a ...any) {
	l.s.logLine(fmt.Sprintf("%s %s: %s", time.Now().UTC().Format(time.RFC3339), who, fmt.Sprintf(format, a...)))
}

// event draws a role's or worker's report; the roles and workers of a
// process call it from their goroutines (status is safe for that).
func (l clusterLog) event(e cluster.Event) {
	who := e.Role
	if e.Name != "" {
		who += " " + e.Name
	}
	if text := clusterText(e); text != "" {
		l.printf(who, "%s", text)
	}
}

// clusterText is what a role's or worker's report says.
func clusterText(e cluster.Event) string {
	gen, m := e.Generation, e.Metric
	switch e.Kind {
	case cluster.EventComplete:
		return runComplete(gen)
	case cluster.EventWaiting:
		return fmt.Sprintf("waiting for the other role: gen %d, stage %s", gen, e.Stage)
	case cluster.EventBlocks:
		if e.Best.Key == "" {
			return fmt.Sprintf("gen %d: %d self-play blocks queued, each for its worker's best network", gen, e.Jobs)
		}
		return fmt.Sprintf("gen %d: %d self-play blocks with generation %d's network", gen, e.Jobs, e.Best.Generation)
	case cluster.EventBlock:
		r := e.Result
		return fmt.Sprintf("gen %d: self-play block %d/%d from %s: %d games, %d positions", gen, e.Done, e.Jobs, r.Worker, r.Job.Games, r.Shard.Records)
	case cluster.EventMoreSelfplay:
		return moreSelfplay(e.Round)
	case cluster.EventSelfplayDone:
		return fmt.Sprintf("gen %d: self-play done: %d games, %d positions (%d in the run)", gen, m.Games, m.Positions, m.TotalPositions)
	case cluster.EventTraining:
		return fmt.Sprintf("gen %d: training to step %d on %d positions", gen, e.Target, e.Positions)
	case cluster.EventTrain:
		return fmt.Sprintf("gen %d: %s", gen, trainFigures(e.Train))
	case cluster.EventCandidate:
		return fmt.Sprintf("gen %d: candidate %s after %d steps", gen, loop.NetKey(gen+1), m.TotalSteps)
	case cluster.EventMatch:
		return fmt.Sprintf("gen %d: match of %s against %s: up to %d pairs", gen, e.Players[0], e.Players[1], e.Jobs)
	case cluster.EventPair:
		s := e.Summary
		return fmt.Sprintf("gen %d: pair %d from %s: %d games W/D/L %d/%d/%d LLR %.2f", gen, e.Result.Job.Pair, e.Result.Worker,
			s.Games, s.WDL.Wins, s.WDL.Draws, s.WDL.Losses, s.LLR)
	case cluster.EventMatchOver:
		s := e.Summary
		return fmt.Sprintf("gen %d: match over: %d games W/D/L %d/%d/%d Elo %s LLR %.2f", gen, s.Games, s.WDL.Wins, s.WDL.Draws, s.WDL.Losses, s.Elo, s.LLR)
	case cluster.EventGate:
		return fmt.Sprintf("gen %d gate: %s (%s)", gen+1, verdict(m.Promoted), m.Reason)
	case cluster.EventRating:
		return fmt.Sprintf("gen %d: rating %s on %s through the workers", gen, e.Best.Key, e.Scale)
	case cluster.EventRung:
		return fmt.Sprintf("gen %d: %s against %s: %d pairs", gen, e.Players[0], e.Players[1], e.Jobs)
	case cluster.EventAwaitingData:
		if gen < 0 {
			return "waiting for self-play's positions to train on"
		}
		return fmt.Sprintf("trained on generations 0-%d; waiting for generation %d's self-play", gen, gen+1)
	case cluster.EventRated:
		return fmt.Sprintf("gen %d ladder: %s (%d games)", gen, rated(m.Rating), m.Rating.Games)

	case cluster.EventWaitingRun:
		return fmt.Sprintf("waiting for run %s to start", e.Run)
	case cluster.EventJoined:
		return fmt.Sprintf("joined run %s: artifacts in %s", e.Run, e.Bucket)
	case cluster.EventIdle:
		slots := "slots"
		if e.Slots == 1 {
			slots = "slot"
		}
		return fmt.Sprintf("waiting for jobs (%d %s)", e.Slots, slots)
	case cluster.EventWorkerStopped:
		share := 0.0
		if e.Seconds > 0 && e.Slots > 0 {
			share = e.Busy / (e.Seconds * float64(e.Slots))
		}
		return fmt.Sprintf("stopping after %s: busy %.1f%% of the time (jobs in hand %.0fs)", time.Duration(e.Seconds*float64(time.Second)).Round(time.Second), 100*share, e.Busy)
	case cluster.EventRunDone:
		return fmt.Sprintf("the run has played its %d generations", gen)
	case cluster.EventFetchFailed:
		return fmt.Sprintf("fetching jobs: %v", e.Err)
	case cluster.EventBestUnreadable:
		return fmt.Sprintf("best: %v", e.Err)
	case cluster.EventBestFailed:
		return fmt.Sprintf("loading the new best network: %v", e.Err)
	case cluster.EventBest:
		return fmt.Sprintf("best network: generation %d (%s)", e.Best.Generation, e.Best.NetworkID)
	case cluster.EventMalformed:
		return fmt.Sprintf("dropping a malformed job on %s: %v", e.Subject, e.Err)
	}
	job := e.Job.ID()
	switch e.Kind {
	case cluster.EventSkipped:
		return job + ": skipped, the run has left its stage"
	case cluster.EventTaken:
		return fmt.Sprintf("%s: taken (delivery %d)", job, e.Delivery)
	case cluster.EventHandedBack:
		if e.Err != nil {
			return fmt.Sprintf("%s: handed back to the queue: %v", job, e.Err)
		}
		return job + ": handed back to the queue"
	case cluster.EventJobFailed:
		return fmt.Sprintf("%s (delivery %d): %v", job, e.Delivery, e.Err)
	case cluster.EventPublishFailed:
		return fmt.Sprint(e.Err)
	case cluster.EventAckFailed:
		return fmt.Sprintf("acking %s: %v", job, e.Err)
	case cluster.EventJobDone:
		return fmt.Sprintf("%s done in %.1fs, result returned", job, e.Seconds)
	case cluster.EventRequeueFailed:
		return fmt.Sprintf("%s: requeueing: %v", job, e.Err)
	case cluster.EventRequeueAckFailed:
		return fmt.Sprintf("%s: acknowledging the requeued copy: %v", job, e.Err)
	case cluster.EventInStore:
		return job + ": already in the store"
	}
	return ""
}
