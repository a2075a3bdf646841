package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/internal/jsonlrec"
	"github.com/palace-chess/palace/rules"
)

// RecordsFormat and RecordsVersion identify an experiment's record file.
const (
	RecordsFormat  = "palace-experiment"
	RecordsVersion = 1
)

// Header is a record file's first line: what the experiment is, so that a
// resumed one with other rules, another player or seed is refused. The game
// count is not part of it: game i's opening and seed depend on i alone, so
// an experiment grows by asking for more games.
type Header struct {
	jsonlrec.Kind
	// A and B are the two rule sets, every switch written out.
	A      *rules.RuleSet `json:"a"`
	B      *rules.RuleSet `json:"b"`
	Player string         `json:"player"`
	// PlayerB, when set, played B's games (Player then played A's).
	PlayerB      string `json:"player_b,omitempty"`
	OpeningPlies int    `json:"opening_plies"`
	Seed         uint64 `json:"seed"`
	jsonlrec.Stamp
}

// GameRecord is one finished game: the game's record (gamerec.Record:
// its end, the first mover's view, by rules.Termination's label; its
// plies, the whole game's, the opening's included, as the rule sets'
// limits count them; its start and moves) in the experiment's own fields.
type GameRecord struct {
	Index int `json:"index"`
	// Rules is "A" or "B": which rule set the game was played under.
	Rules string `json:"rules"`
	// Seed is the game's seed, shared by the games of its index.
	Seed    uint64 `json:"seed"`
	Opening string `json:"opening"`
	gamerec.Record
	Passes int `json:"passes"`
}

// recordLine is a GameRecord's line in the order of its keys since the
// first experiments (passes before the start and moves), which
// MarshalJSON keeps: a resumed file's lines stay alike.
type recordLine struct {
	Index   int    `json:"index"`
	Rules   string `json:"rules"`
	Seed    uint64 `json:"seed"`
	Opening string `json:"opening"`
	gamerec.End
	Plies  int `json:"plies"`
	Passes int `json:"passes"`
	gamerec.Line
	Scores []gamerec.Score `json:"scores,omitempty"`
}

// MarshalJSON writes the record's line, its keys in recordLine's order.
func (r GameRecord) MarshalJSON() ([]byte, error) {
	return json.Marshal(recordLine{Index: r.Index, Rules: r.Rules, Seed: r.Seed, Opening: r.Opening, End: r.End,
		Plies: r.Plies, Passes: r.Passes, Line: r.Line, Scores: r.Scores})
}

// FirstMoverScore is the game's score for the side that moved first (red,
// cho): 1, 0.5 or 0.
func (r GameRecord) FirstMoverScore() float64 {
	switch r.Result {
	case "1-0":
		return 1
	case "0-1":
		return 0
	}
	return 0.5
}

// side is 0 for A and 1 for B.
func (r GameRecord) side() int {
	if r.Rules == "B" {
		return 1
	}
	return 0
}

var sideNames = [2]string{"A", "B"}

// RuleSets is the header's two rule sets (checked against their hashes
// when read).
func (h Header) RuleSets() (a, b *rules.RuleSet, err error) {
	if h.A == nil || h.B == nil {
		return nil, nil, errors.New("experiment: the header lacks a rule set")
	}
	return h.A, h.B, nil
}

// recordSpec is the experiment record file: a Header line, then a
// GameRecord a line as each game finishes.
var recordSpec = jsonlrec.Spec[Header, GameRecord]{
	Pkg: "experiment", What: "experiment", Kind: jsonlrec.Kind{Format: RecordsFormat, Version: RecordsVersion},
	Same:  func(got, want *Header) error { return sameExperiment(*got, *want) },
	Check: func(_ *Header, r *GameRecord) error { return r.check() },
	Key:   func(r *GameRecord) string { return fmt.Sprintf("game %d under %s", r.Index, r.Rules) },
}

// openRecords opens the record file at path to resume it, or starts it
// with hdr; it stays locked against a second writer until Close.
func openRecords(path string, hdr Header) (*jsonlrec.File[Header, GameRecord], []GameRecord, error) {
	return jsonlrec.Open(path, hdr, &recordSpec)
}

