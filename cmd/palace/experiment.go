package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/experiment"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
)

func runExperiment(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	// Interrupted, the experiment stops with every finished game recorded;
	// the games in progress are played again by the next run.
	ctx, stop := stopContext(0)
	defer stop()
	return experimentCommand(ctx, args, stdout, stderr)
}

// experimentOptions are palace experiment's flags, checked.
type experimentOptions struct {
	rulesA, rulesB string
	net, netB      string
	// match holds --games (its pairs: game indices), --opening-plies and
	// --concurrency.
	match      arena.Settings
	sims       int
	seed       uint64
	maxPlies   int
	evaluators int
	cache      int
	out        string
	report     string
	// train are the study's budgets, ascending (none: no training);
	// trainConfig and trainDir its runs' config and directory.
	train       []time.Duration
	trainConfig string
	trainDir    string
	// training says how a study's players were made, for the report.
	training   string
	json       bool
	show, line bool
}

// experimentSettingsHelp is the help of an experiment's match settings'
// flags: its pairs are game indices, --games.
var experimentSettingsHelp = arena.FlagHelp{PairsFlag: "games",
	Pairs:        "game indices, each played once under A and once under B with the same opening and seed (more later extends the experiment)",
	OpeningPlies: "random plies (no passes) opening each game, the same under A and B; 0 starts from the setup (janggi: the 16 setups in turn)"}

func parseExperimentFlags(args []string, stdout, stderr io.Writer) (experimentOptions, error) {
	var o experimentOptions
	fs := newFlagSet("experiment", stderr)
	presets := strings.Join(rules.PresetNames(), ", ")
	fs.StringVar(&o.rulesA, "rules-a", "", "rule set A: a preset ("+presets+") or a YAML file")
	fs.StringVar(&o.rulesB, "rules-b", "", "rule set B, of the same game as A")
	fs.StringVar(&o.net, "net", "", "the player, on both sides: a network checkpoint FILE, uniform (search with equal priors and value 0: no network) or random-evaluator (search with the hash-based random evaluator; random, its old name, still works)")
	fs.StringVar(&o.netB, "net-b", "", "B's player, when each rule set has its own (a network trained under B); --net then plays A's games")
	o.match = arena.Settings{Pairs: 100, OpeningPlies: 0, Concurrency: 8}
	o.match.AddFlags(fs, experimentSettingsHelp)
	fs.IntVar(&o.sims, "nodes", 32, "search budget: simulations a move (self-play's Gumbel search, its noise on every move)")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed: the openings and every game's search")
	fs.IntVar(&o.maxPlies, "max-plies", 400, "cap every game at this many plies, opening included, adjudicated by each rule set (a rule set's own smaller cap stays; 0: the rule sets' own caps)")
	fs.IntVar(&o.evaluators, "evaluators", 2, "network copies (a batcher each) the games share")
	fs.IntVar(&o.cache, "cache", 65536, "evaluation cache entries (0: none)")
	fs.StringVar(&o.out, "out", "", "record file: a game per line as it finishes; an existing file resumes the same experiment, one holding another is refused")
	train := fs.String("train", "", "train a player per rule set first: the loop under A and under B from one config, each to these budgets of its stage time (30m,90m), the experiment played at each budget by the two networks, the differences compared across budgets")
	fs.StringVar(&o.trainConfig, "train-config", "", "--train's run config (default: the game's quickstart, from the shipped network); its rules key is set to A's and B's")
	fs.StringVar(&o.trainDir, "train-dir", "", "--train's run directories, DIR/A and DIR/B (default: --out's name with .train)")
	fs.StringVar(&o.report, "report", "", "also write a report a researcher can cite into this directory: report.md (rule sets, outcomes with intervals and tests, a methods paragraph), analysis.json, outcomes.png, ends.png")
	progress := addProgressFlag(fs)
	fs.BoolVar(&o.json, "json", false, "print the analysis as JSON instead of the table (progress then goes to stderr)")
	if err := parseFlags(fs, args); err != nil {
		return o, err
	}
	switch {
	case o.rulesA == "" || o.rulesB == "":
		return o, usageError{"give --rules-a and --rules-b: the two rule sets compared (presets: " + presets + "; or YAML files)"}
	case o.net == "" && *train == "":
		return o, usageError{"--net: give a network checkpoint, uniform or random-evaluator (or --train: a player trained under each rule set)"}
	case o.out == "":
		return o, usageError{"--out: give the record file (FILE.jsonl; an existing one resumes)"}
	}
	if *train != "" {
		var last time.Duration
		for _, f := range strings.Split(*train, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(f))
			if err != nil || d <= last {
				return o, usagef("--train %q: want budgets in ascending order, as durations (30m,90m)", *train)
			}
			o.train, last = append(o.train, d), d
		}
		if o.net != "" || o.netB != "" {
			return o, usageError{"--train makes the players: leave out --net and --net-b"}
		}
		if o.json {
			return o, usageError{"--train prints an analysis a budget and their comparison; --json is for one experiment (each budget's analysis.json is in --report's directory)"}
		}
		if o.trainDir == "" {
			o.trainDir = strings.TrimSuffix(o.out, filepath.Ext(o.out)) + ".train"
		}
	} else if o.trainConfig != "" || o.trainDir != "" {
		return o, usageError{"--train-config and --train-dir are --train's"}
	}
	if o.report != "" && len(o.train) == 0 {
		if err := checkOwnDir("report", o.report, experiment.IsReportFile); err != nil {
			return o, err
		}
	}
	err := checkLowerBounds(
		lowerBound{flag: "nodes", value: o.sims, min: 1},
		lowerBound{flag: "max-plies", value: o.maxPlies, want: "0 (the rule sets' own caps) or more"},
		lowerBound{flag: "evaluators", value: o.evaluators, min: 1},
		lowerBound{flag: "cache", value: o.cache, want: "0 (none) or more"},
	)
	if err != nil {
		return o, err
	}
	if err := checkSettings(&o.match, experimentSettingsHelp); err != nil {
		return o, err
	}
	// Each of these reaches an allocation (a network copy, cache entries).
	for _, b := range []struct {
		flag       string
		value, max int
	}{{"evaluators", o.evaluators, arena.MaxEvaluators}, {"cache", o.cache, nn.MaxCacheEntries}} {
		if b.value > b.max {
			return o, usagef("--%s %d: want at most %d", b.flag, b.value, b.max)
		}
	}
	o.show, o.line, err = progressFlag(*progress, o.progressOut(stdout, stderr))
	return o, err
}

