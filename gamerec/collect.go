package gamerec

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

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/internal/jsonlrec"
	"github.com/palace-chess/palace/rules"
)

// Collect reads the games at paths and hands each to fn with its rule set,
// in a fixed order (paths in the order given, directories walked in name
// order). A path may be
//   - a games file (this package's format; a self-play one,
//     NAME.games.jsonl beside NAME.shard, has its games dated by the
//     file's modification day),
//   - a self-play directory: the game files of the shards its manifest
//     lists (a crash's unlisted debris is not read),
//   - a run directory of palace run: every selfplay/gen-NNNN directory,
//     each game tagged with the generation of the network that played it
//     (from metrics.jsonl and best.json),
//   - any other directory: the games files and self-play directories
//     below it.
//
// A file that cannot be read stops Collect with an error naming it:
// statistics over a silently shortened collection would mislead. fn's
// error stops it too and is returned as is. fn must not keep g past the
// call; it may keep rs.
func Collect(paths []string, fn func(g *Game, rs *rules.RuleSet) error) error {
	for _, p := range paths {
		if err := collectPath(p, fn); err != nil {
			return err
		}
	}
	return nil
}

func collectPath(p string, fn func(*Game, *rules.RuleSet) error) error {
	info, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("gamerec: %w", err)
	}
	if !info.IsDir() {
		return collectFile(p, nil, fn)
	}
	switch DirKind(p) {
	case RunDir:
		return collectRun(p, fn)
	case SelfplayDir:
		return collectSelfplay(p, nil, fn)
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return fmt.Errorf("gamerec: %w", err)
	}
	for _, e := range entries { // ReadDir sorts by name
		sub := filepath.Join(p, e.Name())
		switch {
		case e.IsDir():
			if err := collectPath(sub, fn); err != nil {
				return err
			}
		case strings.HasSuffix(e.Name(), ".jsonl") && !strings.HasSuffix(e.Name(), GamesSuffix):
			// Only this package's games files: other JSON lines files
			// (metrics, arena records) are not games to collect, so
			// peek at the header before committing to the file.
			if ok, err := IsGamesFile(sub); err != nil {
				return err
			} else if ok {
				if err := collectFile(sub, nil, fn); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// What Collect takes a directory for (DirKind): its words, for messages.
const (
	RunDir      = "a run directory"
	SelfplayDir = "a self-play directory"
)

// DirKind says what Collect takes dir for: RunDir (state.json and
// selfplay/), SelfplayDir (a shard manifest), or "" for a plain directory
// whose games files it walks.
func DirKind(dir string) string {
	_, err1 := os.Stat(filepath.Join(dir, "state.json"))
	info, err2 := os.Stat(filepath.Join(dir, "selfplay"))
	if err1 == nil && err2 == nil && info.IsDir() {
		return RunDir
	}
	if _, err := os.Stat(filepath.Join(dir, datasets.ManifestName)); err == nil {
		return SelfplayDir
	}
	return ""
}

// IsGamesFile reports whether path starts with this package's header.
func IsGamesFile(path string) (bool, error) {
	format, err := jsonlrec.FileFormat(path)
	if err != nil {
		return false, fmt.Errorf("gamerec: %w", err)
	}
	return format == Format, nil
}

// collectFile reads a games file; gen maps self-play network IDs to
// generations (nil: unknown).
func collectFile(path string, gen map[string]int, fn func(*Game, *rules.RuleSet) error) error {
	f, err := Read(path)
	if err != nil {
		return err
	}
	selfplay := f.Header.Shard != ""
	// Self-play records no date; the day its file was committed serves
	// date filters (a file copied without its times gets the copy's).
	date := ""
	if selfplay {
		if info, err := os.Stat(path); err == nil {
			date = info.ModTime().UTC().Format("2006.01.02")
		}
	}
	for i := range f.Games {
		g := &f.Games[i]
		if selfplay {
			g.Source, g.Index, g.Network, g.Date = path, i+1, f.Header.NetworkID, date
			if n, ok := gen[f.Header.NetworkID]; ok {
				g.Generation = &n
			}
		}
		if err := fn(g, f.RuleSet(g)); err != nil {
			return err
		}
	}
	return nil
}

// collectSelfplay reads the game files of the shards dir's manifest lists.
func collectSelfplay(dir string, gen map[string]int, fn func(*Game, *rules.RuleSet) error) error {
	m, err := datasets.ReadManifest(dir)
	if err != nil {
		return fmt.Errorf("gamerec: %w", err)
	}
	for _, s := range m.Shards {
		if err := collectFile(GamesPath(filepath.Join(dir, s.Name)), gen, fn); err != nil {
			return err
		}
	}
	return nil
}

var genDir = regexp.MustCompile(`^gen-(\d+)$`)
var netKey = regexp.MustCompile(`gen-(\d+)\.palnet$`)

// collectRun reads a run directory's self-play generations in order.
func collectRun(dir string, fn func(*Game, *rules.RuleSet) error) error {
	gen, err := runGenerations(dir)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(dir, "selfplay"))
	if err != nil {
		return fmt.Errorf("gamerec: %w", err)
	}
	var gens []int
	for _, e := range entries {
		if m := genDir.FindStringSubmatch(e.Name()); m != nil && e.IsDir() {
			n, _ := strconv.Atoi(m[1])
			gens = append(gens, n)
		}
	}
	sort.Ints(gens)
	for _, n := range gens {
		if err := collectSelfplay(filepath.Join(dir, "selfplay", fmt.Sprintf("gen-%04d", n)), gen, fn); err != nil {
			return err
		}
	}
	return nil
}

// runGenerations maps the network IDs of a run's self-play games to the
// generations of those networks. Self-play's metric names the network by
// its key (nets/gen-NNNN.palnet) and the games file by its ID, so the two
// meet through the games files of each self-play generation; best.json
// covers a generation whose self-play has not finished.
func runGenerations(dir string) (map[string]int, error) {
	keyGen := map[int]int{} // self-play generation → network generation
	data, err := os.ReadFile(filepath.Join(dir, "metrics.jsonl"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("gamerec: %w", err)
	}
	for i, line := range bytes.Split(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m struct {
			Generation int    `json:"generation"`
			Stage      string `json:"stage"`
			Network    string `json:"network"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("%w: %s: line %d: %v", ErrGames, filepath.Join(dir, "metrics.jsonl"), i+1, err)
		}
		if k := netKey.FindStringSubmatch(m.Network); m.Stage == "selfplay" && k != nil {
			n, _ := strconv.Atoi(k[1])
			keyGen[m.Generation] = n
		}
	}
	ids := map[string]int{}
	for sp, n := range keyGen {
		if id, err := selfplayNetwork(filepath.Join(dir, "selfplay", fmt.Sprintf("gen-%04d", sp))); err != nil {
			return nil, err
		} else if id != "" {
			ids[id] = n
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "best.json")); err == nil {
		var b struct {
			Generation int    `json:"generation"`
			NetworkID  string `json:"network_id"`
		}
		if err := json.Unmarshal(data, &b); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrGames, filepath.Join(dir, "best.json"), err)
		}
		if _, ok := ids[b.NetworkID]; !ok && b.NetworkID != "" {
			ids[b.NetworkID] = b.Generation
		}
	}
	return ids, nil
}

// selfplayNetwork is the network ID in the first listed games file of a
// self-play directory ("" when it has none).
func selfplayNetwork(dir string) (string, error) {
	m, err := datasets.ReadManifest(dir)
	if err != nil {
		return "", fmt.Errorf("gamerec: %w", err)
	}
	if len(m.Shards) == 0 {
		return "", nil
	}
	f, err := Read(GamesPath(filepath.Join(dir, m.Shards[0].Name)))
	if err != nil {
		return "", err
	}
	return f.Header.NetworkID, nil
}
