// Package ladder rates players on an absolute scale: Fairy-Stockfish (or
// another UCI engine) searching fixed node counts, one rung per count.
//
// A scale is calibrated once per game and engine build: every two rungs
// up to Span apart play a match, and a Bradley–Terry fit over all their
// games (stats.FitRatings) gives each rung a rating, the engine's lowest
// node count at 0. Below the engine's rungs a scale may have player rungs
// (the uniform search, a random mover) rated on the same fit, so that a
// player weaker than the engine at one node is placed, not only bounded.
// Rungs further apart than neighbours play each other because a ladder's
// player does too (it climbs from the bottom): a fit over neighbours
// alone compresses the scale where the low rungs mostly draw, and a rung's
// own engine, rated by the ladder, then lands above its rung. The scale
// is a versioned JSON file; the ones for Debian's fairy-stockfish are
// built into palace, so every user's ratings are on the same scale.
//
// A player is rated by climbing: it plays pairs of games (one opening,
// colours swapped) against the bottom rung, and moves up until a rung
// beats it (it scores under half there), so that its rating is bracketed
// by a rung it beats and one that beats it. Its rating is the
// maximum-likelihood fit over all its games with the rungs' ratings held
// fixed. Every rung's games are an arena match record file, fsynced per
// game, so a ladder killed at any moment resumes with every game it had.
package ladder

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
	"github.com/palace-chess/palace/uci"
)

// ScaleFormat and ScaleVersion identify a scale file. Version 2 added
// player rungs and matches between rungs further apart than neighbours;
// a version 1 file (engine rungs, neighbours' matches) still reads.
const (
	ScaleFormat  = "palace-ladder-scale"
	ScaleVersion = 2
)

// DefaultEngine is Debian's fairy-stockfish, the engine of the built-in
// scales.
const DefaultEngine = "/usr/games/fairy-stockfish"

// DefaultNodes are the rungs of a calibration: roughly ×3 apart.
var DefaultNodes = []int{1, 3, 10, 30, 100, 300, 1000, 3000, 10000, 30000}

// DefaultBelow are the player rungs a calibration puts below the engine's:
// the uniform search at the budget that counts (800 visits), which
// Fairy-Stockfish at one node beats in janggi but not in xiangqi.
var DefaultBelow = []string{"uniform,sims=800"}

// DefaultSpan is how far apart two rungs of a calibration may be and
// still play each other: neighbours and the rungs two apart.
const DefaultSpan = 2

// Scale is a calibrated ladder for one rule set and engine build.
type Scale struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// RuleSet is the rule set's name and hash (rules.RuleSet.String()).
	RuleSet string `json:"rule_set"`
	Engine  Engine `json:"engine"`
	// OpeningPlies and Seed made the calibration's openings.
	OpeningPlies int    `json:"opening_plies"`
	Seed         uint64 `json:"seed"`
	// Rungs are the player rungs, weakest first, then the engine's in
	// increasing node counts; the first engine rung is rated 0.
	Rungs []Rung `json:"rungs"`
	// Span is how far apart (in rungs) two rungs that played each other
	// could be; a version 1 scale's neighbours are span 1.
	Span int `json:"span,omitempty"`
	// Matches are the calibration's matches, one per pair of rungs up to
	// Span apart.
	Matches []Match `json:"matches"`
	// Games counts every game of the calibration.
	Games       int       `json:"games"`
	CodeVersion string    `json:"code_version"`
	Created     time.Time `json:"created"`
}

// Engine is the engine build a scale belongs to.
type Engine struct {
	// ID is the engine's own name for itself (UCI's id name): a ladder
	// run with another build is refused.
	ID string `json:"id"`
	// Program is the program calibrated (the default for ladders).
	Program string `json:"program"`
	// Options went to every rung by setoption.
	Options []uci.OptionValue `json:"options,omitempty"`
}

// Rung is one rung: the engine at Nodes nodes a move, or a player of
// palace's own (Player, an arena spec: random or uniform[,...]), with its
// rating and the rating's 95% interval.
type Rung struct {
	Nodes  int          `json:"nodes,omitempty"`
	Player string       `json:"player,omitempty"`
	Elo    stats.Number `json:"elo"`
	Lo     stats.Number `json:"lo"`
	Hi     stats.Number `json:"hi"`
}

// ID names the rung in matches and file names: its node count, or its
// player spec.
func (r Rung) ID() RungID {
	if r.Player != "" {
		return RungID(r.Player)
	}
	return RungID(strconv.Itoa(r.Nodes))
}

// Label is the rung in words: "100 nodes", "uniform,sims=800".
func (r Rung) Label() string {
	if r.Player != "" {
		return r.Player
	}
	return nodesText(r.Nodes)
}

// RungID names a rung: an engine rung's node count (a JSON number, as
// version 1 wrote it) or a player rung's spec (a JSON string).
type RungID string

// MarshalJSON writes a node count as a number.
func (id RungID) MarshalJSON() ([]byte, error) {
	if _, err := strconv.Atoi(string(id)); err == nil {
		return []byte(id), nil
	}
	return json.Marshal(string(id))
}

