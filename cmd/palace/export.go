package main

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/pgn"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/rundir"
)

const exportUsage = `usage: palace export [flags] PATH...

Writes games as PGN that liground and pychess-variants read (Variant, FEN
and Result tags, moves in Fairy-Stockfish's SAN). A PATH is a games file
of palace import, a self-play directory or game-record file, a run
directory, or a directory holding those.`

func runExport(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("export", stderr)
	setUsage(fs, exportUsage)
	out := fs.String("out", "", "the PGN file to write (replaced whole, crash-safely; default: standard output)")
	ruleSet := fs.String("rules", "", "export only games under this rule set: a name (xiangqi) or name@hash")
	limit := fs.Int("limit", 0, "export at most this many games (0: all)")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usageError{"want at least one games file, record file or directory to export"}
	}
	if *limit < 0 {
		return usagef("--limit %d: want 0 (all) or more", *limit)
	}
	if *out != "" {
		if err := checkGamesOut("out", *out, paths); err != nil {
			return err
		}
	}
	var games []gamerec.Game
	sets := map[string]*rules.RuleSet{}
	held := map[string]bool{} // every rule set the files hold, for a filter that matches none
	err = rundir.Collect(paths, func(g *gamerec.Game, rs *rules.RuleSet) error {
		held[g.RuleSet] = true
		if *limit > 0 && len(games) == *limit {
			return nil
		}
		if *ruleSet != "" && *ruleSet != g.RuleSet && !strings.HasPrefix(g.RuleSet, *ruleSet+"@") {
			return nil
		}
		games = append(games, *g)
		sets[g.RuleSet] = rs
		return nil
	})
	if err != nil {
		return err
	}
	if *ruleSet != "" && len(games) == 0 && len(held) > 0 {
		return usagef("--rules %s: no game is under it; the games are under %s", *ruleSet, strings.Join(slices.Sorted(maps.Keys(held)), ", "))
	}
	if len(games) == 0 {
		return fmt.Errorf("no games in %s", strings.Join(paths, ", "))
	}
	rulesOf := func(g *gamerec.Game) *rules.RuleSet { return sets[g.RuleSet] }
	if *out == "" {
		bw := bufio.NewWriter(stdout)
		if err := pgn.Write(bw, games, rulesOf); err != nil {
			return err
		}
		return bw.Flush()
	}
	err = atomicfile.Write(*out, 0o644, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := pgn.Write(bw, games, rulesOf); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "exported %d games to %s\n", len(games), *out)
	return nil
}

// checkOut refuses, before any work, an output path palace would not
// write (atomicfile.Check: a device, a directory, a symlink loop) or one
// that is also an input: the output is written after the inputs are read
// and would replace the very file it came from.
func checkOut(flag, out string, inputs ...string) error {
	err := atomicfile.Check(out)
	if err == nil {
		err = atomicfile.CheckNotInput(out, inputs...)
	}
	if err != nil {
		return usageError{"--" + flag + " " + strings.TrimPrefix(err.Error(), "atomicfile: ")}
	}
	return nil
}

// checkGamesOut is checkOut for a command that reads paths with
// rundir.Collect, and the files others besides. A directory's files are
// inputs too: an output inside a run or self-play directory being read
// (whose every file is palace's state) is refused, and so is one that is
// a games file below a directory being read; a new file beside games
// files is not (a directory's PGN written into it).
func checkGamesOut(flag, out string, paths []string, others ...string) error {
	if err := checkOut(flag, out, append(slices.Clone(paths), others...)...); err != nil {
		return err
	}
	// Where the write would land: through out's symlinks if it has any,
	// else its directory's.
	where, err := filepath.EvalSymlinks(out)
	if err != nil {
		dir, err := filepath.EvalSymlinks(filepath.Dir(out))
		if err != nil {
			return nil // atomicfile.Check found the directory; a race is Write's to report
		}
		where = filepath.Join(dir, filepath.Base(out))
	}
	if where, err = filepath.Abs(where); err != nil {
		return nil
	}
	for _, p := range paths {
		if info, err := os.Stat(p); err != nil || !info.IsDir() {
			continue
		}
		top, err := filepath.EvalSymlinks(p)
		if err == nil {
			top, err = filepath.Abs(top)
		}
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(top, filepath.Dir(where))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		// From out's directory up to p: is any a run or self-play directory?
		for d := rel; ; d = filepath.Dir(d) {
			full := filepath.Join(top, d)
			if kind := rundir.Kind(full); kind != "" {
				return usagef("--%s %s is inside %s, %s being read; palace writes there only its own files", flag, out, filepath.Join(p, d), kind)
			}
			if d == "." {
				break
			}
		}
		if rundir.IsGamesFile(where) {
			return usagef("--%s %s is one of the games files read from %s; palace would overwrite what it reads", flag, out, p)
		}
	}
	return nil
}
