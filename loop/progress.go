package loop

import (
	"sync"

	"github.com/palace-chess/palace/selfplay"
)

// EventKind says what an Event reports.
type EventKind uint8

const (
	// EventStage: a stage of Generation starts (Stage, About: what it
	// does, e.g. "to step 1200").
	EventStage EventKind = iota
	// EventStageDone: a stage of Generation is complete and the run's
	// state has moved on.
	EventStageDone
	// EventStatus: the running stage's figures (Text), after every train
	// step report or arena game.
	EventStatus
	// EventSelfplay: self-play's own report (Selfplay).
	EventSelfplay
	// EventLog: a line that stays (Text).
	EventLog
	// EventGate: a gate's verdict (Text, e.g. "gen 3 promoted").
	EventGate
)

// Event is one report of a run. Generation and Stage are those of the
// stage running (for EventLog and EventGate, of the last one announced).
type Event struct {
	Kind       EventKind
	Generation int
	Stage      string
	About      string
	Text       string
	Selfplay   selfplay.Event
}

// progress turns the run's reports into Events for Options.Progress,
// one at a time; the command draws them.
type progress struct {
	mu        sync.Mutex
	emit      func(Event)
	gen       int
	stageName string
}

func newProgress(emit func(Event)) *progress {
	return &progress{emit: emit}
}

func (p *progress) send(e Event) {
	if p.emit == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Kind == EventStage {
		p.gen, p.stageName = e.Generation, e.Stage
	}
	if e.Kind != EventStageDone {
		e.Generation, e.Stage = p.gen, p.stageName
	}
	p.emit(e)
}

// stage announces a stage.
func (p *progress) stage(gen int, name, about string) {
	p.send(Event{Kind: EventStage, Generation: gen, Stage: name, About: about})
}

// stageDone says that generation gen's stage name is complete.
func (p *progress) stageDone(gen int, name string) {
	p.send(Event{Kind: EventStageDone, Generation: gen, Stage: name})
}

// status reports the current stage's figures.
func (p *progress) status(s string) { p.send(Event{Kind: EventStatus, Text: s}) }

// log reports a line that stays.
func (p *progress) log(s string) { p.send(Event{Kind: EventLog, Text: s}) }

// gate reports a gate's verdict.
func (p *progress) gate(s string) { p.send(Event{Kind: EventGate, Text: s}) }

// selfplay passes self-play's reports on; nil when nobody listens, so
// that self-play does not gather them for nothing.
func (p *progress) selfplay() func(selfplay.Event) {
	if p.emit == nil {
		return nil
	}
	return func(e selfplay.Event) { p.send(Event{Kind: EventSelfplay, Selfplay: e}) }
}
