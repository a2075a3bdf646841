package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A network made for one game is refused by every command that would
// play or measure it on the other (issue 25: a xiangqi network played
// janggi in search, arena and net eval), naming the file and both games;
// the engine says so and searches with the uniform evaluator.
func TestNetworkOfAnotherGame(t *testing.T) {
	dir := t.TempDir()
	shape := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(shape, []byte("blocks: 1\nfilters: 8\npolicy_channels: 2\nvalue_channels: 1\nvalue_hidden: 8\n"), 0o644)
	net := filepath.Join(dir, "janggi.palnet")
	if code, _, errOut := runPalace(t, "", "net", "init", "--config", shape, "--out", net, "--rules", "janggi"); code != 0 {
		t.Fatalf("net init: exit %d: %s", code, errOut)
	}
	if code, out, errOut := runPalace(t, "", "net", "info", net); code != 0 || !strings.Contains(out, "games           janggi\n") {
		t.Errorf("net info: exit %d: %s %s", code, out, errOut)
	}
	selfplayDir := filepath.Join(dir, "sp")
	cfg := tinySelfplayConfig(t, selfplayDir, "xiangqi", 2, 20, "")
	if code, out, errOut := runPalace(t, "", "selfplay", "--config", cfg, "--progress", "none"); code != 0 {
		t.Fatalf("selfplay: exit %d: %s %s", code, out, errOut)
	}
	withNet := tinySelfplayConfig(t, filepath.Join(dir, "sp2"), "xiangqi", 2, 20, "network: "+net+"\n")
	if data, err := os.ReadFile(withNet); err == nil {
		lines := strings.Split(string(data), "\n")
		lines = slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, "random_network:") })
		os.WriteFile(withNet, []byte(strings.Join(lines, "\n")), 0o644)
	}
	want := "network " + net + " was made for janggi (janggi@"
	for _, args := range [][]string{
		{"search", "--net", net, "--rules", "xiangqi", "--start", "--sims", "8"},
		{"arena", "--rules", "xiangqi", "--player", "net:" + net + ",sims=8", "--player", "random", "--pairs", "1", "--records", filepath.Join(dir, "a.jsonl"), "--progress", "none"},
		{"selfplay", "--config", withNet, "--progress", "none"},
		{"experiment", "--rules-a", "xiangqi", "--rules-b", "xiangqi", "--net", net, "--games", "1", "--out", filepath.Join(dir, "e.jsonl"), "--progress", "none"},
	} {
		code, _, errOut := runPalace(t, "", args...)
		if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "not xiangqi (xiangqi@") {
			t.Errorf("%s: exit %d, %q; want exit 1 and %q", args[0], code, errOut, want)
		}
	}
	code, _, errOut := runPalace(t, "", "net", "eval", "--net", net, selfplayDir)
	if code != 1 || !strings.Contains(errOut, "was made for janggi") || !strings.Contains(errOut, "not xiangqi") {
		t.Errorf("net eval: exit %d, %q", code, errOut)
	}
	code, out, _ := runPalace(t, "uci\nsetoption name UCI_Variant value xiangqi\nposition startpos\ngo nodes 8\n", "uci", "--net", net)
	if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "searching with the uniform evaluator") || !strings.Contains(out, "\nbestmove ") {
		t.Errorf("uci: exit %d:\n%s", code, out)
	}
	code, out, _ = runPalace(t, "uci\nsetoption name UCI_Variant value janggi\nposition startpos\ngo nodes 8\n", "uci", "--net", net)
	// The handshake names the network (its one info string); no other
	// info string (a warning) is due.
	warned := strings.Count(out, "info string") - strings.Count(out, "info string uci: network: ")
	if code != 0 || warned != 0 || !strings.Contains(out, "info string uci: network: "+net) || strings.Contains(out, "bestmove (none)") {
		t.Errorf("uci, janggi: exit %d:\n%s", code, out)
	}
}
