package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/nn/gnet"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/stats"
	"github.com/palace-chess/palace/train"
)

// leafCommands are every command line that runs something, from the
// command table: a command, or a command and one of its subcommands
// (palace net init); palace ladder is both.
func leafCommands() [][]string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var leaves [][]string
	for _, n := range names {
		c := commands[n]
		if len(c.subs) == 0 || n == "ladder" {
			leaves = append(leaves, []string{n})
		}
		for _, s := range c.subs {
			leaves = append(leaves, []string{n, s.name})
		}
	}
	return leaves
}

// Every command and subcommand in the table answers -h, --help and
// palace help with its usage, exit status 0, nothing on stdout; a new
// command cannot lack it.
func TestEveryCommandHelp(t *testing.T) {
	for _, leaf := range leafCommands() {
		name := "palace " + strings.Join(leaf, " ")
		var usage string
		for _, h := range []string{"-h", "--help"} {
			code, out, errOut := runPalace(t, "", append(slices.Clone(leaf), h)...)
			if code != 0 || out != "" || !strings.HasPrefix(errOut, "usage: "+name) {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q", name, h, code, out, errOut)
			}
			if strings.Contains(errOut, "Usage of") {
				t.Errorf("%s %s: the flag package's bare usage, not the command's:\n%s", name, h, errOut)
			}
			usage = errOut
		}
		code, out, errOut := runPalace(t, "", append([]string{"help"}, leaf...)...)
		if code != 0 || out != "" || errOut != usage {
			t.Errorf("palace help %s: exit %d, stdout %q, stderr %q; want -h's %q", strings.Join(leaf, " "), code, out, errOut, usage)
		}
	}
	// Commands with subcommands list them for palace help COMMAND too.
	for _, n := range []string{"net", "shard"} {
		if code, _, errOut := runPalace(t, "", "help", n); code != 0 || !strings.HasPrefix(errOut, "usage: palace "+n+" <subcommand>") {
			t.Errorf("palace help %s: exit %d, %q", n, code, errOut)
		}
	}
}

