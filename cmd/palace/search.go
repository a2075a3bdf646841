package main

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

func runSearch(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, pf := newPositionFlagSet("search", stderr)
	moves := fs.String("moves", "", "moves to play from the position first (ranks 1–10, space-separated)")
	netFile := fs.String("net", model.Builtin, "network checkpoint; builtin: palace's own network for the game (nets/); none: a uniform evaluator (equal priors, value 0)")
	sims := fs.Int("nodes", 800, "search budget: simulations (a visit count, not a time)")
	mode := fs.String("mode", "puct", "search: puct or gumbel")
	seed := fs.Uint64("seed", 1, "random seed (Gumbel sampling)")
	leaves := fs.Int("leaves", 8, "leaves gathered per network call (virtual loss)")
	drawScore := fs.Float64("draw-score", 0, "what a draw is worth to the side choosing a move, in [-1, 1]; below 0 the search plays on rather than draw")
	rs, err := pf.parse(fs, args)
	if err != nil {
		return err
	}
	fen, err := pf.startFEN(rs)
	if err != nil {
		return err
	}
	g, err := rules.NewGame(rs, fen)
	if err != nil {
		return err
	}
	for i, text := range strings.Fields(*moves) {
		if _, err := g.PlayText(text, rules.Ranks1); err != nil {
			return fmt.Errorf("--moves: move %d: %w", i+1, err)
		}
	}
	ev, ck, err := model.OpenEvaluator(*netFile, rs, 1)
	if err != nil {
		return err
	}
	evName := "uniform evaluator"
	switch {
	case ck != nil && *netFile == model.Builtin:
		evName = "built-in network " + ck.Weights.ID()
	case ck != nil:
		evName = "network " + ck.Weights.ID()
	}
	// Analysis: the full budget every time, no noise, the most visited
	// move; Gumbel's sampling stays (--seed picks it), as it always has.
	p := mcts.PlayParams(*sims)
	p.GumbelScale = mcts.DefaultParams().GumbelScale
	if p.Mode, err = mcts.ParseMode(*mode); err != nil {
		return usagef("--mode %q: want puct or gumbel", *mode)
	}
	p.Seed, p.LeavesPerEval, p.DrawScore = *seed, *leaves, *drawScore
	s, err := mcts.New(p, ev)
	if err != nil {
		return err
	}
	if r := g.Result(); r.Over() {
		return fmt.Errorf("the game is over: %s", r)
	}
	r, err := s.Run(g)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	fmt.Fprintf(out, "position %s\n", g.Position().FEN())
	fmt.Fprintf(out, "search %s, %d simulations, %d evaluations, %s\n", p.Mode, r.Simulations, r.Evaluations, evName)
	fmt.Fprintf(out, "bestmove %s\n", r.Best)
	fmt.Fprintf(out, "value %.3f  wdl %.3f %.3f %.3f\n", r.Value, r.WDL[0], r.WDL[1], r.WDL[2])
	if r.Proof != mcts.Unproven {
		fmt.Fprintf(out, "proof %s in %d plies\n", r.Proof, r.ProofPlies)
	}
	pv := make([]string, len(r.PV))
	for i, m := range r.PV {
		pv[i] = m.String()
	}
	fmt.Fprintf(out, "pv %s\n", strings.Join(pv, " "))
	order := make([]int, len(r.Moves))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return r.Visits[order[a]] > r.Visits[order[b]] })
	fmt.Fprintf(out, "%-7s %7s %7s %7s %7s\n", "move", "visits", "prior", "target", "q")
	for _, i := range order {
		fmt.Fprintf(out, "%-7s %7d %7.4f %7.4f %7.3f\n", r.Moves[i], r.Visits[i], r.Prior[i], r.Policy[i], r.Q[i])
	}
	return nil
}
