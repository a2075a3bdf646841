package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/rundir"
	"github.com/palace-chess/palace/stats"
	"github.com/palace-chess/palace/store"
)

// runView is a run's dashboard, as the page's script draws it and
// /api/run/ serves it (the page polls it while the run goes on).
type runView struct {
	Name string `json:"name"`
	// Updated is when the run last recorded a stage; Live says it is
	// still being written (its state changed within the last hour).
	Updated time.Time `json:"updated"`
	Live    bool      `json:"live"`
	// State is the next stage ("generation 4, train").
	State       string       `json:"state"`
	Best        *rundir.Best `json:"best,omitempty"`
	Generations []genView    `json:"generations"`
	Ratings     []ratingView `json:"ratings"`
	// Split is the seconds each stage kind took in all.
	Split   map[string]float64 `json:"split"`
	Seconds float64            `json:"seconds"`
	Games   int                `json:"games"`
	// Workers are a distributed run's workers (its roles' workers files),
	// busiest first; none for a local run.
	Workers []workerView `json:"workers,omitempty"`
}

type workerView struct {
	Name      string         `json:"name"`
	Jobs      map[string]int `json:"jobs"`
	Games     int            `json:"games"`
	Positions int64          `json:"positions"`
	Seconds   float64        `json:"seconds"`
	Last      time.Time      `json:"last"`
}

// genView is one generation: its self-play, training and the gate of
// the candidate it made.
type genView struct {
	Gen            int       `json:"gen"`
	Games          int       `json:"games,omitempty"`
	Positions      int64     `json:"positions,omitempty"`
	MeanPlies      float64   `json:"mean_plies,omitempty"`
	EvalsPerSecond float64   `json:"evals_per_second,omitempty"`
	GamesPerHour   float64   `json:"games_per_hour,omitempty"`
	Steps          int64     `json:"steps,omitempty"`
	PolicyLoss     *float64  `json:"policy_loss,omitempty"`
	ValueLoss      *float64  `json:"value_loss,omitempty"`
	Window         int64     `json:"window,omitempty"`
	Gate           *gateView `json:"gate,omitempty"`
	// Hours is the run's time at the generation's end.
	Hours float64 `json:"hours"`
}

// gateView is a candidate's match against the best, from its view.
type gateView struct {
	Wins     int          `json:"wins"`
	Draws    int          `json:"draws"`
	Losses   int          `json:"losses"`
	Elo      stats.Number `json:"elo"`
	Lo       stats.Number `json:"lo"`
	Hi       stats.Number `json:"hi"`
	Promoted bool         `json:"promoted"`
	Reason   string       `json:"reason,omitempty"`
}

type ratingView struct {
	Gen   int          `json:"gen"`
	Hours float64      `json:"hours"`
	Games int          `json:"games"`
	Elo   stats.Number `json:"elo"`
	Lo    stats.Number `json:"lo"`
	Hi    stats.Number `json:"hi"`
	Scale string       `json:"scale"`
}

// liveWithin is how recent a run's last stage must be for the dashboard
// to call it live and keep polling.
const liveWithin = time.Hour

