package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/palace-chess/palace/configs"
	"github.com/palace-chess/palace/experiment"
	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/rulestudy"
)

// experimentStudy is palace experiment --train: at each budget, the loop
// trained on under A and under B (rulestudy.Train, resumable), then the
// experiment played by the two best networks into a record file of its
// own (exp-30m.jsonl), and at the end the differences across budgets.
func experimentStudy(ctx context.Context, o experimentOptions, sets [2]*rules.RuleSet, stdout, stderr io.Writer) error {
	config, source, err := studyConfig(o, sets[0])
	if err != nil {
		return err
	}
	var texts [2][]byte
	for i, arg := range []string{o.rulesA, o.rulesB} {
		// A rule-set file is named by its absolute path: the run reads it
		// from its own directory's config.
		if _, err := os.Stat(arg); err == nil {
			if arg, err = filepath.Abs(arg); err != nil {
				return err
			}
		}
		if texts[i], err = rulestudy.WithRules(config, arg); err != nil {
			return fmt.Errorf("--train-config %s: %w", source, err)
		}
	}
	var labels []string
	var ans []experiment.Analysis
	for _, budget := range o.train {
		label := budgetLabel(budget)
		var nets [2]string
		var spents [2]time.Duration
		for i, side := range []string{"A", "B"} {
			dir := filepath.Join(o.trainDir, side)
			fmt.Fprintf(stderr, "experiment: training %s (%s) in %s to %s of its stages' time\n", side, sets[i].Name, dir, label)
			best, spent, err := rulestudy.Train(ctx, dir, texts[i], source+" with rules "+sets[i].Name, budget, loop.Options{CodeVersion: codeVersion()})
			if err != nil {
				if ctx.Err() != nil {
					return interruption(ctx, "the same command resumes the training in %s", dir)
				}
				return fmt.Errorf("--train: %s: %w", side, err)
			}
			fmt.Fprintf(stderr, "experiment: %s trained for %s: best network %s\n", side, spent.Round(time.Second), best)
			nets[i], spents[i] = best, spent
		}
		eo := o
		eo.net, eo.netB = nets[0], nets[1]
		eo.training = fmt.Sprintf("each trained by palace's loop under its own rule set, from the same start (the config's network section) and config (%s, its rules key set to each rule set's), to %s of the loop's stage time (self-play, training and gates; A %s, B %s), %d cores a run, in the run directories %s and %s",
			source, label, spents[0].Round(time.Second), spents[1].Round(time.Second), runtime.GOMAXPROCS(0), filepath.Join(o.trainDir, "A"), filepath.Join(o.trainDir, "B"))
		eo.out = strings.TrimSuffix(o.out, filepath.Ext(o.out)) + "-" + label + filepath.Ext(o.out)
		if o.report != "" {
			eo.report = filepath.Join(o.report, label)
			if err := checkOwnDir("report", eo.report, experiment.IsReportFile); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "\n== after %s of training a player per rule set\n", label)
		an, err := playExperiment(ctx, eo, sets, stdout, stderr)
		if err != nil {
			return err
		}
		labels, ans = append(labels, label), append(ans, an)
	}
	if len(ans) < 2 {
		return nil
	}
	var b bytes.Buffer
	flagged, err := experiment.WriteSensitivity(&b, labels, ans)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n== B − A as the players get stronger (%d measures flagged: their sign or significance changes)\n%s", flagged, b.String())
	if o.report != "" {
		path := filepath.Join(o.report, "sensitivity.md")
		text := fmt.Sprintf("# B − A as the players get stronger\n\nEach rule set's games were played by a network trained under it, to each budget of its loop's stage time. A measure is flagged where its sign or its significance changes between budgets.\n\n%s", b.String())
		if err := atomicfile.WriteBytes(path, 0o644, []byte(text)); err != nil {
			return fmt.Errorf("--report: %w", err)
		}
		fmt.Fprintf(stderr, "experiment: report %s\n", path)
	}
	return nil
}

// studyConfig is --train-config's text, or the game's quickstart.
func studyConfig(o experimentOptions, rs *rules.RuleSet) ([]byte, string, error) {
	if o.trainConfig != "" {
		data, err := atomicfile.ReadFile(o.trainConfig, atomicfile.MaxConfigBytes)
		return data, o.trainConfig, err
	}
	name := "quickstart-" + rs.Game.String() + ".yaml"
	data, err := configs.FS.ReadFile(name)
	if err != nil {
		return nil, "", fmt.Errorf("--train: no built-in config for %s: %w", rs.Game, err)
	}
	return data, "configs/" + name + " (built in)", nil
}

// budgetLabel writes a budget as a file name may hold it: 30m, 1h30m, 45s.
func budgetLabel(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
