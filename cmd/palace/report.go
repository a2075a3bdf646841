package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/palace-chess/palace/internal/chart"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/stats"
	"github.com/palace-chess/palace/store"
)

func runReport(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", stderr)
	setUsage(fs, `usage: palace report RUN [RUN...] [flags]

Prints a run's generations and its ladder ratings, and draws its charts: Elo
per generation, training loss, and the rating on the absolute scale against
hours of training and against self-play games. Given several runs, prints
each one's ratings and draws their rating curves on one chart, to compare
them at equal compute.`)
	out := fs.String("out", "", "directory for the charts (default RUN/report; with several runs, ./report)")
	noCharts := fs.Bool("no-charts", false, "print the tables only")
	dirs, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		return usageError{"want the run directory: palace report RUN [RUN...] [--out DIR]"}
	}
	if !*noCharts && *out != "" {
		if err := checkOwnDir("out", *out, isReportChart); err != nil {
			return err
		}
	}
	runs := make([]reportRun, len(dirs))
	for i, dir := range dirs {
		if runs[i], err = readReportRun(dir); err != nil {
			return err
		}
	}
	if len(runs) > 1 {
		return compareRuns(stdout, runs, *out, *noCharts)
	}
	run := runs[0]
	dir := run.dir
	gens := reportRows(run.metrics)
	if err := writeReportTable(stdout, gens); err != nil {
		return err
	}
	writeStageTimes(stdout, run.metrics)
	if best, err := loop.BestOf(run.st); err == nil {
		fmt.Fprintf(stdout, "best network: generation %d (%s, %s)\n", best.Generation, filepath.Join(dir, best.Key), best.NetworkID)
	}
	if err := writeRatings(stdout, run); err != nil {
		return err
	}
	if *noCharts {
		return nil
	}
	if *out == "" {
		*out = filepath.Join(dir, "report")
		if err := checkOwnDir("out", *out, isReportChart); err != nil {
			return err
		}
	}
	written, err := reportCharts(gens, *out)
	more, err2 := ratingCharts([]reportRun{run}, *out)
	for _, w := range append(written, more...) {
		fmt.Fprintf(stdout, "chart: %s\n", w)
	}
	return errors.Join(err, err2)
}

// writeStageTimes prints where the run's time went, stage by stage (each
// stage's share of their sum: issue 43 asks self-play for 60% or more),
// and what it made: games, positions, training steps. A stage resumed
// after a kill counts its resumed part only, as its metric does.
func writeStageTimes(w io.Writer, ms []loop.Metric) {
	var total float64
	secs := map[string]float64{}
	var games int
	var positions, steps int64
	for _, m := range ms {
		secs[m.Stage] += m.Seconds
		total += m.Seconds
		switch m.Stage {
		case loop.StageSelfplay:
			games += m.Games
			positions += m.Positions
		case loop.StageTrain:
			steps = max(steps, m.TotalSteps)
		}
	}
	if total <= 0 {
		return
	}
	var parts []string
	for _, st := range []struct{ stage, name string }{{loop.StageSelfplay, "self-play"}, {loop.StageReanalyse, "reanalysis"},
		{loop.StageTrain, "training"}, {loop.StageGate, "gate"}, {loop.StageArena, "arena"}, {loop.StageLadder, "ladder"}} {
		if v := secs[st.stage]; v > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f s (%.1f%%)", st.name, v, 100*v/total))
		}
	}
	fmt.Fprintf(w, "time: %s; %d games, %d positions, %d training steps\n", strings.Join(parts, ", "), games, positions, steps)
}

// reportRun is one run directory's metrics and ladder ratings.
type reportRun struct {
	dir     string
	st      store.Store
	metrics []loop.Metric
	ratings []loop.RatingPoint
}

func readReportRun(dir string) (reportRun, error) {
	// Checked before the store is opened, which would create dir.
	if _, err := os.Stat(filepath.Join(dir, loop.StateKey)); err != nil {
		return reportRun{}, fmt.Errorf("%s is not a palace run directory (no %s)", dir, loop.StateKey)
	}
	st, err := store.NewDir(dir)
	if err != nil {
		return reportRun{}, err
	}
	if _, err := st.Read(loop.StateKey); err != nil {
		return reportRun{}, fmt.Errorf("%s is not a palace run directory (no %s)", dir, loop.StateKey)
	}
	ms, err := loop.ReadMetrics(st)
	if err != nil {
		return reportRun{}, err
	}
	return reportRun{dir: dir, st: st, metrics: ms, ratings: loop.RatingPoints(ms)}, nil
}

// writeRatings prints a run's ladder ratings, if it has any.
func writeRatings(w io.Writer, run reportRun) error {
	if len(run.ratings) == 0 {
		return nil
	}
	fmt.Fprintf(w, "ladder ratings (%s; hours of self-play, training and gates):\n", run.ratings[0].Rating.Scale)
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "network\thours\tself-play games\trating\t95% interval\tladder games\t")
	for _, p := range run.ratings {
		r := p.Rating
		fmt.Fprintf(tw, "gen %d\t%.2f\t%d\t%s\t[%s, %s]\t%d\t\n", p.Generation, p.Hours, p.Games, stats.FormatElo(float64(r.Elo)),
			stats.FormatElo(float64(r.Lo)), stats.FormatElo(float64(r.Hi)), r.Games)
	}
	return tw.Flush()
}

