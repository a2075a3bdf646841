// Package gamerec is palace's record of played games, whatever played
// them: games imported from PGN and .gib collections, self-play's game
// files, arena matches. Research tools (palace openings, palace export)
// read games through it.
//
// A games file is JSON lines: a Header, then one Game per line. It is
// written crash-safely (temp file, fsync, rename), so a reader sees all of
// it or nothing.
package gamerec

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/rules"
)

// Format and Version identify a games file; readers refuse others.
const (
	Format  = "palace-games"
	Version = 1
)

// ErrGames is wrapped by every error about a games file's contents.
var ErrGames = errors.New("gamerec: bad games file")

// Results a Game may have: the rules' three, and Unknown for a record that
// does not say (an unfinished or unannotated game).
const (
	WhiteWins = "1-0" // Red (xiangqi) or Cho (janggi) won
	BlackWins = "0-1"
	Draw      = "1/2-1/2"
	Unknown   = "*"
)

// Reasons a game ended that the rules do not decide; a game the rules
// ended carries rules.Termination's label instead.
const (
	ReasonResignation = "resignation"
	ReasonTime        = "time"
	ReasonAgreement   = "agreement"
	// ReasonRecorded: the record gives a result, not why.
	ReasonRecorded = "recorded"
	// ReasonUnfinished: the record gives no result.
	ReasonUnfinished = "unfinished"
)

// Header is a games file's first line.
type Header struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Rules holds every rule set the file's games name, so that a game
	// under a YAML rule set replays without that file (hashes checked).
	Rules       []*rules.RuleSet `json:"rules"`
	CodeVersion string           `json:"code_version,omitempty"`
	// Source says how the file was made (the import command, say).
	Source string `json:"source,omitempty"`
	Games  int    `json:"games"`
}

// Game is one game.
type Game struct {
	// Source and Index say where the game came from: a file and the
	// game's 1-based position in it.
	Source string `json:"source,omitempty"`
	Index  int    `json:"index,omitempty"`
	// RuleSet is name@hash, one of the header's rule sets.
	RuleSet string `json:"rule_set"`
	// Setup is janggi's "CHO,HAN" setup names when the game starts from
	// a setup (empty otherwise).
	Setup    string `json:"setup,omitempty"`
	StartFEN string `json:"start_fen"`
	// Moves are space-separated, ranks 1–10 (rules.Ranks1), passes
	// included.
	Moves string `json:"moves"`
	Plies int    `json:"plies"`
	// Result is 1-0, 0-1, 1/2-1/2 (White = Red or Cho) or * (unknown).
	Result string `json:"result"`
	// Reason is rules.Termination's label when the rules ended the game
	// after its last move, else one of the Reason constants.
	Reason string `json:"reason"`
	// Date is when the game was played, PGN style (YYYY.MM.DD, ?? for an
	// unknown part); empty when unknown.
	Date string `json:"date,omitempty"`
	// White and Black are the players' names (Red/Cho first).
	White string `json:"white,omitempty"`
	Black string `json:"black,omitempty"`
	// Network is the ID of the network that played a self-play game and
	// Generation that network's generation in its run (nil: not known).
	Network    string `json:"network,omitempty"`
	Generation *int   `json:"generation,omitempty"`
	// Tags are the record's other tags as read (UTF-8), for reference.
	Tags map[string]string `json:"tags,omitempty"`
}

// Where names the game for messages: source and index when known.
func (g *Game) Where() string {
	switch {
	case g.Source != "" && g.Index > 0:
		return fmt.Sprintf("%s game %d", g.Source, g.Index)
	case g.Source != "":
		return g.Source
	case g.Index > 0:
		return fmt.Sprintf("game %d", g.Index)
	}
	return "game"
}

// MoveList is the game's moves split.
func (g *Game) MoveList() []string { return strings.Fields(g.Moves) }

// SetMoves records a finished or abandoned game's start and moves from a
// rules.Game, and its result when the rules ended it.
func (g *Game) SetMoves(game *rules.Game) {
	moves := game.Moves(nil)
	var b []byte
	for i, m := range moves {
		if i > 0 {
			b = append(b, ' ')
		}
		b = m.AppendText(b, rules.Ranks1)
	}
	g.RuleSet, g.StartFEN, g.Moves, g.Plies = game.Rules().String(), game.RootFEN(), string(b), len(moves)
	if r := game.Result(); r.Over() {
		g.Result, g.Reason = r.Score(), r.Reason.String()
	}
}

