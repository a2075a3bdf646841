package engine

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/palace-chess/palace/nn/model"
)

// A network checkpoint is loaded at isready, searched with one thread or
// several (each batch split among copies), up to the advertised maximum
// (issue 25: 129–256 answered bestmove (none)), and a file that does not load
// is reported, the uniform evaluator standing in.
func TestNetworkEvaluator(t *testing.T) {
	path := tinyNetwork(t)
	ck, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	id := ck.Weights.ID()
	for _, threads := range []string{"1", "3", "129", "256"} {
		for _, network := range []string{path, ""} {
			out := session(t, Options{Network: network, Nodes: 48, Version: "test"}, []string{
				"uci", "setoption name Threads value " + threads, "isready", "position startpos", "go", "go nodes 24",
			}, nil)
			if problems(out) != "" || strings.Count(out, "< bestmove ") != 2 {
				t.Fatalf("threads %s:\n%s", threads, out)
			}
			if noNet := strings.Contains(out, noNetwork); noNet != (network == "") {
				t.Errorf("network %q: the handshake's no-network note: %v\n%s", network, noNet, out)
			}
			if network != "" && !strings.Contains(out, "option name WeightsFile type string default "+path+"\n") {
				t.Errorf("WeightsFile's default is not the network:\n%s", out)
			}
			if want := "< info string uci: network: " + path + ": network " + id + ", games not recorded\n"; network != "" && !strings.Contains(out, want) {
				t.Errorf("the handshake does not name the network: want %q in\n%s", want, out)
			}
			if !strings.Contains(out, " nodes 48 ") || !strings.Contains(out, " nodes 24 ") {
				t.Errorf("threads %s: budgets not spent:\n%s", threads, out)
			}
			if strings.Contains(out, "bestmove (none)") {
				t.Errorf("threads %s: no move:\n%s", threads, out)
			}
		}
	}

	out := session(t, Options{Network: path, Nodes: 8, Version: "test"}, []string{
		"uci", "setoption name WeightsFile value " + filepath.Join(t.TempDir(), "missing.palnet"), "isready", "go",
		"setoption name WeightsFile value <empty>", "go",
	}, nil)
	if strings.Count(out, "searching with the uniform evaluator") != 1 || strings.Count(out, "< bestmove ") != 2 {
		t.Errorf("a missing network:\n%s", out)
	}
}

// noNetwork starts the handshake's note when there is no network.
const noNetwork = "< info string uci: no network: searching with uniform priors (plain MCTS); set WeightsFile\n"

// problems are a transcript's notes but the handshake's on the network.
func problems(out string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(out, "\n") {
		if strings.Contains(l, "info string") && l != noNetwork && !namedNetwork.MatchString(l) {
			b.WriteString(l)
		}
	}
	return b.String()
}

// builtinNote is the handshake's note on palace's own networks: each
// named by its file, id and games (issue 50).
var builtinNote = "< info string uci: network: palace's built-in network for the variant (" + builtinNetworks() +
	"); set WeightsFile to a checkpoint, or to none for plain MCTS\n"

var namedNetwork = regexp.MustCompile(`^< info string uci: network: \S+: network [0-9a-f]{16}, games [^;]*\n$`)

var builtinNames = regexp.MustCompile(`^nets/xiangqi\.palnet: network [0-9a-f]{16}, games xiangqi; nets/janggi\.palnet: network [0-9a-f]{16}, games janggi$`)

// With WeightsFile builtin (palace uci's default) each variant is searched
// with its own game's built-in network, switched when the variant is;
// WeightsFile none searches with uniform priors. The built-in network's
// search differs from the uniform one's.
func TestBuiltinNetwork(t *testing.T) {
	out := session(t, Options{Network: model.Builtin, Nodes: 32, Version: "test"}, []string{
		// One notation for all four lines: auto's differs before and after
		// a UCI_Variant.
		"uci", "setoption name MoveNotation value ranks1", "isready", "position startpos", "go",
		"setoption name UCI_Variant value janggi", "isready", "position startpos", "go",
		"setoption name WeightsFile value none", "isready", "position startpos", "go",
		"setoption name UCI_Variant value xiangqi", "isready", "position startpos", "go",
	}, nil)
	if !builtinNames.MatchString(builtinNetworks()) {
		t.Errorf("the handshake names the built-in networks %q", builtinNetworks())
	}
	if !strings.Contains(out, builtinNote) || strings.Count(out, "< bestmove ") != 4 || strings.Contains(out, "bestmove (none)") {
		t.Fatalf("the built-in networks:\n%s", out)
	}
	for _, l := range strings.SplitAfter(out, "\n") {
		if strings.Contains(l, "info string") && l != builtinNote {
			t.Errorf("a note: %s", l)
		}
	}
	// A network's principal line is not the uniform search's of the same
	// variant (a network of the wrong game would have been refused in a
	// note); its root value may round to cp 0, so the line is what tells.
	searches := strings.Split(out, "< bestmove ")
	for i, name := range []string{"xiangqi", "janggi"} {
		uniform := 3 - i // the uniform search of the same variant
		if pv, flat := lastPV(searches[i]), lastPV(searches[uniform]); pv == "" || pv == flat {
			t.Errorf("%s: not searched with a network: line %q, the uniform search's %q:\n%s", name, pv, flat, searches[i])
		}
	}
	for _, i := range []int{2, 3} {
		if !strings.Contains(searches[i], " score cp 0 ") {
			t.Errorf("WeightsFile none: not the uniform search:\n%s", searches[i])
		}
	}
}

// lastPV is the principal line of a search's last info line with one.
func lastPV(search string) string {
	pv := ""
	for _, l := range strings.Split(search, "\n") {
		if _, line, ok := strings.Cut(l, " pv "); ok && strings.HasPrefix(l, "< info ") {
			pv = line
		}
	}
	return pv
}
