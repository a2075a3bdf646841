// Command palace teaches itself Xiangqi and Janggi by self-play and serves
// the tools around it. Each subcommand lives in its own file.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

type command struct {
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

var commands = map[string]command{
	"perft":      {"count legal-move tree leaves (single position or a batch file)", runPerft},
	"report":     {"print a run's generations and draw its Elo and loss charts", runReport},
	"run":        {"palace's main job: generations of self-play, training and gating in one resumable run directory", runRun},
	"experiment": {"play paired self-play games under two rule sets and compare first-move advantage, draws, length and endings", runExperiment},
	"import":     {"read game records (PGN in ICCS, WXF or Chinese notation, Fairy-Stockfish PGN, janggi .gib) into a palace games file", runImport},
	"export":     {"write games (imported, self-play, a run's) as PGN for liground and pychess-variants", runExport},
	"moves":      {"list the legal moves of positions", runMoves},
	"adjudicate": {"decide game results from a start FEN and moves (batch)", runAdjudicate},
	"arena":      {"play a match between players (palace networks, UCI/UCCI engines, a random mover) and report W/D/L, Elo and the SPRT", runArena},
	"openings":   {"opening statistics from game records: move frequencies, W/D/L and scores with 95% intervals per position; janggi setup matrix", runOpenings},
	"net":        {"create (init), describe (info) and measure (bench) networks", runNet},
	"search":     {"search a position with MCTS (a network, or a uniform evaluator)", runSearch},
	"selfplay":   {"play games against itself and write training shards (resumes where it stopped)", runSelfplay},
	"shard":      {"describe (inspect) one shard, or check (verify) a shard directory and replay its games", runShard},
	"uci":        {"speak UCI/UCCI to GUIs and other programs (palace as an engine)", runUCI},
	"worker":     {"play a distributed run's self-play and arena jobs from its NATS queue (any number, anywhere)", runWorker},
	"trainer":    {"a distributed run's trainer: starts the run, enqueues self-play, trains (one per run)", runTrainer},
	"gatekeeper": {"a distributed run's gatekeeper: plays each candidate's match through the workers, decides, promotes (one per run)", runGatekeeper},
	"version":    {"print palace's version and build information", runVersion},
}

// usageError marks a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: palace <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'palace <command> -h' for a command's flags.")
}

// run is main without the process: tests call it directly.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "palace: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	err := cmd.run(args[1:], stdin, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(usageError)):
		fmt.Fprintf(stderr, "palace %s: %v\n", args[0], err)
		return 2
	default:
		fmt.Fprintf(stderr, "palace %s: %v\n", args[0], err)
		return 1
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// newFlagSet makes a subcommand's flag set that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("palace "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses and turns flag mistakes into usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}

// parseArgs parses flags wherever they stand among the positional
// arguments (palace openings games.jsonl --depth 4), all of them after
// "--", and returns the positional ones.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		left := fs.Args()
		if len(left) == 0 {
			return rest, nil
		}
		if n := len(args) - len(left); n > 0 && args[n-1] == "--" {
			return append(rest, left...), nil
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
}
