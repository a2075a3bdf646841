package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/train"
)

var netSubcommands = []subcommand{
	{"init", "create a network with random weights (--config shape, --rules)", runNetInit},
	{"grow", "deepen a network by identity blocks (--blocks N in all) that training then puts to use", runNetGrow},
	{"info", "describe a checkpoint: shape, parameters, encoding, training, provenance", runNetInfo},
	{"bench", "measure a network's inference speed at several batch sizes", runNetBench},
	{"eval", "a network's move prediction and losses on games files or shard directories, against predictors that know nothing", runNetEval},
}

func runNet(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runSubcommand("net", "want a subcommand: palace net init|grow|info|bench|eval", netSubcommands, args, stdout, stderr)
}

func runNetInit(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("net init", stderr)
	setSynopsis(fs, "palace net init --out FILE [flags]")
	config := fs.String("config", "", "network shape YAML (configs/net-6x64.yaml); default 6 blocks × 64 filters")
	out := fs.String("out", "", "checkpoint file to write")
	seed := fs.Uint64("seed", 1, "random seed for the initial weights")
	rulesList := fs.String("rules", "xiangqi", "comma-separated rule sets (presets or YAML files) the network is for")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError{"--out FILE is required"}
	}
	cfg := model.DefaultConfig()
	if *config != "" {
		var err error
		if cfg, err = model.LoadConfig(*config); err != nil {
			return err
		}
	}
	sets, err := loadRuleSetList(*rulesList)
	if err != nil {
		return err
	}
	ck, err := model.RandomCheckpoint(cfg, sets, model.Provenance{CodeVersion: codeVersion(), Seed: *seed})
	if err != nil {
		return err
	}
	if err := ck.Save(*out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: network %s, %d blocks × %d filters\n", *out, ck.Weights.ID(), cfg.Blocks, cfg.Filters)
	return nil
}

