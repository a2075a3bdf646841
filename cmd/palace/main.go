// Command palace teaches itself Xiangqi and Janggi by self-play and serves
// the tools around it. Each subcommand lives in its own file.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
)

type command struct {
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
	// subs are the command's subcommands (palace net init), for palace
	// help and the tests that walk the table; the command runs them.
	subs []subcommand
}

// commands is the command table. It is filled in init: the commands'
// help reads it (commandSummary), which a variable's initializer could
// not do without a cycle.
var commands map[string]command

func init() {
	commands = commandTable()
}

func commandTable() map[string]command {
	return map[string]command{
		"perft":      {"count legal-move tree leaves (single position or a batch file)", runPerft, nil},
		"report":     {"print a run's generations and draw its Elo and loss charts", runReport, nil},
		"run":        {"palace's main job: generations of self-play, training and gating in one resumable run directory", runRun, nil},
		"experiment": {"play paired self-play games under two rule sets and compare first-move advantage, draws, length and endings", runExperiment, nil},
		"import":     {"read game records (PGN in ICCS, WXF or Chinese notation, Fairy-Stockfish PGN, janggi .gib, XQStudio .xqf, CCBridge .cbr/.cbl) into a palace games file", runImport, nil},
		"export":     {"write games (imported, self-play, a run's) as PGN for liground and pychess-variants", runExport, nil},
		"moves":      {"list the legal moves of positions", runMoves, nil},
		"adjudicate": {"decide game results from a start FEN and moves (batch)", runAdjudicate, nil},
		"ladder":     {"rate a player on an absolute scale (Fairy-Stockfish at fixed node counts), or calibrate a scale", runLadder, ladderSubcommands},
		"arena":      {"play a match between players (palace networks, UCI/UCCI engines, a random mover) and report W/D/L, Elo and the SPRT", runArena, nil},
		"openings":   {"opening statistics from game records: move frequencies, W/D/L and scores with 95% intervals per position; janggi setup matrix", runOpenings, nil},
		"net":        {"create (init), describe (info), measure (bench) and evaluate (eval) networks", runNet, netSubcommands},
		"serve":      {"a local web app over runs, games and records: dashboards, a game viewer, the opening explorer, play a network", runServe, nil},
		"search":     {"search a position with MCTS (a network, or a uniform evaluator)", runSearch, nil},
		"selfplay":   {"play games against itself and write training shards (resumes where it stopped)", runSelfplay, nil},
		"shard":      {"describe (inspect) one shard, or check (verify) a shard directory and replay its games", runShard, shardSubcommands},
		"uci":        {"speak UCI/UCCI or xboard (CECP) to GUIs and other programs (palace as an engine)", runUCI, nil},
		"worker":     {"play a distributed run's self-play and arena jobs from its NATS queue (any number, anywhere)", runWorker, nil},
		"train":      {"learn from recorded games: train a network on imported game records, measured on held-out games", runTrain, nil},
		"trainer":    {"a distributed run's trainer: starts the run, enqueues self-play, trains (one per run)", runTrainer, nil},
		"status":     {"show a distributed run as its NATS server holds it: generation, best network, queue, trainer, workers seen lately, last gates", runStatus, nil},
		"simulate":   {"predict a distributed run's throughput and workers' busy share at more workers, from measured job times (exact and asynchronous modes)", runSimulate, nil},
		"gatekeeper": {"a distributed run's gatekeeper: plays each candidate's match through the workers, decides, promotes (one per run)", runGatekeeper, nil},
		"version":    {"print palace's version and build information", runVersion, nil},
	}
}

// commandSummary is the summary of a command ("net") or subcommand ("net
// init") in the table; "" for none.
func commandSummary(name string) string {
	head, sub, _ := strings.Cut(name, " ")
	c, ok := commands[head]
	if !ok {
		return ""
	}
	if sub == "" {
		return c.summary
	}
	for _, s := range c.subs {
		if s.name == sub {
			return s.summary
		}
	}
	return ""
}

// isHelp tells whether arg asks for a command's list of commands.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "help"
}

