package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Debug Log File gets every line exchanged after it is set, the client's
// as "> ", the engine's as "< ", appended; <empty> stops it; a directory
// is refused with a note.
func TestDebugLogFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "palace.log")
	out := session(t, testOptions, []string{
		"uci", "setoption name Debug Log File value " + path, "isready", "position startpos", "go nodes 8",
		"setoption name Debug Log File value <empty>", "isready",
		"setoption name Debug Log File value " + t.TempDir(),
	}, nil)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	for _, want := range []string{"> isready\n< readyok\n> position startpos\n> go nodes 8\n< info depth ", "< bestmove ", "> setoption name Debug Log File value <empty>\n"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if strings.Count(log, "readyok") != 1 || strings.Contains(log, "> uci\n") {
		t.Errorf("the log holds lines from before or after it was set:\n%s", log)
	}
	if !strings.Contains(out, "< info string uci: option Debug Log File: value") || !strings.Contains(out, "is not a regular file") {
		t.Errorf("a directory as the log: no note:\n%s", out)
	}
}

// UCI_AnalyseMode searches with no draw score: the scores are the
// position's, not the engine's preference.
func TestAnalyseModeDrawScore(t *testing.T) {
	e := New(testOptions)
	e.out = &output{w: &strings.Builder{}}
	for _, c := range []struct {
		option, value string
		want          float64
	}{{"DrawScore", "-50", -0.5}, {"UCI_AnalyseMode", "true", 0}, {"UCI_AnalyseMode", "false", -0.5}} {
		if err := e.setOption(c.option, c.value); err != nil {
			t.Fatal(err)
		}
		if got := e.machinery().Params().DrawScore; got != c.want {
			t.Errorf("after %s %s: draw score %v, want %v", c.option, c.value, got, c.want)
		}
	}
}
