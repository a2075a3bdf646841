package main

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/pgn"
	"github.com/palace-chess/palace/rules"
)

const exportUsage = `palace export [flags] PATH...

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
		return usageError{"want at least one games file or directory to export"}
	}
	if *limit < 0 {
		return usagef("--limit %d: want 0 (all) or more", *limit)
	}
	var games []gamerec.Game
	sets := map[string]*rules.RuleSet{}
	held := map[string]bool{} // every rule set the files hold, for a filter that matches none
	err = gamerec.Collect(paths, func(g *gamerec.Game, rs *rules.RuleSet) error {
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
