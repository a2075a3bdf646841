// Package rundir is the layout of a run directory (palace run's, and a
// distributed run's bucket): the keys of its files, the best network's
// record, and the walks over recorded games that palace's research tools
// share (Collect: games files, the record files of matches and
// experiments, self-play directories and runs, each self-play game tagged
// with the generation of the network that played it). loop writes what
// these keys name; this package is the one copy of where it is.
package rundir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/experiment"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/internal/jsonlrec"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/selfplay"
)

// Keys of the run directory, relative to its root (a store's keys).
const (
	ConfigKey  = "config.yaml"
	StateKey   = "state.json"
	BestKey    = "best.json"
	MetricsKey = "metrics.jsonl"
	TrainKey   = "train/state.palnet"
	LockKey    = "run.lock"
	// SelfplayDir holds a self-play directory a generation (SelfplayKey).
	SelfplayDir = "selfplay"
	// ReanalysisDir holds a generation's reanalysed positions, when the
	// run reanalyses (ReanalysisKey).
	ReanalysisDir = "reanalysis"
)

// NetKey is generation gen's network.
func NetKey(gen int) string { return fmt.Sprintf("nets/gen-%04d.palnet", gen) }

// SelfplayKey is generation gen's self-play directory.
func SelfplayKey(gen int) string { return fmt.Sprintf("%s/gen-%04d", SelfplayDir, gen) }

// ReanalysisKey is generation gen's reanalysis directory: positions of
// earlier generations' games searched again by generation gen's best.
func ReanalysisKey(gen int) string { return fmt.Sprintf("%s/gen-%04d", ReanalysisDir, gen) }

// ArenaKey is candidate gen's match record file.
func ArenaKey(gen int) string { return fmt.Sprintf("arena/gen-%04d.jsonl", gen) }

// Best is the best network so far (best.json).
type Best struct {
	Generation int    `json:"generation"`
	Key        string `json:"key"`
	NetworkID  string `json:"network_id"`
}

// What Collect takes a directory for (Kind): its words, for messages.
const (
	KindRun      = "a run directory"
	KindSelfplay = "a self-play directory"
)

// Kind says what Collect takes dir for: KindRun (state.json and
// selfplay/), KindSelfplay (a shard manifest), or "" for a plain directory
// whose games files it walks.
func Kind(dir string) string {
	_, err1 := os.Stat(filepath.Join(dir, StateKey))
	info, err2 := os.Stat(filepath.Join(dir, SelfplayDir))
	if err1 == nil && err2 == nil && info.IsDir() {
		return KindRun
	}
	if selfplay.IsDir(dir) {
		return KindSelfplay
	}
	return ""
}

// Collect reads the games at paths and hands each to fn with its rule set,
// in a fixed order (paths in the order given, directories walked in name
// order). A path may be
//   - a games file (gamerec.ReadEach: a self-play one, NAME.games.jsonl
//     beside NAME.shard, has its games dated by the file's modification
//     day),
//   - a match's record file (arena.ReadGames: a match's --records, a
//     run's arena/gen-NNNN.jsonl, a ladder rung's) or an experiment's
//     (experiment.ReadGames), each game named by the file and its place
//     in it, under the rule set it was played under,
//   - a self-play directory: the games files of the shards its manifest
//     lists (selfplay.ReadGames: a crash's unlisted debris is not read),
//   - a run directory: every self-play generation (Games),
//   - any other directory: the games and record files, self-play
//     directories and runs below it.
//
// A file that cannot be read stops Collect with an error naming it:
// statistics over a silently shortened collection would mislead. fn's
// error stops it too and is returned as is. fn must not keep g past the
// call; it may keep rs.
func Collect(paths []string, fn func(g *gamerec.Game, rs *rules.RuleSet) error) error {
	for _, p := range paths {
		if err := collectPath(p, fn); err != nil {
			return err
		}
	}
	return nil
}

// readers are the readers of the files Collect takes games from, by the
// format their header names.
var readers = map[string]func(path string, fn func(*gamerec.Game, *rules.RuleSet) error) error{
	gamerec.Format:           gamerec.ReadEach,
	arena.RecordsFormat:      arena.ReadGames,
	experiment.RecordsFormat: experiment.ReadGames,
}

// fileFormat is the format path's header names ("" for none).
func fileFormat(path string) (string, error) {
	format, err := jsonlrec.FileFormat(path)
	if err != nil {
		return "", fmt.Errorf("rundir: %w", err)
	}
	return format, nil
}

