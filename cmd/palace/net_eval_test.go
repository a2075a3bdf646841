package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/selfplay"
)

func TestNetEval(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sp")
	cfg := tinySelfplayConfig(t, dir, "janggi", 3, 30, "")
	if code, out, errOut := runPalace(t, "", "selfplay", "--config", cfg, "--progress", "none"); code != 0 {
		t.Fatalf("selfplay: exit %d: %s %s", code, out, errOut)
	}
	net := filepath.Join(t.TempDir(), "tiny.ckpt")
	shape := filepath.Join(t.TempDir(), "tiny.yaml")
	os.WriteFile(shape, []byte("blocks: 1\nfilters: 8\npolicy_channels: 2\nvalue_channels: 1\nvalue_hidden: 8\n"), 0o644)
	if code, _, errOut := runPalace(t, "", "net", "init", "--config", shape, "--out", net, "--rules", "janggi"); code != 0 {
		t.Fatalf("net init: exit %d: %s", code, errOut)
	}
	m, err := datasets.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	positions := fmt.Sprintf("positions       %d (", m.Records())

	// The rule set comes from the game records beside the shards.
	code, out, errOut := runPalace(t, "", "net", "eval", "--net", net, dir)
	if code != 0 || !strings.Contains(out, positions) || !strings.Contains(out, "wdl loss        ") || !strings.Contains(out, "(a constant predictor: 0.") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	// Without them, --rules and --max-plies name it.
	for _, s := range m.Shards {
		os.Remove(selfplay.GamesPath(filepath.Join(dir, s.Name)))
	}
	code, _, errOut = runPalace(t, "", "net", "eval", "--net", net, dir)
	if code != 1 || !strings.Contains(errOut, "is under rule set janggi@") {
		t.Errorf("no game records, no --rules: exit %d, %q", code, errOut)
	}
	code, out2, errOut := runPalace(t, "", "net", "eval", "--net", net, "--rules", "janggi", "--max-plies", "30", dir)
	if code != 0 || out2 != out {
		t.Errorf("--rules janggi --max-plies 30: exit %d, %q %s; want %q", code, out2, errOut, out)
	}
	for _, args := range [][]string{
		{"net", "eval", "--net", net},
		{"net", "eval", dir},
		{"net", "eval", "--net", net, "--every", "0", dir},
	} {
		if code, _, errOut := runPalace(t, "", args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, %q; want 2", args, code, errOut)
		}
	}
}
