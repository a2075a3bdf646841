package engine

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/rules"
)

// limits are what the client allows a search, as UCI's go arguments say it
// (parseGo); another protocol fills them from its own commands.
type limits struct {
	nodes, depth, perft int
	isPerft             bool
	movetime            time.Duration
	clock, inc          [2]time.Duration // by rules.Color
	hasClock            [2]bool
	movestogo           int
	infinite, ponder    bool
}

// plan is what a search may spend: simulations (0: no cap) and time (0:
// none), or until stop.
type plan struct {
	nodes    int
	limit    time.Duration
	infinite bool
}

// depthNodes maps go depth to simulations: 2^(depth+3), at most maxNodes.
func depthNodes(depth int) int {
	return 1 << min(max(depth, 0)+3, 24)
}

// plan turns go's limits into a budget (see the package comment).
func (l limits) plan(side rules.Color, defaultNodes int, overhead time.Duration) plan {
	if l.infinite || l.ponder {
		return plan{infinite: true}
	}
	var p plan
	if l.nodes > 0 {
		p.nodes = min(l.nodes, maxNodes)
	}
	if l.depth > 0 {
		if d := depthNodes(l.depth); p.nodes == 0 || d < p.nodes {
			p.nodes = d
		}
	}
	if l.movetime > 0 {
		p.limit = max(l.movetime-overhead, time.Millisecond)
	}
	if l.hasClock[side] {
		rem := l.clock[side]
		mtg := l.movestogo
		if mtg <= 0 {
			mtg = 30
		}
		t := min(rem/time.Duration(mtg)+l.inc[side]*8/10, rem*8/10) - overhead
		t = max(t, time.Millisecond)
		if p.limit == 0 || t < p.limit {
			p.limit = t
		}
	}
	if p.nodes == 0 && p.limit == 0 {
		p.nodes = defaultNodes
	}
	return p
}

// playParams are the engine's search parameters before any setoption:
// playing to win, as an arena match plays (the full budget every move, no
// noise, no temperature, Gumbel's deterministic choice), nodes simulations
// and leavesPerThread leaves a network copy.
func playParams(nodes, threads int) mcts.Params {
	p := mcts.PlayParams(max(nodes, 1))
	p.LeavesPerEval = threadLeaves(threads)
	p.Seed = 1
	return p
}

// threadLeaves is how many leaves a search gathers for threads network
// copies: leavesPerThread each, within mcts's cap (past 128 threads the
// copies share the cap's leaves).
func threadLeaves(threads int) int {
	return min(leavesPerThread*max(threads, 1), mcts.MaxLeavesPerEval)
}

// start starts a search (or perft) of cur (nil: none could be set up)
// under l in its own goroutine.
func (e *Engine) start(cur *rules.Game, l limits) {
	if l.isPerft && (l.perft < 1 || l.perft > maxPerft) {
		e.note(fmt.Errorf("uci: go perft: want a depth of 1–%d", maxPerft))
		return
	}
	side := rules.White
	if cur != nil {
		side = cur.Position().SideToMove()
	}
	j := &job{
		out:    e.out,
		report: e.proto.reporter(e),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		perft:  l.perft,
		plan:   l.plan(side, e.params.Simulations, time.Duration(e.overhead)*time.Millisecond),
		start:  time.Now(),
	}
	j.waitStop = j.plan.infinite && !l.isPerft
	if cur != nil {
		var err error
		if j.g, err = clone(cur); err != nil {
			e.note(err)
		}
	}
	if j.perft == 0 && j.g != nil {
		j.s = e.machinery()
	}
	e.job = j
	go func() {
		defer close(j.done)
		j.run()
	}()
}

// clone copies g (root and moves), so the search never shares the
// engine's position.
func clone(g *rules.Game) (*rules.Game, error) {
	c, err := rules.NewGame(g.Rules(), g.RootFEN())
	if err != nil { // g was made from this FEN: cannot happen
		return nil, fmt.Errorf("uci: %w", err)
	}
	for _, m := range g.Moves(nil) {
		c.Play(m)
	}
	return c, nil
}

// job is one go: a search or a perft, with everything it needs of the
// engine copied, so the command loop goes on meanwhile.
type job struct {
	out      *output
	report   reporter // the protocol's lines
	s        *mcts.Search
	g        *rules.Game
	plan     plan
	perft    int
	waitStop bool // infinite: bestmove only after stop
	start    time.Time

	stop    chan struct{} // closed by stop, ponderhit, quit, a new go
	halt    atomic.Bool   // set with stop, for perft's inner loop
	stopped bool          // the command loop's own record of closing stop
	done    chan struct{}

	// best is the move the search answered with (rules.NoMove for none),
	// for a protocol that plays it itself; read it once done is closed.
	best rules.Move
}

// note reports err to the client in the protocol's form.
func (j *job) note(err error) { j.out.line(j.report.note(oneLine(err))) }