func TestHelpCommand(t *testing.T) {
	code, out, general := runPalace(t, "", "help")
	if code != 0 || out != "" || !strings.HasPrefix(general, "usage: palace <command> [flags]") {
		t.Fatalf("palace help: exit %d, %q, %q", code, out, general)
	}
	if code, _, errOut := runPalace(t, "", "help", "import"); code != 0 || errOut == general || !strings.Contains(errOut, "palace import [flags] PATH...") {
		t.Errorf("palace help import: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runPalace(t, "", "help", "net", "init"); code != 0 || !strings.HasPrefix(errOut, "usage: palace net init --out FILE [flags]\n\ncreate a network") {
		t.Errorf("palace help net init: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runPalace(t, "", "help", "bogus"); code != 2 || !strings.Contains(errOut, `unknown command "bogus"`) {
		t.Errorf("palace help bogus: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runPalace(t, "", "help", "net", "bogus"); code != 2 || !strings.Contains(errOut, `unknown subcommand "bogus"`) {
		t.Errorf("palace help net bogus: exit %d, %q", code, errOut)
	}
	if code, _, _ := runPalace(t, "", "help", "net", "init", "x"); code != 2 {
		t.Errorf("palace help net init x: exit %d, want 2", code)
	}
}

// flagNameRules: a flag named on the left is spelled as on the right
// (see flagAliases for the rules).
var flagNameRules = map[string]string{
	"output": "out", "output-dir": "out", "outdir": "out", "outfile": "out", "o": "out",
	"sims": "nodes", "simulations": "nodes", "playouts": "nodes", "visits": "nodes", "budget": "nodes",
	"workdir": "work", "work-dir": "work", "quiet": "progress", "verbose": "progress",
	"draw": "draw-score", "drawscore": "draw-score", "draw-value": "draw-score", "contempt": "draw-score",
}

var flagNameRE = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// Every command's flags follow the naming rules: one name for one thing,
// old names only as hidden aliases of the new ones. A new command or
// flag that breaks them fails here.
func TestFlagNames(t *testing.T) {
	var mu sync.Mutex
	sets := map[string]*flag.FlagSet{}
	parsedFlagSet = func(fs *flag.FlagSet) {
		mu.Lock()
		defer mu.Unlock()
		sets[strings.TrimPrefix(fs.Name(), "palace ")] = fs
	}
	defer func() { parsedFlagSet = nil }()
	helps := map[string]string{}
	for _, leaf := range leafCommands() {
		_, _, errOut := runPalace(t, "", append(slices.Clone(leaf), "-h")...)
		helps[strings.Join(leaf, " ")] = errOut
	}
	mu.Lock()
	defer mu.Unlock()
	for _, leaf := range leafCommands() {
		if sets[strings.Join(leaf, " ")] == nil {
			t.Errorf("palace %s -h parsed no flag set through parse (flags.go)", strings.Join(leaf, " "))
		}
	}
	for cmd, fs := range sets {
		fs.VisitAll(func(f *flag.Flag) {
			if isAlias(fs, f.Name) {
				return
			}
			where := "palace " + cmd + " --" + f.Name
			if !flagNameRE.MatchString(f.Name) {
				t.Errorf("%s: want lower-case words joined by -", where)
			}
			if want, ok := flagNameRules[f.Name]; ok {
				t.Errorf("%s: name it --%s", where, want)
			}
			isString := true // a command's own Value (a list) holds text
			if g, ok := f.Value.(flag.Getter); ok {
				_, isString = g.Get().(string)
			}
			switch f.Name {
			case "dir":
				// Only a run directory: the run's whole state, read and resumed.
				if cmd != "run" {
					t.Errorf("%s: --dir names only a run directory; name an output --out, a job's working state --work", where)
				}
			case "records":
				if isString {
					t.Errorf("%s: a record file a command writes is its --out", where)
				}
			case "progress":
				if f.Usage != progressUsage || f.DefValue != "auto" {
					t.Errorf("%s: %q, default %q; want addProgressFlag's", where, f.Usage, f.DefValue)
				}
			case "out", "work":
				if !isString {
					t.Errorf("%s: want a path", where)
				}
			case "draw-score":
				// One unit wherever it is typed (README, "Names").
				g, ok := f.Value.(flag.Getter)
				if _, isFloat := g.Get().(float64); !ok || !isFloat || !strings.Contains(f.Usage, "in [-1, 1]") {
					t.Errorf("%s: want a draw score in [-1, 1], as configs and player specs take it", where)
				}
			}
		})
	}
	// A player spec's options are named as the flags are (nodes=,
	// draw-score=); their old names are only mentioned as such.
	for cmd, help := range helps {
		for _, old := range []string{",sims=N]", ",draw=X]"} {
			if cmd == "arena" && strings.Contains(help, old) {
				t.Errorf("palace %s -h offers the player-spec option %s by its old name", cmd, old)
			}
		}
	}
	if !strings.Contains(helps["arena"], "[,nodes=N][,draw-score=X]") {
		t.Errorf("palace arena -h does not list the player spec's nodes= and draw-score=:\n%s", helps["arena"])
	}
	// The old names: each works, shares its new flag's value, and -h
	// lists it only on the line of old names.
	for cmd, list := range flagAliases {
		fs := sets[cmd]
		if fs == nil {
			t.Errorf("flagAliases names %q, no command", cmd)
			continue
		}
		for _, a := range list {
			old, cur := fs.Lookup(a.old), fs.Lookup(a.name)
			if cur == nil || old == nil || unwrapOnce(old.Value) != unwrapOnce(cur.Value) {
				t.Errorf("palace %s: --%s is not an alias of --%s", cmd, a.old, a.name)
				continue
			}
			help := helps[cmd]
			if strings.Contains(help, "\n  -"+a.old+" ") || !strings.Contains(help, "\n  -"+a.name+" ") ||
				!strings.Contains(help, "old names, still accepted: ") || !strings.Contains(help, "--"+a.old+" (--"+a.name+")") {
				t.Errorf("palace %s -h: --%s should be listed, --%s only as an old name:\n%s", cmd, a.name, a.old, help)
			}
			if _, taken := flagNameRules[a.old]; !taken && a.old != "dir" && a.old != "records" {
				t.Errorf("palace %s: old name --%s: add it to flagNameRules, so that no command takes it up again", cmd, a.old)
			}
		}
	}
}

// An old flag name sets the new flag, wherever it stands.
func TestFlagAliases(t *testing.T) {
	fs := newFlagSet("selfplay", &bytes.Buffer{})
	out := fs.String("out", "", "")
	if err := parseFlags(fs, []string{"--output", "dir1"}); err != nil || *out != "dir1" {
		t.Errorf("--output: %v, --out %q", err, *out)
	}
	fs = newFlagSet("arena", &bytes.Buffer{})
	out = fs.String("out", "", "")
	if rest, err := parseArgs(fs, []string{"a", "--records", "r.jsonl", "b"}); err != nil || *out != "r.jsonl" || len(rest) != 2 {
		t.Errorf("--records: %v, --out %q, %v", err, *out, rest)
	}
	// A command without the new flag gets no alias.
	fs = newFlagSet("search", &bytes.Buffer{})
	if err := parseFlags(fs, []string{"--sims", "3"}); err == nil {
		t.Error("--sims without --nodes was accepted")
	}
}

// A flag given twice, or under its old name and its new one, is refused
// (issue 47: the last one silently won); a repeatable one is not; -h
// still prints the defaults, not the wrapper's zero value.
func TestFlagGivenTwice(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" for accepted
	}{
		{[]string{"arena", "--records", "a1", "--out", "a2", "--player", "random", "--player", "random"},
			"--records and --out are one flag (one is the other's old name): give it once"},
		{[]string{"search", "--start", "--sims", "4", "--nodes", "8"}, "--sims and --nodes are one flag"},
		{[]string{"perft", "--rules", "xiangqi", "--rules", "janggi", "--start", "--depth", "1"}, "--rules given twice: give it once"},
		{[]string{"export", "x.jsonl", "--out", "a.pgn", "y.jsonl", "--out", "b.pgn"}, "--out given twice"},
		{[]string{"perft", "--start", "--depth", "1", "--divide", "--divide"}, "--divide given twice"},
		{[]string{"perft", "--start", "--depth", "1", "--divide", "--rules", "xiangqi"}, ""},
	} {
		code, _, errOut := runPalace(t, "", tc.args...)
		if tc.want == "" {
			if code != 0 {
				t.Errorf("palace %s: exit %d, %q; want it accepted", strings.Join(tc.args, " "), code, errOut)
			}
			continue
		}
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("palace %s: exit %d, %q; want exit 2 and %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
	// --player repeats.
	dir := t.TempDir()
	code, _, errOut := runPalace(t, "", "arena", "--player", "random", "--player", "random", "--pairs", "1",
		"--out", filepath.Join(dir, "m.jsonl"), "--progress", "none")
	if code != 0 {
		t.Errorf("arena --player twice: exit %d, %q", code, errOut)
	}
	_, _, help := runPalace(t, "", "perft", "-h")
	if strings.Contains(help, "panic") || !strings.Contains(help, `(default "xiangqi")`) || strings.Contains(help, "(default 0)") {
		t.Errorf("perft -h prints the defaults wrong:\n%s", help)
	}
}

// The old names run end to end: palace search --sims, palace arena
// --records with --progress terminal.
func TestOldFlagNamesRun(t *testing.T) {
	code, out, errOut := runPalace(t, "", "search", "--start", "--sims", "7")
	if code != 0 || !strings.Contains(out, ", 7 simulations,") {
		t.Errorf("search --sims 7: exit %d, %q, %q", code, out, errOut)
	}
	code, out2, _ := runPalace(t, "", "search", "--start", "--nodes", "7")
	if code != 0 || out2 != out {
		t.Errorf("search --nodes 7 differs from --sims 7:\n%s\n%s", out2, out)
	}
	records := filepath.Join(t.TempDir(), "m.jsonl")
	code, out, errOut = runPalace(t, "", "arena", "--player", "random", "--player", "random", "--pairs", "1",
		"--records", records, "--progress", "terminal")
	if code != 0 || !strings.Contains(out, "records      "+records) {
		t.Fatalf("arena --records: exit %d, %q, %q", code, out, errOut)
	}
	if _, recs, err := arena.ReadRecords(records); err != nil || len(recs) != 2 {
		t.Errorf("arena --records wrote %d records: %v", len(recs), err)
	}
	// The same match under the new name resumes it: nothing more to play.
	code, out, errOut = runPalace(t, "", "arena", "--player", "random", "--player", "random", "--pairs", "1",
		"--out", records, "--progress", "log")
	if code != 0 || !strings.Contains(out, "0 played now, 2 before") {
		t.Errorf("arena --out resuming: exit %d, %q, %q", code, out, errOut)
	}
	if code, _, errOut := runPalace(t, "", "arena", "--player", "random", "--player", "random", "--progress", "fancy"); code != 2 ||
		!strings.Contains(errOut, `--progress "fancy": want auto, line, log or none`) {
		t.Errorf("arena --progress fancy: exit %d, %q", code, errOut)
	}
}

// --progress takes the same values everywhere; auto draws the status
// line only on a terminal.
func TestProgressValues(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, out := range []any{&bytes.Buffer{}, w, &checkedWriter{w: w}} {
		for _, tc := range []struct {
			value      string
			show, line bool
		}{{"auto", true, false}, {"line", true, true}, {"terminal", true, true}, {"log", true, false}, {"none", false, false}} {
			show, line, err := progressFlag(tc.value, out.(interface{ Write([]byte) (int, error) }))
			if err != nil || show != tc.show || line != tc.line {
				t.Errorf("%T --progress %s: show %v line %v %v", out, tc.value, show, line, err)
			}
		}
	}
	if _, _, err := progressFlag("bogus", &bytes.Buffer{}); err == nil || err.Error() != `--progress "bogus": want auto, line, log or none` {
		t.Errorf("bogus: %v", err)
	}
	if isTerminal(w) || terminalWidth(w)() != 0 {
		t.Error("a pipe taken for a terminal")
	}
}

// At 80 columns every status line palace draws fits in 79: none wraps.
func TestStatusLinesFit80Columns(t *testing.T) {
	var b strings.Builder
	s := newStatus(&b, true, true)
	s.width = func() int { return 80 }
	big := selfplay.Stats{Target: 1000000, Before: 123456, Finished: 654321, Played: 654321, Shards: 9999, Positions: 1 << 40}
	big.Elapsed = 1e15
	s.draw(selfplayStatusLine(big))
	v := &loopView{s: s, lastGate: "gen 41 promoted: Elo +12.3 ± 45.6 (W-D-L 100-200-100)"}
	v.event(loop.Event{Kind: loop.EventStage, Generation: 42, Stage: loop.StageTrain, Target: 123456})
	v.event(loop.Event{Kind: loop.EventTrain, Generation: 42, Stage: loop.StageTrain, Train: train.Progress{Step: 1234, Target: 123456,
		Losses: gnet.Losses{Total: 3.21, Policy: 2.1, WDL: 1.11}, Rate: 0.02, SamplesPerS: 1234, Window: 1000000}})
	v.event(loop.Event{Kind: loop.EventSelfplay, Generation: 42, Stage: loop.StageSelfplay, Selfplay: selfplay.Event{Kind: selfplay.EventProgress, Stats: big}})
	sum := arena.Summary{Games: 399, WDL: stats.WDL{Wins: 150, Draws: 100, Losses: 149}, LLR: -1.23, Lower: -2.94, Upper: 2.94}
	s.draw(arenaStatusLine(sum, 800, true))
	s.end()
	draws := 0
	for _, seg := range strings.Split(b.String(), "\r") {
		seg = strings.TrimSuffix(strings.TrimSuffix(seg, "\n"), "\x1b[K")
		if seg == "" {
			continue
		}
		draws++
		if n := utf8.RuneCountInString(seg); n > 79 {
			t.Errorf("a status line of %d columns: %q", n, seg)
		}
	}
	if draws < 5 {
		t.Errorf("%d status lines drawn:\n%q", draws, b.String())
	}
}

// palace shard verify of a directory whose manifest lists no shard is
// an error, not a pass.
func TestShardVerifyNoShards(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"version":1,"shards":[]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runPalace(t, "", "shard", "verify", dir); code != 1 || !strings.Contains(errOut, "has no shards") {
		t.Errorf("exit %d, %q, %q", code, out, errOut)
	}
}

// palace report's generation charts mark whole generations only.
func TestReportChartsIntegerGenerations(t *testing.T) {
	charts := generationCharts(nil)
	if len(charts) == 0 {
		t.Fatal("no charts")
	}
	for _, c := range charts {
		if strings.HasPrefix(c.line.XLabel, "generation") && !c.line.IntegerX {
			t.Errorf("%s: generations along X without IntegerX", c.file)
		}
	}
}
