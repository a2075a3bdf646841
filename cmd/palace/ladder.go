package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/ladder"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
	"github.com/palace-chess/palace/uci"
)

const ladderAbout = `usage: palace ladder --player SPEC [flags]
       palace ladder calibrate --out FILE [flags]
       palace ladder show [--rules NAME | --scale FILE]

Rates a player on an absolute scale: Fairy-Stockfish at fixed node counts,
calibrated once per game and engine build (built in for Debian's
fairy-stockfish). The player climbs from the bottom rung until a rung beats
it (it scores under half there), and is rated by maximum likelihood over all
its games, the rungs' ratings held fixed. Every game is recorded in --out as it
finishes, and the rating with them; the same command again resumes.`

// ladderSubcommands are palace ladder's verbs besides the rating (palace
// ladder --player SPEC).
var ladderSubcommands = []subcommand{
	{"calibrate", "calibrate a scale: an engine's node counts rated by their games", runLadderCalibrate},
	{"show", "print a scale: its rungs' ratings and the calibration's matches", runLadderShow},
}

func runLadder(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		for _, s := range ladderSubcommands {
			if s.name == args[0] {
				return s.run(args[1:], stdout, stderr)
			}
		}
	}
	fs := newFlagSet("ladder", stderr)
	setUsage(fs, ladderAbout)
	ruleSet := addRuleSetFlag(fs)
	spec := fs.String("player", "", "the player to rate, one of\n"+arena.PlayerHelp)
	scaleFile := fs.String("scale", "", "the scale file (default: the built-in scale of --rules)")
	engine := fs.String("engine", "", "the rungs' engine program (default: the scale's)")
	settings := addLadderSettings(fs, 10, "out", "ladder", "directory of the matches' record files and the rating; the same command again resumes from them")
	asJSON := fs.Bool("json", false, "print the rating as JSON (it is also written to DIR/"+ladder.ResultFile+")")
	progress := addProgressFlag(fs)
	if len(args) > 0 && args[0] == "help" {
		fs.Usage()
		return flag.ErrHelp
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *spec == "" {
		return usageError{"give the player to rate: --player SPEC (palace ladder -h lists the specs)"}
	}
	ps, err := arena.ParsePlayer(*spec)
	if err != nil {
		var se *arena.SpecError
		if errors.As(err, &se) {
			return usagef("--player %q: %s", se.Spec, se.Problem)
		}
		return usageError{err.Error()}
	}
	if err := settings.check(); err != nil {
		return err
	}
	if err := checkOwnDir("out", settings.Dir, isLadderFile); err != nil {
		return err
	}
	show, line, err := progressFlag(*progress, stdout)
	if err != nil {
		return err
	}
	rs, err := rules.LoadRuleSet(*ruleSet)
	if err != nil {
		return err
	}
	scale, err := loadScale(*scaleFile, rs)
	if err != nil {
		return err
	}
	player, err := ps.NewPlayer(rs)
	if err != nil {
		return fmt.Errorf("--player %s: %w", ps.Spec, err)
	}
	if c, ok := player.(interface{ Close() }); ok {
		defer c.Close()
	}
	job := ladder.Job{Settings: settings.Settings, Scale: scale, RuleSet: rs, Player: player, Program: *engine}
	status := newStatus(stdout, show && !*asJSON, line)
	defer status.end()
	r, err := runLadderJob(status, &job.Settings, line,
		fmt.Sprintf("ladder: %s on %s, %d pairs a rung, records in %s", player.Name(), scale.ID(), job.Pairs, job.Dir),
		func(ctx context.Context) (*ladder.Rating, error) { return ladder.Rate(ctx, job) })
	if err != nil {
		return err
	}
	status.end()
	if *asJSON {
		data, _ := json.MarshalIndent(r, "", "  ")
		_, err := fmt.Fprintf(stdout, "%s\n", data)
		return err
	}
	return writeRating(stdout, r, job.Dir)
}

// isLadderFile tells whether name is one of the files a rating writes
// (ladder.RungFile's, ladder.ResultFile): what its --out may hold.
func isLadderFile(name string) bool {
	if name == ladder.ResultFile {
		return true
	}
	return ladder.IsRungFile(name)
}

// ladderFlags are the flags a rating and a calibration share.
type ladderFlags struct {
	ladder.Settings
	dirFlag string // the name of the records' directory's flag
}

// addLadderSettings adds the flags a rating and a calibration share; the
// records' directory is the flag dirFlag (--out for a rating, which it
// holds; --work for a calibration, whose result is its --out).
func addLadderSettings(fs *flag.FlagSet, pairs int, dirFlag, dir, dirUsage string) *ladderFlags {
	f := &ladderFlags{dirFlag: dirFlag}
	f.Settings.Settings = arena.Settings{Pairs: pairs, OpeningPlies: 2, Concurrency: 2}
	f.Settings.Settings.AddFlags(fs, ladderSettingsHelp)
	fs.Uint64Var(&f.Seed, "seed", 1, "random seed: the openings and each game's seeds")
	fs.StringVar(&f.Dir, dirFlag, dir, dirUsage)
	return f
}

