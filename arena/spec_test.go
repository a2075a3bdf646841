package arena_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

func TestParsePlayerSearch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.ckpt")
	// A draw score is part of the player's search and of its name.
	ps, err := arena.ParsePlayer("net:" + path + ",sims=4,draw=-0.25")
	if err != nil {
		t.Fatal(err)
	}
	if p := ps.Search; p.DrawScore != -0.25 || p.Simulations != 4 || arena.SearchLabel(p) != "sims=4,draw=-0.25" {
		t.Errorf("draw=-0.25: params %+v, label %q", p, arena.SearchLabel(p))
	}
	// So are the root lookahead and the mate check, on unless set to 0.
	for spec, want := range map[string]string{
		"uniform,sims=4":                "sims=4",
		"uniform,sims=4,lookahead=1":    "sims=4",
		"uniform,sims=4,lookahead=0":    "sims=4,lookahead=0",
		"uniform,sims=4,matecheck=0":    "sims=4,matecheck=0",
		"net:x,lookahead=0,matecheck=0": "sims=32,lookahead=0,matecheck=0",
		"net:x,mode=gumbel":             "sims=32",
		"uniform,sims=8,mode=puct":      "sims=8,mode=puct",
	} {
		ps, err := arena.ParsePlayer(spec)
		if err != nil {
			t.Fatal(err)
		}
		p := ps.Search
		if p.RootLookahead == strings.Contains(want, "lookahead=0") || p.MateCheck == strings.Contains(want, "matecheck=0") ||
			(p.Mode == mcts.PUCT) != strings.Contains(want, "mode=puct") || arena.SearchLabel(p) != want {
			t.Errorf("%s: lookahead %v, mate check %v, mode %v, label %q, want %q", spec, p.RootLookahead, p.MateCheck, p.Mode, arena.SearchLabel(p), want)
		}
	}
}

