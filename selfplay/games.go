package selfplay

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

// A game-record file (NAME.games.jsonl beside shard NAME.shard) holds the
// games whose positions the shard holds, so that palace can replay them:
// JSON lines, the first a GamesHeader, then one GameRecord per game in the
// shard's order. It is written crash-safely before its shard is listed in
// the manifest, and is part of the shard's commit: a file whose shard is
// not listed is debris of a crash.

// GamesFormat and GamesVersion identify the file; readers refuse others.
const (
	GamesFormat  = "palace-selfplay-games"
	GamesVersion = 1
	// GamesSuffix replaces a shard's ".shard" to name its game records.
	GamesSuffix = ".games.jsonl"
	// ShardSuffix is the extension of the shards self-play writes.
	ShardSuffix = ".shard"
)

// ErrGames is wrapped by every error about a game-record file's contents.
var ErrGames = errors.New("selfplay: bad game records")

// GamesHeader is a game-record file's first line.
type GamesHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Shard is the shard file holding the games' positions.
	Shard string `json:"shard"`
	// RuleSet is name@hash; Rules every switch of it, so that games under
	// a YAML rule set replay without the file (the hash is checked).
	RuleSet     string         `json:"rule_set"`
	Rules       *rules.RuleSet `json:"rules"`
	NetworkID   string         `json:"network_id"`
	GameHash    string         `json:"game_hash"` // see Config; equal for every game of a directory
	Seed        uint64         `json:"seed"`
	CodeVersion string         `json:"code_version,omitempty"`
	Games       int            `json:"games"`
}

// GameRecord is one game: where it started, its moves and how it ended.
type GameRecord struct {
	ID   uint64 `json:"id"`   // the game index; the shard's records carry it as GameID
	Seed uint64 `json:"seed"` // the game's own seed, from the run's seed and ID
	// Setup is janggi's "CHO,HAN" setup names (empty for xiangqi).
	Setup    string `json:"setup,omitempty"`
	StartFEN string `json:"start_fen"`
	// Moves are space-separated, ranks 1–10: with StartFEN, the input of
	// palace adjudicate (under the header's rule set: with a length cap
	// that is a YAML file, `base: NAME` and `maxPlies: N`).
	Moves  string `json:"moves"`
	Plies  int    `json:"plies"`
	Result string `json:"result"` // 1-0, 0-1 or 1/2-1/2
	Reason string `json:"reason"` // rules.Termination's label
	// Count is both sides' material counts when counting decided the game.
	Count *[2]float64 `json:"count,omitempty"`
	// Full is the number of the game's positions searched with the full
	// budget (policy targets).
	Full int `json:"full"`
}

// GameFile is a game-record file read back.
type GameFile struct {
	Header GamesHeader
	Games  []GameRecord
	rs     *rules.RuleSet
}

// RuleSet is the rule set the games were played under.
func (f *GameFile) RuleSet() *rules.RuleSet { return f.rs }

// GamesPath is the game-record file of a shard file.
func GamesPath(shardPath string) string {
	return strings.TrimSuffix(shardPath, ShardSuffix) + GamesSuffix
}

// writeGames writes a game-record file crash-safely: a reader (or a
// restart after kill -9) sees all of it or nothing.
func writeGames(path string, hdr GamesHeader, games []GameRecord) error {
	hdr.Format, hdr.Version, hdr.Games = GamesFormat, GamesVersion, len(games)
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(hdr); err != nil {
			return fmt.Errorf("selfplay: %s: %w", path, err)
		}
		for i := range games {
			if err := enc.Encode(&games[i]); err != nil {
				return fmt.Errorf("selfplay: %s: %w", path, err)
			}
		}
		return nil
	})
}

