package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/palace-chess/palace/configs"
	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/internal/chart"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/train"
)

const trainAbout = `usage: palace train --games PATH [--games PATH ...] --out NET [flags]

Learns from the games people played: the positions of recorded games
(games files written by palace import, or directories of them) train a
network through the same shards and trainer as self-play. The policy
target is the move played, the value target the game's result to the
side to move (a game without a result trains the policy only); positions
are mirrored at random. --policy-from keeps the policy targets of one
side of each game (the winner, or a named player): the other side's
positions train the value only. --score-weight mixes an engine's score
of each position (palace arena's records carry them) into the value
target: a game's one result is a label every position of it shares. A share of the games (--held-out, split by game)
is kept out of training, and the network is measured on it every
eval_every steps: top-1 and top-3 move prediction, policy loss over the
legal moves and WDL loss, each beside a predictor that knows nothing.

Everything lives in --work (default NET.work): the positions
(gameset/), the trainer's state, the learning curve (curve.json, and
curve-accuracy.png, curve-loss.png), the network of the evaluation with the
least held-out loss (best.palnet). Stopped (Ctrl-C, or killed), the same
command resumes. At the end that network (--keep best) or the last step's
is written to NET (--init's shape, else the config's network section).`

// defaultGamesConfig is the built-in supervised config.
const defaultGamesConfig = "train-games.yaml"

