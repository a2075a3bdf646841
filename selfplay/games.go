package selfplay

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// Each shard NAME.shard has a games file (GamesPath:
// NAME.games.jsonl) holding the games whose positions the shard holds, in
// the shard's order, so that palace can replay them: a gamerec games file
// whose header names the shard, the network, the game hash and the seed.
// It is written crash-safely before its shard is listed in the manifest,
// and is part of the shard's commit: a file whose shard is not listed is
// debris of a crash.

// ShardSuffix ends the name of a shard self-play writes; GamesSuffix
// replaces it to name the games file of the shard's games (GamesPath).
const (
	ShardSuffix = ".shard"
	GamesSuffix = ".games.jsonl"
)

// GamesPath is the games file of the shard at shardPath.
func GamesPath(shardPath string) string {
	return strings.TrimSuffix(shardPath, ShardSuffix) + GamesSuffix
}

// IsDir reports whether dir is a self-play directory (it has a manifest).
func IsDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, datasets.ManifestName))
	return err == nil
}

// ReadGames reads the games files of the shards dir's manifest lists, in
// its order (gamerec.ReadEach each): a crash's unlisted debris is not
// read.
func ReadGames(dir string, fn func(g *gamerec.Game, rs *rules.RuleSet) error) error {
	m, err := datasets.ReadManifest(dir)
	if err != nil {
		return fmt.Errorf("selfplay: %w", err)
	}
	for _, s := range m.Shards {
		if err := gamerec.ReadEach(GamesPath(filepath.Join(dir, s.Name)), fn); err != nil {
			return err
		}
	}
	return nil
}

// NetworkID is the network that played a self-play directory's games, from
// its first listed games file ("" when it lists none).
func NetworkID(dir string) (string, error) {
	m, err := datasets.ReadManifest(dir)
	if err != nil {
		return "", fmt.Errorf("selfplay: %w", err)
	}
	if len(m.Shards) == 0 {
		return "", nil
	}
	f, err := gamerec.Read(GamesPath(filepath.Join(dir, m.Shards[0].Name)))
	if err != nil {
		return "", err
	}
	return f.Header.NetworkID, nil
}

// newGameRecord describes a finished game.
func newGameRecord(id, seed uint64, setup, networkID string, g *rules.Game, full int) gamerec.Game {
	rec := gamerec.Game{ID: id, Seed: seed, Setup: setup, Network: networkID, Full: full}
	rec.SetMoves(g)
	if r := g.Result(); r.Counted {
		c := r.Count
		rec.Count = &c
	}
	return rec
}
