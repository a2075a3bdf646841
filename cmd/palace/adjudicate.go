package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/palace-chess/palace/rules"
)

// errBatchHadErrors marks a batch that finished but had bad lines.
var errBatchHadErrors = errors.New("some lines had errors (see the error lines in the output)")

func runAdjudicate(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("adjudicate", stderr)
	rulesArg := addRuleSetFlag(fs)
	batch := fs.String("batch", "", "read START_FEN<TAB>MOVES lines (moves in ranks 1–10, space-separated) from FILE ('-' for stdin); write RESULT<TAB>REASON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *batch == "" {
		return usageError{"--batch FILE is required"}
	}
	rs, err := rules.LoadRuleSet(*rulesArg)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	bad := 0
	err = batchLines(*batch, stdin, func(line string) error {
		r, err := adjudicateLine(rs, line)
		if err != nil {
			bad++
			fmt.Fprintf(out, "error\t%s\n", strings.ReplaceAll(err.Error(), "\t", " "))
			return nil
		}
		fmt.Fprintf(out, "%s\t%s\n", r.Score(), r.Reason)
		return nil
	})
	if err != nil {
		return err
	}
	if bad > 0 {
		out.Flush()
		return fmt.Errorf("%d of the lines: %w", bad, errBatchHadErrors)
	}
	return nil
}

// adjudicateLine replays one START_FEN<TAB>MOVES line and returns the
// result after the last move. A move that does not parse, is illegal, or
// comes after the game has ended is an error naming its index (from 1).
func adjudicateLine(rs *rules.RuleSet, line string) (rules.Result, error) {
	fen, moves, _ := strings.Cut(line, "\t")
	g, err := rules.NewGame(rs, strings.TrimSpace(fen))
	if err != nil {
		return rules.Result{}, err
	}
	for i, text := range strings.Fields(moves) {
		if r := g.Result(); r.Over() {
			return rules.Result{}, fmt.Errorf("move %d (%s): the game was already over after move %d: %s", i+1, text, i, r)
		}
		m, err := rules.ParseMoveText(text, rules.Ranks1)
		if err != nil {
			return rules.Result{}, fmt.Errorf("move %d: %w", i+1, err)
		}
		if !g.IsLegal(m) {
			return rules.Result{}, fmt.Errorf("move %d (%s): illegal in %s", i+1, text, g.Position().FEN())
		}
		g.Play(m)
	}
	return g.Result(), nil
}