func collectPath(p string, fn func(*gamerec.Game, *rules.RuleSet) error) error {
	info, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("rundir: %w", err)
	}
	if !info.IsDir() {
		format, err := fileFormat(p)
		if err != nil {
			return err
		}
		if read := readers[format]; read != nil {
			return read(p, fn)
		}
		// Any other file is read as a games file, whose reader says
		// what it is not (or reads an old self-play one).
		return gamerec.ReadEach(p, fn)
	}
	switch Kind(p) {
	case KindRun:
		return Games(p, fn)
	case KindSelfplay:
		return selfplay.ReadGames(p, fn)
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return fmt.Errorf("rundir: %w", err)
	}
	for _, e := range entries { // ReadDir sorts by name
		sub := filepath.Join(p, e.Name())
		switch {
		case e.IsDir():
			if err := collectPath(sub, fn); err != nil {
				return err
			}
		case IsGamesName(e.Name()):
			// Only games and record files: other JSON lines files
			// (metrics) hold no games, so peek at the header before
			// committing to the file.
			format, err := fileFormat(sub)
			if err != nil {
				return err
			}
			if read := readers[format]; read != nil {
				if err := read(sub, fn); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// IsGamesName says whether a file of this name in a plain directory is one
// Collect reads when its header is a games or record file's: a .jsonl file
// that is not a self-play shard's games (those are read through their
// manifest).
func IsGamesName(name string) bool {
	return strings.HasSuffix(name, ".jsonl") && !strings.HasSuffix(name, selfplay.GamesSuffix)
}

// IsGamesFile reports whether path is a .jsonl file whose header is one
// Collect reads games from: a games file, or a match's or an experiment's
// record file.
func IsGamesFile(path string) bool {
	if !strings.HasSuffix(path, ".jsonl") {
		return false
	}
	format, err := fileFormat(path)
	return err == nil && readers[format] != nil
}

var genDir = regexp.MustCompile(`^gen-(\d+)$`)
var netKey = regexp.MustCompile(`gen-(\d+)\.palnet$`)

// Games reads a run directory's self-play generations in order, each game
// tagged with the generation of the network that played it (from
// metrics.jsonl and best.json; untagged when neither says).
func Games(dir string, fn func(g *gamerec.Game, rs *rules.RuleSet) error) error {
	gen, err := networkGenerations(dir)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(dir, SelfplayDir))
	if err != nil {
		return fmt.Errorf("rundir: %w", err)
	}
	var gens []int
	for _, e := range entries {
		if m := genDir.FindStringSubmatch(e.Name()); m != nil && e.IsDir() {
			n, _ := strconv.Atoi(m[1])
			gens = append(gens, n)
		}
	}
	sort.Ints(gens)
	tagged := func(g *gamerec.Game, rs *rules.RuleSet) error {
		if n, ok := gen[g.Network]; ok && g.Network != "" {
			g.Generation = &n
		}
		return fn(g, rs)
	}
	for _, n := range gens {
		if err := selfplay.ReadGames(filepath.Join(dir, SelfplayKey(n)), tagged); err != nil {
			return err
		}
	}
	return nil
}

// networkGenerations maps the network IDs of a run's self-play games to the
// generations of those networks. Self-play's metric names the network by
// its key (nets/gen-NNNN.palnet) and the games file by its ID, so the two
// meet through the games files of each self-play generation; best.json
// covers a generation whose self-play has not finished.
func networkGenerations(dir string) (map[string]int, error) {
	keyGen := map[int]int{} // self-play generation → network generation
	path := filepath.Join(dir, MetricsKey)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("rundir: %w", err)
	}
	for i, line := range bytes.Split(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		// The fields of loop.Metric this walk needs.
		var m struct {
			Generation int    `json:"generation"`
			Stage      string `json:"stage"`
			Network    string `json:"network"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("rundir: %s: line %d: %v", path, i+1, err)
		}
		if k := netKey.FindStringSubmatch(m.Network); m.Stage == "selfplay" && k != nil {
			n, _ := strconv.Atoi(k[1])
			keyGen[m.Generation] = n
		}
	}
	ids := map[string]int{}
	for sp, n := range keyGen {
		if id, err := selfplay.NetworkID(filepath.Join(dir, SelfplayKey(sp))); err != nil {
			return nil, err
		} else if id != "" {
			ids[id] = n
		}
	}
	path = filepath.Join(dir, BestKey)
	if data, err := os.ReadFile(path); err == nil {
		var b Best
		if err := json.Unmarshal(data, &b); err != nil {
			return nil, fmt.Errorf("rundir: %s: %v", path, err)
		}
		if _, ok := ids[b.NetworkID]; !ok && b.NetworkID != "" {
			ids[b.NetworkID] = b.Generation
		}
	}
	return ids, nil
}
