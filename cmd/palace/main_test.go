package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

func runPalace(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestPerftDivide(t *testing.T) {
	code, out, errOut := runPalace(t, "", "perft", "--rules", "xiangqi", "--start", "--depth", "2", "--divide")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 45 || lines[len(lines)-1] != "nodes 1920" {
		t.Fatalf("got %d lines, last %q; want 44 moves and nodes 1920", len(lines), lines[len(lines)-1])
	}
	if lines[0] != "a1a2: 44" || !strings.Contains(out, "\nb3b10: ") {
		t.Errorf("divide lines: %q ...", lines[:3])
	}
}

func TestPerftJanggiSetup(t *testing.T) {
	code, out, errOut := runPalace(t, "", "perft", "--rules", "janggi", "--start", "--setup", "sangmamasang,masangmasang", "--depth", "3")
	if code != 0 || !strings.HasPrefix(out, "nodes ") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	code, _, errOut = runPalace(t, "", "perft", "--rules", "janggi", "--start", "--setup", "masang", "--depth", "1")
	if code != 2 || !strings.Contains(errOut, "CHO,HAN") {
		t.Errorf("bad setup: exit %d, %s", code, errOut)
	}
}

// The batch modes reproduce the reference tables line for line.
func TestPerftBatchMatchesReference(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "perft", "janggi-public.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var in, want strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		cols := strings.Split(line, "\t")
		if cols[1] <= "2" {
			in.WriteString(cols[0] + "\t" + cols[1] + "\n")
			want.WriteString(line + "\n")
		}
	}
	code, out, errOut := runPalace(t, in.String(), "perft", "--rules", "janggi", "--batch", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != want.String() {
		t.Errorf("batch output differs from the reference table")
	}
}

func TestMovesBatchMatchesReference(t *testing.T) {
	for _, tc := range []struct{ file, rules string }{
		{"xiangqi-moves-public.tsv", "xiangqi"},
		{"janggi-moves-public.tsv", "janggi"},
	} {
		path := filepath.Join("..", "..", "testdata", "perft", tc.file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var in strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			fen, _, _ := strings.Cut(line, "\t")
			in.WriteString(fen + "\n")
		}
		code, out, errOut := runPalace(t, in.String(), "moves", "--rules", tc.rules, "--batch", "-")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.file, code, errOut)
		}
		if out != string(data) {
			t.Errorf("%s: palace moves --batch differs from the reference", tc.file)
		}
	}
}