// UnmarshalJSON reads a number or a string.
func (id *RungID) UnmarshalJSON(data []byte) error {
	var n int
	if err := json.Unmarshal(data, &n); err == nil {
		*id = RungID(strconv.Itoa(n))
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("a rung: want a node count or a player spec, got %s", data)
	}
	*id = RungID(s)
	return nil
}

// fileName is the rung's part of a record file's name: the node count, or
// the spec with its punctuation made dashes ("uniform-sims-800").
func (id RungID) fileName() string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, string(id))
}

// Match is one calibration match: rung Lower (the weaker by the scale's
// order, the match's A) against rung Upper, from Lower's view.
type Match struct {
	Lower       RungID            `json:"lower"`
	Upper       RungID            `json:"upper"`
	Pairs       int               `json:"pairs"`
	WDL         stats.WDL         `json:"wdl"`
	Pentanomial stats.Pentanomial `json:"pentanomial"`
	// Elo is Lower's over Upper from this match alone.
	Elo stats.EloEstimate `json:"elo"`
}

// ID names the scale in reports: rule set and engine.
func (s *Scale) ID() string { return fmt.Sprintf("%s, %s", s.RuleSet, s.Engine.ID) }

// RungSpec is the engine player of rung nodes with program and options.
func RungSpec(program string, nodes int, options []uci.OptionValue) arena.UCISpec {
	return arena.UCISpec{Path: program, Limits: uci.Limits{Nodes: nodes}, Options: slices.Clone(options)}
}

// Check reports what makes s unusable.
func (s *Scale) Check() error {
	switch {
	case s.Format != ScaleFormat:
		return fmt.Errorf("format %q, not %s", s.Format, ScaleFormat)
	case s.Version < 1 || s.Version > ScaleVersion:
		return fmt.Errorf("version %d; this palace reads versions 1 to %d", s.Version, ScaleVersion)
	case s.RuleSet == "":
		return errors.New("no rule set")
	case s.Engine.ID == "":
		return errors.New("no engine id")
	case len(s.Rungs) < 2:
		return fmt.Errorf("%d rungs, want at least 2", len(s.Rungs))
	}
	engines := 0
	for i, r := range s.Rungs {
		if r.Player != "" {
			if r.Nodes != 0 || engines > 0 {
				return fmt.Errorf("rung %d: player %q: a player rung has no node count and comes before the engine's rungs", i+1, r.Player)
			}
			if err := checkPlayerRung(r.Player); err != nil {
				return fmt.Errorf("rung %d: %w", i+1, err)
			}
		} else {
			if r.Nodes < 1 || (engines > 0 && r.Nodes <= s.Rungs[i-1].Nodes) {
				return fmt.Errorf("rung %d: %d nodes; want increasing counts of at least 1", i+1, r.Nodes)
			}
			engines++
		}
		if !isFinite(float64(r.Elo)) {
			return fmt.Errorf("rung %d (%s): rating %v", i+1, r.Label(), float64(r.Elo))
		}
	}
	if engines == 0 {
		return errors.New("no engine rung")
	}
	return nil
}

// checkPlayerRung refuses a player rung's spec that is not one of
// palace's own players without a file: a scale must mean the same on
// every machine.
func checkPlayerRung(spec string) error {
	ps, err := arena.ParsePlayer(spec)
	if err != nil {
		return err
	}
	if ps.Kind != arena.KindRandom && ps.Kind != arena.KindUniform {
		return fmt.Errorf("player rung %q: want random or uniform[,...], a player with no network or program", spec)
	}
	return nil
}

// ParseScale reads a scale file's contents; name names it in errors.
func ParseScale(name string, data []byte) (*Scale, error) {
	var s Scale
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("ladder: scale %s: %w", name, err)
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("ladder: scale %s: %w", name, err)
	}
	return &s, nil
}

// LoadScale reads a scale file.
func LoadScale(file string) (*Scale, error) {
	data, err := atomicfile.ReadFile(file, atomicfile.MaxConfigBytes)
	if err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	return ParseScale(file, data)
}

// Save writes s to file crash-safely.
func (s *Scale) Save(file string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("ladder: %w", err)
	}
	if err := atomicfile.WriteBytes(file, 0o644, append(data, '\n')); err != nil {
		return fmt.Errorf("ladder: %w", err)
	}
	return nil
}

//go:embed scales/*.json
var builtin embed.FS

// BuiltinScales are the scales built into palace (for Debian's
// fairy-stockfish), one per rule set.
func BuiltinScales() ([]*Scale, error) {
	names, err := fs.Glob(builtin, "scales/*.json")
	if err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	var out []*Scale
	for _, n := range names {
		data, err := builtin.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("ladder: %w", err)
		}
		s, err := ParseScale("built-in "+path.Base(n), data)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// BuiltinScale is the built-in scale of rule set rs.
func BuiltinScale(rs *rules.RuleSet) (*Scale, error) {
	all, err := BuiltinScales()
	if err != nil {
		return nil, err
	}
	var have []string
	for _, s := range all {
		if s.RuleSet == rs.String() {
			return s, nil
		}
		have = append(have, s.RuleSet)
	}
	return nil, fmt.Errorf("ladder: no built-in scale for %s (built in: %v); calibrate one with palace ladder calibrate and give it with --scale", rs, have)
}

func isFinite(x float64) bool { return x == x && x-x == 0 }
