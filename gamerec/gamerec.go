// Package gamerec is palace's record of played games, whatever played
// them: games imported from PGN and .gib collections, self-play (which
// writes a games file beside each shard), and the game part (Record) of
// arena's and experiment's record lines. It sits below its producers: it
// knows rules and its own files, nothing that plays and no directory
// layout (self-play's directories are selfplay's, a run's rundir's, whose
// Collect is the research tools' walk over all of them).
//
// A games file is JSON lines: a Header, then one Game per line, read by
// jsonlrec.Decode as match and experiment record files are. It is written
// crash-safely (temp file, fsync, rename), so a reader sees all of it or
// nothing. Replay checks an imported record (forced ends bind it),
// ReplayStrict a self-play one (every end binds).
package gamerec

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/internal/jsonlrec"
	"github.com/palace-chess/palace/rules"
)

// Format and Version identify a games file; readers refuse others.
// Version 2 writes rule sets in rules.RuleSet's JSON form (version 1: Go's
// field names); both are read.
const (
	Format  = "palace-games"
	Version = 2
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
	// A self-play file (NAME.games.jsonl beside the shard NAME.shard)
	// names its shard, the network that played every game, the digest of
	// everything that decided the games (equal for every file of a
	// self-play directory) and the run's seed. Shard is empty in every
	// other games file.
	Shard     string `json:"shard,omitempty"`
	NetworkID string `json:"network_id,omitempty"`
	GameHash  string `json:"game_hash,omitempty"`
	Seed      uint64 `json:"seed,omitempty"`
	Games     int    `json:"games"`
}

// Game is one game.
type Game struct {
	// Source and Index say where the game came from: a file and the
	// game's 1-based position in it.
	Source string `json:"source,omitempty"`
	Index  int    `json:"index,omitempty"`
	// ID and Seed are a self-play game's index in its run (the shard's
	// records carry it as GameID) and its own seed, derived from the run's
	// seed and ID; like every self-play field here, absent from other
	// records (and written only when not zero).
	ID   uint64 `json:"id,omitempty"`
	Seed uint64 `json:"seed,omitempty"`
	// RuleSet is name@hash, one of the header's rule sets.
	RuleSet string `json:"rule_set"`
	// Setup is janggi's "CHO,HAN" setup names when the game starts from
	// a setup (empty otherwise).
	Setup string `json:"setup,omitempty"`
	// Line's moves, with its start, are the input of palace adjudicate.
	Line
	Plies int `json:"plies"`
	// End's result may also be * (Unknown); its reason is
	// rules.Termination's label when the rules ended the game after its
	// last move, else one of the Reason constants.
	End
	// Count is both sides' material counts when counting decided a
	// self-play game.
	Count *[2]float64 `json:"count,omitempty"`
	// Full is the number of a self-play game's positions searched with
	// the full budget (policy targets).
	Full int `json:"full,omitempty"`
	// Scores are the movers' own evaluations of the positions they moved
	// from (an engine's score to the side that moved), one a move, the
	// zero Score where a mover gave none (an opening's random plies);
	// absent when no mover gave one. A match records them (palace arena),
	// and an engine's evaluations are value targets a game's one result
	// cannot give.
	Scores []Score `json:"scores,omitempty"`
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

// SetMoves records a finished or abandoned game's rule set, start and
// moves from a rules.Game, and its result when the rules ended it.
func (g *Game) SetMoves(game *rules.Game) {
	g.RuleSet, g.Line, g.Plies = game.Rules().String(), LineOf(game), len(game.Moves(nil))
	if r := game.Result(); r.Over() {
		g.End = EndOf(r)
	}
}

// MovesText is moves as records write them: space-separated, ranks 1–10
// (rules.Ranks1), passes included.
func MovesText(moves []rules.Move) string {
	var b []byte
	for i, m := range moves {
		if i > 0 {
			b = append(b, ' ')
		}
		b = m.AppendText(b, rules.Ranks1)
	}
	return string(b)
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
	game, err := g.replay(rs, false)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrGames, g.Where(), err)
	}
	return game, nil
}

