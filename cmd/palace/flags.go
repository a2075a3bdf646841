package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/palace-chess/palace/rules"
)

// usageError marks a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// usagef is fmt.Errorf for command-line mistakes.
func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// ruleSetUsage is the help of a flag naming one rule set.
var ruleSetUsage = "rule set: a preset (" + strings.Join(rules.PresetNames(), ", ") + ") or a YAML file"

// addRuleSetFlag adds --rules, one rule set, xiangqi unless given.
func addRuleSetFlag(fs *flag.FlagSet) *string {
	return fs.String("rules", "xiangqi", ruleSetUsage)
}

// loadRuleSetList loads a flag's comma-separated rule sets (presets or
// YAML files).
func loadRuleSetList(list string) ([]*rules.RuleSet, error) {
	var sets []*rules.RuleSet
	for _, name := range strings.Split(list, ",") {
		rs, err := rules.LoadRuleSet(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		sets = append(sets, rs)
	}
	return sets, nil
}

// newFlagSet makes a subcommand's flag set that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("palace "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// setUsage makes -h print about (no final newline) before the flags.
func setUsage(fs *flag.FlagSet, about string) {
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), about+"\n\nflags:\n")
		fs.PrintDefaults()
	}
}

// flagError turns a flag-parsing mistake into a usage error; -h stays
// flag.ErrHelp (exit status 0).
func flagError(err error) error {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return usageError{err.Error()}
}

// parseFlags parses a command line of flags only.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := flagError(fs.Parse(args)); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// parseOneArg parses flags followed by exactly one positional argument and
// returns it; want is the usage error without one.
func parseOneArg(fs *flag.FlagSet, args []string, want string) (string, error) {
	if err := flagError(fs.Parse(args)); err != nil {
		return "", err
	}
	if fs.NArg() != 1 {
		return "", usageError{want}
	}
	return fs.Arg(0), nil
}

// parseArgs parses flags wherever they stand among the positional
// arguments (palace openings games.jsonl --depth 4), all of them after
// "--", and returns the positional ones.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := flagError(fs.Parse(args)); err != nil {
			return nil, err
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

// lowerBound is an integer flag's least value.
type lowerBound struct {
	flag       string
	value, min int
	// want is what the usage error asks for; empty: "at least MIN", or
	// "0 or more" when MIN is 0.
	want string
}

// checkLowerBounds returns the usage error of the first flag below its
// bound: "--pairs 0: want at least 1".
func checkLowerBounds(bounds ...lowerBound) error {
	for _, b := range bounds {
		if b.value >= b.min {
			continue
		}
		want := b.want
		switch {
		case want != "":
		case b.min == 0:
			want = "0 or more"
		default:
			want = fmt.Sprintf("at least %d", b.min)
		}
		return usagef("--%s %d: want %s", b.flag, b.value, want)
	}
	return nil
}