func runNetGrow(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("net grow", stderr)
	setSynopsis(fs, "palace net grow --blocks N --out FILE [flags] NET")
	blocks := fs.Int("blocks", 0, "residual blocks the grown network has in all (more than NET's)")
	out := fs.String("out", "", "checkpoint file to write")
	seed := fs.Uint64("seed", 1, "random seed for the new blocks' convolutions")
	ck, file, err := parseCheckpointArg(fs, args, "want one checkpoint file: palace net grow --blocks N --out FILE NET")
	if err != nil {
		return err
	}
	if *out == "" {
		return usageError{"--out FILE is required"}
	}
	if *blocks <= 0 {
		return usageError{"--blocks N is required: the blocks of the grown network, in all"}
	}
	if err := checkOut("out", *out, file); err != nil {
		return err
	}
	w, err := model.Deepen(ck.Weights, *blocks, *seed)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	grown := *ck
	grown.Weights, grown.Optimizer = w, nil // the new tensors have no optimizer state
	grown.Provenance = model.Provenance{CodeVersion: codeVersion(), Seed: *seed, Created: time.Now().UTC().Format(time.RFC3339),
		Parent: ck.Weights.ID(),
		Note: fmt.Sprintf("%s (network %s, %d blocks) deepened to %d blocks by identity blocks; it was: %s",
			file, ck.Weights.ID(), ck.Weights.Config.Blocks, *blocks, ck.Provenance.Note)}
	if err := grown.Save(*out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: network %s, %d blocks × %d filters (from %s's %d; it computes the same until trained)\n",
		*out, w.ID(), w.Config.Blocks, w.Config.Filters, file, ck.Weights.Config.Blocks)
	return nil
}

// parseCheckpointArg parses flags and one checkpoint FILE, and loads it;
// want is the usage error without one.
func parseCheckpointArg(fs *flag.FlagSet, args []string, want string) (*model.Checkpoint, string, error) {
	file, err := parseOneArg(fs, args, want)
	if err != nil {
		return nil, "", err
	}
	ck, err := model.Load(file)
	return ck, file, err
}

func runNetInfo(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("net info", stderr)
	setSynopsis(fs, "palace net info FILE")
	ck, file, err := parseCheckpointArg(fs, args, "want one checkpoint file: palace net info FILE")
	if err != nil {
		return err
	}
	c := ck.Weights.Config
	params := 0
	for _, t := range c.Tensors() {
		params += t.Size()
	}
	fmt.Fprintf(stdout, "file            %s\n", file)
	fmt.Fprintf(stdout, "network         %s\n", ck.Weights.ID())
	reply := ""
	if c.ReplyPolicy {
		reply = "; a reply head (training's alone)"
	}
	fmt.Fprintf(stdout, "shape           %d blocks × %d filters; %d input planes; %d policy slots; heads %d/%d channels, value %d hidden%s\n",
		c.Blocks, c.Filters, c.Planes, c.PolicySize, c.PolicyChannels, c.ValueChannels, c.ValueHidden, reply)
	fmt.Fprintf(stdout, "parameters      %d\n", params)
	fmt.Fprintf(stdout, "cost            %.1f MFLOP per position\n", float64(c.FLOPs())/1e6)
	fmt.Fprintf(stdout, "encoding        version %d\n", ck.EncodingVersion)
	fmt.Fprintf(stdout, "rule sets       %s\n", strings.Join(ck.RuleSets, ", "))
	if len(ck.Games) > 0 {
		fmt.Fprintf(stdout, "games           %s\n", strings.Join(ck.Games, ", "))
	}
	fmt.Fprintf(stdout, "training        %d steps, %d samples\n", ck.Steps, ck.Samples)
	if o := ck.Optimizer; o != nil {
		fmt.Fprintf(stdout, "optimizer       %s, step %d, %v, %d state tensors\n", o.Name, o.Step, o.Params, len(o.Tensors))
	} else {
		fmt.Fprintf(stdout, "optimizer       none (inference only)\n")
	}
	p := ck.Provenance
	fmt.Fprintf(stdout, "provenance      code %s, seed %d, created %s", p.CodeVersion, p.Seed, p.Created)
	if p.Parent != "" {
		fmt.Fprintf(stdout, ", parent %s", p.Parent)
	}
	fmt.Fprintln(stdout)
	if p.Note != "" {
		fmt.Fprintf(stdout, "note            %s\n", p.Note)
	}
	if p.Run != "" {
		fmt.Fprintf(stdout, "run             %s, generation %d\n", p.Run, p.Generation)
	}
	if a := ck.Ancestry(); len(a) > 0 {
		slices.Reverse(a)
		fmt.Fprintf(stdout, "descends from   %s (parent first, %d in all)\n", strings.Join(a, " ← "), len(a))
	}
	return nil
}

// Limits of net bench's numbers.
const (
	maxBenchBatch     = 4096
	maxBenchWorkers   = 256
	maxBenchPositions = 1 << 20
)

func runNetBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("net bench", stderr)
	setSynopsis(fs, "palace net bench [flags] FILE")
	batches := fs.String("batch", "1,8,32", "comma-separated batch sizes")
	positions := fs.Int("positions", 256, "positions each worker evaluates per batch size")
	workers := fs.Int("workers", runtime.NumCPU(), "inference workers, one network copy each (one per core is the intended use)")
	kernelName := fs.String("kernel", "", "the network's kernel path: auto, bf16, avx512 or blas (default: PALACE_KERNEL's, else auto)")
	ck, _, err := parseCheckpointArg(fs, args, "want one checkpoint file: palace net bench [flags] FILE")
	if err != nil {
		return err
	}
	kernel, err := model.DefaultKernel()
	if *kernelName != "" {
		kernel, err = model.ParseKernel(*kernelName)
		if err != nil {
			err = usagef("--kernel: %v", err)
		}
	}
	if err != nil {
		return err
	}
	// Bounds that keep a mistyped number from an out-of-memory: a batch's
	// buffers take about 30 KB a position, and every worker a network copy.
	if *workers < 1 || *workers > maxBenchWorkers {
		return usagef("--workers %d: want 1 to %d", *workers, maxBenchWorkers)
	}
	if *positions < 1 || *positions > maxBenchPositions {
		return usagef("--positions %d: want 1 to %d", *positions, maxBenchPositions)
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	nets := make([]*model.Net, *workers)
	for i := range nets {
		if nets[i], err = model.NewNetKernel(ck.Weights, kernel); err != nil {
			return err
		}
	}
	c := ck.Weights.Config
	fmt.Fprintf(stdout, "network %s: %.1f MFLOP per position; kernel %s (this CPU: %s); other GEMMs by %s; %d workers\n",
		ck.Weights.ID(), float64(c.FLOPs())/1e6, kernel, model.SupportedKernels(), model.BLAS(), *workers)
	for _, s := range strings.Split(*batches, ",") {
		batch, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || batch < 1 || batch > maxBenchBatch {
			return usagef("batch size %q: want 1 to %d", s, maxBenchBatch)
		}
		rounds := max(1, *positions/batch)
		for _, net := range nets { // warm-up: each worker's scratch space
			if err := net.Forward(batch, make([]float32, batch*c.InputSize()), make([]float32, batch*c.PolicySize), make([]float32, batch*3)); err != nil {
				return err
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, len(nets))
		start := time.Now()
		for i, net := range nets {
			wg.Add(1)
			go func() {
				defer wg.Done()
				input := make([]float32, batch*c.InputSize())
				for j := range input {
					input[j] = float32(j % 2)
				}
				policy, wdl := make([]float32, batch*c.PolicySize), make([]float32, batch*3)
				for r := 0; r < rounds && errs[i] == nil; r++ {
					errs[i] = net.Forward(batch, input, policy, wdl)
				}
			}()
		}
		wg.Wait()
		secs := time.Since(start).Seconds()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		n := float64(rounds * batch * len(nets))
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		perWorker := float64(after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc)) / float64(len(nets)) / (1 << 20)
		fmt.Fprintf(stdout, "batch %3d: %8.1f positions/s  %6.2f GFLOP/s  %5.1f MB per worker\n", batch, n/secs, n*float64(c.FLOPs())/secs/1e9, perWorker)
	}
	return nil
}

// runNetEval prints a network's move prediction and losses on recorded
// games (train.EvalGames) or on shard directories (train.Eval): on games it
// did not train on, whether its policy predicts the moves played and its
// value head the results better than predictors that know nothing.
func runNetEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("net eval", stderr)
	setSynopsis(fs, "palace net eval --net FILE (--games PATH | DIR...) [flags]")
	netFile := fs.String("net", "", "checkpoint file to evaluate")
	var games stringList
	fs.Var(&games, "games", "a games file (palace import's) or a directory of them, instead of shard directories; give it once per path")
	rulesList := fs.String("rules", "", "comma-separated rule sets (presets or YAML files) of shards without self-play game records; those with records name their own. With --games: keep the games under these rule-set names")
	maxPlies := fs.Int("max-plies", 0, "the length cap the --rules shards were played under (it is part of the rule set)")
	minPlies := fs.Int("min-plies", 0, "with --games: drop games shorter than this")
	openingPlies := fs.Int("opening-plies", 0, "with --games: the first N plies of each game only (0: whole games)")
	every := fs.Int("every", 1, "evaluate one position in this many")
	heldOut := fs.Float64("held-out", 0, "with --games: only the games palace train --held-out SHARE holds out of training (its split by game; 0: every game)")
	splitSeed := fs.Uint64("split-seed", 1, "with --held-out: the split's seed, the training config's seed (the built-in configs/train-games.yaml's: 1)")
	dirs, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if *netFile == "" || (len(dirs) == 0) == (len(games) == 0) {
		return usageError{"want --net FILE and either games or shard directories: palace net eval --net FILE --games PATH, or palace net eval --net FILE DIR..."}
	}
	if *every < 1 || *maxPlies < 0 || *minPlies < 0 || *openingPlies < 0 || !(*heldOut >= 0 && *heldOut < 1) {
		return usagef("--every %d, --max-plies %d, --min-plies %d, --opening-plies %d, --held-out %v: want ≥ 1, ≥ 0, ≥ 0, ≥ 0, a share in [0, 1)", *every, *maxPlies, *minPlies, *openingPlies, *heldOut)
	}
	if len(games) > 0 {
		filter := train.GameFilter{MinPlies: *minPlies, OpeningPlies: *openingPlies, KeepDuplicates: true, HeldOut: *heldOut, Seed: *splitSeed}
		return evalGames(stdout, *netFile, games, *rulesList, filter, *every)
	}
	if *heldOut > 0 {
		return usageError{"--held-out is for --games: shard directories have no held-out split"}
	}
	ck, err := model.LoadPlayable(*netFile)
	if err != nil {
		return err
	}
	var sets []*rules.RuleSet
	if *rulesList != "" {
		if sets, err = loadRuleSetList(*rulesList); err != nil {
			return err
		}
		for i, rs := range sets {
			sets[i] = capRuleSet(rs, *maxPlies)
		}
	}
	// Self-play writes each shard's games with the full rule set beside it.
	for _, dir := range dirs {
		m, err := datasets.ReadManifest(dir)
		if err != nil {
			return err
		}
		for _, s := range m.Shards {
			path := selfplay.GamesPath(filepath.Join(dir, s.Name))
			if _, err := os.Stat(path); err != nil {
				continue // no records: --rules must name its rule set
			}
			gf, err := gamerec.Read(path)
			if err != nil {
				return err
			}
			sets = append(sets, gf.SelfPlayRuleSet())
		}
	}
	ev, err := model.NewEvaluators(ck.Weights, runtime.NumCPU())
	if err != nil {
		return err
	}
	rep, err := train.Eval(ev, dirs, sets, train.EvalOptions{Every: *every, CheckRuleSet: ck.CheckRuleSet})
	if err != nil {
		return err
	}
	printEvalReport(stdout, ck, *netFile, rep, "searched positions")
	return nil
}

