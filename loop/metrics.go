package loop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/ladder"
	"github.com/palace-chess/palace/nn/gnet"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/store"
)

// Metric is one finished stage, a line of metrics.jsonl. A stage redone
// after a crash replaces its line, so each (generation, stage) appears
// once.
type Metric struct {
	Generation int       `json:"generation"`
	Stage      string    `json:"stage"`
	Time       time.Time `json:"time"`
	// Seconds is the time the stage took (after a resume: the resumed
	// part's).
	Seconds float64 `json:"seconds,omitempty"`
	// Network is the network the stage played with (self-play) or made
	// (train), or the candidate (gate); Best the best it was gated against.
	Network string `json:"network,omitempty"`
	Best    string `json:"best,omitempty"`

	// Self-play (and the arena's games).
	Games          int     `json:"games,omitempty"`
	Positions      int64   `json:"positions,omitempty"`
	TotalPositions int64   `json:"total_positions,omitempty"`
	EvalsPerSecond float64 `json:"evals_per_second,omitempty"`
	MeanPlies      float64 `json:"mean_plies,omitempty"`
	// Resigns are the games that played's resignation counts (absent
	// without resignation).
	Resigns selfplay.Resignations `json:"resigns,omitzero"`
	// PlayedBy are the networks that played an asynchronous generation's
	// blocks (each once, by first block), and Staleness how many
	// generations the network that played a block was behind the best
	// when the generation was committed, on average over its blocks.
	PlayedBy  []string `json:"played_by,omitempty"`
	Staleness float64  `json:"staleness,omitempty"`

	// Reanalysis: the generations whose games it searched again (its
	// Positions are the positions it searched).
	SourceGenerations []int `json:"source_generations,omitempty"`

	// Training: the generation's steps and their mean losses, resumed or
	// not (losses.go), the last save's losses and replay window, the
	// trainer's step count after it; the samples a second of the last
	// attempt.
	Steps      int64        `json:"steps,omitempty"`
	TotalSteps int64        `json:"total_steps,omitempty"`
	Loss       *gnet.Losses `json:"loss,omitempty"`
	// LossSteps, when set, is the number of steps Loss is the mean over:
	// fewer than Steps when a kill between the trainer's save and the
	// record of its losses lost some (Loss is absent when none is known).
	LossSteps        int64        `json:"loss_steps,omitempty"`
	LastLoss         *gnet.Losses `json:"last_loss,omitempty"`
	SamplesPerSecond float64      `json:"samples_per_second,omitempty"`
	Window           int64        `json:"window,omitempty"`

	// Gate.
	Match    *arena.Summary `json:"match,omitempty"`
	Promoted bool           `json:"promoted,omitempty"`
	Reason   string         `json:"reason,omitempty"`

	// Ladder: the best network's rating on the absolute scale.
	Rating *ladder.Rating `json:"rating,omitempty"`
}

// metric records m, replacing an earlier line of the same stage.
func (r *runner) metric(m Metric) error { return RecordMetric(r.st, m) }

// RecordMetric adds m to st's metrics.jsonl, replacing an earlier line of
// the same generation and stage.
func RecordMetric(st store.Store, m Metric) error {
	m.Time = time.Now().UTC()
	ms, err := ReadMetrics(st)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	for _, old := range ms {
		if old.Generation == m.Generation && old.Stage == m.Stage {
			continue
		}
		line, err := json.Marshal(old)
		if err != nil {
			return fmt.Errorf("loop: metrics of generation %d's %s: %w", old.Generation, old.Stage, err)
		}
		buf.Write(append(line, '\n'))
	}
	line, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("loop: metrics: %w", err)
	}
	buf.Write(append(line, '\n'))
	if err := st.Write(MetricsKey, buf.Bytes()); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	return nil
}

// ReadMetrics reads a run's metrics, in the order they were recorded. A
// line that is not a metric (a key no metric has, no stage, a stage or
// generation no run has) is refused with its number, not taken as a
// zero metric; blank lines at the end (an editor's) are passed over.
func ReadMetrics(st store.Store) ([]Metric, error) {
	data, err := st.Read(MetricsKey)
	if errors.Is(err, store.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("loop: %w", err)
	}
	var out []Metric
	blank := 0 // the first blank line of a run of them, 0 for none
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			if blank == 0 {
				blank = n
			}
			continue
		}
		if blank != 0 {
			return nil, fmt.Errorf("loop: %s line %d is blank, between metrics; remove it", MetricsKey, blank)
		}
		m, err := parseMetric(line)
		if err != nil {
			return nil, fmt.Errorf("loop: %s line %d: %w", MetricsKey, n, err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("loop: %s: %w", MetricsKey, err)
	}
	return out, nil
}

// metricKeys are the JSON keys of a Metric line.
var metricKeys = func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeOf(Metric{})
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		keys[name] = true
	}
	return keys
}()

// parseMetric reads one line of metrics.jsonl. Only the line's own keys
// are checked against Metric's: the sections it embeds (a match summary,
// a rating) are other packages', which may drop a key an older run wrote.
func parseMetric(line []byte) (Metric, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(line, &keys); err != nil {
		return Metric{}, fmt.Errorf("not a metric: %w", err)
	}
	var unknown []string
	for k := range keys {
		if !metricKeys[k] {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return Metric{}, fmt.Errorf("not a metric: unknown keys %s", strings.Join(unknown, ", "))
	}
	if _, ok := keys["generation"]; !ok {
		return Metric{}, errors.New("not a metric: no generation")
	}
	var m Metric
	if err := json.Unmarshal(line, &m); err != nil {
		return Metric{}, fmt.Errorf("not a metric: %w", err)
	}
	if m.Generation < 0 || stageIndex(m.Stage) < 0 {
		return Metric{}, fmt.Errorf("not a metric: generation %d, stage %q", m.Generation, m.Stage)
	}
	return m, nil
}

// RatingPoint is a ladder rating with the compute spent to reach it.
type RatingPoint struct {
	// Generation is the network rated (the ladder stage's generation + 1).
	Generation int
	// Hours are the run's stages' time up to the rating: self-play,
	// training and gates (the ladders themselves, a measurement, are left
	// out). Games are the self-play games up to it.
	Hours  float64
	Games  int
	Rating *ladder.Rating
}

// RatingPoints are a run's ladder ratings in the order of its metrics:
// what palace report prints and draws, and palace serve shows.
func RatingPoints(ms []Metric) []RatingPoint {
	var out []RatingPoint
	seconds, games := 0.0, 0
	for _, m := range ms {
		switch m.Stage {
		case StageLadder:
			if m.Rating != nil {
				out = append(out, RatingPoint{Generation: m.Generation + 1, Hours: seconds / 3600, Games: games, Rating: m.Rating})
			}
			continue
		case StageSelfplay:
			games += m.Games
		}
		seconds += m.Seconds
	}
	return out
}