// compareRuns prints several runs' ratings and draws them on one chart.
func compareRuns(w io.Writer, runs []reportRun, out string, noCharts bool) error {
	scales := map[string]bool{}
	for _, run := range runs {
		fmt.Fprintf(w, "run %s\n", run.dir)
		if len(run.ratings) == 0 {
			fmt.Fprintln(w, "  no ladder ratings (set ladder.every in the run's config)")
			continue
		}
		if err := writeRatings(w, run); err != nil {
			return err
		}
		for _, p := range run.ratings {
			scales[p.Rating.Scale] = true
		}
	}
	if len(scales) > 1 {
		fmt.Fprintf(w, "warning: the runs were rated on %d different scales; their ratings do not compare\n", len(scales))
	}
	if noCharts {
		return nil
	}
	if out == "" {
		out = "report"
		if err := checkOwnDir("out", out, isReportChart); err != nil {
			return err
		}
	}
	written, err := ratingCharts(runs, out)
	for _, p := range written {
		fmt.Fprintf(w, "chart: %s\n", p)
	}
	return err
}

// ratingCharts draws rating.png (rating against hours) and
// rating-games.png (against self-play games), a series per run.
func ratingCharts(runs []reportRun, dir string) ([]string, error) {
	var byHours, byGames []chart.Series
	for _, run := range runs {
		name := filepath.Base(filepath.Clean(run.dir))
		var h, g chart.Series
		h.Name, g.Name = name, name
		for _, p := range run.ratings {
			h.X, g.X = append(h.X, p.Hours), append(g.X, float64(p.Games))
			for _, s := range []*chart.Series{&h, &g} {
				s.Y, s.Lo, s.Hi = append(s.Y, float64(p.Rating.Elo)), append(s.Lo, float64(p.Rating.Lo)), append(s.Hi, float64(p.Rating.Hi))
			}
		}
		byHours, byGames = append(byHours, h), append(byGames, g)
	}
	return drawCharts(dir, []namedChart{
		{"rating.png", chart.Line{Title: "Rating on the absolute scale (95% intervals)", XLabel: "hours of self-play, training and gates", YLabel: "Elo (Fairy-Stockfish 1 node = 0)", Series: byHours}},
		{"rating-games.png", chart.Line{Title: "Rating on the absolute scale (95% intervals)", XLabel: "self-play games", YLabel: "Elo (Fairy-Stockfish 1 node = 0)", Series: byGames}},
	})
}

// isReportChart tells whether name is one of the charts report writes:
// what its --out may hold.
func isReportChart(name string) bool {
	switch name {
	case "elo.png", "loss.png", "rating.png", "rating-games.png":
		return true
	}
	return false
}

// namedChart is a chart and its file name.
type namedChart struct {
	file string
	line chart.Line
}

// drawCharts writes the charts into dir, leaving out those with nothing
// to draw yet, and returns the files written.
func drawCharts(dir string, charts []namedChart) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	var errs []error
	for _, c := range charts {
		path := filepath.Join(dir, c.file)
		err := chart.WriteLines(path, c.line)
		switch {
		case err == nil:
			written = append(written, path)
		case errors.Is(err, chart.ErrEmpty):
			// Nothing to draw yet (no gate played, no rating): no chart.
		default:
			errs = append(errs, err)
		}
	}
	return written, errors.Join(errs...)
}

