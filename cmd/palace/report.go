package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/palace-chess/palace/internal/chart"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/stats"
	"github.com/palace-chess/palace/store"
)

func runReport(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", stderr)
	out := fs.String("out", "", "directory for the charts (default RUN/report)")
	noCharts := fs.Bool("no-charts", false, "print the table only")
	var dir string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		dir, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if dir == "" {
		return usageError{"want the run directory: palace report RUN [--out DIR]"}
	}
	st, err := store.NewDir(dir)
	if err != nil {
		return err
	}
	if _, err := st.Read(loop.StateKey); err != nil {
		return fmt.Errorf("%s is not a palace run directory (no %s)", dir, loop.StateKey)
	}
	ms, err := loop.ReadMetrics(st)
	if err != nil {
		return err
	}
	gens := reportRows(ms)
	tw := tabwriter.NewWriter(stdout, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "gen\tgames\tpositions\tevals/s\tsteps\tloss\tpolicy\twdl\tgate games\tW-D-L\tElo vs best\t95% interval\tpromoted\t")
	for _, r := range gens {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.gen,
			intOr(r.sp != nil, func() int64 { return int64(r.sp.Games) }),
			intOr(r.sp != nil, func() int64 { return r.sp.Positions }),
			floatOr(r.sp != nil, "%.0f", func() float64 { return r.sp.EvalsPerSecond }),
			intOr(r.tr != nil, func() int64 { return r.tr.TotalSteps }),
			floatOr(r.tr != nil && r.tr.Loss != nil, "%.3f", func() float64 { return r.tr.Loss.Total }),
			floatOr(r.tr != nil && r.tr.Loss != nil, "%.3f", func() float64 { return r.tr.Loss.Policy }),
			floatOr(r.tr != nil && r.tr.Loss != nil, "%.3f", func() float64 { return r.tr.Loss.WDL }),
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
	if err := tw.Flush(); err != nil {
		return err
	}
	if best, err := loop.BestOf(st); err == nil {
		fmt.Fprintf(stdout, "best network: generation %d (%s, %s)\n", best.Generation, filepath.Join(dir, best.Key), best.NetworkID)
	}
	if *noCharts {
		return nil
	}
	if *out == "" {
		*out = filepath.Join(dir, "report")
	}
	written, err := reportCharts(gens, *out)
	for _, w := range written {
		fmt.Fprintf(stdout, "chart: %s\n", w)
	}
	return err
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	var errs []error
	draw := func(name string, c chart.Line) {
		path := filepath.Join(dir, name)
		err := chart.WriteLines(path, c)
		switch {
		case err == nil:
			written = append(written, path)
		case errors.Is(err, chart.ErrEmpty):
			// Nothing to draw yet (no gate played): no chart, no error.
		default:
			errs = append(errs, err)
		}
	}
	draw("elo.png", chart.Line{Title: "Elo per generation (95% intervals)", XLabel: "generation", YLabel: "Elo", Series: []chart.Series{gate, cum}})
	draw("loss.png", chart.Line{Title: "Training loss per generation", XLabel: "generation (of the network trained)", YLabel: "loss per position", Series: []chart.Series{loss, policy, wdl}})
	return written, errors.Join(errs...)
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