func TestBatchErrorsNameTheLine(t *testing.T) {
	in := "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\t1\n" +
		"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\tdeep\n"
	code, out, errOut := runPalace(t, in, "perft", "--batch", "-")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(out, "\t1\t44\n") {
		t.Errorf("the good line before the error was not written: %q", out)
	}
	if !strings.Contains(errOut, "stdin line 2") || !strings.Contains(errOut, `depth "deep"`) {
		t.Errorf("error %q does not name line 2 and the depth", errOut)
	}
	// A depth no count could reach is refused before anything is allocated.
	code, _, errOut = runPalace(t, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\t1000000000\n", "perft", "--batch", "-")
	if code != 1 || !strings.Contains(errOut, "stdin line 1") || !strings.Contains(errOut, "from 0 to 20") {
		t.Errorf("perft batch depth 1000000000: exit %d, %q", code, errOut)
	}
	// A line with no end (/dev/zero's) is named, not a scanner's error.
	code, _, errOut = runPalace(t, "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1\t1\n"+strings.Repeat("a", 2<<20), "perft", "--batch", "-")
	if code != 1 || !strings.Contains(errOut, "stdin line 2: longer than 1 MiB, not a position") {
		t.Errorf("perft batch of a 2 MiB line: exit %d, %q", code, errOut)
	}
	code, _, errOut = runPalace(t, "4k4/9/9/9/9/9/9/9/9/4L4 w - - 0 1\n", "moves", "--batch", "-")
	if code != 1 || !strings.Contains(errOut, "stdin line 1") || !strings.Contains(errOut, "unknown piece letter 'L'") {
		t.Errorf("moves: exit %d, %q", code, errOut)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"perft", "--start"},
		{"perft", "--depth", "2"},
		{"perft", "--depth", "2", "--start", "--fen", "x"},
		{"perft", "--batch", "-", "--depth", "2"},
		{"perft", "--bogus"},
		{"perft", "--start", "--depth", "9223372036854775807"},
		{"perft", "--start", "--depth", "1152921504606846976"},
		{"perft", "--start", "--depth", "1000000000"},
		{"perft", "--start", "--depth", "21"},
		{"run", "--generations", "-5"},
		{"trainer", "--generations", "-5"},
		{"gatekeeper", "--generations", "-5"},
		{"perft", "--depth", "1", "--start", "--setup", "masangsangma,masangsangma"}, // xiangqi
		{"nonsense"},
		{},
	} {
		code, _, errOut := runPalace(t, "", args...)
		if code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
	code, _, errOut := runPalace(t, "", "perft", "--rules", "shogi", "--start", "--depth", "1")
	if code != 1 || !strings.Contains(errOut, `unknown rule set "shogi"`) {
		t.Errorf("bad rules: exit %d %q", code, errOut)
	}
}

func TestRulesFromYAML(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nobikjang.yaml")
	if err := os.WriteFile(path, []byte("base: janggi\nname: janggi-nobikjang\nfacingKings: ignored\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Without bikjang the janggi start counts as janggimodern's does.
	code, out, errOut := runPalace(t, "", "perft", "--rules", path, "--start", "--depth", "3")
	if code != 0 || out != "nodes 33316\n" {
		t.Errorf("exit %d, %q %q; want nodes 33316", code, out, errOut)
	}
}

// The adjudicate batch reproduces the reference results and reasons of the
// outcome corpus, line for line.
func TestAdjudicateMatchesReference(t *testing.T) {
	for _, variant := range []string{"xiangqi", "janggi", "janggitraditional", "janggimodern", "janggicasual"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "outcomes", variant+"-public.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		var in, want strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			cols := strings.Split(line, "\t")
			in.WriteString(cols[1] + "\t" + cols[2] + "\n")
			want.WriteString(cols[3] + "\t" + cols[5] + "\n")
		}
		code, out, errOut := runPalace(t, in.String(), "adjudicate", "--rules", variant, "--batch", "-")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", variant, code, errOut)
		}
		if out != want.String() {
			t.Errorf("%s: adjudicate output differs from the corpus", variant)
		}
	}
}

func TestAdjudicateErrorsGoOn(t *testing.T) {
	start := "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
	cycle := "h1g3 h10g8 g3h1 g8h10 h1g3 h10g8 g3h1 g8h10" // the start position a third time
	in := start + "\th3e3 h8e8\n" +
		start + "\th3e3 h10g8 zz\n" +
		start + "\th3e3 a10a9 h1h5\n" +
		start + "\n" +
		start + "\t" + cycle + " h1g3\n" +
		start + "\t" + cycle + "\n"
	code, out, errOut := runPalace(t, in, "adjudicate", "--batch", "-")
	if code != 1 || !strings.Contains(errOut, "3 of the lines") {
		t.Errorf("exit %d, %q; want 1 and a count of 3 bad lines", code, errOut)
	}
	want := []string{
		"*\tongoing",
		"error\tmove 3: rules: bad move \"zz\"",
		"error\tmove 3 (h1h5): illegal in ",
		"*\tongoing",
		"error\tmove 9 (h1g3): the game was already over after move 8: 1/2-1/2 repetition",
		"1/2-1/2\trepetition",
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d output lines, want %d: %q", len(lines), len(want), out)
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("line %d: %q, want it to start with %q", i+1, lines[i], want[i])
		}
	}
}

func TestNetInitInfoBench(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(cfg, []byte("blocks: 1\nfilters: 8\npolicy_channels: 2\nvalue_channels: 1\nvalue_hidden: 8\n"), 0o644)
	ckpt := filepath.Join(dir, "tiny.ckpt")
	code, out, errOut := runPalace(t, "", "net", "init", "--config", cfg, "--out", ckpt, "--seed", "7", "--rules", "janggi,janggimodern")
	if code != 0 || !strings.Contains(out, "1 blocks × 8 filters") {
		t.Fatalf("init: exit %d, %q %q", code, out, errOut)
	}
	code, out, errOut = runPalace(t, "", "net", "info", ckpt)
	if code != 0 {
		t.Fatalf("info: exit %d, %q", code, errOut)
	}
	for _, want := range []string{"1 blocks × 8 filters", "80 input planes", fmt.Sprintf("encoding        version %d\n", encode.Version),
		"janggi@e1f9c542c39ccf30, janggimodern@", "seed 7", "inference only"} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runPalace(t, "", "net", "bench", "--batch", "1,2", "--positions", "2", ckpt)
	if code != 0 || !strings.Contains(out, "batch   2:") {
		t.Errorf("bench: exit %d, %q %q", code, out, errOut)
	}
	// Numbers that would exhaust memory are refused before anything is
	// allocated.
	for _, bad := range [][]string{{"--batch", "100000000"}, {"--workers", "100000000"}, {"--positions", "100000000000"}, {"--batch", "0"}} {
		code, _, errOut := runPalace(t, "", append(append([]string{"net", "bench"}, bad...), ckpt)...)
		if code != 2 || !strings.Contains(errOut, "want 1 to") {
			t.Errorf("net bench %v: exit %d, %q", bad, code, errOut)
		}
	}
	// A damaged checkpoint is a clear error, not a panic.
	data, _ := os.ReadFile(ckpt)
	data[len(data)/2] ^= 1
	os.WriteFile(ckpt, data, 0o644)
	code, _, errOut = runPalace(t, "", "net", "info", ckpt)
	if code != 1 || !strings.Contains(errOut, "corrupt checkpoint") || !strings.Contains(errOut, ckpt) {
		t.Errorf("damaged checkpoint: exit %d, %q", code, errOut)
	}
	os.WriteFile(cfg, []byte("blocks: 1\nfiltres: 8\n"), 0o644)
	code, _, errOut = runPalace(t, "", "net", "init", "--config", cfg, "--out", ckpt)
	if code != 1 || !strings.Contains(errOut, "filtres") {
		t.Errorf("bad config: exit %d, %q", code, errOut)
	}
}

