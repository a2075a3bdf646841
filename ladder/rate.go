package ladder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
)

// Rating is a player's place on a scale.
type Rating struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Player  string `json:"player"`
	// Scale names the scale (rule set and engine).
	Scale string       `json:"scale"`
	Elo   stats.Number `json:"elo"`
	// Lo and Hi bound the rating's 95% interval (the player's games; the
	// rungs' own calibration intervals are the scale's).
	Lo stats.Number `json:"lo"`
	Hi stats.Number `json:"hi"`
	// Rungs are the rungs played, bottom up.
	Rungs []RungResult `json:"rungs"`
	Games int          `json:"games"`
	// Fitted counts the games the rating was fitted on: those against
	// the top rung played and the scale's Span of rungs below it.
	Fitted int `json:"fitted,omitempty"`
	// Note says when the rating lies off the scale's ends.
	Note string `json:"note,omitempty"`
	// Seconds is the time this call took (a resumed ladder: the resumed
	// part's).
	Seconds     float64   `json:"seconds"`
	CodeVersion string    `json:"code_version"`
	Finished    time.Time `json:"finished"`
}

// RungResult is the player's match against one rung, from its view.
type RungResult struct {
	Nodes       int               `json:"nodes,omitempty"`
	Player      string            `json:"rung_player,omitempty"`
	RungElo     stats.Number      `json:"rung_elo"`
	WDL         stats.WDL         `json:"wdl"`
	Pentanomial stats.Pentanomial `json:"pentanomial"`
	Score       float64           `json:"score"`
}

// RatingFormat and RatingVersion identify a rating file.
const (
	RatingFormat  = "palace-ladder-rating"
	RatingVersion = 1
)

// ResultFile is the rating's file in a ladder's directory.
const ResultFile = "rating.json"

// Job rates one player on a scale.
type Job struct {
	Settings
	Scale   *Scale
	RuleSet *rules.RuleSet
	Player  arena.Player
	// Program is the engine ("": the scale's); its id must be the
	// scale's.
	Program string
}

// Next says which rung to play after the rungs in scores (index → the
// player's score there, bottom up from 0 without a gap), or done: up
// until a rung beats the player (it scores under half there), so that its
// rating is bracketed by a rung it beats and one that beats it, or until
// the top rung.
func Next(scores []float64, rungs int) (next int, done bool) {
	for k, s := range scores {
		if s < 0.5 || k+1 == rungs {
			return 0, true
		}
	}
	return len(scores), false
}

