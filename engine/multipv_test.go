package engine

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

// tinyNetwork saves a small random network (uneven priors and values, so
// that Gumbel's choice and the visits disagree now and then) and returns
// its path.
func tinyNetwork(t *testing.T) string {
	t.Helper()
	w, err := model.NewRandom(model.Config{Planes: encode.Planes, PolicySize: encode.PolicySize(), Blocks: 1, Filters: 8,
		PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}, 3)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tiny.palnet")
	if err := (&model.Checkpoint{Weights: w, EncodingVersion: encode.Version}).Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// MultiPV's lines are ranked as the search ranks moves: the move played
// first, then by the policy target, not by visits alone.
func TestRankLines(t *testing.T) {
	a, b, c := rules.Move(1), rules.Move(2), rules.Move(3)
	lines := []mcts.Line{{Move: a, Visits: 10}, {Move: b, Visits: 8}, {Move: c, Visits: 5}}
	r := &mcts.Result{Moves: []rules.Move{a, b, c}, Policy: []float32{0.2, 0.5, 0.3}, Best: b}
	rankLines(lines, r)
	if got := []rules.Move{lines[0].Move, lines[1].Move, lines[2].Move}; got[0] != b || got[1] != c || got[2] != a {
		t.Errorf("ranked %v, want %v", got, []rules.Move{b, c, a})
	}
}

// Line 1 of every set of MultiPV lines is the move bestmove plays (issue
// 50: ranked by visits, bestmove was line 2's move now and then).
func TestMultiPVFirstLineIsBestmove(t *testing.T) {
	net := tinyNetwork(t)
	var commands []string
	commands = append(commands, "uci", "setoption name MultiPV value 3", "isready")
	moves := "position startpos moves"
	for _, m := range []string{"h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "b0c2", "a9a8"} {
		moves += " " + m
		commands = append(commands, moves, "go nodes 200")
	}
	out := session(t, Options{Network: net, Nodes: 64, Version: "test"}, commands, nil)
	first := regexp.MustCompile(` multipv 1 .* pv (\S+)`)
	checked := 0
	var last string
	for _, line := range strings.Split(out, "\n") {
		if m := first.FindStringSubmatch(line); m != nil {
			last = m[1]
		}
		if best, ok := strings.CutPrefix(line, "< bestmove "); ok {
			best, _, _ = strings.Cut(best, " ")
			if best != last {
				t.Errorf("bestmove %s, multipv 1 %s:\n%s", best, last, out)
			}
			checked++
		}
	}
	if checked != 8 {
		t.Fatalf("%d bestmoves, want 8:\n%s", checked, out)
	}
}