// writeCommandList writes a usage: the synopsis, then the commands
// (name and summary) under heading, then a hint.
func writeCommandList(w io.Writer, synopsis, heading string, list [][2]string, hint string) {
	fmt.Fprintf(w, "usage: %s\n\n%s:\n", synopsis, heading)
	for _, c := range list {
		fmt.Fprintf(w, "  %-10s %s\n", c[0], c[1])
	}
	fmt.Fprintf(w, "\n%s\n", hint)
}

func usage(w io.Writer) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	list := make([][2]string, len(names))
	for i, n := range names {
		list[i] = [2]string{n, commands[n].summary}
	}
	writeCommandList(w, "palace <command> [flags]", "commands", list,
		"Run 'palace help <command>' or 'palace <command> -h' for a command's usage and flags.")
}

// runHelp is palace help [COMMAND [SUBCOMMAND]]: the general usage, or
// the command's own, as its -h prints it.
func runHelp(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 0
	}
	if _, ok := commands[args[0]]; !ok {
		fmt.Fprintf(stderr, "palace help: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	if len(args) > 2 {
		fmt.Fprintf(stderr, "palace help: want a command and at most one subcommand: palace help %s [SUBCOMMAND]\n", args[0])
		return 2
	}
	return run(append(slices.Clone(args), "-h"), stdin, stdout, stderr)
}

// subcommand is one verb of a command that has several (palace net init).
type subcommand struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

// runSubcommand runs the subcommand args[0] names; want is the usage
// error without one. -h lists them (exit status 0).
func runSubcommand(command, want string, subs []subcommand, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{want}
	}
	names := make([]string, len(subs))
	list := make([][2]string, len(subs))
	for i, s := range subs {
		if s.name == args[0] {
			return s.run(args[1:], stdout, stderr)
		}
		names[i], list[i] = s.name, [2]string{s.name, s.summary}
	}
	if isHelp(args[0]) {
		writeCommandList(stderr, "palace "+command+" <subcommand> [flags]", "subcommands", list,
			"Run 'palace "+command+" <subcommand> -h' for a subcommand's flags.")
		return flag.ErrHelp
	}
	last := len(names) - 1
	return usagef("unknown subcommand %q: want %s or %s", args[0], strings.Join(names[:last], ", "), names[last])
}

// run is main without the process: tests call it directly.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "help" {
		return runHelp(args[1:], stdin, stdout, stderr)
	}
	if len(args) == 0 || isHelp(args[0]) {
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
	if err := checkEnv(); err != nil {
		fmt.Fprintf(stderr, "palace: %v\n", err)
		return 1
	}
	stopProfile, err := startProfile(args[1:])
	if err != nil {
		fmt.Fprintf(stderr, "palace: %v\n", err)
		return 1
	}
	out := &checkedWriter{w: stdout}
	err = cmd.run(args[1:], stdin, out, stderr)
	if perr := stopProfile(); perr != nil && (err == nil || errors.Is(err, flag.ErrHelp)) {
		err = perr
	}
	if (err == nil || errors.Is(err, flag.ErrHelp)) && out.err != nil {
		// A command's output that did not reach its reader (a full disk)
		// is a failure, whatever the command thought of it.
		err = fmt.Errorf("writing the output: %w", out.err)
	}
	var interrupted interruptedError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(usageError)):
		fmt.Fprintf(stderr, "palace %s: %v\n", args[0], err)
		return 2
	case errors.As(err, &interrupted):
		fmt.Fprintf(stderr, "palace %s: %v\n", args[0], err)
		return interrupted.exitCode()
	default:
		fmt.Fprintf(stderr, "palace %s: %v\n", args[0], err)
		return 1
	}
}

// checkedWriter is a command's standard output: it keeps the first write
// error, so that run can report output that was lost even where a
// command's printing ignores errors (fmt.Fprintf, a deferred Flush).
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// Fd is the underlying file's descriptor (for terminal checks), or an
// invalid one where the output is not a file.
func (c *checkedWriter) Fd() uintptr {
	if f, ok := c.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