// Rate plays the player up the ladder (resuming whatever Dir holds) and
// fits its rating; it writes the rating to Dir/rating.json.
func Rate(ctx context.Context, j Job) (*Rating, error) {
	start := time.Now()
	if err := j.Check(); err != nil {
		return nil, err
	}
	if j.Scale == nil || j.RuleSet == nil || j.Player == nil {
		return nil, errors.New("ladder: a rating needs a scale, a rule set and a player")
	}
	if j.RuleSet.String() != j.Scale.RuleSet {
		return nil, fmt.Errorf("ladder: the scale is for %s, not %s", j.Scale.RuleSet, j.RuleSet)
	}
	program := j.Program
	if program == "" {
		program = j.Scale.Engine.Program
	}
	if err := os.MkdirAll(j.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	ops, err := j.Openings(j.RuleSet)
	if err != nil {
		return nil, err
	}
	// The engine is checked before the first game, though a player the
	// player rungs below it stop may never meet it: a wrong --engine is
	// an error, not a rating that happens not to need it.
	if k := slices.IndexFunc(j.Scale.Rungs, func(r Rung) bool { return r.Player == "" }); k >= 0 {
		rung, err := NewRung(j.Scale, k, program, j.RuleSet)
		if err != nil {
			return nil, err
		}
		rung.Close()
	}
	r, err := Climb(j.Scale, j.Pairs, func(k int) ([]arena.GameRecord, error) {
		rung, err := NewRung(j.Scale, k, program, j.RuleSet)
		if err != nil {
			return nil, err
		}
		defer rung.Close()
		file := filepath.Join(j.Dir, RungFile(j.Scale.Rungs[k]))
		_, recs, err := j.play(ctx, j.RuleSet, ops, j.Player, rung, file)
		return recs, err
	})
	if err != nil {
		return nil, err
	}
	r.Player, r.CodeVersion = j.Player.Name(), j.CodeVersion
	r.Seconds, r.Finished = time.Since(start).Seconds(), time.Now().UTC()
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	if err := atomicfile.WriteBytes(filepath.Join(j.Dir, ResultFile), 0o644, append(data, '\n')); err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	return r, nil
}

// Climb climbs scale's rungs (see Next), playing
// rung k's match (pairs pairs, the player as A) with play, and fits the
// rating from all the games: Rate's climb, for a driver that plays the
// matches its own way (a cluster's workers).
func Climb(scale *Scale, pairs int, play func(k int) ([]arena.GameRecord, error)) (*Rating, error) {
	var scores []float64
	var results []RungResult
	var games []stats.RatedGame
	n := len(scale.Rungs)
	for {
		k, done := Next(scores, n)
		if done {
			break
		}
		recs, err := play(k)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			games = append(games, stats.RatedGame{A: n, B: k, Score: r.Score, Cluster: k*pairs + r.Pair})
		}
		rung := scale.Rungs[k]
		sum := arena.Summarize(arena.Header{Pairs: pairs}, recs)
		if !sum.Done {
			return nil, fmt.Errorf("ladder: the match against rung %d (%s) is not over (%d games)", k+1, rung.Label(), sum.Games)
		}
		score := sum.WDL.Score()
		scores = append(scores, score)
		results = append(results, RungResult{Nodes: rung.Nodes, Player: rung.Player, RungElo: rung.Elo, WDL: sum.WDL, Pentanomial: sum.Pentanomial, Score: score})
	}
	// The fit takes the games against the rungs the scale's own matches
	// tie to where the climb stopped: the top rung played and the Span
	// below it. The rungs further down, which it beat easily, say little
	// of its rating, and where the engine's strength is not transitive
	// (at few nodes) they pulled it above its place: Fairy-Stockfish at
	// 10 nodes, rated over every rung it met, landed above its own rung.
	lowest := max(len(scores)-1-max(scale.Span, 1), 0)
	var fitted []stats.RatedGame
	for _, g := range games {
		if g.B >= lowest {
			fitted = append(fitted, g)
		}
	}
	r, err := Fit(scale, fitted)
	if err != nil {
		return nil, err
	}
	r.Rungs = results
	r.Games = len(games)
	r.Fitted = len(fitted)
	last := scores[len(scores)-1]
	switch {
	case len(scores) == n && last >= 0.5:
		r.Note = fmt.Sprintf("above the scale: no rung beat it; it scored %.0f%% against the top rung (%s)", 100*last, scale.Rungs[n-1].Label())
	case len(scores) == 1:
		r.Note = fmt.Sprintf("below the scale: the bottom rung (%s) beat it; it scored %.0f%%", scale.Rungs[0].Label(), 100*last)
	}
	return r, nil
}

// RungPlayer is a rung's player: the engine at the rung's node count or
// one of palace's own players. Close it when its games are over.
type RungPlayer interface {
	arena.Player
	Close()
}

// ownRung is a player rung: palace's own player, nothing to close.
type ownRung struct{ arena.Player }

func (ownRung) Close() {}

