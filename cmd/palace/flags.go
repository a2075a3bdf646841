package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/palace-chess/palace/arena"
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

// newFlagSet makes a subcommand's flag set that reports errors instead of
// exiting. Its -h prints "usage: palace NAME [flags]", the command's
// summary and its flags (setUsage or setSynopsis change the first two).
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("palace "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	setSynopsis(fs, "palace "+name+" [flags]")
	return fs
}

// setUsage makes -h print about (no final newline) before the flags.
func setUsage(fs *flag.FlagSet, about string) {
	fs.Usage = func() {
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n == 0 {
			fmt.Fprint(fs.Output(), about+"\n")
			return
		}
		fmt.Fprint(fs.Output(), about+"\n\nflags:\n")
		printFlags(fs)
	}
}

// setSynopsis makes -h print "usage: SYNOPSIS", then the command's
// summary (from the command table), then the flags.
func setSynopsis(fs *flag.FlagSet, synopsis string) {
	fs.Usage = func() {
		about := "usage: " + synopsis
		if s := commandSummary(strings.TrimPrefix(fs.Name(), "palace ")); s != "" {
			about += "\n\n" + s
		}
		setUsage(fs, about)
		fs.Usage()
	}
}

// flagAlias is an old flag name kept working as another name for a
// flag that was renamed (see flagAliases).
type flagAlias struct{ old, name string }

// flagAliases are the flags renamed so that one thing has one name in
// every command, by command (the flag set's name less "palace "): the
// old name still works, and -h lists it only in a line of its own. The
// rules (README, "Flags"): --out is what a command writes for others to
// read, a file or a directory, resumed from where the command resumes;
// --dir is only a run directory (palace run's whole state); --work is a
// job's working state, kept to resume, whose results go elsewhere;
// --nodes is a search's budget a move (for palace's MCTS, simulations);
// --draw-score is a draw's worth to the mover, in [-1, 1] as configs and
// player specs give it; --progress takes auto, line, log or none. README's
// "Names" extends the rules past flags.
var flagAliases = map[string][]flagAlias{
	"selfplay":         {{"output", "out"}},
	"arena":            {{"records", "out"}},
	"ladder":           {{"dir", "out"}},
	"ladder calibrate": {{"dir", "work"}},
	"search":           {{"sims", "nodes"}},
	"experiment":       {{"sims", "nodes"}},
	"uci":              {{"sims", "nodes"}},
}

// aliases are fs's old flag names.
func aliases(fs *flag.FlagSet) []flagAlias {
	return flagAliases[strings.TrimPrefix(fs.Name(), "palace ")]
}

// isAlias tells whether name is one of fs's old flag names.
func isAlias(fs *flag.FlagSet, name string) bool {
	for _, a := range aliases(fs) {
		if a.old == name {
			return true
		}
	}
	return false
}

// addAliases defines fs's old flag names, each sharing its new flag's
// value (once; parseArgs parses more than once).
func addAliases(fs *flag.FlagSet) {
	for _, a := range aliases(fs) {
		f := fs.Lookup(a.name)
		if f == nil || fs.Lookup(a.old) != nil {
			continue
		}
		value := f.Value
		if o, ok := value.(*onceValue); ok { // one flag: set under either name, set
			value = &onceValue{o.onceState, a.old}
		}
		fs.Var(value, a.old, "old name of --"+a.name)
	}
}

// printFlags prints fs's flags as flag.PrintDefaults does, less the old
// names, which follow in a line of their own.
func printFlags(fs *flag.FlagSet) {
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	shown.SetOutput(fs.Output())
	fs.VisitAll(func(f *flag.Flag) {
		if isAlias(fs, f.Name) {
			return
		}
		shown.Var(unwrapOnce(f.Value), f.Name, f.Usage)
		shown.Lookup(f.Name).DefValue = f.DefValue
	})
	shown.PrintDefaults()
	var old []string
	for _, a := range aliases(fs) {
		if fs.Lookup(a.name) != nil {
			old = append(old, "--"+a.old+" (--"+a.name+")")
		}
	}
	if len(old) > 0 {
		fmt.Fprintf(fs.Output(), "\nold names, still accepted: %s\n", strings.Join(old, ", "))
	}
}