func runTrain(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("train", stderr)
	setUsage(fs, trainAbout)
	var games stringList
	fs.Var(&games, "games", "a games file (palace import's) or a match's or experiment's record file, or a directory of them; give it once per path (paths after the flags count too)")
	out := fs.String("out", "", "the network to write at the end")
	configFile := fs.String("config", "", "the job's YAML config: network shape, train section, epochs, eval_every, seed (default: the built-in configs/"+defaultGamesConfig+")")
	initFile := fs.String("init", "", "start from this network (its shape) instead of random weights")
	work := fs.String("work", "", "the job's directory (default: NET.work)")
	rulesList := fs.String("rules", "", "keep the games under these comma-separated rule sets (names such as xiangqi, or name@hash; default: all)")
	minPlies := fs.Int("min-plies", 0, "drop games shorter than this")
	after := fs.String("after", "", "keep games played on or after this date (YYYY, YYYY.MM or YYYY.MM.DD; games of unknown date are dropped)")
	before := fs.String("before", "", "keep games played on or before this date (as --after)")
	openingPlies := fs.Int("opening-plies", 0, "train on the first N plies of each game only (0: whole games)")
	keepDuplicates := fs.Bool("keep-duplicates", false, "keep games whose moves repeat an earlier game's (default: each counted once)")
	policyFrom := fs.String("policy-from", "all", "whose moves are policy targets (the other side's positions train the value only): all, winner (a decided game's winner; both sides of a draw) or player:NAME (the side whose recorded name contains NAME)")
	scoreWeight := fs.Float64("score-weight", 0, "mix engines' scores of the positions (a match's records) into the value target with this weight, the rest the game's result (the config's search_value_weight; 0: results only)")
	scoreScale := fs.Float64("score-scale", 400, "with --score-weight, the centipawns of a score that make odds of e to 1 for a win: 1/(1+exp(-cp/scale)); 400 fits Fairy-Stockfish's janggi scores to its games' results")
	heldOut := fs.Float64("held-out", 0.1, "share of games held out for measuring (split by game)")
	epochs := fs.Float64("epochs", 0, "passes over the training positions (default: the config's)")
	evalEvery := fs.Int64("eval-every", -1, "steps between held-out evaluations (default: the config's; 0: at the end only)")
	keep := fs.String("keep", "best", "the network to write: best (the evaluation with the least held-out policy + WDL loss; early stopping) or last")
	progress := addProgressFlag(fs)
	if len(args) > 0 && args[0] == "help" {
		fs.Usage()
		return flag.ErrHelp
	}
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	games = append(games, rest...)
	if len(games) == 0 || *out == "" {
		return usageError{"want games and a network to write: palace train --games PATH --out NET"}
	}
	show, line, err := progressFlag(*progress, stdout)
	if err != nil {
		return err
	}
	if *keep != "best" && *keep != "last" {
		return usagef("--keep %q: want best or last", *keep)
	}
	if !(*epochs >= 0 && *epochs <= train.MaxEpochs) {
		return usagef("--epochs %v: want more than 0 and at most %d", *epochs, train.MaxEpochs)
	}
	// The network is written at the end: a bad --out found now, not after
	// the training.
	if err := checkGamesOut("out", *out, games, *initFile, *configFile); err != nil {
		return err
	}
	var cfg train.GamesConfig
	var cfgData []byte
	if *configFile != "" {
		if cfgData, err = atomicfile.ReadFile(*configFile, atomicfile.MaxConfigBytes); err != nil {
			return err
		}
		cfg, err = train.ParseGamesConfig(cfgData, *configFile)
	} else {
		if cfgData, err = configs.FS.ReadFile(defaultGamesConfig); err != nil {
			return err
		}
		cfg, err = train.ParseGamesConfig(cfgData, "configs/"+defaultGamesConfig)
	}
	if err != nil {
		return err
	}
	if *epochs > 0 {
		cfg.Epochs = *epochs
	}
	if *evalEvery < -1 {
		return usagef("--eval-every %d: want 0 (at the end only) or more", *evalEvery)
	}
	if *evalEvery >= 0 {
		cfg.EvalEvery = *evalEvery
	}
	filter := train.GameFilter{MinPlies: *minPlies, After: *after, Before: *before, OpeningPlies: *openingPlies,
		KeepDuplicates: *keepDuplicates, PolicyFrom: *policyFrom, HeldOut: *heldOut, Seed: cfg.Seed}
	if filter.PolicyFrom == "all" {
		filter.PolicyFrom = "" // the default, so that a job from before the flag resumes
	}
	if !(*scoreWeight >= 0 && *scoreWeight <= 1) {
		return usagef("--score-weight %v: want 0 to 1", *scoreWeight)
	}
	if *scoreWeight > 0 {
		if !(*scoreScale > 0) {
			return usagef("--score-scale %v: want a positive number of centipawns", *scoreScale)
		}
		filter.ScoreScale = *scoreScale // and the job sets the config's search_value_weight
	}
	if *rulesList != "" {
		for _, r := range strings.Split(*rulesList, ",") {
			filter.RuleSets = append(filter.RuleSets, strings.TrimSpace(r))
		}
	}
	if err := filter.Validate(); err != nil {
		return usageError{strings.TrimPrefix(err.Error(), "train: games: ")}
	}
	var init *model.Checkpoint
	if *initFile != "" {
		if init, err = model.LoadPlayable(*initFile); err != nil {
			return err
		}
	}
	dir := *work
	if dir == "" {
		dir = *out + ".work"
	}
	status := newStatus(stdout, show, line)
	defer status.end()
	ctx, stop := stopContext(0)
	defer stop()
	tw := newCurveTable(status.output())
	res, err := train.RunGamesJob(ctx, train.GamesRun{Dir: dir, Out: *out, Inputs: games, Filter: filter,
		Config: cfg, ConfigText: string(cfgData), ScoreWeight: *scoreWeight, Init: init, InitName: *initFile,
		KeepLast: *keep == "last", CodeVersion: codeVersion()}, func(e train.GamesEvent) {
		switch e.Kind {
		case train.GamesReading:
			p := e.Reading
			status.draw(fmt.Sprintf("reading games: %d read, %d to train on, %d held out", p.Read, p.Train, p.HeldOut))
		case train.GamesSetReady:
			printGameSet(status.output(), e.Set)
		case train.GamesTraining:
			p := e.Plan
			fmt.Fprintf(status.output(), "training %d blocks × %d filters for %.3g epochs: %d steps of %d positions\n",
				p.Network.Blocks, p.Network.Filters, p.Epochs, p.Steps, p.Batch)
		case train.GamesPoint:
			tw.point(e.Point)
		case train.GamesStep:
			p := e.Step
			status.update(fmt.Sprintf("step %d/%d  lr %.2g  policy %.3f  wdl %.3f  %.0f samples/s", p.Step, p.Target, p.Rate, p.Losses.Policy, p.Losses.WDL, p.SamplesPerS))
		}
	})
	var curve *train.Curve
	if res != nil {
		curve = res.Curve
	}
	if curve != nil && len(curve.Points) > 0 {
		if err := drawCurve(dir, curve); err != nil {
			return err
		}
	}
	if stoppedBy(ctx, err) {
		return interruption(ctx, "the same command resumes from step %d", lastStep(curve))
	}
	if err != nil {
		return err
	}
	which := "the last step's"
	if res.Kept == "best" {
		which = fmt.Sprintf("step %d's (least held-out loss; the last step's is in %s)", res.Step, res.State)
	}
	fmt.Fprintf(status.output(), "wrote %s: network %s, %s of %d steps (%.0f s of training); curve in %s\n",
		*out, res.Network, which, res.Steps, res.Seconds, res.CurveFile)
	return nil
}

// lastStep is the curve's last step, where a stopped job resumes.
func lastStep(c *train.Curve) int64 {
	if c == nil || len(c.Points) == 0 {
		return 0
	}
	return c.Points[len(c.Points)-1].Step
}

