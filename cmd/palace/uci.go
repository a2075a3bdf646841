package main

import (
	"context"
	"io"

	"github.com/palace-chess/palace/engine"
	"github.com/palace-chess/palace/nn/model"
)

const uciUsage = `usage: palace uci [flags]

Speaks an engine protocol on standard input and output; the first line
chooses it: "uci" (UCI, Pikafish's ranks 0–9, or Fairy-Stockfish's ranks
1–10 once UCI_Variant is set), "ucci" (UCCI), or "xboard" (CECP, xboard's
protocol 2, as XBoard 4.9 and Fairy-Stockfish speak it: ranks 0–9, a pass
as @@@@; janggi is sent to XBoard as a setup command and its pieces' moves
in Betza notation). The variants are xiangqi and the janggi presets. See
the engine package's documentation (go doc ./engine) for the commands.`

// runUCI speaks UCI, UCI_Variant, UCCI or CECP (xboard) on stdin and
// stdout, the first line choosing: palace as an engine for GUIs and match
// runners (see package engine).
func runUCI(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("uci", stderr)
	setUsage(fs, uciUsage)
	netFile := fs.String("net", model.Builtin, "network checkpoint, loaded at the first isready or go; builtin: palace's own network for the variant (nets/); none: a uniform evaluator (equal priors, value 0)")
	nodes := fs.Int("nodes", 800, "simulations of a go without limits (the Nodes option)")
	threads := fs.Int("threads", 1, "copies of the network evaluating each batch in parallel (the Threads option)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *nodes < 1 || *nodes > 1<<24 {
		return usagef("--nodes %d: want 1–%d", *nodes, 1<<24)
	}
	if *threads < 1 || *threads > 256 {
		return usagef("--threads %d: want 1–256", *threads)
	}
	if *netFile != "" && *netFile != model.Builtin && *netFile != model.NoNetwork {
		// Loaded again at isready (for the variant then set), but a file
		// that is no network is better said now, with an exit status a
		// GUI shows, than as an info string it may hide.
		if _, err := model.LoadPlayable(*netFile); err != nil {
			return err
		}
	}
	e := engine.New(engine.Options{Network: *netFile, Nodes: *nodes, Threads: *threads, Version: codeVersion()})
	return e.Run(context.Background(), stdin, stdout)
}