// Replay plays the game's moves from its start under rs and checks them:
// every move legal, none after a forced end (mate, stalemate, a double
// pass, bikjang: rules.Game.ImmediateResult), and a result that agrees
// with the rules' when they force the end. An end the rules would give on
// a claim (repetition, perpetual check or chase, the move limit) binds
// only self-play: players and arbiters may play on or judge otherwise, so
// a record may continue past it or give another result, and the Reason
// then says the record's (ReasonRecorded and the like). Errors name the
// ply.
func (g *Game) Replay(rs *rules.RuleSet) (*rules.Game, error) {
	game, err := g.replay(rs)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrGames, g.Where(), err)
	}
	return game, nil
}

func (g *Game) replay(rs *rules.RuleSet) (*rules.Game, error) {
	if rs.String() != g.RuleSet {
		return nil, fmt.Errorf("rule set %s, replayed under %s", g.RuleSet, rs)
	}
	if g.Setup != "" {
		c, h, err := rules.ParseJanggiSetups(g.Setup)
		if err != nil {
			return nil, fmt.Errorf("setup %q: %w", g.Setup, err)
		}
		if fen := rules.JanggiSetupFEN(c, h); fen != g.StartFEN {
			return nil, fmt.Errorf("setup %s starts from %s, the record from %s", g.Setup, fen, g.StartFEN)
		}
	}
	game, err := rules.NewGame(rs, g.StartFEN)
	if err != nil {
		return nil, err
	}
	n := 0
	for text := range strings.FieldsSeq(g.Moves) {
		if r := game.ImmediateResult(); r.Over() {
			return nil, fmt.Errorf("ply %d: %s after the game ended (%s)", n+1, text, r)
		}
		if _, err := game.PlayText(text, rules.Ranks1); err != nil {
			return nil, fmt.Errorf("ply %d: %w", n+1, err)
		}
		n++
	}
	if n != g.Plies {
		return nil, fmt.Errorf("%d moves, the record says %d plies", n, g.Plies)
	}
	switch g.Result {
	case WhiteWins, BlackWins, Draw, Unknown:
	default:
		return nil, fmt.Errorf("result %q (want 1-0, 0-1, 1/2-1/2 or *)", g.Result)
	}
	if r := game.ImmediateResult(); r.Over() && (r.Score() != g.Result || r.Reason.String() != g.Reason) {
		return nil, fmt.Errorf("the rules end it %s, the record says %s %s", r, g.Result, g.Reason)
	}
	if r := game.Result(); r.Over() && r.Score() == g.Result && g.Reason != r.Reason.String() && isRulesReason(g.Reason) {
		return nil, fmt.Errorf("the rules end it %s, the record says %s %s", r, g.Result, g.Reason)
	}
	return game, nil
}

// Settle gives an imported game its result once its moves are played:
// result is the record's (WhiteWins, BlackWins, Draw or Unknown) and
// reason the record's reason for it (ReasonResignation, ReasonRecorded…;
// ignored for Unknown). A forced end (ImmediateResult) must agree with a
// stated result and then gives the result and reason; an end the rules
// would give on a claim does so when the record agrees or says nothing,
// while a record that says otherwise keeps its result (the players or an
// arbiter judged the position). The error says what disagrees.
func (g *Game) Settle(game *rules.Game, result, reason string) error {
	if r := game.ImmediateResult(); r.Over() {
		if result != Unknown && result != r.Score() {
			return fmt.Errorf("the rules end the game %s, the record says %s", r, result)
		}
		g.Result, g.Reason = r.Score(), r.Reason.String()
		return nil
	}
	if r := game.Result(); r.Over() && (result == Unknown || result == r.Score()) {
		g.Result, g.Reason = r.Score(), r.Reason.String()
		return nil
	}
	switch result {
	case Unknown:
		g.Result, g.Reason = Unknown, ReasonUnfinished
	case WhiteWins, BlackWins, Draw:
		g.Result, g.Reason = result, reason
		if reason == "" || isRulesReason(reason) {
			g.Reason = ReasonRecorded
		}
	default:
		return fmt.Errorf("result %q (want 1-0, 0-1, 1/2-1/2 or *)", result)
	}
	return nil
}