// ReadGames reads a game-record file and checks its header: the format and
// version, the rule set's switches against its hash, the number of games.
// It does not replay the games (Replay does).
func ReadGames(path string) (*GameFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("selfplay: %w", err)
	}
	defer f.Close()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrGames, path, fmt.Sprintf(format, args...))
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	gf := &GameFile{}
	line := 0
	for sc.Scan() {
		line++
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if line == 1 {
			if err := dec.Decode(&gf.Header); err != nil {
				return nil, bad("line 1 (header): %v", err)
			}
			h := &gf.Header
			if h.Format != GamesFormat {
				return nil, bad("format %q, want %q", h.Format, GamesFormat)
			}
			if h.Version != GamesVersion {
				return nil, bad("version %d; this palace reads version %d", h.Version, GamesVersion)
			}
			if h.Rules == nil {
				return nil, bad("no rule set")
			}
			if err := h.Rules.Validate(); err != nil {
				return nil, bad("%v", err)
			}
			if h.Rules.String() != h.RuleSet {
				return nil, bad("the rule set's switches hash to %s, the header says %s", h.Rules.String(), h.RuleSet)
			}
			gf.rs = h.Rules
			continue
		}
		var g GameRecord
		if err := dec.Decode(&g); err != nil {
			return nil, bad("line %d: %v", line, err)
		}
		gf.Games = append(gf.Games, g)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("selfplay: reading %s: %w", path, err)
	}
	if line == 0 {
		return nil, bad("empty")
	}
	if len(gf.Games) != gf.Header.Games {
		return nil, bad("%d games, the header says %d", len(gf.Games), gf.Header.Games)
	}
	return gf, nil
}

// Replay plays the game's moves from its start position under rs and
// checks that it ends where and as it says: every move legal, the game
// over after the last one and not before, with the stored result, reason
// and counts. It returns the finished game; errors wrap ErrGames.
func (g *GameRecord) Replay(rs *rules.RuleSet) (*rules.Game, error) {
	game, err := g.replay(rs)
	if err != nil {
		return nil, fmt.Errorf("%w: game %d: %w", ErrGames, g.ID, err)
	}
	return game, nil
}

func (g *GameRecord) replay(rs *rules.RuleSet) (*rules.Game, error) {
	game, err := rules.NewGame(rs, g.StartFEN)
	if err != nil {
		return nil, err
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
	moves := strings.Fields(g.Moves)
	if len(moves) != g.Plies {
		return nil, fmt.Errorf("%d moves, the record says %d plies", len(moves), g.Plies)
	}
	for i, text := range moves {
		if r := game.Result(); r.Over() {
			return nil, fmt.Errorf("over after %d plies (%s), yet %d more moves follow", i, r, len(moves)-i)
		}
		if _, err := game.PlayText(text, rules.Ranks1); err != nil {
			return nil, fmt.Errorf("ply %d: %w", i+1, err)
		}
	}
	r := game.Result()
	if !r.Over() {
		return nil, fmt.Errorf("not over after its %d moves", len(moves))
	}
	if r.Score() != g.Result || r.Reason.String() != g.Reason {
		return nil, fmt.Errorf("replays to %s, the record says %s %s", r, g.Result, g.Reason)
	}
	if r.Counted != (g.Count != nil) || (r.Counted && r.Count != *g.Count) {
		return nil, fmt.Errorf("replays to counts %v (counted %t), the record says %v", r.Count, r.Counted, g.Count)
	}
	return game, nil
}

// newGameRecord describes a finished game.
func newGameRecord(id, seed uint64, setup string, g *rules.Game, full int) GameRecord {
	moves := g.Moves(nil)
	var b []byte
	for i, m := range moves {
		if i > 0 {
			b = append(b, ' ')
		}
		b = m.AppendText(b, rules.Ranks1)
	}
	r := g.Result()
	rec := GameRecord{ID: id, Seed: seed, Setup: setup, StartFEN: g.RootFEN(), Moves: string(b), Plies: len(moves),
		Result: r.Score(), Reason: r.Reason.String(), Full: full}
	if r.Counted {
		c := r.Count
		rec.Count = &c
	}
	return rec
}