// readRun reads a run directory's state, best network and metrics. It
// opens nothing for writing: the store only reads here.
func readRun(dir, name string) (*runView, error) {
	stateInfo, err := os.Stat(filepath.Join(dir, rundir.StateKey))
	if err != nil {
		return nil, fmt.Errorf("serve: %s is not a palace run directory (no %s)", name, rundir.StateKey)
	}
	st, err := store.NewDir(dir)
	if err != nil {
		return nil, err
	}
	v := &runView{Name: name, Split: map[string]float64{}, Updated: stateInfo.ModTime().UTC()}
	if data, err := st.Read(rundir.StateKey); err == nil {
		var s loop.State
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("serve: %s/%s: %w", name, rundir.StateKey, err)
		}
		v.State = fmt.Sprintf("generation %d, %s", s.Generation, s.Stage)
	}
	if data, err := st.Read(rundir.BestKey); err == nil {
		var b rundir.Best
		if err := json.Unmarshal(data, &b); err != nil {
			return nil, fmt.Errorf("serve: %s/%s: %w", name, rundir.BestKey, err)
		}
		v.Best = &b
	}
	ms, err := loop.ReadMetrics(st)
	if err != nil {
		return nil, fmt.Errorf("serve: %s: %w", name, err)
	}
	if info, err := os.Stat(filepath.Join(dir, rundir.MetricsKey)); err == nil && info.ModTime().After(v.Updated) {
		v.Updated = info.ModTime().UTC()
	}
	v.Live = time.Since(v.Updated) < liveWithin
	byGen := map[int]*genView{}
	gen := func(g int) *genView {
		if byGen[g] == nil {
			byGen[g] = &genView{Gen: g}
		}
		return byGen[g]
	}
	for _, m := range ms {
		stage := m.Stage
		if stage == loop.StageArena {
			stage = loop.StageGate // the gate's match: one share with its decision
		}
		v.Split[stage] += m.Seconds
		if m.Stage != loop.StageLadder {
			v.Seconds += m.Seconds
		}
		switch m.Stage {
		case loop.StageSelfplay:
			g := gen(m.Generation)
			g.Games, g.Positions, g.MeanPlies, g.EvalsPerSecond = m.Games, m.Positions, m.MeanPlies, m.EvalsPerSecond
			if m.Seconds > 0 {
				g.GamesPerHour = float64(m.Games) / m.Seconds * 3600
			}
			v.Games += m.Games
		case loop.StageTrain:
			g := gen(m.Generation)
			g.Steps, g.Window = m.Steps, m.Window
			if m.Loss != nil {
				p, w := m.Loss.Policy, m.Loss.WDL
				g.PolicyLoss, g.ValueLoss = &p, &w
			}
		case loop.StageGate:
			if m.Match == nil {
				break
			}
			e := m.Match.Elo
			gen(m.Generation).Gate = &gateView{Wins: m.Match.WDL.Wins, Draws: m.Match.WDL.Draws, Losses: m.Match.WDL.Losses,
				Elo: stats.Number(e.Elo), Lo: stats.Number(e.CI.Lo), Hi: stats.Number(e.CI.Hi), Promoted: m.Promoted, Reason: m.Reason}
		}
		if m.Stage != loop.StageLadder {
			gen(m.Generation).Hours = v.Seconds / 3600
		}
	}
	for _, g := range byGen {
		v.Generations = append(v.Generations, *g)
	}
	sort.Slice(v.Generations, func(i, j int) bool { return v.Generations[i].Gen < v.Generations[j].Gen })
	var files []*rundir.Workers
	for _, role := range []string{"trainer", "gatekeeper"} {
		data, err := st.Read(rundir.WorkersKey(role))
		if err != nil {
			continue // a local run has none
		}
		w, err := rundir.ParseWorkers(data, name+"/"+rundir.WorkersKey(role))
		if err != nil {
			return nil, err
		}
		files = append(files, w)
	}
	for _, t := range rundir.Totals(files...) {
		v.Workers = append(v.Workers, workerView{Name: t.Name, Jobs: t.Jobs, Games: t.Games, Positions: t.Positions, Seconds: t.Seconds, Last: t.Last})
	}
	for _, p := range loop.RatingPoints(ms) {
		r := p.Rating
		v.Ratings = append(v.Ratings, ratingView{Gen: p.Generation, Hours: p.Hours, Games: p.Games, Elo: r.Elo, Lo: r.Lo, Hi: r.Hi, Scale: r.Scale})
	}
	return v, nil
}

func (s *Server) runTarget(r *http.Request) (target, *runView, error) {
	t, err := s.target(r)
	if err != nil {
		return t, nil, err
	}
	if !t.isDir || rundir.Kind(t.path) != rundir.KindRun {
		return t, nil, fmt.Errorf("serve: %s is not a palace run directory", s.name(t))
	}
	v, err := readRun(t.path, s.name(t))
	return t, v, err
}

func (s *Server) handleRun(w http.ResponseWriter, r *http.Request) {
	t, v, err := s.runTarget(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	data := struct {
		View  *runView
		API   string
		Links []crumb
	}{View: v, API: link("api/run", t.root, t.rel), Links: links(kindRun, t.root, t.rel)}
	s.render(w, http.StatusOK, "run.html", page{Title: "Run " + v.Name, Crumbs: s.crumbs(t), Data: data})
}

func (s *Server) handleRunJSON(w http.ResponseWriter, r *http.Request) {
	_, v, err := s.runTarget(r)
	if err != nil {
		s.failJSON(w, err)
		return
	}
	s.writeJSON(w, v)
}

func (s *Server) writeJSON(w http.ResponseWriter, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		s.failJSON(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(data)
}

// failJSON is fail for the script's requests: {"error": "..."}.
func (s *Server) failJSON(w http.ResponseWriter, err error) {
	status := http.StatusUnprocessableEntity
	msg := err.Error()
	if strings.Contains(msg, errOutside.Error()) {
		status = http.StatusNotFound
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	data, _ := json.Marshal(map[string]string{"error": msg})
	_, _ = w.Write(data)
}
