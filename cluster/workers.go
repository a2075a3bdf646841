package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/palace-chess/palace/rundir"
	"github.com/palace-chess/palace/store"
)

// workerTally counts a stage's results by worker, each job once.
type workerTally map[string]rundir.WorkerJobs

func (t workerTally) add(r *Result, games int, positions int64) {
	w := t[r.Worker]
	w.Jobs++
	w.Games += games
	w.Positions += positions
	w.Seconds += r.Seconds
	t[r.Worker] = w
}

// recordWorkers puts a finished stage's tally into the role's workers
// file (rundir.WorkersKey), which palace serve shows: who worked and how
// much. A stage redone after a crash replaces its entry.
func (r *role) recordWorkers(gen int, kind, key string, t workerTally) error {
	name := rundir.WorkersKey(r.name)
	var w rundir.Workers
	data, err := r.st.Read(name)
	switch {
	case errors.Is(err, store.ErrNotExist):
	case err != nil:
		return err
	default:
		old, err := rundir.ParseWorkers(data, name)
		if err != nil {
			return fmt.Errorf("cluster: %w", err)
		}
		w = *old
	}
	w.Put(rundir.WorkersEntry{Generation: gen, Kind: kind, Key: key, Time: time.Now().UTC(), Workers: t})
	out, err := json.MarshalIndent(&w, "", " ")
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	return r.st.Write(name, append(out, '\n'))
}
