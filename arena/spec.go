package arena

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

// The player-spec language: one line of text names a player and its
// settings (palace arena's --player, the ladder's rungs), so that a match
// between any two players is a command line.

// Defaults of a network player's spec.
const (
	defaultSpecSims       = 32
	defaultSpecEvaluators = 2
	defaultSpecCache      = 65536
)

// PlayerHelp describes the specs ParsePlayer reads, for a command's help.
const PlayerHelp = `  random                                 a uniformly random legal mover
  uniform[,nodes=N][,draw-score=X][,lookahead=0|1][,matecheck=0|1][,mode=M]
                                         search with equal priors and value 0 (no network)
  net:PATH[,nodes=N][,draw-score=X][,lookahead=0|1][,matecheck=0|1][,mode=M][,evaluators=N][,cache=N][,kernel=K]
                                         search with the network checkpoint PATH (net: or net:builtin:
                                         palace's own network for the game, nets/)
` + uciHelp + `
nodes (simulations a move) defaults to 32, evaluators to 2, cache (evaluation cache entries,
0: none) to 65536; draw-score (in [-1, 1]: what a draw is worth to the side choosing a
move; below 0 it plays on rather than repeat) to 0; sims and draw, their old names, still
work (a player's name keeps them: sims=32); lookahead (play every root move and
reply first, so a move that allows a mate in one is never chosen) and matecheck (prove
each position the search expands won when it has a mate in one) to 1; mode (the search:
gumbel, Gumbel AlphaZero's sequential halving, or puct, AlphaZero's) to gumbel; kernel (the network's
arithmetic: bf16, avx512 (float32) or blas, where the CPU has it) to PALACE_KERNEL's, else the
fastest the CPU has`

// PlayerKind is what plays: the head of a spec.
type PlayerKind string

// The kinds of player a spec names.
const (
	KindRandom  PlayerKind = "random"  // Random
	KindUniform PlayerKind = "uniform" // a Search over nn.Uniform
	KindNet     PlayerKind = "net"     // a Search over a network checkpoint
	KindUCI     PlayerKind = "uci"     // an UCIPlayer
)

// PlayerSpec is a parsed player spec: what NewPlayer makes.
type PlayerSpec struct {
	// Spec is the text parsed ("" for a spec built in code).
	Spec string
	Kind PlayerKind
	// Path is the network checkpoint (net) or the engine program (uci).
	Path string
	// Search is a uniform or net player's search: mcts.PlayParams with
	// the spec's simulations, draw score, lookahead and mate check.
	Search mcts.Params
	// Evaluators (network copies, a batcher each) and Cache (evaluation
	// cache entries, 0: none) size a net player's evaluation.
	Evaluators, Cache int
	// Kernel is a net player's kernel path (model.ParseKernel's names);
	// "" is the default (PALACE_KERNEL's, else the CPU's best).
	Kernel string
	// UCI is a uci: player's program and limits.
	UCI *UCISpec
}

// SpecError is a player spec that does not parse: the spec and what is
// wrong with it.
type SpecError struct{ Spec, Problem string }

func (e *SpecError) Error() string { return fmt.Sprintf("arena: player %q: %s", e.Spec, e.Problem) }

// MaxEvaluators bounds a net player's network copies (each a network's
// weights and scratch space); maxSpecSimulations is mcts's own bound on
// a search's budget.
const (
	MaxEvaluators      = 256
	maxSpecSimulations = 1 << 24
)

// MaxPairs bounds a match (its unplayed games are listed up front) and
// MaxConcurrency the games it plays at once (each a search and its tree),
// as self-play's concurrent_games is bounded.
const (
	MaxPairs       = 1 << 20
	MaxConcurrency = 1 << 14
)

// specOldNames maps the old names of spec options to their names: the
// budget is nodes and the draw score draw-score, as in the flags (README,
// "Names"). The old ones stay what SearchLabel writes in a player's name,
// which records keep.
var specOldNames = map[string]string{"sims": "nodes", "draw": "draw-score"}

