package rundir

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

// WorkersDir holds a distributed run's account of its workers: a file a
// role (WorkersKey), since the trainer and the gatekeeper each write
// their own.
const WorkersDir = "workers"

// WorkersFormat and WorkersVersion identify a workers file.
const (
	WorkersFormat  = "palace-workers"
	WorkersVersion = 1
)

// WorkersKey is role's workers file (role: trainer, gatekeeper).
func WorkersKey(role string) string { return WorkersDir + "/" + role + ".json" }

// WorkerJobs is what one worker did in one stage: the jobs whose results
// counted (a redelivered job's once), their games and positions, and
// the seconds its jobs took where it said (self-play).
type WorkerJobs struct {
	Jobs      int     `json:"jobs"`
	Games     int     `json:"games"`
	Positions int64   `json:"positions,omitempty"`
	Seconds   float64 `json:"seconds,omitempty"`
}

// WorkersEntry is one stage's workers: a generation's self-play, a gate's
// match, a ladder rung's match (Key names the stage's files).
type WorkersEntry struct {
	Generation int                   `json:"generation"`
	Kind       string                `json:"kind"` // selfplay, arena, ladder
	Key        string                `json:"key"`
	Time       time.Time             `json:"time"`
	Workers    map[string]WorkerJobs `json:"workers"`
}

// Workers is a workers file: its stages in the order they finished.
type Workers struct {
	Format  string         `json:"format"`
	Version int            `json:"version"`
	Entries []WorkersEntry `json:"entries"`
}

// Put adds e, replacing an entry of the same stage: a stage redone after
// a crash counts once.
func (w *Workers) Put(e WorkersEntry) {
	w.Format, w.Version = WorkersFormat, WorkersVersion
	for i := range w.Entries {
		if old := &w.Entries[i]; old.Generation == e.Generation && old.Kind == e.Kind && old.Key == e.Key {
			*old = e
			return
		}
	}
	w.Entries = append(w.Entries, e)
}

// ParseWorkers reads a workers file.
func ParseWorkers(data []byte, name string) (*Workers, error) {
	var w Workers
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("rundir: %s: %w", name, err)
	}
	if w.Format != WorkersFormat || w.Version != WorkersVersion {
		return nil, fmt.Errorf("rundir: %s is not a palace workers file of version %d (format %q, version %d)", name, WorkersVersion, w.Format, w.Version)
	}
	return &w, nil
}

// WorkerTotal is one worker's work over a run.
type WorkerTotal struct {
	Name string
	// Jobs are counted by kind (selfplay, arena, ladder).
	Jobs      map[string]int
	Games     int
	Positions int64
	Seconds   float64
	// First and Last are when the first and the last stage it worked in
	// finished.
	First, Last time.Time
}

// Totals adds up each worker's work over the files' entries, busiest
// first.
func Totals(files ...*Workers) []WorkerTotal {
	by := map[string]*WorkerTotal{}
	for _, f := range files {
		for _, e := range f.Entries {
			for name, j := range e.Workers {
				t := by[name]
				if t == nil {
					t = &WorkerTotal{Name: name, Jobs: map[string]int{}, First: e.Time}
					by[name] = t
				}
				t.Jobs[e.Kind] += j.Jobs
				t.Games += j.Games
				t.Positions += j.Positions
				t.Seconds += j.Seconds
				if e.Time.Before(t.First) {
					t.First = e.Time
				}
				if e.Time.After(t.Last) {
					t.Last = e.Time
				}
			}
		}
	}
	out := make([]WorkerTotal, 0, len(by))
	for _, t := range by {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Games != out[j].Games {
			return out[i].Games > out[j].Games
		}
		return out[i].Name < out[j].Name
	})
	return out
}