// NewRung starts rung k of scale: its engine (program, "" for the scale's)
// at the rung's node count, checked to be the build the scale was
// calibrated with, or the rung's own player.
func NewRung(scale *Scale, k int, program string, rs *rules.RuleSet) (RungPlayer, error) {
	if r := scale.Rungs[k]; r.Player != "" {
		ps, err := arena.ParsePlayer(r.Player)
		if err != nil {
			return nil, fmt.Errorf("ladder: rung %d: %w", k+1, err)
		}
		p, err := ps.NewPlayer(rs)
		if err != nil {
			return nil, fmt.Errorf("ladder: rung %s: %w", r.Player, err)
		}
		return ownRung{p}, nil
	}
	if program == "" {
		program = scale.Engine.Program
	}
	nodes := scale.Rungs[k].Nodes
	rung, err := arena.NewUCIPlayer(RungSpec(program, nodes, scale.Engine.Options), rs)
	if err != nil {
		return nil, fmt.Errorf("ladder: rung %d: %w", nodes, err)
	}
	if id := rung.EngineID(); id != scale.Engine.ID {
		rung.Close()
		return nil, fmt.Errorf("ladder: %s is %q, but the scale was calibrated with %q; give that engine, or a scale calibrated with this one (palace ladder calibrate)",
			program, id, scale.Engine.ID)
	}
	return rung, nil
}

// RungName is the name rung k of scale plays under in records, with
// program ("": the scale's), under rule set rs.
func RungName(scale *Scale, k int, program string, rs *rules.RuleSet) (string, error) {
	if r := scale.Rungs[k]; r.Player != "" {
		p, err := NewRung(scale, k, program, rs)
		if err != nil {
			return "", err
		}
		defer p.Close()
		return p.Name(), nil
	}
	if program == "" {
		program = scale.Engine.Program
	}
	spec := RungSpec(program, scale.Rungs[k].Nodes, scale.Engine.Options)
	return spec.Name(), nil
}

// RungFile is the record file of the player's match against rung r, in a
// ladder's directory.
func RungFile(r Rung) string { return fmt.Sprintf("rung-%s.jsonl", r.ID().fileName()) }

// IsRungFile tells whether name has the form of a RungFile (of some
// scale's rung): what a ladder's directory may hold besides its rating.
func IsRungFile(name string) bool {
	id, ok := strings.CutPrefix(name, "rung-")
	id, ok2 := strings.CutSuffix(id, ".jsonl")
	if !ok || !ok2 {
		return false
	}
	if n, err := strconv.Atoi(id); err == nil {
		return n > 0 && strconv.Itoa(n) == id
	}
	// A player rung's: random, or uniform and its options.
	return RungID(id).fileName() == id && (id == "random" || id == "uniform" || strings.HasPrefix(id, "uniform-"))
}

// Fit is the rating of a player whose games (A: the player, index
// len(scale.Rungs); B: a rung's index) are these, with the rungs' ratings
// held fixed.
func Fit(scale *Scale, games []stats.RatedGame) (*Rating, error) {
	n := len(scale.Rungs)
	start := make([]float64, n+1)
	fixed := make([]bool, n+1)
	for i, r := range scale.Rungs {
		start[i], fixed[i] = float64(r.Elo), true
	}
	fit, err := stats.FitRatings(n+1, games, start, fixed)
	if err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	return &Rating{Format: RatingFormat, Version: RatingVersion, Scale: scale.ID(),
		Elo: stats.Number(fit.Elo[n]), Lo: stats.Number(fit.CI[n].Lo), Hi: stats.Number(fit.CI[n].Hi), Games: len(games)}, nil
}

// ReadRating reads a ladder directory's rating file.
func ReadRating(dir string) (*Rating, error) {
	data, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	var r Rating
	if err := json.Unmarshal(data, &r); err != nil || r.Format != RatingFormat || r.Version != RatingVersion {
		return nil, fmt.Errorf("ladder: %s: not a rating of version %d (%v)", filepath.Join(dir, ResultFile), RatingVersion, err)
	}
	return &r, nil
}

// nodesText is a node count in words: "1 node", "30 nodes".
func nodesText(n int) string {
	if n == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}