// ladderSettingsHelp is the help of a ladder's match settings' flags.
var ladderSettingsHelp = arena.FlagHelp{Pairs: "game pairs a match (one opening, colours swapped)"}

func (f *ladderFlags) check() error {
	if err := checkSettings(&f.Settings.Settings, ladderSettingsHelp); err != nil {
		return err
	}
	if f.Dir == "" {
		return usagef("--%s: want a directory", f.dirFlag)
	}
	return nil
}

// loadScale is the scale file, or rs's built-in scale.
func loadScale(file string, rs *rules.RuleSet) (*ladder.Scale, error) {
	if file == "" {
		return ladder.BuiltinScale(rs)
	}
	return ladder.LoadScale(file)
}

// runLadderJob runs a rating or a calibration with settings s: its header
// line, its progress, and a stop on Ctrl-C that leaves it resumable.
func runLadderJob[T any](st *status, s *ladder.Settings, line bool, header string, run func(context.Context) (T, error)) (T, error) {
	s.CodeVersion = codeVersion()
	st.logLine(header)
	s.Progress = ladderProgress(st, 2*s.Pairs, line)
	ctx, stop := stopContext(0)
	defer stop()
	v, err := run(ctx)
	if err != nil && stoppedBy(ctx, err) {
		err = interruption(ctx, "every finished game is recorded in %s: run the same command again to resume", s.Dir)
	}
	return v, err
}

// ladderProgress draws a ladder's matches: on a terminal, the standings
// of the match in play; in a log, a line every 20 games; a line as each
// match ends.
func ladderProgress(s *status, games int, line bool) func(ladder.Event) {
	return func(e ladder.Event) {
		sum := e.Summary
		if e.Started {
			if line {
				s.update(e.Match)
			}
			return
		}
		if !line && !sum.Done && sum.Games%20 != 0 {
			return
		}
		text := fmt.Sprintf("%s: games %d/%d  W-D-L %d-%d-%d  score %.3f", e.Match, sum.Games, games,
			sum.WDL.Wins, sum.WDL.Draws, sum.WDL.Losses, sum.WDL.Score())
		if sum.Done {
			s.logLine(text)
			return
		}
		s.update(text)
	}
}

// writeRating prints a rating as a table.
func writeRating(w io.Writer, r *ladder.Rating, dir string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "rating of %s\n", r.Player)
	fmt.Fprintf(&b, "  scale   %s\n", r.Scale)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  rung\trung Elo\tW-D-L\tscore\t\n")
	for _, rr := range r.Rungs {
		fmt.Fprintf(tw, "  %s\t%s\t%d-%d-%d\t%.3f\t\n", ladder.Rung{Nodes: rr.Nodes, Player: rr.Player}.Label(), stats.FormatElo(float64(rr.RungElo)),
			rr.WDL.Wins, rr.WDL.Draws, rr.WDL.Losses, rr.Score)
	}
	tw.Flush()
	fitted := ""
	if r.Fitted > 0 && r.Fitted < r.Games {
		fitted = fmt.Sprintf(", %d of them fitted (the top rung played and the scale's span below it)", r.Fitted)
	}
	fmt.Fprintf(&b, "  rating  %s (95%%), %d games%s\n", fmtRating(float64(r.Elo), float64(r.Lo), float64(r.Hi)), r.Games, fitted)
	if r.Note != "" {
		fmt.Fprintf(&b, "  note    %s\n", r.Note)
	}
	fmt.Fprintf(&b, "  time    %.0f s\n", r.Seconds)
	fmt.Fprintf(&b, "  records %s (rating in %s)\n", dir, ladder.ResultFile)
	_, err := io.WriteString(w, b.String())
	return err
}

// fmtRating writes a rating and its interval: "+412 [+350, +474]".
func fmtRating(elo, lo, hi float64) string {
	return fmtEloInterval(stats.EloEstimate{Elo: elo, CI: stats.Interval{Lo: lo, Hi: hi}})
}

const calibrateAbout = `usage: palace ladder calibrate --out FILE [flags]

Calibrates a scale: the player rungs of --below (palace's own players, weakest
first), then the engine at each node count of --nodes; every two rungs at
most --span apart play a match (--pairs pairs each), and a Bradley–Terry fit
over all the games rates every rung, the engine at its fewest nodes at 0. The
records stay in --work; the same command again resumes.`