// evalGames is net eval over recorded games.
func evalGames(stdout io.Writer, netFile string, games []string, rulesList string, filter train.GameFilter, every int) error {
	if rulesList != "" {
		for _, r := range strings.Split(rulesList, ",") {
			filter.RuleSets = append(filter.RuleSets, strings.TrimSpace(r))
		}
	}
	ev, ck, err := model.OpenEvaluator(netFile, nil, runtime.NumCPU())
	if err != nil {
		return err
	}
	rep, dropped, err := train.EvalGames(ev, games, filter, train.EvalOptions{Every: every, Batch: 256, CheckRuleSet: ck.CheckRuleSet, HeldOutOnly: filter.HeldOut > 0})
	if err != nil {
		return err
	}
	if n := dropped.Total(); n > 0 {
		fmt.Fprintf(stdout, "games dropped   %d (%d under other rule sets, %d shorter than %d plies)\n", n, dropped.RuleSet, dropped.Short, filter.MinPlies)
	}
	if filter.HeldOut > 0 {
		fmt.Fprintf(stdout, "games           %d held out of training (share %v, split seed %d)\n", rep.Games, filter.HeldOut, filter.Seed)
	}
	printEvalReport(stdout, ck, netFile, rep, "positions")
	return nil
}

// printEvalReport prints net eval's report.
func printEvalReport(w io.Writer, ck *model.Checkpoint, file string, rep train.EvalReport, policyWhat string) {
	fmt.Fprintf(w, "network         %s (%s)\n", ck.Weights.ID(), file)
	fmt.Fprintf(w, "positions       %d (wins %d, draws %d, losses %d to the side to move", rep.Positions, rep.Results[0], rep.Results[1], rep.Results[2])
	if n := rep.Positions - rep.ValuePositions; n > 0 {
		fmt.Fprintf(w, "; %d without a result", n)
	}
	fmt.Fprintln(w, ")")
	if rep.ValuePositions > 0 {
		fmt.Fprintf(w, "wdl loss        %.4f (a constant predictor: %.4f)\n", rep.WDLCE, rep.ConstWDLCE)
		fmt.Fprintf(w, "value mse       %.4f (a constant predictor: %.4f)\n", rep.ValueMSE, rep.ConstValueMSE)
	}
	if rep.PolicyPositions > 0 {
		fmt.Fprintf(w, "top-1           %.2f%% (a uniform choice: %.2f%%)\n", 100*rep.Top1, 100*rep.UniformTop1)
		fmt.Fprintf(w, "top-3           %.2f%% (a uniform choice: %.2f%%)\n", 100*rep.Top3, 100*rep.UniformTop3)
		fmt.Fprintf(w, "policy loss     %.4f over %d %s (the targets' entropy: %.4f; a uniform choice: %.4f)\n", rep.PolicyCE, rep.PolicyPositions, policyWhat, rep.TargetEntropy, rep.UniformCE)
	}
}
