package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"time"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/rundir"
)

// A game set is the training positions of recorded games, built once by
// BuildGameSet into a directory:
//
//	DIR/gameset.json   what it was built from and what it holds (GameSet)
//	DIR/train/         shards and manifest of the training games
//	DIR/heldout/       shards and manifest of the held-out games
//
// The directory appears whole or not at all (it is built beside its name
// and renamed into place), so a build killed at any moment leaves nothing
// to trust by mistake.
const (
	GameSetFormat  = "palace-gameset"
	GameSetVersion = 1
	gameSetFile    = "gameset.json"
	// gameSetShardRecords is how many positions a shard holds at most.
	gameSetShardRecords = 1 << 16
)

// Split counts one side of a game set.
type Split struct {
	Games     int64 `json:"games"`
	Positions int64 `json:"positions"`
	// Results counts the positions by their game's result to the side to
	// move: wins, draws, losses, none.
	Results [4]int64 `json:"results"`
	// Policy counts the positions with a policy target (all of them
	// unless the filter's PolicyFrom names a side).
	Policy int64 `json:"policy"`
	// Scored counts the positions whose value estimate is an engine's
	// score (the filter's ScoreScale).
	Scored int64 `json:"scored,omitempty"`
}

// GameSet describes a built game set.
type GameSet struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Inputs are the paths read, as given; Read the games found there.
	Inputs []string   `json:"inputs"`
	Filter GameFilter `json:"filter"`
	Read   int64      `json:"read"`
	// Dropped are the games the filter left out.
	Dropped Dropped `json:"dropped"`
	Train   Split   `json:"train"`
	HeldOut Split   `json:"held_out"`
	// RuleSets are the rule sets of the positions, in full.
	RuleSets    []*rules.RuleSet `json:"rule_sets"`
	CodeVersion string           `json:"code_version"`
	Created     time.Time        `json:"created"`

	dir string
}

// TrainDir and HeldOutDir are the set's shard directories.
func (s *GameSet) TrainDir() string   { return filepath.Join(s.dir, "train") }
func (s *GameSet) HeldOutDir() string { return filepath.Join(s.dir, "heldout") }

// Dir is the set's directory.
func (s *GameSet) Dir() string { return s.dir }

// Same reports whether the set was built from inputs under filter, so that
// a resumed job can use it.
func (s *GameSet) Same(inputs []string, filter GameFilter) bool {
	return slices.Equal(s.Inputs, inputs) && reflect.DeepEqual(normalFilter(s.Filter), normalFilter(filter))
}

// normalFilter makes an empty list and none compare equal.
func normalFilter(f GameFilter) GameFilter {
	if len(f.RuleSets) == 0 {
		f.RuleSets = nil
	}
	return f
}

// ReadGameSet reads the description of the game set in dir.
func ReadGameSet(dir string) (*GameSet, error) {
	data, err := os.ReadFile(filepath.Join(dir, gameSetFile))
	if err != nil {
		return nil, fmt.Errorf("train: game set: %w", err)
	}
	var s GameSet
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("train: game set %s: %w", dir, err)
	}
	if s.Format != GameSetFormat || s.Version != GameSetVersion {
		return nil, fmt.Errorf("train: %s is format %q version %d, this palace reads %q version %d", dir, s.Format, s.Version, GameSetFormat, GameSetVersion)
	}
	for _, rs := range s.RuleSets {
		if rs == nil {
			return nil, fmt.Errorf("train: game set %s: a null rule set", dir)
		}
	}
	s.dir = dir
	return &s, nil
}

// BuildProgress is a game set build's progress, reported every few
// thousand games.
type BuildProgress struct {
	Read, Train, HeldOut int64 // games
}

// BuildGameSet reads the recorded games at paths (rundir.Collect: games
// files, match and experiment record files, or directories of them), keeps those filter selects and writes
// their positions (GamePositions) into a new game set at dir, which must
// not exist. A game that does not replay stops the build with an error
// naming it: a games file that palace import wrote replays, so one that
// does not is damaged, and training on what is left would hide it.
//
// One build at a time in dir's parent (palace train locks its work
// directory): a build's start removes what a killed one left there.
func BuildGameSet(dir string, paths []string, filter GameFilter, codeVersion string, progress func(BuildProgress)) (*GameSet, error) {
	return buildGameSet(context.Background(), dir, paths, filter, codeVersion, progress)
}