// isRulesReason reports whether reason is one of rules.Termination's
// labels.
func isRulesReason(reason string) bool {
	for t := rules.NotOver; t <= rules.LengthCap; t++ {
		if t.String() == reason {
			return true
		}
	}
	return false
}

// File is a games file read back.
type File struct {
	Header Header
	Games  []Game
	rules  map[string]*rules.RuleSet
}

// RuleSet is the rule set a game names (nil if the file lacks it, which
// Read does not allow).
func (f *File) RuleSet(g *Game) *rules.RuleSet { return f.rules[g.RuleSet] }

// NewHeader is a header holding the rule sets of games.
func NewHeader(games []Game, ruleSets map[string]*rules.RuleSet) (Header, error) {
	var h Header
	seen := map[string]bool{}
	for i := range games {
		name := games[i].RuleSet
		if seen[name] {
			continue
		}
		rs := ruleSets[name]
		if rs == nil {
			return h, fmt.Errorf("gamerec: %s: rule set %s unknown", games[i].Where(), name)
		}
		seen[name] = true
		h.Rules = append(h.Rules, rs)
	}
	return h, nil
}

// Write writes a games file crash-safely. The header's format, version
// and game count are filled in; every game's rule set must be in it.
func Write(path string, hdr Header, games []Game) error {
	hdr.Format, hdr.Version, hdr.Games = Format, Version, len(games)
	have := map[string]bool{}
	for _, rs := range hdr.Rules {
		have[rs.String()] = true
	}
	for i := range games {
		if !have[games[i].RuleSet] {
			return fmt.Errorf("gamerec: %s: %s names rule set %s, not in the header", path, games[i].Where(), games[i].RuleSet)
		}
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(hdr); err != nil {
			return fmt.Errorf("gamerec: %s: %w", path, err)
		}
		for i := range games {
			if err := enc.Encode(&games[i]); err != nil {
				return fmt.Errorf("gamerec: %s: %w", path, err)
			}
		}
		return bw.Flush()
	})
}

// Read reads a games file and checks its header (format, version, rule
// sets against their hashes, the game count) and that every game names
// one of its rule sets. It does not replay the games.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("gamerec: %w", err)
	}
	return Parse(path, data)
}

// Parse is Read on a file's contents; path names it in errors.
func Parse(path string, data []byte) (*File, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrGames, path, fmt.Sprintf(format, args...))
	}
	f := &File{rules: map[string]*rules.RuleSet{}}
	line := 0
	for len(data) > 0 {
		var text []byte
		text, data, _ = bytes.Cut(data, []byte{'\n'})
		line++
		if len(bytes.TrimSpace(text)) == 0 {
			return nil, bad("line %d: empty", line)
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if line == 1 {
			h := &f.Header
			if err := dec.Decode(h); err != nil {
				return nil, bad("line 1 (header): %v", err)
			}
			if h.Format != Format {
				return nil, bad("format %q, want %q", h.Format, Format)
			}
			if h.Version != Version {
				return nil, bad("version %d; this palace reads version %d", h.Version, Version)
			}
			for _, rs := range h.Rules {
				if rs == nil {
					return nil, bad("header: a null rule set")
				}
				if err := rs.Validate(); err != nil {
					return nil, bad("header: %v", err)
				}
				f.rules[rs.String()] = rs
			}
			continue
		}
		var g Game
		if err := dec.Decode(&g); err != nil {
			return nil, bad("line %d: %v", line, err)
		}
		if f.rules[g.RuleSet] == nil {
			return nil, bad("line %d: rule set %s is not in the header", line, g.RuleSet)
		}
		f.Games = append(f.Games, g)
	}
	if line == 0 {
		return nil, bad("empty")
	}
	if len(f.Games) != f.Header.Games {
		return nil, bad("%d games, the header says %d", len(f.Games), f.Header.Games)
	}
	return f, nil
}