// progressOut is where progress goes: stdout, unless --json prints there.
func (o experimentOptions) progressOut(stdout, stderr io.Writer) io.Writer {
	if o.json {
		return stderr
	}
	return stdout
}

func experimentCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseExperimentFlags(args, stdout, stderr)
	if err != nil {
		return err
	}
	var sets [2]*rules.RuleSet
	for i, arg := range []string{o.rulesA, o.rulesB} {
		rs, err := rules.LoadRuleSet(arg)
		if err != nil {
			return fmt.Errorf("--rules-%c: %w", 'a'+i, err)
		}
		sets[i] = capRuleSet(rs, o.maxPlies)
	}
	if err := experiment.SameGame(sets[0], sets[1]); err != nil {
		return usagef("--rules-a %s --rules-b %s: %s", o.rulesA, o.rulesB, strings.TrimPrefix(err.Error(), "experiment: "))
	}
	if len(o.train) > 0 {
		return experimentStudy(ctx, o, sets, stdout, stderr)
	}
	_, err = playExperiment(ctx, o, sets, stdout, stderr)
	return err
}

// playExperiment plays (or resumes) the experiment o describes between
// sets, prints its analysis and writes its report, and returns the
// analysis; an interrupted one returns its interruption.
func playExperiment(ctx context.Context, o experimentOptions, sets [2]*rules.RuleSet, stdout, stderr io.Writer) (experiment.Analysis, error) {
	player, about, err := experimentPlayer(o, o.net, sets[0])
	if err != nil {
		return experiment.Analysis{}, fmt.Errorf("--net %s: %w", o.net, err)
	}
	var playerB arena.Player
	if o.netB != "" {
		var aboutB string
		if playerB, aboutB, err = experimentPlayer(o, o.netB, sets[1]); err != nil {
			return experiment.Analysis{}, fmt.Errorf("--net-b %s: %w", o.netB, err)
		}
		about = "A: " + about + "; B: " + aboutB
	}

	total := 2 * o.match.Pairs
	status := newStatus(o.progressOut(stdout, stderr), o.show, o.line)
	defer status.end()
	c := experiment.Config{A: sets[0], B: sets[1], Player: player, PlayerB: playerB, Settings: o.match,
		Seed: o.seed, Records: o.out, CodeVersion: codeVersion()}
	if o.show {
		status.logLine(fmt.Sprintf("experiment: %s (A) vs %s (B), %s, %d games each, records %s",
			sets[0], sets[1], player.Name(), o.match.Pairs, o.out))
		first := firstMoverName(sets[0])
		c.Progress = func(s experiment.Status) { status.update(experimentStatusLine(s, first)) }
	}

	res, runErr := experiment.Run(ctx, c)
	interrupted := stoppedBy(ctx, runErr)
	if runErr != nil && !interrupted {
		if strings.Contains(runErr.Error(), "holds another experiment") {
			return experiment.Analysis{}, fmt.Errorf("%w (give --out another file for a new experiment)", runErr)
		}
		return experiment.Analysis{}, runErr
	}
	status.end()
	an := experiment.Analyze(res.Header, res.Records)
	if o.json {
		doc := experimentJSON{Records: o.out, Games: o.match.Pairs, Recorded: len(res.Records), Played: res.Played,
			Before: res.Before, Interrupted: interrupted, RulesA: res.Header.A, RulesB: res.Header.B, Analysis: an}
		data, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return experiment.Analysis{}, err
		}
		if _, err := stdout.Write(append(data, '\n')); err != nil {
			return experiment.Analysis{}, err
		}
	} else {
		state := "finished"
		if interrupted {
			state = "interrupted (the pairs so far)"
		}
		fmt.Fprintf(stdout, "experiment %s: %d of %d games (%d played now, %d before), records %s\n",
			state, len(res.Records), total, res.Played, res.Before, o.out)
		if res.Beyond > 0 {
			fmt.Fprintf(stdout, "  (%d more recorded games, of indices past --games %d, left out)\n", res.Beyond, o.match.Pairs)
		}
		fmt.Fprintf(stdout, "  caps    %s; %s\n", capText(sets[0]), capText(sets[1]))
		fmt.Fprintf(stdout, "  search  %s\n", about)
		if err := an.WriteText(stdout); err != nil {
			return experiment.Analysis{}, err
		}
	}
	if o.report != "" {
		files, err := experiment.WriteReport(o.report, res.Header, an, experiment.Report{Search: about, Training: o.training, Records: o.out, CodeVersion: codeVersion()})
		for _, f := range files {
			fmt.Fprintf(stderr, "experiment: report %s\n", f)
		}
		if err != nil {
			return experiment.Analysis{}, fmt.Errorf("--report: %w", err)
		}
	}
	if interrupted {
		return an, interruption(ctx, "%d of %d games recorded in %s; run the same command again to resume", len(res.Records), total, o.out)
	}
	return an, nil
}

