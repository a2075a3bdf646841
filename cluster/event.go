package cluster

import (
	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/train"
)

// EventKind says what an Event reports, and which of its fields are set.
// The roles and workers draw nothing: every word of their log lines is
// the command's (palace's cmd/palace).
type EventKind uint8

const (
	// The trainer's and the gatekeeper's.

	// EventComplete: the run has played its Generation generations.
	EventComplete EventKind = iota
	// EventWaiting: the run is at generation Generation's Stage, the
	// other role's.
	EventWaiting
	// EventBlocks: Jobs self-play blocks of generation Generation are
	// enqueued, played with Best (none in the asynchronous loop: each
	// block with its worker's best).
	EventBlocks
	// EventBlock: Result, a block, came in: Done of Jobs.
	EventBlock
	// EventMoreSelfplay: self-play plays another round (Round).
	EventMoreSelfplay
	// EventSelfplayDone: generation Generation's self-play is committed
	// (Metric: Games, Positions, TotalPositions).
	EventSelfplayDone
	// EventTraining: training starts, to step Target on Positions.
	EventTraining
	// EventTrain: training's figures (Train), after every save.
	EventTrain
	// EventCandidate: candidate Generation+1 is written (Metric:
	// TotalSteps).
	EventCandidate
	// EventMatch: the gate's match of Players is enqueued, up to Jobs
	// pairs.
	EventMatch
	// EventPair: Result, a pair, brought new games: the match so far is
	// Summary.
	EventPair
	// EventMatchOver: the gate's match is decided (Summary).
	EventMatchOver
	// EventGate: the gate's decision on candidate Generation+1 (Metric:
	// Promoted, Reason).
	EventGate
	// EventRating: the ladder rates Best on Scale.
	EventRating
	// EventRung: a ladder match of Players is enqueued, Jobs pairs.
	EventRung
	// EventRated: the ladder's rating of the best (Metric.Rating).
	EventRated
	// EventAwaitingData: the asynchronous trainer has trained on the
	// generations up to Generation (-1: none), and waits for a newer one
	// to be committed (or for the run's first positions).
	EventAwaitingData

	// A worker's.

	// EventWaitingRun: run Run has not started yet.
	EventWaitingRun
	// EventJoined: the worker joined run Run, whose artifacts are in
	// Bucket.
	EventJoined
	// EventIdle: the worker waits for jobs, with Slots free.
	EventIdle
	// EventRunDone: the run has played its Generation generations (the
	// worker's UntilDone).
	EventRunDone
	// EventFetchFailed: fetching jobs failed (Err).
	EventFetchFailed
	// EventBestUnreadable: the run's best pointer is unreadable (Err).
	EventBestUnreadable
	// EventBestFailed: loading the new best network failed (Err).
	EventBestFailed
	// EventBest: the worker holds the new best network (Best).
	EventBest
	// EventMalformed: a malformed job on Subject was dropped (Err).
	EventMalformed
	// EventSkipped: Job was skipped, the run having left its stage.
	EventSkipped
	// EventTaken: Job is taken, its Delivery'th delivery.
	EventTaken
	// EventHandedBack: Job went back to the queue whole: the worker
	// stops, or (Err) its set-up failed the job.
	EventHandedBack
	// EventJobFailed: Job's Delivery'th delivery failed (Err).
	EventJobFailed
	// EventPublishFailed: publishing Job's result failed (Err).
	EventPublishFailed
	// EventAckFailed: acknowledging Job failed (Err).
	EventAckFailed
	// EventJobDone: Job is played and its result returned, in Seconds.
	EventJobDone
	// EventRequeueFailed: handing Job back failed (Err); it comes back
	// after AckWait.
	EventRequeueFailed
	// EventRequeueAckFailed: acknowledging Job's copy handed back failed
	// (Err).
	EventRequeueAckFailed
	// EventInStore: Job's block is in the store already, and only
	// reported.
	EventInStore
	// EventWorkerStopped: the worker stops after Seconds of running, Busy
	// of them with a job in hand (a slot's; all slots' over Slots).
	EventWorkerStopped
)

// Event is one report of a role or a worker.
type Event struct {
	Kind EventKind
	// Role reports it: "trainer", "gatekeeper", or "worker" (Name: the
	// worker's name).
	Role, Name string

	Generation int
	Stage      string             // EventWaiting
	Best       loop.Best          // EventBlocks, EventRating, EventBest
	Jobs, Done int                // EventBlocks, EventBlock, EventMatch, EventRung
	Result     *Result            // EventBlock, EventPair
	Round      loop.SelfplayRound // EventMoreSelfplay
	Target     int64              // EventTraining
	Positions  int64              // EventTraining
	Train      train.Progress     // EventTrain
	Players    [2]string          // EventMatch, EventRung
	Summary    arena.Summary      // EventPair, EventMatchOver
	Scale      string             // EventRating
	Metric     loop.Metric        // EventSelfplayDone, EventCandidate, EventGate, EventRated

	Run, Bucket string  // EventWaitingRun, EventJoined
	Slots       int     // EventIdle, EventWorkerStopped
	Subject     string  // EventMalformed
	Job         Job     // the job a worker's event is about
	Delivery    uint64  // EventTaken, EventJobFailed
	Seconds     float64 // EventJobDone, EventWorkerStopped
	Busy        float64 // EventWorkerStopped
	Err         error
}