// ParsePlayer parses random, uniform[,nodes=N][,draw-score=X][,lookahead=0|1][,matecheck=0|1][,mode=M],
// net:PATH[,nodes=N][,draw-score=X][,lookahead=0|1][,matecheck=0|1][,mode=M][,evaluators=N][,cache=N][,kernel=K] or
// uci:PATH[,...] (see PlayerHelp); sims= and draw= are nodes= and
// draw-score= by their old names. Its errors are *SpecError.
func ParsePlayer(spec string) (PlayerSpec, error) {
	ps := PlayerSpec{Spec: spec, Search: mcts.PlayParams(defaultSpecSims), Evaluators: defaultSpecEvaluators, Cache: defaultSpecCache}
	bad := func(format string, args ...any) error { return &SpecError{spec, fmt.Sprintf(format, args...)} }
	fields := strings.Split(spec, ",")
	head, opts := fields[0], fields[1:]
	allowed := map[string]bool{}
	switch {
	case head == "random":
		ps.Kind = KindRandom
	case head == "uniform":
		ps.Kind = KindUniform
		for _, k := range []string{"nodes", "draw-score", "lookahead", "matecheck", "mode"} {
			allowed[k] = true
		}
	case strings.HasPrefix(head, "net:"):
		ps.Kind, ps.Path = KindNet, strings.TrimPrefix(head, "net:")
		if ps.Path == "" {
			ps.Path = model.Builtin
		}
		for _, k := range []string{"nodes", "draw-score", "lookahead", "matecheck", "mode", "evaluators", "cache", "kernel"} {
			allowed[k] = true
		}
	case strings.HasPrefix(head, "uci:"):
		ps.Kind = KindUCI
		e, err := parseUCISpec(spec, fields)
		if err != nil {
			return ps, err
		}
		ps.UCI, ps.Path = e, e.Path
		return ps, nil
	default:
		return ps, bad("unknown player %q; want random, uniform[,nodes=N][,draw-score=X][,lookahead=0|1][,matecheck=0|1][,mode=M], net:PATH[,nodes=N][,draw-score=X][,lookahead=0|1][,matecheck=0|1][,mode=M][,evaluators=N][,cache=N][,kernel=K] or uci:PATH,nodes=N|depth=N|movetime=MS|tc=SEC[+INC][,...]", head)
	}
	seen := map[string]string{} // an option's name: the spelling given
	for _, opt := range opts {
		given, val, ok := strings.Cut(opt, "=")
		if !ok || given == "" {
			return ps, bad("option %q: want KEY=VALUE", opt)
		}
		key := given
		if name, old := specOldNames[given]; old {
			key = name
		}
		if !allowed[key] {
			if len(allowed) == 0 {
				return ps, bad("%s takes no options, got %q", ps.Kind, given)
			}
			return ps, bad("%s has no option %q", ps.Kind, given)
		}
		if was, ok := seen[key]; ok {
			if was != given {
				// As a flag and its old name together are refused.
				return ps, bad("%s and %s are the same option (%s is its name): give one", was, given, key)
			}
			return ps, bad("%s given twice", given)
		}
		seen[key] = given
		if key == "kernel" {
			if _, err := model.ParseKernel(val); err != nil {
				return ps, bad("kernel=%s: %v", val, err)
			}
			ps.Kernel = val
			continue
		}
		if key == "mode" {
			m, err := mcts.ParseMode(val)
			if err != nil {
				return ps, bad("mode=%s: want gumbel or puct", val)
			}
			ps.Search.Mode = m
			continue
		}
		if key == "draw-score" {
			d, err := strconv.ParseFloat(val, 64)
			if err != nil || !(d >= -1 && d <= 1) {
				return ps, bad("%s=%s: want a draw score in [-1, 1]", given, val)
			}
			ps.Search.DrawScore = d
			continue
		}
		if key == "lookahead" || key == "matecheck" {
			if val != "0" && val != "1" {
				return ps, bad("%s=%s: want 0 (off) or 1 (on)", key, val)
			}
			if key == "lookahead" {
				ps.Search.RootLookahead = val == "1"
			} else {
				ps.Search.MateCheck = val == "1"
			}
			continue
		}
		n, err := strconv.Atoi(val)
		least, most := 1, maxSpecSimulations
		switch key {
		case "cache":
			least, most = 0, nn.MaxCacheEntries
		case "evaluators":
			most = MaxEvaluators
		}
		if err != nil || n < least || n > most {
			return ps, bad("%s=%s: want an integer from %d to %d", given, val, least, most)
		}
		switch key {
		case "nodes":
			ps.Search.Simulations = n
		case "evaluators":
			ps.Evaluators = n
		case "cache":
			ps.Cache = n
		}
	}
	return ps, nil
}