func runLadderCalibrate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ladder calibrate", stderr)
	setUsage(fs, calibrateAbout)
	ruleSet := addRuleSetFlag(fs)
	engine := fs.String("engine", ladder.DefaultEngine, "the engine program")
	nodesFlag := fs.String("nodes", joinInts(ladder.DefaultNodes), "the engine's rungs: node counts a move, increasing")
	var below stringList
	fs.Var(&below, "below", "a player rung below the engine's: random or uniform[,sims=N] (repeatable, weakest first; \"none\": no player rung; default "+strings.Join(ladder.DefaultBelow, " ")+")")
	span := fs.Int("span", ladder.DefaultSpan, "rungs at most this far apart play each other (1: neighbours only)")
	var options stringList
	fs.Var(&options, "option", "NAME=VALUE, sent to every rung by setoption (repeatable)")
	settings := addLadderSettings(fs, 100, "work", "ladder-calibration", "directory of the matches' record files; the same command again resumes from them")
	out := fs.String("out", "", "the scale file to write")
	progress := addProgressFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError{"give the scale file to write: --out FILE"}
	}
	if err := settings.check(); err != nil {
		return err
	}
	nodes, err := parseInts(*nodesFlag)
	if err != nil || len(nodes) < 2 {
		return usagef("--nodes %q: want two or more node counts, comma-separated", *nodesFlag)
	}
	if *span < 1 || *span > len(nodes)+len(below) {
		return usagef("--span %d: want from 1 to the number of rungs", *span)
	}
	belowSpecs := []string(below)
	switch {
	case len(belowSpecs) == 0:
		belowSpecs = ladder.DefaultBelow
	case len(belowSpecs) == 1 && belowSpecs[0] == "none":
		belowSpecs = nil
	}
	var opts []uci.OptionValue
	for _, o := range options {
		name, value, ok := strings.Cut(o, "=")
		if !ok || name == "" {
			return usagef("--option %q: want NAME=VALUE", o)
		}
		opts = append(opts, uci.OptionValue{Name: name, Value: value})
	}
	show, line, err := progressFlag(*progress, stdout)
	if err != nil {
		return err
	}
	rs, err := rules.LoadRuleSet(*ruleSet)
	if err != nil {
		return err
	}
	c := ladder.Calibration{Settings: settings.Settings, RuleSet: rs, Program: *engine, Options: opts, Nodes: nodes,
		Below: belowSpecs, Span: *span}
	status := newStatus(stdout, show, line)
	defer status.end()
	scale, err := runLadderJob(status, &c.Settings, line,
		fmt.Sprintf("calibrating %s with %v below %s at %v nodes, rungs up to %d apart, %d pairs a match, records in %s",
			rs, belowSpecs, *engine, nodes, c.Span, c.Pairs, c.Dir),
		func(ctx context.Context) (*ladder.Scale, error) { return ladder.Calibrate(ctx, c) })
	if err != nil {
		return err
	}
	if err := scale.Save(*out); err != nil {
		return err
	}
	status.end()
	return writeScale(stdout, scale, *out)
}

func runLadderShow(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ladder show", stderr)
	setUsage(fs, "usage: palace ladder show [--rules NAME | --scale FILE]\n\nPrints a scale: its rungs' ratings and the calibration's matches.")
	ruleSet := addRuleSetFlag(fs)
	scaleFile := fs.String("scale", "", "the scale file (default: the built-in scale of --rules)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rs, err := rules.LoadRuleSet(*ruleSet)
	if err != nil {
		return err
	}
	scale, err := loadScale(*scaleFile, rs)
	if err != nil {
		return err
	}
	where := *scaleFile
	if where == "" {
		where = "built in"
	}
	return writeScale(stdout, scale, where)
}

// writeScale prints a scale as two tables: the rungs, and the
// calibration's matches.
func writeScale(w io.Writer, s *ladder.Scale, where string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "scale %s (%s)\n", s.ID(), where)
	fmt.Fprintf(&b, "  engine   %s, options %v\n", s.Engine.Program, s.Engine.Options)
	fmt.Fprintf(&b, "  games    %d (openings of %d random plies, seed %d; rungs up to %d apart played), calibrated %s by palace %s\n",
		s.Games, s.OpeningPlies, s.Seed, max(s.Span, 1), s.Created.Format("2006-01-02"), s.CodeVersion)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  rung\tElo\t95%% interval\t\n")
	for _, r := range s.Rungs {
		fmt.Fprintf(tw, "  %s\t%s\t[%s, %s]\t\n", r.Label(), stats.FormatElo(float64(r.Elo)),
			stats.FormatElo(float64(r.Lo)), stats.FormatElo(float64(r.Hi)))
	}
	tw.Flush()
	fmt.Fprintf(&b, "  matches (the weaker rung's view)\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  rung\tagainst\tW-D-L\tElo of that match\t\n")
	for _, m := range s.Matches {
		fmt.Fprintf(tw, "  %s\t%s\t%d-%d-%d\t%s\t\n", m.Lower, m.Upper, m.WDL.Wins, m.WDL.Draws, m.WDL.Losses, fmtEloInterval(m.Elo))
	}
	tw.Flush()
	_, err := io.WriteString(w, b.String())
	return err
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		if n > math.MaxInt32 {
			return nil, fmt.Errorf("%d is too large", n)
		}
		out = append(out, n)
	}
	return out, nil
}