// experimentJSON is --json's document: the run, both rule sets in full,
// and the analysis's fields.
type experimentJSON struct {
	Records     string         `json:"records"`
	Games       int            `json:"games"`
	Recorded    int            `json:"recorded"`
	Played      int            `json:"played"`
	Before      int            `json:"before"`
	Interrupted bool           `json:"interrupted"`
	RulesA      *rules.RuleSet `json:"rules_a"`
	RulesB      *rules.RuleSet `json:"rules_b"`
	experiment.Analysis
}

// capRuleSet caps rs's games at maxPlies unless its own cap is already
// that short; the copy's hash changes with its cap, as it plays differently.
func capRuleSet(rs *rules.RuleSet, maxPlies int) *rules.RuleSet {
	if rs.MaxPlies > 0 && rs.MaxPlies <= maxPlies {
		return rs
	}
	return rs.WithMaxPlies(maxPlies)
}

func capText(rs *rules.RuleSet) string {
	if rs.MaxPlies == 0 {
		return rs.Name + " uncapped"
	}
	end := "a draw"
	if rs.Counting {
		end = "counted"
	}
	return fmt.Sprintf("%s at %d plies (%s)", rs.Name, rs.MaxPlies, end)
}

// experimentPlayer makes --net's player and says what it is: the arena's
// uniform and net players with the experiment's search (their names say
// only its simulations: its other settings are the defaults), or a search
// over the random evaluator: random-evaluator, so that random means the
// random mover everywhere; random, its old name, is still read here, where
// no random mover plays.
func experimentPlayer(o experimentOptions, net string, rs *rules.RuleSet) (arena.Player, string, error) {
	params := experiment.SearchParams(o.sims)
	budget := fmt.Sprintf("%d simulations a move, Gumbel noise on every move", o.sims)
	switch net {
	case "uniform":
		p, err := arena.PlayerSpec{Kind: arena.KindUniform, Search: params}.NewPlayer(nil)
		return p, "uniform evaluator, " + budget, err
	case "random-evaluator", "random":
		p, err := arena.NewSearch(fmt.Sprintf("random-evaluator/sims=%d", o.sims), params,
			func() (nn.Evaluator, error) { return nn.NewRandom(encode.InputSize, encode.PolicySize(), 1), nil },
			arena.SearchOptions{Evaluators: 1})
		return p, "random evaluator, " + budget, err
	}
	p, err := arena.PlayerSpec{Kind: arena.KindNet, Path: net, Search: params, Evaluators: o.evaluators, Cache: o.cache}.NewPlayer(rs)
	return p, fmt.Sprintf("%s, %s", net, budget), err
}

// experimentStatusLine is the running tally after a game.
func experimentStatusLine(s experiment.Status, first string) string {
	side := func(t experiment.Tally) string {
		if t.Games == 0 {
			return "–"
		}
		return fmt.Sprintf("%s %.3f, draws %.0f%%, %.0f plies", first, t.Score(), 100*float64(t.Draws)/float64(t.Games),
			float64(t.Plies)/float64(t.Games))
	}
	return fmt.Sprintf("games %d/%d  A: %s  B: %s", s.Recorded, s.Target, side(s.Tally[0]), side(s.Tally[1]))
}