// check reports a field no game of an experiment can have.
func (r GameRecord) check() error {
	switch {
	case r.Index < 0:
		return fmt.Errorf("game index %d is negative", r.Index)
	case r.Rules != "A" && r.Rules != "B":
		return fmt.Errorf("rules %q: want A or B", r.Rules)
	case r.Result != "1-0" && r.Result != "0-1" && r.Result != "1/2-1/2":
		return fmt.Errorf("result %q: want 1-0, 0-1 or 1/2-1/2", r.Result)
	case r.Reason == "":
		return errors.New("no reason the game ended")
	case r.Plies < 0 || r.Passes < 0 || r.Passes > r.Plies:
		return fmt.Errorf("%d plies with %d passes", r.Plies, r.Passes)
	}
	return nil
}

// sameExperiment compares everything but the start time and code version.
func sameExperiment(got, want Header) error {
	var diffs []string
	if id(got.A) != id(want.A) || id(got.B) != id(want.B) {
		diffs = append(diffs, fmt.Sprintf("rules %s vs %s, not %s vs %s", id(got.A), id(got.B), id(want.A), id(want.B)))
	}
	if got.Player != want.Player {
		diffs = append(diffs, fmt.Sprintf("player %s, not %s", got.Player, want.Player))
	}
	if got.PlayerB != want.PlayerB {
		diffs = append(diffs, fmt.Sprintf("B's player %q, not %q", got.PlayerB, want.PlayerB))
	}
	if got.Seed != want.Seed {
		diffs = append(diffs, fmt.Sprintf("seed %d, not %d", got.Seed, want.Seed))
	}
	if got.OpeningPlies != want.OpeningPlies {
		diffs = append(diffs, fmt.Sprintf("openings of %d plies, not %d", got.OpeningPlies, want.OpeningPlies))
	}
	if len(diffs) > 0 {
		return errors.New(strings.Join(diffs, "; "))
	}
	return nil
}

// id is a header's rule set's name@hash ("" for a header without it).
func id(rs *rules.RuleSet) string {
	if rs == nil {
		return ""
	}
	return rs.String()
}

// ReadRecords reads an experiment's record file: its header and games,
// ordered by index, A before B. A torn last line (an experiment still being
// written, or killed) is left alone and ignored.
func ReadRecords(path string) (Header, []GameRecord, error) {
	h, recs, err := jsonlrec.Read(path, &recordSpec)
	if err != nil {
		return h, nil, err
	}
	sortRecords(recs)
	return h, recs, nil
}

func sortRecords(recs []GameRecord) {
	slices.SortFunc(recs, func(a, b GameRecord) int {
		if a.Index != b.Index {
			return a.Index - b.Index
		}
		return a.side() - b.side()
	})
}

// ReadGames reads the experiment record file at path and hands each game
// to fn as a games file's game, with the rule set it was played under (the
// header's A or B), ordered by index, A before B: rundir.Collect's reader
// of experiments. Each game names the file and its place in that order,
// the player on both sides, the experiment's start date, and its index,
// rules (A or B) and opening as tags; fn's reader replays it. A torn last
// line (an experiment still running) is ignored. fn's error stops it and
// is returned as is; fn must not keep g past the call.
func ReadGames(path string, fn func(g *gamerec.Game, rs *rules.RuleSet) error) error {
	h, recs, err := ReadRecords(path)
	if err != nil {
		return err
	}
	a, b, err := h.RuleSets()
	if err != nil {
		return fmt.Errorf("experiment: %s: the header lacks a rule set", path)
	}
	sets := [2]*rules.RuleSet{a, b}
	ids := [2]string{a.String(), b.String()}
	date := ""
	if !h.Started.IsZero() {
		date = h.Started.UTC().Format("2006.01.02")
	}
	for i := range recs {
		r := &recs[i]
		g := r.AsGame(ids[r.side()])
		player := h.Player
		if r.side() == 1 && h.PlayerB != "" {
			player = h.PlayerB
		}
		g.Source, g.Index, g.Date, g.White, g.Black = path, i+1, date, player, player
		g.Tags = map[string]string{"Index": strconv.Itoa(r.Index), "Rules": r.Rules, "Opening": r.Opening}
		if err := fn(&g, sets[r.side()]); err != nil {
			return err
		}
	}
	return nil
}