func TestSearchCommand(t *testing.T) {
	// A janggi mate in 1 along the palace diagonal, found with no network
	// and with the built-in one (the default).
	for _, net := range []string{"none", "builtin"} {
		code, out, errOut := runPalace(t, "", "search", "--rules", "janggi", "--fen", "4k4/9/3P2N2/9/9/9/9/9/9/3K5 w - - 0 1", "--sims", "400", "--net", net)
		if code != 0 || !strings.Contains(out, "bestmove d8e9\n") || !strings.Contains(out, "proof win in 1 plies") {
			t.Fatalf("--net %s: exit %d: %s %s", net, code, out, errOut)
		}
	}
	code, out, errOut := runPalace(t, "", "search", "--rules", "janggi", "--start", "--sims", "16")
	if code != 0 || !strings.Contains(out, ", built-in network ") {
		t.Fatalf("the built-in network: exit %d: %s %s", code, out, errOut)
	}
	code, _, errOut = runPalace(t, "", "search", "--rules", "xiangqi", "--start", "--net", "../../nets/janggi.palnet")
	if code != 1 || !strings.Contains(errOut, "made for janggi") {
		t.Errorf("a janggi network for xiangqi: exit %d, %q", code, errOut)
	}
	// With a network, after moves, in Gumbel mode: deterministic.
	dir := t.TempDir()
	cfg := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(cfg, []byte("blocks: 1\nfilters: 8\npolicy_channels: 2\nvalue_channels: 1\nvalue_hidden: 8\n"), 0o644)
	ckpt := filepath.Join(dir, "tiny.ckpt")
	if code, _, errOut := runPalace(t, "", "net", "init", "--config", cfg, "--out", ckpt); code != 0 {
		t.Fatal(errOut)
	}
	args := []string{"search", "--start", "--moves", "h3e3 h8e8", "--net", ckpt, "--mode", "gumbel", "--sims", "32"}
	code, out1, errOut := runPalace(t, "", args...)
	if code != 0 || !strings.Contains(out1, "search gumbel, 32 simulations") || !strings.Contains(out1, "network ") {
		t.Fatalf("exit %d: %s %s", code, out1, errOut)
	}
	if _, out2, _ := runPalace(t, "", args...); out2 != out1 {
		t.Error("the same search twice gave different output")
	}
	code, _, errOut = runPalace(t, "", "search", "--start", "--moves", "h3e3 zz")
	if code != 1 || !strings.Contains(errOut, "move 2") {
		t.Errorf("bad move: exit %d %q", code, errOut)
	}
	code, _, errOut = runPalace(t, "", "search", "--fen", "3k5/R8/9/9/9/9/9/9/4K4/1R7 w - - 0 1", "--moves", "b1b10")
	if code != 1 || !strings.Contains(errOut, "the game is over: 1-0 checkmate") {
		t.Errorf("finished game: exit %d %q", code, errOut)
	}
	if code, _, _ := runPalace(t, "", "search", "--start", "--mode", "alphabeta"); code != 2 {
		t.Errorf("bad mode: exit %d, want 2", code)
	}
	if code, _, errOut := runPalace(t, "", "search", "--start", "--draw-score", "2"); code != 1 || !strings.Contains(errOut, "DrawScore = 2") {
		t.Errorf("draw score 2: exit %d %q", code, errOut)
	}
	if code, out, errOut := runPalace(t, "", "search", "--start", "--sims", "16", "--draw-score", "-0.3"); code != 0 || !strings.Contains(out, "bestmove ") {
		t.Errorf("draw score -0.3: exit %d %s %s", code, out, errOut)
	}
}