// parsedFlagSet, when set (tests), sees every flag set as it is parsed.
var parsedFlagSet func(*flag.FlagSet)

// parse is fs.Parse with the old flag names, its mistakes usage errors;
// a flag given twice is one (see onceValue).
func parse(fs *flag.FlagSet, args []string) error {
	setOnce(fs)
	addAliases(fs)
	if parsedFlagSet != nil {
		parsedFlagSet(fs)
	}
	if err := flagError(fs.Parse(args)); err != nil {
		return err
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		if v, ok := f.Value.(*onceValue); ok && v.twice != "" && err == nil {
			err = usageError{v.twice}
		}
	})
	return err
}

// onceValue is one name of a flag that a command line may set once:
// given twice, or under its old name and its new one, the flag package
// would silently keep the last (issue 47: arena --records a1 --out a2
// wrote only a2). A flag's names share its onceState. Repeatable flags
// (stringList) are not wrapped.
type onceValue struct {
	*onceState
	name string
}

// onceState is a flag's value and whether a command line set it.
type onceState struct {
	value flag.Value
	setAs string // the name it was first set under; "" until then
	twice string // the usage error of a second setting; "" without one
}

func (v *onceValue) Set(s string) error {
	if v.setAs == "" {
		v.setAs = v.name
		return v.value.Set(s)
	}
	// The error is kept for parse to return, not returned here, where the
	// flag package would print the whole usage before it.
	if v.twice == "" {
		if v.setAs == v.name {
			v.twice = fmt.Sprintf("--%s given twice: give it once", v.name)
		} else {
			v.twice = fmt.Sprintf("--%s and --%s are one flag (one is the other's old name): give it once", v.setAs, v.name)
		}
	}
	return nil
}

func (v *onceValue) String() string {
	if v == nil || v.onceState == nil { // the flag package's zero value, for its defaults
		return ""
	}
	return v.value.String()
}

// IsBoolFlag keeps a bool flag's --name without a value working.
func (v *onceValue) IsBoolFlag() bool {
	b, ok := v.value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Get is the wrapped value's, for tests that read a flag's type.
func (v *onceValue) Get() any {
	if g, ok := v.value.(flag.Getter); ok {
		return g.Get()
	}
	return v.value.String()
}

// unwrapOnce is the value a onceValue wraps (v itself otherwise).
func unwrapOnce(v flag.Value) flag.Value {
	if o, ok := v.(*onceValue); ok {
		return o.value
	}
	return v
}

// setOnce wraps fs's flags in onceValues, once (parseArgs parses more
// than once, and what was set holds over its calls).
func setOnce(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		switch f.Value.(type) {
		case *onceValue, *stringList:
			return
		}
		f.Value = &onceValue{&onceState{value: f.Value}, f.Name}
	})
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
	if err := parse(fs, args); err != nil {
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
	if err := parse(fs, args); err != nil {
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
		if err := parse(fs, args); err != nil {
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

// progressUsage is the help of every command's --progress.
const progressUsage = "progress: auto (a status line redrawn on a terminal, else log lines), line (the status line), log (log lines) or none"

// addProgressFlag adds --progress, auto unless given (see progressFlag).
func addProgressFlag(fs *flag.FlagSet) *string {
	return fs.String("progress", "auto", progressUsage)
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

// checkSettings returns the usage error of the first match setting out of
// its bounds (arena.Settings.Validate decides them), in its flag's words
// as checkLowerBounds says them: "--concurrency 100000000: want at most
// 16384". help is what the settings' flags were added with.
func checkSettings(s *arena.Settings, help arena.FlagHelp) error {
	var bounds arena.BoundErrors
	if !errors.As(s.Validate(), &bounds) {
		return nil
	}
	b := bounds[0]
	name := b.Flag
	if b.Key == "pairs" && help.PairsFlag != "" {
		name = help.PairsFlag
	}
	if b.Value < b.Min {
		return checkLowerBounds(lowerBound{flag: name, value: b.Value, min: b.Min})
	}
	return usagef("--%s %d: want at most %d", name, b.Value, b.Max)
}
