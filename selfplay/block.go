package selfplay

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/palace-chess/palace/datasets"
)

// Block is the output of PlayBlock: one shard and its game records,
// complete, in job.Output.
type Block struct {
	// Shard and Games are the files' paths.
	Shard, Games string
	// Info is the shard's manifest entry.
	Info  datasets.ShardInfo
	Stats Stats
}

// ShardName is the file name of shard number n ("shard-NNNNNN.shard"),
// as Run names its shards.
func ShardName(n int) string { return shardName(n) }

// PlayBlock plays games first to first+n-1 of job (job.Games is ignored)
// and writes them as shard number shard, with its game-record file and
// manifest entry, into job.Output, which must hold no games yet. It is
// the unit of distributed self-play: a block's games are those Run plays
// for the same indices (each game's randomness comes from job.Seed and its
// index alone), written in index order exactly as Run commits a block, so
// a block played twice, after a worker died, is the same block.
//
// A cancelled ctx returns ctx's error and leaves no shard listed.
func PlayBlock(ctx context.Context, cfg Config, job Job, opt Options, shard int, first uint64, n int) (Block, error) {
	if n < 1 || shard < 0 {
		return Block{}, fmt.Errorf("selfplay: block of %d games as shard %d", n, shard)
	}
	job.Games = int(first) + n
	cfg.GamesPerShard = n
	r, unlock, err := openRunner(cfg, job, opt)
	if err != nil {
		return Block{}, err
	}
	defer unlock()
	m, err := datasets.ReadManifest(r.dir)
	if err != nil {
		return Block{}, fmt.Errorf("selfplay: %w", err)
	}
	if len(m.Shards) > 0 {
		return Block{}, fmt.Errorf("selfplay: %s already holds shards; a block is played into an empty directory", r.dir)
	}
	r.nextShard = shard
	todo := make([]uint64, n)
	for i := range todo {
		todo[i] = first + uint64(i)
	}
	r.start = time.Now()
	if err := r.play(ctx, todo); err != nil {
		return Block{}, err
	}
	if r.shards.Load() != 1 {
		if err := ctx.Err(); err != nil {
			return Block{}, err
		}
		return Block{}, fmt.Errorf("selfplay: block at game %d: no shard written", first)
	}
	if m, err = datasets.ReadManifest(r.dir); err != nil || len(m.Shards) != 1 {
		return Block{}, fmt.Errorf("selfplay: block at game %d: the manifest does not list its shard (%v)", first, err)
	}
	path := filepath.Join(r.dir, m.Shards[0].Name)
	return Block{Shard: path, Games: GamesPath(path), Info: m.Shards[0], Stats: r.stats()}, nil
}
