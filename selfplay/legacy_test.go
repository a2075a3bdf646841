package selfplay

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// The game-record file of palace before self-play wrote gamerec games
// files (palace-selfplay-games version 1), its types as they were.
type (
	legacyHeader struct {
		Format      string   `json:"format"`
		Version     int      `json:"version"`
		Shard       string   `json:"shard"`
		RuleSet     string   `json:"rule_set"`
		Rules       goFields `json:"rules"`
		NetworkID   string   `json:"network_id"`
		GameHash    string   `json:"game_hash"`
		Seed        uint64   `json:"seed"`
		CodeVersion string   `json:"code_version,omitempty"`
		Games       int      `json:"games"`
	}
	legacyGame struct {
		ID       uint64      `json:"id"`
		Seed     uint64      `json:"seed"`
		Setup    string      `json:"setup,omitempty"`
		StartFEN string      `json:"start_fen"`
		Moves    string      `json:"moves"`
		Plies    int         `json:"plies"`
		Result   string      `json:"result"`
		Reason   string      `json:"reason"`
		Count    *[2]float64 `json:"count,omitempty"`
		Full     int         `json:"full"`
	}
	// goFields is a rule set under Go's field names, as those files held it.
	goFields rules.RuleSet
)

// writeLegacy rewrites every listed shard's games file of dir in the old
// format.
func writeLegacy(t *testing.T, dir string) {
	t.Helper()
	m, err := datasets.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Shards {
		path := GamesPath(filepath.Join(dir, s.Name))
		gf, err := gamerec.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		h, rs := gf.Header, gf.SelfPlayRuleSet()
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		lines := []any{legacyHeader{Format: "palace-selfplay-games", Version: 1, Shard: h.Shard, RuleSet: rs.String(),
			Rules: goFields(*rs), NetworkID: h.NetworkID, GameHash: h.GameHash, Seed: h.Seed, CodeVersion: h.CodeVersion, Games: h.Games}}
		for _, g := range gf.Games {
			lines = append(lines, legacyGame{ID: g.ID, Seed: g.Seed, Setup: g.Setup, StartFEN: g.StartFEN, Moves: g.Moves,
				Plies: g.Plies, Result: g.Result, Reason: g.Reason, Count: g.Count, Full: g.Full})
		}
		for _, l := range lines {
			if err := enc.Encode(l); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A self-play directory whose game records are in the old format reads
// as the same games, verifies, resumes (the new shards in the new format)
// and is collected whole.
func TestLegacyGameRecords(t *testing.T) {
	cfg := verifiedRun(t)
	want := byID(dirGames(t, cfg.Output))
	writeLegacy(t, cfg.Output)
	first, err := os.ReadFile(GamesPath(filepath.Join(cfg.Output, "shard-000000.shard")))
	if err != nil || !bytes.HasPrefix(first, []byte(`{"format":"palace-selfplay-games","version":1,`)) {
		t.Fatalf("not rewritten in the old format: %.80s (%v)", first, err)
	}
	if got := byID(dirGames(t, cfg.Output)); !reflect.DeepEqual(got, want) {
		t.Errorf("the old format reads as\n%+v\nnot\n%+v", got, want)
	}
	checkDir(t, cfg)
	cfg.Games += 4
	mustRun(t, cfg)
	games := checkDir(t, cfg)
	if len(games) != cfg.Games {
		t.Errorf("%d games after resuming, want %d", len(games), cfg.Games)
	}
	added, err := os.ReadFile(GamesPath(filepath.Join(cfg.Output, "shard-000002.shard")))
	if err != nil || !bytes.HasPrefix(added, []byte(`{"format":"palace-games","version":2,`)) {
		t.Errorf("the resumed run's shard: %.80s (%v)", added, err)
	}
	n := 0
	if err := ReadGames(cfg.Output, func(g *gamerec.Game, rs *rules.RuleSet) error {
		n++
		_, err := g.ReplayStrict(rs)
		return err
	}); err != nil || n != cfg.Games {
		t.Errorf("collected %d games (%v), want %d", n, err, cfg.Games)
	}
}
