package selfplay

import (
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// Each shard NAME.shard has a games file (gamerec.GamesPath:
// NAME.games.jsonl) holding the games whose positions the shard holds, in
// the shard's order, so that palace can replay them: a gamerec games file
// whose header names the shard, the network, the game hash and the seed.
// It is written crash-safely before its shard is listed in the manifest,
// and is part of the shard's commit: a file whose shard is not listed is
// debris of a crash.

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
