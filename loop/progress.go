package loop

import (
	"sync"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/ladder"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/train"
)

// EventKind says what an Event reports, and which of its fields are set.
// A run draws nothing: every word of its status and log lines is the
// command's (palace's cmd/palace/status.go).
type EventKind uint8

const (
	// EventStage: a stage of Generation starts, with what it does: self-play
	// with, or the ladder rating, the best network of generation Best;
	// training to step Target; the arena playing Players.
	EventStage EventKind = iota
	// EventStageDone: a stage of Generation is complete and the run's
	// state has moved on.
	EventStageDone
	// EventSelfplay: self-play's own report (Selfplay).
	EventSelfplay
	// EventTrain: training's figures (Train), after every save.
	EventTrain
	// EventArena: the gate's match so far (Arena), after every game.
	EventArena
	// EventLadder: a ladder match's report (Ladder).
	EventLadder
	// EventMoreSelfplay: self-play plays another round (Round).
	EventMoreSelfplay
	// EventGate: the gate's decision on candidate Generation+1 (Metric:
	// Promoted, Reason, Match).
	EventGate
	// EventRated: the ladder's rating of the best network (Metric: Rating,
	// Seconds).
	EventRated
	// EventMatchNotOver: the gate found its match (candidate
	// Generation+1's) short of games, which are played first.
	EventMatchNotOver
	// EventEngineMissing: the ladder's engine, Program, is not there, and
	// the rating due after Every promotions will fail.
	EventEngineMissing
	// EventDebris: Removed temporary files of killed writes were removed
	// from Dir.
	EventDebris
	// EventConfigRecorded: an older state.json had the digest of the run's
	// config recorded in it.
	EventConfigRecorded
	// EventComplete: the run has played its Generation generations.
	EventComplete
	// EventStopped: the run stopped (ctx) in generation Generation's
	// stage Stage, where it resumes.
	EventStopped
	// EventReanalysed: generation Generation's reanalysis is done (Metric:
	// Positions, SourceGenerations, EvalsPerSecond, Seconds).
	EventReanalysed
)

// Event is one report of a run. Generation and Stage are the stage's:
// for EventStage and EventStageDone its own, for the figures
// (EventSelfplay, EventTrain, EventArena, EventLadder, EventMoreSelfplay)
// those of the last one announced, for EventGate and EventMatchNotOver
// the gate's, for EventStopped where the run stopped.
type Event struct {
	Kind       EventKind
	Generation int
	Stage      string

	// EventStage: what the stage does.
	Best    int       // self-play, reanalysis, ladder: the best network's generation
	Target  int64     // train: the step training goes to
	Players [2]string // arena: the candidate and the best
	Sources []int     // reanalysis: the generations whose games it searches again

	Selfplay selfplay.Event // EventSelfplay
	Train    train.Progress // EventTrain
	Arena    arena.Summary  // EventArena
	Ladder   ladder.Event   // EventLadder
	Round    SelfplayRound  // EventMoreSelfplay
	Metric   Metric         // EventGate, EventRated: the stage's metric

	Program string // EventEngineMissing
	Every   int    // EventEngineMissing: ladder.every
	Removed int    // EventDebris
	Dir     string // EventDebris
}

// progress sends the run's reports to Options.Progress, one at a time;
// the command draws them.
type progress struct {
	mu        sync.Mutex
	emit      func(Event)
	gen       int
	stageName string
}

func newProgress(emit func(Event)) *progress {
	return &progress{emit: emit}
}

// send sends e; a stage's figures are told their stage here, as the code
// reporting them (a train.Progress callback, say) need not know it.
func (p *progress) send(e Event) {
	if p.emit == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case EventStage:
		p.gen, p.stageName = e.Generation, e.Stage
	case EventSelfplay, EventTrain, EventArena, EventLadder, EventMoreSelfplay:
		e.Generation, e.Stage = p.gen, p.stageName
	}
	p.emit(e)
}

// stage announces a stage; e says what it does (Best, Target, Players).
func (p *progress) stage(gen int, name string, e Event) {
	e.Kind, e.Generation, e.Stage = EventStage, gen, name
	p.send(e)
}

// stageDone says that generation gen's stage name is complete.
func (p *progress) stageDone(gen int, name string) {
	p.send(Event{Kind: EventStageDone, Generation: gen, Stage: name})
}

// selfplay passes self-play's reports on; nil when nobody listens, so
// that self-play does not gather them for nothing.
func (p *progress) selfplay() func(selfplay.Event) {
	if p.emit == nil {
		return nil
	}
	return func(e selfplay.Event) { p.send(Event{Kind: EventSelfplay, Selfplay: e}) }
}