// writeReportTable writes the run's table, a row a generation: its
// self-play and training, then the gate of the candidate they made, named
// by the candidate's generation as the log and the charts name it (the
// row's generation plus one).
func writeReportTable(w io.Writer, rows []reportRow) error {
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', tabwriter.AlignRight)
	// A run whose self-play resigns gets a column for it: the games
	// resigned, and the played-out games' false resignations of those
	// that would have.
	resigns := slices.ContainsFunc(rows, func(r reportRow) bool { return r.sp != nil && r.sp.Resigns != (selfplay.Resignations{}) })
	resignHead := ""
	if resigns {
		resignHead = "resigned (false/would)\t"
	}
	fmt.Fprintln(tw, "gen\tgames\t"+resignHead+"positions\tevals/s\tsteps\tloss\tpolicy\twdl\tgate of\tgate games\tW-D-L\tElo vs best\t95% interval\tpromoted\t")
	for _, r := range rows {
		resigned := ""
		if resigns {
			resigned = textOr(r.sp != nil, func() string {
				return fmt.Sprintf("%d (%d/%d)", r.sp.Resigns.Resigned, r.sp.Resigns.False, r.sp.Resigns.Would)
			}) + "\t"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.gen,
			intOr(r.sp != nil, func() int64 { return int64(r.sp.Games) }), resigned,
			intOr(r.sp != nil, func() int64 { return r.sp.Positions }),
			floatOr(r.sp != nil, "%.0f", func() float64 { return r.sp.EvalsPerSecond }),
			intOr(r.tr != nil, func() int64 { return r.tr.TotalSteps }),
			floatOr(r.tr != nil && r.tr.Loss != nil, "%.3f", func() float64 { return r.tr.Loss.Total }),
			floatOr(r.tr != nil && r.tr.Loss != nil, "%.3f", func() float64 { return r.tr.Loss.Policy }),
			floatOr(r.tr != nil && r.tr.Loss != nil, "%.3f", func() float64 { return r.tr.Loss.WDL }),
			textOr(r.gate != nil, func() string { return fmt.Sprintf("gen %d", r.gen+1) }),
			intOr(r.gate != nil && r.gate.Match != nil, func() int64 { return int64(r.gate.Match.Games) }),
			textOr(r.gate != nil && r.gate.Match != nil, func() string {
				w := r.gate.Match.WDL
				return fmt.Sprintf("%d-%d-%d", w.Wins, w.Draws, w.Losses)
			}),
			textOr(r.gate != nil && r.gate.Match != nil, func() string { return stats.FormatElo(r.gate.Match.Elo.Elo) }),
			textOr(r.gate != nil && r.gate.Match != nil, func() string {
				ci := r.gate.Match.Elo.CI
				return fmt.Sprintf("[%s, %s]", stats.FormatElo(ci.Lo), stats.FormatElo(ci.Hi))
			}),
			textOr(r.gate != nil, func() string {
				if r.gate.Promoted {
					return "yes"
				}
				return "no"
			}))
	}
	return tw.Flush()
}

type reportRow struct {
	gen          int
	sp, tr, gate *loop.Metric
}

// reportRows groups the metrics by generation: the row of generation g
// holds its self-play and training, and the gate of the candidate they
// made (generation g+1's network).
func reportRows(ms []loop.Metric) []reportRow {
	var rows []reportRow
	at := map[int]int{}
	for i := range ms {
		m := &ms[i]
		k, ok := at[m.Generation]
		if !ok {
			k = len(rows)
			at[m.Generation] = k
			rows = append(rows, reportRow{gen: m.Generation})
		}
		switch m.Stage {
		case loop.StageSelfplay:
			rows[k].sp = m
		case loop.StageTrain:
			rows[k].tr = m
		case loop.StageGate:
			rows[k].gate = m
		}
	}
	return rows
}

// reportCharts draws elo.png (each gate's Elo against the best with its
// interval, and the promoted networks' cumulative gain) and loss.png.
func reportCharts(rows []reportRow, dir string) ([]string, error) {
	return drawCharts(dir, generationCharts(rows))
}

// generationCharts are elo.png and loss.png: generations along X, marked
// at whole numbers only.
func generationCharts(rows []reportRow) []namedChart {
	var gate, cum, loss, policy, wdl chart.Series
	// The sum overstates the best network's gain: a promoted candidate's
	// estimate is selected for being high. palace arena against generation
	// 0 measures it.
	gate.Name, cum.Name = "candidate vs best", "best: sum of promoted gains"
	loss.Name, policy.Name, wdl.Name = "total", "policy", "value (WDL)"
	total := 0.0
	cum.X, cum.Y = append(cum.X, 0), append(cum.Y, 0)
	for _, r := range rows {
		x := float64(r.gen + 1) // the candidate's generation
		if r.gate != nil && r.gate.Match != nil {
			e := r.gate.Match.Elo
			gate.X, gate.Y = append(gate.X, x), append(gate.Y, e.Elo)
			gate.Lo, gate.Hi = append(gate.Lo, e.CI.Lo), append(gate.Hi, e.CI.Hi)
		}
		if r.gate != nil {
			if r.gate.Promoted && r.gate.Match != nil && !math.IsInf(r.gate.Match.Elo.Elo, 0) {
				total += r.gate.Match.Elo.Elo
			}
			cum.X, cum.Y = append(cum.X, x), append(cum.Y, total)
		}
		if r.tr != nil && r.tr.Loss != nil {
			loss.X, loss.Y = append(loss.X, x), append(loss.Y, r.tr.Loss.Total)
			policy.X, policy.Y = append(policy.X, x), append(policy.Y, r.tr.Loss.Policy)
			wdl.X, wdl.Y = append(wdl.X, x), append(wdl.Y, r.tr.Loss.WDL)
		}
	}
	return []namedChart{
		{"elo.png", chart.Line{Title: "Elo per generation (95% intervals)", XLabel: "generation", YLabel: "Elo", Series: []chart.Series{gate, cum}, IntegerX: true}},
		{"loss.png", chart.Line{Title: "Training loss per generation", XLabel: "generation (of the network trained)", YLabel: "loss per position", Series: []chart.Series{loss, policy, wdl}, IntegerX: true}},
	}
}

func intOr(ok bool, f func() int64) string {
	if !ok {
		return "-"
	}
	return fmt.Sprint(f())
}

func floatOr(ok bool, format string, f func() float64) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf(format, f())
}

func textOr(ok bool, f func() string) string {
	if !ok {
		return "-"
	}
	return f()
}