// failingWriter fails every write, as a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// Output that cannot be written fails the command (exit 1, saying so),
// whatever the command: none may exit 0 with its answer lost.
func TestLostOutputFails(t *testing.T) {
	start := "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
	for _, c := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"version"}},
		{"", []string{"perft", "--start", "--depth", "2"}},
		{start + "\n", []string{"moves", "--batch", "-"}},
		{start + "\th3e3\n", []string{"adjudicate", "--batch", "-"}},
		{"", []string{"search", "--start", "--sims", "8"}},
		{"", []string{"net", "info", "../../nets/janggi.palnet"}},
	} {
		var errOut strings.Builder
		code := run(c.args, strings.NewReader(c.stdin), failingWriter{}, &errOut)
		if code != 1 || !strings.Contains(errOut.String(), "writing the output") || !strings.Contains(errOut.String(), "no space left") {
			t.Errorf("%v with a full disk: exit %d, %q; want 1 and the write error", c.args, code, errOut.String())
		}
	}
}

// palace net grow deepens a network that then plays as it did: the same
// search, move for move, under the same seed; a shallower target, an
// --out over its input and a missing --blocks are refused.
func TestNetGrow(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(cfg, []byte("blocks: 1\nfilters: 8\npolicy_channels: 2\nvalue_channels: 1\nvalue_hidden: 8\n"), 0o644)
	small, grown := filepath.Join(dir, "small.palnet"), filepath.Join(dir, "grown.palnet")
	if code, out, errOut := runPalace(t, "", "net", "init", "--config", cfg, "--out", small, "--seed", "7"); code != 0 {
		t.Fatalf("init: exit %d, %q %q", code, out, errOut)
	}
	code, out, errOut := runPalace(t, "", "net", "grow", "--blocks", "3", "--out", grown, small)
	if code != 0 || !strings.Contains(out, "3 blocks × 8 filters") {
		t.Fatalf("grow: exit %d, %q %q", code, out, errOut)
	}
	code, out, errOut = runPalace(t, "", "net", "info", grown)
	if code != 0 || !strings.Contains(out, "3 blocks × 8 filters") || !strings.Contains(out, "deepened to 3 blocks") {
		t.Errorf("info of the grown network: exit %d, %q %q", code, out, errOut)
	}
	search := func(net string) string {
		code, out, errOut := runPalace(t, "", "search", "--start", "--net", net, "--sims", "64", "--seed", "3")
		if code != 0 {
			t.Fatalf("search --net %s: exit %d, %q", net, code, errOut)
		}
		return regexp.MustCompile(`network [0-9a-f]{16}`).ReplaceAllString(out, "network ID")
	}
	if a, b := search(small), search(grown); a != b {
		t.Errorf("the grown network searches differently:\n%s\nagainst\n%s", b, a)
	}
	for _, bad := range [][]string{
		{"--blocks", "1", "--out", filepath.Join(dir, "x.palnet"), small},
		{"--blocks", "3", "--out", small, small},
		{"--out", filepath.Join(dir, "y.palnet"), small},
	} {
		if code, _, errOut := runPalace(t, "", append([]string{"net", "grow"}, bad...)...); code == 0 {
			t.Errorf("net grow %v: exit 0, %q", bad, errOut)
		}
	}
}

// net info names a loop network's run, generation and ancestry (issue 43:
// a shipped network says where it came from).
func TestNetInfoLineage(t *testing.T) {
	shape := model.Config{Planes: encode.Planes, PolicySize: encode.PolicySize(), Blocks: 1, Filters: 8, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}
	ck, err := model.RandomCheckpoint(shape, []*rules.RuleSet{rules.MustPreset("xiangqi")},
		model.Provenance{Seed: 3, Run: "runs/strength-xiangqi", Generation: 3, Parent: "bbbbbbbbbbbbbbbb",
			Lineage: []string{"aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "gen-0003.palnet")
	if err := ck.Save(file); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runPalace(t, "", "net", "info", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"run             runs/strength-xiangqi, generation 3\n",
		"descends from   bbbbbbbbbbbbbbbb ← aaaaaaaaaaaaaaaa (parent first, 2 in all)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("net info lacks %q:\n%s", want, out)
		}
	}
}