// NewPlayer makes the player for rule set rs, loading its network or
// starting its engine (an *UCIPlayer, to be closed when the match ends).
func (ps PlayerSpec) NewPlayer(rs *rules.RuleSet) (Player, error) {
	return ps.StartPlayer(context.Background(), rs)
}

// StartPlayer is NewPlayer whose external engine's start ends with ctx.
func (ps PlayerSpec) StartPlayer(ctx context.Context, rs *rules.RuleSet) (Player, error) {
	switch ps.Kind {
	case KindUCI:
		if ps.UCI == nil {
			return nil, fmt.Errorf("arena: player %q: no engine", ps.Spec)
		}
		p, err := StartUCIPlayer(ctx, *ps.UCI, rs)
		if err != nil {
			return nil, err
		}
		return p, nil
	case KindRandom:
		return Random{}, nil
	case KindUniform:
		uniform := func() (nn.Evaluator, error) { return model.Uniform(), nil }
		return NewSearch("uniform/"+SearchLabel(ps.Search), ps.Search, uniform, SearchOptions{Evaluators: 1})
	case KindNet:
		ck, err := model.LoadNetworkFor(ps.Path, rs)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("net:%s/%s", ck.Weights.ID(), SearchLabel(ps.Search))
		opt := SearchOptions{Evaluators: ps.Evaluators, CacheEntries: ps.Cache}
		if ps.Kernel == "" {
			return NewNetwork(name, ck.Weights, ps.Search, opt)
		}
		kernel, err := model.ParseKernel(ps.Kernel)
		if err != nil {
			return nil, fmt.Errorf("arena: player %q: %w", ps.Spec, err)
		}
		name += "/" + ps.Kernel
		return NewSearch(name, ps.Search, func() (nn.Evaluator, error) { return model.NewEvaluatorKernel(ck.Weights, kernel) }, opt)
	}
	return nil, fmt.Errorf("arena: player %q: unknown kind %q", ps.Spec, ps.Kind)
}

// Describe says what player p, made from the spec, is beyond its name.
func (ps PlayerSpec) Describe(p Player) string {
	switch ps.Kind {
	case KindUCI:
		if ep, ok := p.(*UCIPlayer); ok {
			return ep.Describe()
		}
		return ps.Path
	case KindNet:
		kernel := ""
		if ps.Kernel != "" {
			kernel = ", kernel " + ps.Kernel
		}
		return fmt.Sprintf("%s, %d simulations%s%s", ps.Path, ps.Search.Simulations, ps.drawNote(), kernel)
	case KindUniform:
		return fmt.Sprintf("uniform evaluator, %d simulations%s", ps.Search.Simulations, ps.drawNote())
	}
	return "uniformly random legal moves"
}

func (ps PlayerSpec) drawNote() string {
	if ps.Search.DrawScore != 0 {
		return fmt.Sprintf(", draws worth %g to the mover", ps.Search.DrawScore)
	}
	return ""
}