// A spec's budget is nodes= and its draw score draw-score=, as in the
// flags; sims= and draw=, their old names, give the same player (whose
// name keeps the old ones, as records hold them).
func TestParsePlayerOldNames(t *testing.T) {
	for name, old := range map[string]string{
		"uniform,nodes=8":                        "uniform,sims=8",
		"uniform,draw-score=-0.2":                "uniform,draw=-0.2",
		"net:x,nodes=4,draw-score=0.5,mode=puct": "net:x,sims=4,draw=0.5,mode=puct",
		"net:x,draw-score=-1,nodes=16":           "net:x,draw=-1,nodes=16",
	} {
		want, err := arena.ParsePlayer(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := arena.ParsePlayer(old)
		if err != nil {
			t.Fatal(err)
		}
		want.Spec, got.Spec = "", ""
		if got.Search != want.Search || got.Kind != want.Kind || got.Path != want.Path || got.Evaluators != want.Evaluators || got.Cache != want.Cache {
			t.Errorf("%s parses to %+v, %s to %+v", old, got, name, want)
		}
	}
	ps, err := arena.ParsePlayer("uniform,nodes=8,draw-score=-0.25")
	if err != nil {
		t.Fatal(err)
	}
	if p := ps.Search; p.Simulations != 8 || p.DrawScore != -0.25 || arena.SearchLabel(p) != "sims=8,draw=-0.25" {
		t.Errorf("nodes=8,draw-score=-0.25: params %+v, label %q", p, arena.SearchLabel(p))
	}
}

func TestParsePlayerUCI(t *testing.T) {
	for _, tc := range []struct {
		spec, name string
		check      func(u *arena.UCISpec) bool
	}{
		{"uci:/usr/games/fairy-stockfish,nodes=1000", "uci:fairy-stockfish/nodes=1000",
			func(u *arena.UCISpec) bool {
				return u.Path == "/usr/games/fairy-stockfish" && u.Limits.Nodes == 1000 && u.Args == nil
			}},
		{"uci:fsf,depth=3,movetime=250,option.Skill Level=5,option.Hash=64,protocol=ucci,notation=ranks0,timeout=2s,dir=/tmp,log=x.log",
			"uci:fsf/depth=3/movetime=250/Skill Level=5/Hash=64",
			func(u *arena.UCISpec) bool {
				return u.Limits.Depth == 3 && u.Limits.MoveTime == 250*time.Millisecond && u.Protocol == "ucci" && u.Notation == "ranks0" &&
					u.Timeout == 2*time.Second && u.Dir == "/tmp" && u.Log == "x.log" && len(u.Options) == 2 && u.Options[0].Name == "Skill Level"
			}},
		{"uci:/bin/palace,args=uci --net n.palnet,arg=--threads,arg=2,nodes=64", "uci:palace uci --net n.palnet --threads 2/nodes=64",
			func(u *arena.UCISpec) bool { return strings.Join(u.Args, "|") == "uci|--net|n.palnet|--threads|2" }},
		{"uci:pikafish,tc=10+0.1", "uci:pikafish/tc=10+0.1",
			func(u *arena.UCISpec) bool {
				return u.ClockBase == 10*time.Second && u.ClockIncrement == 100*time.Millisecond
			}},
		{"uci:pikafish,tc=5,nodes=100", "uci:pikafish/nodes=100/tc=5+0",
			func(u *arena.UCISpec) bool { return u.ClockBase == 5*time.Second && u.ClockIncrement == 0 }},
	} {
		ps, err := arena.ParsePlayer(tc.spec)
		if err != nil {
			t.Errorf("%q: %v", tc.spec, err)
			continue
		}
		if ps.Kind != arena.KindUCI || ps.UCI == nil {
			t.Errorf("%q: kind %q", tc.spec, ps.Kind)
			continue
		}
		if got := ps.UCI.Name(); got != tc.name {
			t.Errorf("%q: name %q, want %q", tc.spec, got, tc.name)
		}
		if !tc.check(ps.UCI) {
			t.Errorf("%q: parsed as %+v", tc.spec, *ps.UCI)
		}
	}
}

// A spec that does not parse says which and why, as a *SpecError.
func TestParsePlayerErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"foo":                            "unknown player",
		"random,sims=8":                  "random takes no options",
		"uci:fsf":                        "give the engine a limit",
		"uci:fsf,nodes=1,x=2":            `uci has no option "x"`,
		"uniform,sims=4,sims=":           "sims given twice",
		"uniform,sims=4,nodes=8":         "sims and nodes are the same option (nodes is its name): give one",
		"net:x,draw-score=0.1,draw=-0.1": "draw-score and draw are the same option",
		"uniform,draw-score=2":           "draw-score=2: want a draw score in [-1, 1]",
		"uniform,nodes=0":                "nodes=0: want an integer",
		"random,nodes=8":                 `random takes no options, got "nodes"`,
		"net:x,mode=alphabeta":           "mode=alphabeta: want gumbel or puct",
	} {
		_, err := arena.ParsePlayer(spec)
		var se *arena.SpecError
		if !errors.As(err, &se) || se.Spec != spec || !strings.Contains(se.Problem, want) ||
			!strings.HasPrefix(err.Error(), "arena: player ") {
			t.Errorf("%q: err %v, want a spec error saying %q", spec, err, want)
		}
	}
}

// kernel= picks a net player's arithmetic and shows in its name, so that
// an A/B match of one network on two kernel paths has two players; an
// unknown path is a spec error.
func TestParsePlayerKernel(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	builtin, err := model.LoadBuiltin(rs)
	if err != nil {
		t.Fatal(err)
	}
	for spec, suffix := range map[string]string{
		"net:../nets/xiangqi.palnet,sims=4":             "/sims=4",
		"net:../nets/xiangqi.palnet,sims=4,kernel=blas": "/sims=4/blas",
		// net: alone, or net:builtin, is palace's own network.
		"net:,sims=4":        "net:" + builtin.Weights.ID() + "/sims=4",
		"net:builtin,sims=4": "net:" + builtin.Weights.ID() + "/sims=4",
	} {
		ps, err := arena.ParsePlayer(spec)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ps.NewPlayer(rs)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(p.Name(), suffix) {
			t.Errorf("%s: player %q, want a name ending %q", spec, p.Name(), suffix)
		}
	}
	var se *arena.SpecError
	if _, err := arena.ParsePlayer("net:x,kernel=fp8"); !errors.As(err, &se) || !strings.Contains(err.Error(), `unknown kernel "fp8"`) {
		t.Errorf("kernel=fp8: %v", err)
	}
}