// buildGameSet is BuildGameSet, stopped by ctx between games (a games
// job's Ctrl-C while a large collection is read): a stopped build leaves
// no set, and returns ctx's error.
func buildGameSet(ctx context.Context, dir string, paths []string, filter GameFilter, codeVersion string, progress func(BuildProgress)) (*GameSet, error) {
	if len(paths) == 0 {
		return nil, errors.New("train: game set: no games files given")
	}
	sel, err := NewSelector(filter)
	if err != nil {
		return nil, err
	}
	if _, err := os.Lstat(dir); err == nil {
		return nil, fmt.Errorf("train: game set %s already exists", dir)
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("train: game set: %w", err)
	}
	// A build killed part way left its temporary directory: the caller
	// holds the job, so no other build is under way here.
	if old, err := filepath.Glob(filepath.Join(parent, "."+filepath.Base(dir)+".tmp-*")); err == nil {
		for _, o := range old {
			os.RemoveAll(o)
		}
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("train: game set: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp's 0700 is for secrets
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("train: game set: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	set := &GameSet{Format: GameSetFormat, Version: GameSetVersion, Inputs: slices.Clone(paths), Filter: filter,
		CodeVersion: codeVersion, Created: time.Now().UTC()}
	b := &setBuilder{set: set, tmp: tmp, writers: map[string]*datasets.Writer{}, shards: map[string]int{}, rules: map[string]*rules.RuleSet{}}
	defer b.abort()
	for _, split := range []string{"train", "heldout"} {
		if err := os.Mkdir(filepath.Join(tmp, split), 0o755); err != nil {
			return nil, fmt.Errorf("train: game set: %w", err)
		}
	}
	var recs []datasets.Record
	err = rundir.Collect(paths, func(g *gamerec.Game, rs *rules.RuleSet) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		set.Read++
		keep, heldOut := sel.Select(g)
		if keep {
			if recs, err = filter.Positions(recs[:0], g, rs); err != nil {
				return err
			}
			var scored int64
			if filter.ScoreScale > 0 {
				for k := range min(len(recs), len(g.Scores)) {
					if g.Scores[k].Given() {
						scored++
					}
				}
			}
			if err := b.add(recs, rs, heldOut, scored); err != nil {
				return err
			}
		}
		if progress != nil && set.Read%2000 == 0 {
			progress(BuildProgress{Read: set.Read, Train: set.Train.Games, HeldOut: set.HeldOut.Games})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := b.close(); err != nil {
		return nil, err
	}
	set.Dropped = sel.Dropped
	if set.Train.Positions == 0 {
		return nil, fmt.Errorf("train: game set: no training positions (%d games read, %d dropped by the filter, %d held out)", set.Read, set.Dropped.Total(), set.HeldOut.Games)
	}
	if filter.ScoreScale > 0 && set.Train.Scored == 0 {
		return nil, fmt.Errorf("train: game set: scores asked for, but none of the %d training games has any (a match's records carry engines' scores)", set.Train.Games)
	}
	if set.Train.Policy == 0 {
		return nil, fmt.Errorf("train: game set: no training position has a policy target: policy from %q matches no side of the %d training games", filter.PolicyFrom, set.Train.Games)
	}
	for _, id := range slices.Sorted(maps.Keys(b.rules)) {
		set.RuleSets = append(set.RuleSets, b.rules[id])
	}
	data, err := json.MarshalIndent(set, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("train: game set: %w", err)
	}
	if err := atomicfile.WriteBytes(filepath.Join(tmp, gameSetFile), 0o644, append(data, '\n')); err != nil {
		return nil, fmt.Errorf("train: game set: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("train: game set: %w", err)
	}
	done = true
	atomicfile.SyncDir(parent)
	set.dir = dir
	return set, nil
}

// setBuilder writes a game set's shards: one writer per split and rule
// set, a new shard every gameSetShardRecords positions.
type setBuilder struct {
	set     *GameSet
	tmp     string
	writers map[string]*datasets.Writer // by split/rule set
	shards  map[string]int              // shards started, by split
	rules   map[string]*rules.RuleSet
}

func (b *setBuilder) add(recs []datasets.Record, rs *rules.RuleSet, heldOut bool, scored int64) error {
	split, counts := "train", &b.set.Train
	if heldOut {
		split, counts = "heldout", &b.set.HeldOut
	}
	counts.Scored += scored
	b.rules[rs.String()] = rs
	key := split + "/" + rs.String()
	counts.Games++
	for i := range recs {
		w := b.writers[key]
		if w != nil && w.Records() >= gameSetShardRecords {
			if err := w.Close(); err != nil {
				return fmt.Errorf("train: game set: %w", err)
			}
			w = nil
		}
		if w == nil {
			n := b.shards[split]
			b.shards[split]++
			hdr := datasets.NewHeader(rs)
			hdr.Seeds = []uint64{b.set.Filter.Seed}
			hdr.CodeVersion = b.set.CodeVersion
			hdr.Note = "positions of recorded games (palace train --games)"
			path := filepath.Join(b.tmp, split, fmt.Sprintf("%s-%04d.shard", rs.Name, n))
			var err error
			if w, err = datasets.NewWriter(path, hdr, datasets.WithManifest()); err != nil {
				return fmt.Errorf("train: game set: %w", err)
			}
			b.writers[key] = w
		}
		if err := w.Write(&recs[i]); err != nil {
			return fmt.Errorf("train: game set: %w", err)
		}
		counts.Positions++
		if recs[i].Full {
			counts.Policy++
		}
		r := recs[i].Result
		if r == datasets.NoResult {
			counts.Results[3]++
		} else {
			counts.Results[1-int(r)]++
		}
	}
	return nil
}

// close completes every shard, in a fixed order.
func (b *setBuilder) close() error {
	for _, key := range slices.Sorted(maps.Keys(b.writers)) {
		w := b.writers[key]
		delete(b.writers, key)
		if err := w.Close(); err != nil {
			return fmt.Errorf("train: game set: %w", err)
		}
	}
	return nil
}

// abort drops the writers a failed build leaves open.
func (b *setBuilder) abort() {
	for _, w := range b.writers {
		w.Abort()
	}
}
