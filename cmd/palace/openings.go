package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/internal/chart"
	"github.com/palace-chess/palace/openings"
	"github.com/palace-chess/palace/rules"
)

const openingsUsage = `usage: palace openings [flags] PATH...

Builds an opening tree from the games at each PATH (a games file, a self-play
directory or game-record file, a palace run directory, or a directory holding
any of them) and prints it: for each position, how often each move was played
and how the mover scored (W/D/L, score with its 95% Wilson interval). Games with
an unknown result (*) count in the move frequencies, not in the scores. With
--setups it prints janggi's Cho setup × Han setup matrix instead.`

func runOpenings(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("openings", stderr)
	setUsage(fs, openingsUsage)
	ruleSet := fs.String("rules", "", "only games under this rule set: a name (every hash of it) or NAME@HASH")
	gens := fs.String("generations", "", "only self-play games of networks of these generations: A-B, A or A- (games of unknown generation are left out)")
	from := fs.String("from", "", "only games played on or after this date: YYYY, YYYY.MM or YYYY.MM.DD (a partial game date must fall wholly inside; undated games are left out)")
	to := fs.String("to", "", "only games played on or before this date (YYYY.MM means to the month's end)")
	minGames := fs.Int("min-games", 1, "list only positions and moves of at least this many games")
	depth := fs.Int("depth", 10, "follow each game for this many plies from its start (0: whole games)")
	position := fs.String("position", "", "show the subtree at this position (FEN); default: the games' start positions")
	moves := fs.String("moves", "", `show the subtree after these moves (ranks 1–10, e.g. "h3e3 h10g8") from --position or from every start position`)
	format := fs.String("format", "table", "output: table, csv (a row per position and move) or json (the whole tree shown)")
	out := fs.String("out", "", "write the output to this file (crash-safely) instead of stdout")
	chartPath := fs.String("chart", "", "also draw the most played moves at the first position shown (with --setups: the setups) as a PNG")
	top := fs.Int("top", 10, "moves per position in the table and the chart (0: all); csv and json list all")
	setups := fs.Bool("setups", false, "print the janggi setup matrix (Cho's score by Cho's and Han's setups) instead of the tree")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}

	// Every flag is checked before any game is read.
	f := openings.Filter{RuleSet: *ruleSet, From: *from, To: *to, MinGames: *minGames, Depth: *depth, Position: *position, Moves: *moves}
	switch {
	case len(paths) == 0:
		return usageError{"want at least one PATH: a games file, match or experiment record file, self-play directory or run directory"}
	case *format != "table" && *format != "csv" && *format != "json":
		return usagef("--format %q: want table, csv or json", *format)
	}
	err = checkLowerBounds(
		lowerBound{flag: "top", value: *top, want: "0 (all) or more"},
		lowerBound{flag: "depth", value: *depth, want: "0 (whole games) or more plies"},
		lowerBound{flag: "min-games", value: *minGames},
	)
	if err != nil {
		return err
	}
	switch {
	case *chartPath != "" && !strings.HasSuffix(strings.ToLower(*chartPath), ".png"):
		return usagef("--chart %q: the chart is a PNG, want FILE.png", *chartPath)
	case *setups && (*position != "" || *moves != ""):
		return usageError{"--setups tabulates whole games by start setup: --position and --moves do not apply"}
	case *out != "" && *out == *chartPath:
		return usageError{"--out and --chart name the same file"}
	}
	if *out != "" {
		if err := checkGamesOut("out", *out, paths); err != nil {
			return err
		}
	}
	if *chartPath != "" {
		if err := checkGamesOut("chart", *chartPath, paths); err != nil {
			return err
		}
	}
	if *gens != "" {
		g, err := openings.ParseGenerations(*gens)
		if err != nil {
			return usageError{err.Error()}
		}
		f.Generations = g
	}
	if err := f.Validate(); err != nil {
		return usageError{err.Error()}
	}
	if *position != "" {
		_, err1 := rules.ParseFEN(*position, rules.MustPreset("xiangqi"))
		_, err2 := rules.ParseFEN(*position, rules.MustPreset("janggi"))
		if err1 != nil && err2 != nil {
			return usagef("--position: %v", err1)
		}
	}
	for i, m := range strings.Fields(*moves) {
		if _, err := rules.ParseMoveText(m, rules.Ranks1); err != nil {
			return usagef("--moves: move %d: %v", i+1, err)
		}
	}

	tree, err := openings.Build(paths, f)
	if err != nil {
		return err
	}
	// Statistics of nothing would read as a result.
	if tree.Games() == 0 {
		if s := tree.Skipped(); s.Total() > 0 {
			return fmt.Errorf("no game passes the filters: %d left out by rule set, %d by generation, %d by date", s.RuleSet, s.Generation, s.Date)
		}
		return fmt.Errorf("no games in %s", strings.Join(paths, ", "))
	}
	var buf bytes.Buffer
	var drawChart func() error
	if *setups {
		ms := tree.Setups()
		switch *format {
		case "table":
			err = openings.WriteSetupsTable(&buf, ms)
		case "csv":
			err = openings.WriteSetupsCSV(&buf, ms)
		case "json":
			err = openings.WriteSetupsJSON(&buf, ms)
		}
		drawChart = func() error {
			if len(ms) == 0 {
				return fmt.Errorf("--chart: %w: no janggi games", chart.ErrEmpty)
			}
			// One chart: the rule set with the most games.
			best := ms[0]
			for _, m := range ms[1:] {
				if m.Total().Games > best.Total().Games {
					best = m
				}
			}
			c, err := openings.SetupsChart(best)
			if err != nil {
				return err
			}
			return chart.WriteBars(*chartPath, c)
		}
	} else {
		v, verr := tree.View()
		if verr != nil {
			return verr
		}
		switch *format {
		case "table":
			err = v.WriteTable(&buf, *top)
		case "csv":
			err = v.WriteCSV(&buf)
		case "json":
			err = v.WriteJSON(&buf)
		}
		drawChart = func() error { return v.WriteChart(*chartPath, *top) }
	}
	if err != nil {
		return err
	}
	if *out != "" {
		if err := atomicfile.WriteBytes(*out, 0o644, buf.Bytes()); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		fmt.Fprintf(stderr, "openings: wrote %s\n", *out)
	} else if _, err := stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	if *chartPath != "" {
		if err := drawChart(); err != nil {
			return fmt.Errorf("--chart %s: %w", *chartPath, err)
		}
		fmt.Fprintf(stderr, "openings: chart %s\n", *chartPath)
	}
	return nil
}
