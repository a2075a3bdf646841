package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestShippedNetworks loads the networks of nets/ and measures them on
// games they never saw (1937–38 newspaper janggi games; the CCPD sample's
// master games for xiangqi, which the network's collection includes, so
// that figure is an upper bound): each predicts the masters' moves well
// above chance.
func TestShippedNetworks(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		net, games string
		minTop1    float64 // %
	}{
		{"../../nets/xiangqi.palnet", "../../pgn/testdata/ccpd_sample", 15},
		{"../../nets/janggi.palnet", "../../gib/testdata/maeil_sinbo_1937.gib", 8},
	} {
		code, info, errOut := runPalace(t, "", "net", "info", c.net)
		// Trained from records (its held-out figures) or by the loop (its
		// run and generation): either way the file says how it was made.
		if code != 0 || !strings.Contains(info, "trained on ") || !strings.Contains(info, "held-out games: top-1") && !strings.Contains(info, "\nrun ") {
			t.Errorf("net info %s: exit %d: %s %s", c.net, code, info, errOut)
		}
		games := filepath.Join(dir, filepath.Base(c.net)+".jsonl")
		if code, _, errOut := runPalace(t, "", "import", "--out", games, c.games); code != 0 {
			t.Fatalf("import %s: exit %d: %s", c.games, code, errOut)
		}
		code, out, errOut := runPalace(t, "", "net", "eval", "--net", c.net, "--games", games)
		m := regexp.MustCompile(`top-1 +([0-9.]+)% \(a uniform choice: ([0-9.]+)%\)`).FindStringSubmatch(out)
		if code != 0 || m == nil {
			t.Fatalf("net eval %s: exit %d: %s %s", c.net, code, out, errOut)
		}
		top1, _ := strconv.ParseFloat(m[1], 64)
		if top1 < c.minTop1 {
			t.Errorf("%s on %s: top-1 %.2f%%, want at least %.0f%% (uniform %s%%)", c.net, c.games, top1, c.minTop1, m[2])
		}
		t.Logf("%s on %s: top-1 %.2f%% (uniform %s%%)", c.net, c.games, top1, m[2])
	}
}