func (j *job) stopRequested() bool {
	select {
	case <-j.stop:
		return true
	default:
		return false
	}
}

func (j *job) run() {
	if j.perft > 0 {
		j.runPerft()
		return
	}
	j.best = j.search()
	if j.waitStop {
		<-j.stop
	}
	j.out.line(j.report.best(j.best))
}

// search searches the position within the plan and returns the move.
func (j *job) search() rules.Move {
	g := j.g
	if g == nil || j.s == nil {
		return rules.NoMove
	}
	legal := g.LegalMoves(nil)
	if len(legal) == 0 {
		j.out.line(j.over(g))
		return rules.NoMove
	}
	if r := g.Result(); r.Over() {
		// A GUI that asks for a move here does not count the game over (a
		// claim it does not make): search the position afresh.
		j.note(fmt.Errorf("uci: the game is over (%s); searching the position without its history", r))
		fresh, err := rules.NewGame(g.Rules(), g.Position().FEN())
		if err != nil || fresh.Result().Over() {
			return legal[0]
		}
		g = fresh
	}
	var res, prev mcts.Result
	nodes, done := 0, false // done: a search finished its budget
	run := func(o mcts.RunOptions) bool {
		o.Stop = j.stop
		if err := j.s.RunWith(g, o, &res); err != nil {
			j.note(fmt.Errorf("uci: search: %w", err))
			return false
		}
		nodes += res.Simulations
		return true
	}
	p := j.plan
	if !p.infinite && p.limit == 0 {
		if !run(mcts.RunOptions{Simulations: p.nodes}) {
			return legal[0]
		}
		j.out.line(j.report.info(&res, nodes, time.Since(j.start)))
		return res.Best
	}
	// A sequence of searches of the growing tree, each twice the last,
	// until the time, the nodes or the stop.
	var deadline time.Time
	if p.limit > 0 {
		deadline = j.start.Add(p.limit)
	}
	budget := 64
	for {
		b := budget
		if p.nodes > 0 {
			b = min(b, p.nodes-nodes)
		}
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left < time.Millisecond || nodes > 0 && left < p.limit/50 {
				break
			}
			if el := time.Since(j.start); nodes > 0 && el > 0 {
				speed := float64(nodes) / el.Seconds()
				b = min(b, max(int(speed*left.Seconds()*0.9), 1))
			}
		}
		if b <= 0 {
			break
		}
		if done {
			prev, res = res, prev
		}
		if !run(mcts.RunOptions{Simulations: b, Deadline: deadline}) {
			if done {
				prev, res = res, prev
			}
			break
		}
		cut := res.Simulations < b && (j.stopRequested() || !deadline.IsZero() && !time.Now().Before(deadline))
		if cut && done {
			// The last search was cut short: play the one before.
			prev, res = res, prev
			j.out.line(j.report.info(&res, nodes, time.Since(j.start)))
			break
		}
		done = true
		j.out.line(j.report.info(&res, nodes, time.Since(j.start)))
		if res.Simulations < b || j.stopRequested() {
			break // nothing left to search (proven, forced, the tree full), or stopped
		}
		budget = min(2*budget, maxNodes)
	}
	if !done {
		return legal[0]
	}
	return res.Best
}

// over is the info line for a position without moves.
func (j *job) over(g *rules.Game) string {
	r := g.Result()
	side := g.Position().SideToMove()
	lost := r.Outcome == rules.WhiteWins && side == rules.Black || r.Outcome == rules.BlackWins && side == rules.White
	won := r.Outcome == rules.WhiteWins && side == rules.White || r.Outcome == rules.BlackWins && side == rules.Black
	return j.report.over(lost, won)
}

// maxPerft bounds go perft's depth.
const maxPerft = rules.MaxPerftDepth

// runPerft counts the legal-move tree's leaves under each move, as
// rules.Game.PerftDivide does, but stops at once on stop or quit (the lines
// are Stockfish's, in every protocol that has perft).
func (j *job) runPerft() {
	if j.g == nil {
		return
	}
	g := j.g
	moves := g.LegalMoves(nil)
	halted := j.halt.Load
	type count struct {
		text  string
		nodes uint64
	}
	counts := make([]count, 0, len(moves))
	var total uint64
	for _, m := range moves {
		g.Play(m)
		n, ok := g.PerftStop(j.perft-1, halted)
		g.Undo()
		if !ok {
			j.note(fmt.Errorf("uci: perft %d stopped after %d of %d moves from the root", j.perft, len(counts), len(moves)))
			return
		}
		total += n
		counts = append(counts, count{string(j.report.move(nil, m)), n})
	}
	slices.SortFunc(counts, func(a, b count) int { return strings.Compare(a.text, b.text) })
	for _, c := range counts {
		j.out.line(fmt.Sprintf("%s: %d", c.text, c.nodes))
	}
	j.out.line("")
	j.out.line(fmt.Sprintf("Nodes searched: %d", total))
	j.out.line("")
}
