package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/palace-chess/palace/cluster/sim"
)

// runSimulate predicts a distributed run's throughput and busy shares for
// more workers than one has, from measured job times (package
// cluster/sim), in the exact mode and the asynchronous one. The defaults
// are the xiangqi quickstart on a 2-core worker of this project's machine
// (issue 46: about 650 positions a second, 970 samples a second for the
// trainer), with the gate's pair time fitted to the quickstart hour's
// split (self-play 25%, training 37%, gate 35%).
func runSimulate(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("simulate", stderr)
	workers := fs.String("workers", "1,2,4,8,32,128", "comma-separated worker counts to simulate")
	modes := fs.String("modes", "exact,async", "comma-separated modes: exact (today's distributed run: stages one after another) and async (workers always play, the trainer trains alongside)")
	blockSeconds := fs.Float64("block-seconds", 6, "seconds a worker takes for one self-play block (measure it: a worker's log)")
	blockCV := fs.Float64("block-cv", 0.3, "the blocks' times' coefficient of variation (standard deviation over mean)")
	blockPositions := fs.Float64("block-positions", 3840, "positions one self-play block makes")
	blocks := fs.Int("blocks", 2, "self-play blocks a generation (the config's games over games_per_shard)")
	trainRate := fs.Float64("train-rate", 970, "samples a second the trainer trains (go test -bench TrainStep ./nn/gnet, or the trainer's log)")
	ratio := fs.Float64("samples-per-position", 2, "the config's train.samples_per_position")
	minPositions := fs.Float64("min-positions", 10000, "the config's train.window.min_rows: training starts at this many positions")
	gatePairs := fs.Int("gate-pairs", 30, "pairs a gate plays on average (the sequential test's early stops counted; 0: ungated)")
	pairSeconds := fs.Float64("pair-seconds", 0.5, "seconds a worker takes for one gate pair")
	pairCV := fs.Float64("pair-cv", 0.3, "the pairs' times' coefficient of variation")
	hours := fs.Float64("hours", 1, "simulated hours")
	seed := fs.Uint64("seed", 1, "the job times' random seed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	counts, err := parseInts(*workers)
	if err != nil {
		return usagef("--workers %q: %v", *workers, err)
	}
	var results []sim.Result
	for _, mode := range strings.Split(*modes, ",") {
		for _, w := range counts {
			r, err := sim.Run(sim.Params{Mode: strings.TrimSpace(mode), Workers: w,
				BlockSeconds: *blockSeconds, BlockCV: *blockCV, BlockPositions: *blockPositions, BlocksPerGeneration: *blocks,
				TrainRate: *trainRate, SamplesPerPosition: *ratio, MinPositions: *minPositions,
				GatePairs: *gatePairs, PairSeconds: *pairSeconds, PairCV: *pairCV,
				Duration: *hours * 3600, Seed: *seed})
			if err != nil {
				return usageError{err.Error()}
			}
			results = append(results, r)
		}
	}
	return writeSimulation(stdout, results)
}

// writeSimulation prints the results as a markdown table, then where each
// mode's trainer becomes the bound.
func writeSimulation(w io.Writer, results []sim.Result) error {
	p := results[0].Params
	fmt.Fprintf(w, "self-play blocks of %.0f positions in %.3g s (CV %.2g), %d a generation; trainer %.0f samples/s at %.3g samples a position from %.0f positions; ",
		p.BlockPositions, p.BlockSeconds, p.BlockCV, p.BlocksPerGeneration, p.TrainRate, p.SamplesPerPosition, p.MinPositions)
	if p.GatePairs > 0 {
		fmt.Fprintf(w, "gates of %d pairs of %.3g s (CV %.2g); ", p.GatePairs, p.PairSeconds, p.PairCV)
	} else {
		fmt.Fprint(w, "ungated; ")
	}
	fmt.Fprintf(w, "%.3g simulated hours, seed %d\n\n", p.Duration/3600, p.Seed)
	fmt.Fprintln(w, "| mode | workers | positions/s | workers busy | trainer busy | samples/s | samples a position | candidates | gates |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	bound := map[string]int{}
	for _, r := range results {
		fmt.Fprintf(w, "| %s | %d | %.1f | %.1f%% | %.1f%% | %.0f | %.2f | %d | %d |\n", r.Mode, r.Workers, r.PositionsPerSecond,
			100*r.WorkerBusy, 100*r.TrainerBusy, r.SamplesPerSecond, r.AchievedRatio, r.Candidates, r.Gates)
		if _, seen := bound[r.Mode]; !seen && r.TrainerBusy >= 0.99 {
			bound[r.Mode] = r.Workers
		}
	}
	fmt.Fprintln(w)
	for _, r := range results {
		if n, ok := bound[r.Mode]; ok {
			fmt.Fprintf(w, "%s: the trainer is the bound from %d workers: each position then gets fewer samples than asked (a faster trainer, a lower samples_per_position, or a bigger batch)\n", r.Mode, n)
			delete(bound, r.Mode)
		}
	}
	return nil
}
