package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/palace-chess/palace/rules"
)

// positionFlags are the flags every command that takes one position shares:
// --rules, --fen or --start, and janggi's --setup.
type positionFlags struct {
	rules string
	fen   string
	start bool
	setup string
}

// newPositionFlagSet makes a command's flag set with the position flags on it.
func newPositionFlagSet(name string, stderr io.Writer) (*flag.FlagSet, *positionFlags) {
	fs := newFlagSet(name, stderr)
	pf := new(positionFlags)
	pf.register(fs)
	return fs, pf
}

func (pf *positionFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&pf.rules, "rules", "xiangqi", ruleSetUsage)
	fs.StringVar(&pf.fen, "fen", "", "position as FEN (ranks 1–10 moves, Fairy-Stockfish format)")
	fs.BoolVar(&pf.start, "start", false, "use the rule set's start position")
	fs.StringVar(&pf.setup, "setup", "", "janggi start setups CHO,HAN, each one of masangsangma, masangmasang, sangmasangma, sangmamasang (with --start)")
}

// parse parses the command line and loads the rule set --rules names.
func (pf *positionFlags) parse(fs *flag.FlagSet, args []string) (*rules.RuleSet, error) {
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	return rules.LoadRuleSet(pf.rules)
}

// startFEN resolves --fen / --start / --setup to one FEN.
func (pf *positionFlags) startFEN(rs *rules.RuleSet) (string, error) {
	switch {
	case pf.fen != "" && pf.start:
		return "", usageError{"give --fen or --start, not both"}
	case pf.setup != "" && !pf.start:
		return "", usageError{"--setup goes with --start"}
	case pf.fen != "":
		return pf.fen, nil
	case !pf.start:
		return "", usageError{"give a position: --fen FEN or --start"}
	case pf.setup == "":
		return rs.StartFEN(), nil
	}
	if rs.Game != rules.Janggi {
		return "", usagef("--setup is for janggi; rule set %s is %s", rs.Name, rs.Game)
	}
	c, h, err := rules.ParseJanggiSetups(pf.setup)
	if err != nil {
		return "", usageError{"--setup: " + err.Error()}
	}
	return rules.JanggiSetupFEN(c, h), nil
}

// openInput opens a batch file, or stdin for "-".
func openInput(name string, stdin io.Reader) (io.Reader, func(), error) {
	if name == "-" {
		return stdin, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// batchLines calls fn for each line of the batch input with its 1-based
// number; the first error stops the batch and names the line.
func batchLines(name string, stdin io.Reader, fn func(line string) error) error {
	in, closeIn, err := openInput(name, stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		if err := fn(strings.TrimRight(sc.Text(), "\r")); err != nil {
			return fmt.Errorf("%s line %d: %w", batchName(name), n, err)
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("%s line %d: longer than 1 MiB, not a position", batchName(name), n+1)
	} else if err != nil {
		return fmt.Errorf("%s after line %d: %w", batchName(name), n, err)
	}
	return nil
}

func batchName(name string) string {
	if name == "-" {
		return "stdin"
	}
	return name
}
