package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTrainFromGames imports real master games (the CCPD sample), trains
// a tiny network on them, and measures it with net eval --games.
func TestTrainFromGames(t *testing.T) {
	dir := t.TempDir()
	games := filepath.Join(dir, "games.jsonl")
	if code, _, errOut := runPalace(t, "", "import", "--out", games, "../../pgn/testdata/ccpd_sample"); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	cfg := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(cfg, []byte(`network: {blocks: 1, filters: 8, policy_channels: 2, value_channels: 1, value_hidden: 8}
epochs: 0.5
eval_every: 10
train: {batch: 32, checkpoint_every: 5}
`), 0o644)
	net := filepath.Join(dir, "xq.palnet")
	args := []string{"train", "--games", games, "--out", net, "--config", cfg, "--held-out", "0.2", "--progress", "none"}
	code, out, errOut := runPalace(t, "", args...)
	if code != 0 {
		t.Fatalf("train: exit %d: %s %s", code, out, errOut)
	}
	out0 := out
	for _, want := range []string{"games: 40 read; 0 dropped", "held out", "top-1 (uniform)", "wrote " + net} {
		if !strings.Contains(out, want) {
			t.Errorf("train's output lacks %q:\n%s", want, out)
		}
	}
	// Rows at steps 0, 10, 20, ... and the last step.
	rows := regexp.MustCompile(`(?m)^ +(\d+) +\d+\.\d\d +(-|\d\.\d+) +\d+\.\d%`).FindAllStringSubmatch(out, -1)
	if len(rows) < 3 || rows[0][1] != "0" || rows[1][1] != "10" {
		t.Errorf("curve rows %v:\n%s", rows, out)
	}
	work := net + ".work"
	for _, f := range []string{"curve.json", "curve-accuracy.png", "curve-loss.png", "job.json", "state.palnet", "gameset/gameset.json"} {
		if _, err := os.Stat(filepath.Join(work, f)); err != nil {
			t.Errorf("work directory: %v", err)
		}
	}
	code, info, _ := runPalace(t, "", "net", "info", net)
	if code != 0 || !strings.Contains(info, "trained on ") || !strings.Contains(info, "optimizer       none") {
		t.Errorf("net info: exit %d:\n%s", code, info)
	}

	// Run again, the finished job writes the same network.
	code, again, errOut := runPalace(t, "", args...)
	id := regexp.MustCompile(`network ([0-9a-f]{16})`).FindStringSubmatch(out)
	if code != 0 || id == nil || !strings.Contains(again, "network "+id[1]) {
		t.Errorf("rerun: exit %d %s\n%s\nwant network %v", code, errOut, again, id)
	}
	// --keep last writes the last step's network, whichever was best.
	last := filepath.Join(dir, "last.palnet")
	lastArgs := append(append([]string{}, args...), "--keep", "last", "--work", work)
	lastArgs[4] = last
	if code, out, errOut := runPalace(t, "", lastArgs...); code != 0 || !strings.Contains(out, "the last step's of ") {
		t.Errorf("--keep last: exit %d: %s %s", code, out, errOut)
	}
	steps := regexp.MustCompile(`of (\d+) steps`).FindStringSubmatch(out)
	if code, info, _ := runPalace(t, "", "net", "info", last); code != 0 || steps == nil || !strings.Contains(info, "training        "+steps[1]+" steps") {
		t.Errorf("--keep last wrote a network of other steps than %v:\n%s", steps, info)
	}
	if best := regexp.MustCompile(`step (\d+)'s \(least held-out loss`).FindStringSubmatch(out); best != nil {
		if _, info, _ := runPalace(t, "", "net", "info", net); !strings.Contains(info, "training        "+best[1]+" steps") {
			t.Errorf("the best network is not step %s's:\n%s", best[1], info)
		}
	}
	// Another filter over the same work directory is refused.
	other := append(append([]string{}, args...), "--min-plies", "30")
	if code, _, errOut := runPalace(t, "", other...); code != 1 || !strings.Contains(errOut, "was started with other") {
		t.Errorf("another filter, same --work: exit %d, %q", code, errOut)
	}

	code, out, errOut = runPalace(t, "", "net", "eval", "--net", net, "--games", games)
	if code != 0 || !strings.Contains(out, "top-1           ") || !strings.Contains(out, "(a uniform choice: ") {
		t.Errorf("net eval --games: exit %d: %s %s", code, out, errOut)
	}

	// --held-out evaluates the games training held out, and nothing else:
	// the same games and positions as its held-out row.
	held := regexp.MustCompile(`held out +(\d+) games +(\d+) positions`).FindStringSubmatch(out0)
	code, out, errOut = runPalace(t, "", "net", "eval", "--net", net, "--games", games, "--held-out", "0.2")
	if held == nil || code != 0 || !strings.Contains(out, "games           "+held[1]+" held out of training (share 0.2, split seed 1)") ||
		!strings.Contains(out, "positions       "+held[2]+" ") {
		t.Errorf("net eval --held-out 0.2: exit %d: %s %s; want training's held-out games and positions %v", code, out, errOut, held)
	}

	for _, bad := range [][]string{
		{"net", "eval", "--net", net, "--games", games, "--held-out", "1"},
		{"net", "eval", "--net", net, "--held-out", "0.1", dir},
		{"train", "--out", net},
		{"train", "--games", games},
		{"train", "--games", games, "--out", net, "--held-out", "1"},
		{"train", "--games", games, "--out", net, "--after", "2004/01"},
		{"train", "--games", games, "--out", net, "--epochs", "1e18"}, // issue 25: trained for ever
		{"train", "--games", games, "--out", net, "--epochs", "NaN"},
		{"net", "eval", "--net", net, "--games", games, dir},
	} {
		if code, _, errOut := runPalace(t, "", bad...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, %q; want 2", bad, code, errOut)
		}
	}
}
