package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestUCISession(t *testing.T) {
	in := strings.Join([]string{
		"uci",
		"setoption name UCI_Variant value xiangqi",
		"isready",
		"go perft 1",
		"position startpos moves h3e3 h10g8",
		"go nodes 16",
		"isready",
	}, "\n")
	var out, errOut bytes.Buffer
	if err := runUCI([]string{"--nodes", "32"}, strings.NewReader(in+"\n"), &out, &errOut); err != nil {
		t.Fatalf("runUCI: %v (%s)", err, errOut.String())
	}
	got := out.String()
	for _, want := range []string{"id name palace ", "option name Nodes type spin default 32 ", "\nuciok\n", "\nreadyok\n", "\nNodes searched: 44\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\nbestmove "); n != 1 {
		t.Errorf("%d bestmoves, want 1:\n%s", n, got)
	}
	if !strings.Contains(got, "info depth ") || !strings.Contains(got, " nodes 16 ") {
		t.Errorf("no info line of 16 nodes:\n%s", got)
	}
}

// quit ends the session: nothing after it is read.
func TestUCIQuit(t *testing.T) {
	var out bytes.Buffer
	if err := runUCI(nil, strings.NewReader("ucci\nquit\ngo nodes 8\n"), &out, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "\nucciok\nbye\n") {
		t.Errorf("got:\n%s", out.String())
	}
}

// At the end of the input a search with limits is finished, so a piped
// script gets its answer.
func TestUCIEndOfInput(t *testing.T) {
	var out bytes.Buffer
	if err := runUCI(nil, strings.NewReader("ucci\nposition startpos\ngo nodes 8"), &out, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\nucciok\n") || !strings.Contains(out.String(), "\nbestmove ") {
		t.Errorf("got:\n%s", out.String())
	}
}

// An engine whose input ended stops within seconds, whatever it was doing
// (issue 25: `palace uci` given go perft 20 and then the end of its input
// never exited).
func TestUCIEndOfInputStopsPerft(t *testing.T) {
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- runUCI(nil, strings.NewReader("uci\ngo perft 20\n"), &out, &out) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("palace uci still running 10 s after the end of its input")
	}
	if !strings.Contains(out.String(), "info string uci: perft 20 stopped") {
		t.Errorf("got:\n%s", out.String())
	}
}

func TestUCIFlags(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{{"--nodes", "0"}, {"--threads", "0"}, {"--bogus"}, {"extra"}} {
		if err := runUCI(args, strings.NewReader(""), &out, &out); !errors.As(err, new(usageError)) {
			t.Errorf("%q: got %v, want a usage error", args, err)
		}
	}
	if err := runUCI([]string{"--net", "no/such/file.palnet"}, strings.NewReader(""), &out, &out); err == nil {
		t.Errorf("--net of a missing file: no error")
	}
	// Not a network: said at start, not as an info string later.
	notNet := filepath.Join(t.TempDir(), "x.palnet")
	os.WriteFile(notNet, []byte("PALACENN but not one"), 0o644)
	for _, f := range []string{notNet, "/dev/zero"} {
		if err := runUCI([]string{"--net", f}, strings.NewReader("uci\n"), &out, &out); err == nil {
			t.Errorf("--net %s: no error", f)
		}
	}
}

// The first line "xboard" chooses CECP.
func TestUCIXboardSession(t *testing.T) {
	in := strings.Join([]string{"xboard", "protover 2", "new", "variant janggi", "force", "usermove b0c2", "sd 2", "go", "ping 1"}, "\n")
	var out, errOut bytes.Buffer
	if err := runUCI([]string{"--nodes", "32"}, strings.NewReader(in+"\n"), &out, &errOut); err != nil {
		t.Fatalf("runUCI: %v (%s)", err, errOut.String())
	}
	got := out.String()
	for _, want := range []string{"feature done=0\n", `feature myname="palace `, `feature option="Nodes -spin 32 `, "\nfeature done=1\n",
		"\nsetup (.N.R.AB.P..C.........K.n.r.ab.p..c.........k) 9x10+0_xiangqi rnba1abnr/", "\npiece C& pRpB\n", "\npong 1\n", "\nmove "} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	var help bytes.Buffer
	if err := runUCI([]string{"-h"}, strings.NewReader(""), &out, &help); !errors.Is(err, flag.ErrHelp) || !strings.Contains(help.String(), `"xboard" (CECP`) {
		t.Errorf("-h: %v, %q", err, help.String())
	}
}

// The memory settings' documented maxima are refused with the numbers
// under a 4 GiB address-space limit, not Go's fatal out of memory (issue
// 47): the engine's Hash, arena's cache=, experiment's --cache.
func TestMemorySettingsUnderLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts palace under ulimit -v")
	}
	const net = "builtin"
	dir := t.TempDir()
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"uci\nsetoption name Hash value 4736\nisready\nposition startpos\ngo nodes 5\nquit\n", []string{"uci", "--net", "none"},
			"info string nn: memlimit: an evaluation cache of 16777216 entries needs 4736 MiB, and this process may take"},
		// The advertised maxima together: 256 copies of the network over
		// one set of converted weights, and a 2 GiB cache, search.
		{"uci\nsetoption name Threads value 256\nsetoption name Hash value 2048\nisready\nposition startpos\ngo nodes 50\n", []string{"uci"},
			"bestmove "},
		{"", []string{"arena", "--player", "net:" + net + ",cache=16777216", "--player", "random", "--pairs", "1", "--out", filepath.Join(dir, "a.jsonl"), "--progress", "none"},
			"nn: memlimit: an evaluation cache of 16777216 entries needs 4736 MiB"},
		{"", []string{"experiment", "--rules-a", "xiangqi", "--rules-b", "xiangqi", "--net", net, "--games", "1", "--cache", "16777216", "--out", filepath.Join(dir, "e.jsonl"), "--progress", "none"},
			"nn: memlimit: an evaluation cache of 16777216 entries needs 4736 MiB"},
	} {
		cmd := exec.Command("sh", append([]string{"-c", `ulimit -v 4194304 && exec "$0" "$@"`, os.Args[0]}, tc.args...)...)
		cmd.Env = append(os.Environ(), asPalaceEnv+"=1")
		cmd.Stdin = strings.NewReader(tc.stdin)
		out, _ := cmd.CombinedOutput()
		if strings.Contains(string(out), "out of memory") || !strings.Contains(string(out), tc.want) {
			t.Errorf("palace %s under ulimit -v 4 GiB: %s\nwant %q", strings.Join(tc.args, " "), lastLines(string(out), 5), tc.want)
		}
	}
}

// lastLines is s's last n lines.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