func printGameSet(w io.Writer, set *train.GameSet) {
	d := set.Dropped
	fmt.Fprintf(w, "games: %d read; %d dropped (%d duplicates, %d other rule sets, %d short, %d out of the dates)\n",
		set.Read, d.Total(), d.Duplicates, d.RuleSet, d.Short, d.Date)
	for _, s := range []struct {
		name  string
		split train.Split
	}{{"train", set.Train}, {"held out", set.HeldOut}} {
		r := s.split.Results
		fmt.Fprintf(w, "  %-8s %6d games %8d positions (to the side to move: %d won, %d drawn, %d lost, %d without a result)\n",
			s.name, s.split.Games, s.split.Positions, r[0], r[1], r[2], r[3])
		if set.Filter.PolicyFrom != "" {
			fmt.Fprintf(w, "  %-8s %6s       %8d with a policy target (policy from %s)\n", "", "", s.split.Policy, set.Filter.PolicyFrom)
		}
		if set.Filter.ScoreScale > 0 {
			fmt.Fprintf(w, "  %-8s %6s       %8d with an engine's score\n", "", "", s.split.Scored)
		}
	}
}

// curveTable prints the learning curve's points as they come, each
// held-out figure beside its know-nothing predictor's in brackets.
type curveTable struct {
	w      io.Writer
	header bool
}

func newCurveTable(w io.Writer) *curveTable { return &curveTable{w: w} }

func (t *curveTable) point(p train.CurvePoint) {
	var b strings.Builder
	if !t.header {
		fmt.Fprintf(&b, "%8s %6s %7s  %-15s %-15s %-15s %-15s %7s\n", "step", "epoch", "train", "top-1 (uniform)", "top-3 (uniform)", "policy (unif.)", "wdl (const.)", "seconds")
		t.header = true
	}
	trainLoss := "-"
	if p.TrainPolicy != 0 {
		trainLoss = fmt.Sprintf("%.3f", p.TrainPolicy)
	}
	cells := [4]string{"-", "-", "-", "-"}
	if h := p.HeldOut; h != nil {
		cells = [4]string{fmt.Sprintf("%.1f%% (%.1f%%)", 100*h.Top1, 100*h.UniformTop1), fmt.Sprintf("%.1f%% (%.1f%%)", 100*h.Top3, 100*h.UniformTop3),
			fmt.Sprintf("%.3f (%.3f)", h.PolicyCE, h.UniformCE), fmt.Sprintf("%.3f (%.3f)", h.WDLCE, h.ConstWDLCE)}
		if h.ValuePositions == 0 {
			cells[3] = "no results"
		}
	}
	fmt.Fprintf(&b, "%8d %6.2f %7s  %-15s %-15s %-15s %-15s %7.0f\n", p.Step, p.Epoch, trainLoss, cells[0], cells[1], cells[2], cells[3], p.Seconds)
	io.WriteString(t.w, b.String())
}

// drawCurve draws the learning curve's two charts in dir.
func drawCurve(dir string, c *train.Curve) error {
	var steps, top1, top3, u1, u3, pce, uce, wce, cwce, tp []float64
	var tpSteps []float64
	for _, p := range c.Points {
		if p.TrainPolicy != 0 {
			tpSteps = append(tpSteps, float64(p.Step))
			tp = append(tp, p.TrainPolicy)
		}
		h := p.HeldOut
		if h == nil {
			continue
		}
		steps = append(steps, float64(p.Step))
		top1, top3 = append(top1, 100*h.Top1), append(top3, 100*h.Top3)
		u1, u3 = append(u1, 100*h.UniformTop1), append(u3, 100*h.UniformTop3)
		pce, uce = append(pce, h.PolicyCE), append(uce, h.UniformCE)
		wce, cwce = append(wce, h.WDLCE), append(cwce, h.ConstWDLCE)
	}
	if len(steps) == 0 {
		return nil
	}
	acc := chart.Line{Title: "Move prediction on held-out games", XLabel: "training step", YLabel: "% of positions",
		Series: []chart.Series{{Name: "top-1", X: steps, Y: top1}, {Name: "top-3", X: steps, Y: top3},
			{Name: "top-1, uniform", X: steps, Y: u1}, {Name: "top-3, uniform", X: steps, Y: u3}}}
	if err := chart.WriteLines(filepath.Join(dir, "curve-accuracy.png"), acc); err != nil {
		return err
	}
	loss := chart.Line{Title: "Losses", XLabel: "training step", YLabel: "cross-entropy (nats)",
		Series: []chart.Series{{Name: "policy, held out", X: steps, Y: pce}, {Name: "policy, uniform", X: steps, Y: uce},
			{Name: "WDL, held out", X: steps, Y: wce}, {Name: "WDL, constant", X: steps, Y: cwce}}}
	if len(tp) > 0 {
		loss.Series = append(loss.Series, chart.Series{Name: "policy, training", X: tpSteps, Y: tp})
	}
	return chart.WriteLines(filepath.Join(dir, "curve-loss.png"), loss)
}
