package selfplay

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/gamerec"
)

// A block played alone is the block Run commits for the same indices:
// the same games, in the same shard, record for record.
func TestPlayBlockMatchesRun(t *testing.T) {
	cfg := tinyConfig(t, "xiangqi", 8)
	mustRun(t, cfg)
	want := dirGames(t, cfg.Output)
	opt := withTestEvaluator(Options{CodeVersion: "test"})
	for shard, first := range []uint64{0, 4} {
		bc := cfg
		bc.Output = filepath.Join(t.TempDir(), "block")
		b, err := PlayBlock(context.Background(), bc.Config, bc.Job, opt, shard, first, 4)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(b.Shard) != ShardName(shard) || b.Info.Games != 4 || b.Info.FirstGame != first {
			t.Errorf("block %d: %s %+v", shard, b.Shard, b.Info)
		}
		gf, err := gamerec.Read(b.Games)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range gf.Games {
			w := want[int(first)+i]
			if g.ID != w.ID || g.Moves != w.Moves || g.Result != w.Result {
				t.Errorf("block %d game %d: %d %q %s, Run played %d %q %s", shard, i, g.ID, g.Moves, g.Result, w.ID, w.Moves, w.Result)
			}
		}
		if rep, err := Verify(bc.Output); err != nil || rep.Games != 4 {
			t.Errorf("block %d: verify %+v, %v", shard, rep, err)
		}
		// A directory that holds a block takes no other.
		if _, err := PlayBlock(context.Background(), bc.Config, bc.Job, opt, shard+1, first+4, 4); err == nil || !strings.Contains(err.Error(), "already holds") {
			t.Errorf("a second block in one directory: %v", err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	bc := cfg
	bc.Output = filepath.Join(t.TempDir(), "cancelled")
	if _, err := PlayBlock(ctx, bc.Config, bc.Job, opt, 0, 0, 4); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled block: %v", err)
	}
	if _, err := PlayBlock(context.Background(), bc.Config, bc.Job, opt, 0, 0, 0); err == nil {
		t.Error("an empty block was accepted")
	}
}