// ReplayStrict is Replay for a game whose every end binds, as self-play's
// do: the game over after its last move and not before, by the rules'
// Result (claimable ends included), with the stored result, reason and
// counts. Errors name the game by its ID.
func (g *Game) ReplayStrict(rs *rules.RuleSet) (*rules.Game, error) {
	game, err := g.replay(rs, true)
	if err != nil {
		return nil, fmt.Errorf("%w: game %d: %w", ErrGames, g.ID, err)
	}
	return game, nil
}

// replay is both replays; strict holds the record to every end the rules
// give, lenient (imported records) to the forced ones only.
func (g *Game) replay(rs *rules.RuleSet, strict bool) (*rules.Game, error) {
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
	moves := strings.Fields(g.Moves)
	// A strict record's length is checked first, a lenient one's after
	// its moves: an imported record's bad move says more than its count.
	if strict && len(moves) != g.Plies {
		return nil, fmt.Errorf("%d moves, the record says %d plies", len(moves), g.Plies)
	}
	if len(g.Scores) > 0 && len(g.Scores) != len(moves) {
		return nil, fmt.Errorf("%d scores for %d moves", len(g.Scores), len(moves))
	}
	for i, text := range moves {
		if strict {
			if r := game.Result(); r.Over() {
				return nil, fmt.Errorf("over after %d plies (%s), yet %d more moves follow", i, r, len(moves)-i)
			}
		} else if r := game.ImmediateResult(); r.Over() {
			return nil, fmt.Errorf("ply %d: %s after the game ended (%s)", i+1, text, r)
		}
		if _, err := game.PlayText(text, rules.Ranks1); err != nil {
			return nil, fmt.Errorf("ply %d: %w", i+1, err)
		}
	}
	if strict {
		if err := g.checkFinished(game); err != nil {
			return nil, err
		}
		return game, nil
	}
	if len(moves) != g.Plies {
		return nil, fmt.Errorf("%d moves, the record says %d plies", len(moves), g.Plies)
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

// checkFinished checks a strict record's end against the replayed game's.
// A self-play game may end by resignation: before the rules end it, the
// side to move resigning.
func (g *Game) checkFinished(game *rules.Game) error {
	r := game.Result()
	if g.Reason == ReasonResignation {
		if r.Over() {
			return fmt.Errorf("replays to %s, the record says %s %s", r, g.Result, g.Reason)
		}
		want := "1-0"
		if game.Position().SideToMove() == rules.White {
			want = "0-1"
		}
		if g.Result != want || g.Count != nil {
			return fmt.Errorf("the side to move after its %d moves resigned, so the result is %s, the record says %s %s", g.Plies, want, g.Result, g.Reason)
		}
		return nil
	}
	if !r.Over() {
		return fmt.Errorf("not over after its %d moves", g.Plies)
	}
	if r.Score() != g.Result || r.Reason.String() != g.Reason {
		return fmt.Errorf("replays to %s, the record says %s %s", r, g.Result, g.Reason)
	}
	if r.Counted != (g.Count != nil) || (r.Counted && r.Count != *g.Count) {
		return fmt.Errorf("replays to counts %v (counted %t), the record says %v", r.Count, r.Counted, g.Count)
	}
	return nil
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
		g.End = EndOf(r)
		return nil
	}
	if r := game.Result(); r.Over() && (result == Unknown || result == r.Score()) {
		g.End = EndOf(r)
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

// SelfPlayRuleSet is the one rule set of a self-play file's games, nil for
// a file of any other number of rule sets.
func (f *File) SelfPlayRuleSet() *rules.RuleSet {
	if len(f.Header.Rules) != 1 {
		return nil
	}
	return f.Header.Rules[0]
}

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

// Write writes a games file crash-safely: a reader (or a restart after
// kill -9) sees all of it or nothing. The header's format, version and
// game count are filled in; every game's rule set must be in it.
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

// Read reads a games file (ReadFrom) at path.
func Read(path string) (*File, error) {
	f, err := atomicfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gamerec: %w", err)
	}
	defer f.Close()
	return ReadFrom(f, path)
}

// gamesSpec is a games file as jsonlrec, the one reader of palace's
// record and games files, reads it: a Header line, then one Game a line,
// every field known. It also reads the self-play game-record files of palace before
// games files were one format (palace-selfplay-games), as the games file
// they now are: one rule set, named by every game with the header's
// network (ReadFrom fills those in).
var gamesSpec = jsonlrec.Spec[Header, Game]{
	Pkg: "gamerec", What: "games", File: "games", Err: ErrGames,
	Kind: jsonlrec.Kind{Format: Format, Version: Version}, MinVersion: 1, StrictHeader: true,
	Legacy: jsonlrec.Kind{Format: legacySelfplayFormat, Version: 1}, ReadLegacy: readLegacyHeader,
}

// ReadFrom reads a games file and checks its header (format, version,
// rule sets against their hashes, the game count) and that every game
// names one of its rule sets; name names the input in errors. It does not
// replay the games.
func ReadFrom(r io.Reader, name string) (*File, error) {
	f := &File{}
	legacyRules := ""
	// index maps the header's rule sets by name@hash, each hashed once.
	index := func(h *Header) error {
		f.rules = make(map[string]*rules.RuleSet, len(h.Rules))
		for _, rs := range h.Rules {
			if rs == nil {
				return errors.New("header: a null rule set")
			}
			f.rules[rs.String()] = rs
		}
		if h.Format == legacySelfplayFormat {
			legacyRules = h.Rules[0].String()
		}
		return nil
	}
	var err error
	f.Header, err = jsonlrec.Decode(r, name, &gamesSpec, func(h *Header, _ int, g *Game) error {
		if f.rules == nil {
			if err := index(h); err != nil {
				return err
			}
		}
		if legacyRules != "" {
			g.RuleSet, g.Network = legacyRules, h.NetworkID
		}
		if f.rules[g.RuleSet] == nil {
			return fmt.Errorf("rule set %s is not in the header", g.RuleSet)
		}
		f.Games = append(f.Games, *g)
		return nil
	})
	if err == nil && f.rules == nil {
		if err = index(&f.Header); err != nil {
			err = fmt.Errorf("%w: %s: %w", ErrGames, name, err)
		}
	}
	if err != nil {
		return nil, err
	}
	if len(f.Games) != f.Header.Games {
		return nil, fmt.Errorf("%w: %s: %d games, the header says %d", ErrGames, name, len(f.Games), f.Header.Games)
	}
	return f, nil
}

// legacySelfplayFormat is the self-play game-record file's own format,
// before self-play wrote games files; legacySelfplayHeader its header.
const legacySelfplayFormat = "palace-selfplay-games"

type legacySelfplayHeader struct {
	Format      string         `json:"format"`
	Version     int            `json:"version"`
	Shard       string         `json:"shard"`
	RuleSet     string         `json:"rule_set"`
	Rules       *rules.RuleSet `json:"rules"`
	NetworkID   string         `json:"network_id"`
	GameHash    string         `json:"game_hash"`
	Seed        uint64         `json:"seed"`
	CodeVersion string         `json:"code_version,omitempty"`
	Games       int            `json:"games"`
}

// readLegacyHeader reads a palace-selfplay-games header as the games
// file's Header it is now (its Format kept, which marks it legacy).
func readLegacyHeader(text []byte) (Header, error) {
	var h legacySelfplayHeader
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return Header{}, fmt.Errorf("line 1 (header): %v", err)
	}
	if h.Rules == nil {
		return Header{}, errors.New("no rule set")
	}
	if h.Rules.String() != h.RuleSet {
		return Header{}, fmt.Errorf("the rule set's switches hash to %s, the header says %s", h.Rules.String(), h.RuleSet)
	}
	return Header{Format: h.Format, Version: h.Version, Rules: []*rules.RuleSet{h.Rules}, CodeVersion: h.CodeVersion,
		Shard: h.Shard, NetworkID: h.NetworkID, GameHash: h.GameHash, Seed: h.Seed, Games: h.Games}, nil
}
