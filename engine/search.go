package engine

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

// limits are a go command's arguments.
type limits struct {
	nodes, depth, perft int
	isPerft             bool
	movetime            time.Duration
	clock, inc          [2]time.Duration // by rules.Color
	hasClock            [2]bool
	movestogo           int
	infinite, ponder    bool
}

// parseGo reads go's arguments for the side to move; errors are reported
// and the rest is used.
func (e *Engine) parseGo(args []string, side rules.Color) (limits, []error) {
	var l limits
	var errs []error
	unit := time.Millisecond
	if e.dialect == dialectUCCI && !e.milli {
		unit = time.Second
	}
	for i := 0; i < len(args); i++ {
		key := strings.ToLower(args[i])
		val, ok := "", false
		if takesValue(key) {
			if ok = i+1 < len(args) && (!isGoKey(args[i+1]) || key == "depth" && args[i+1] == "infinite"); ok {
				i++
				val = args[i]
			} else {
				errs = append(errs, fmt.Errorf("uci: go %s: missing value", key))
				continue
			}
		}
		num := func() int {
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				errs = append(errs, fmt.Errorf("uci: go %s %q: want a count", key, val))
				return 0
			}
			return n
		}
		dur := func(u time.Duration) (time.Duration, bool) {
			x, err := strconv.ParseFloat(val, 64)
			if err != nil || math.IsNaN(x) {
				errs = append(errs, fmt.Errorf("uci: go %s %q: want a time", key, val))
				return 0, false
			}
			// A clock may be negative (its flag fell); a day is plenty.
			return time.Duration(max(0, min(x*float64(u), float64(24*time.Hour)))), true
		}
		switch key {
		case "nodes":
			l.nodes = num()
		case "depth":
			if val == "infinite" { // UCCI
				l.infinite = true
			} else {
				l.depth = num()
			}
		case "perft":
			l.perft, l.isPerft = num(), true
		case "movestogo":
			l.movestogo = num()
		case "movetime":
			l.movetime, _ = dur(time.Millisecond)
		case "wtime", "btime", "winc", "binc", "time", "opptime", "increment", "oppincrement":
			c, u := rules.White, time.Millisecond
			switch {
			case key[0] == 'b':
				c = rules.Black
			case key[0] != 'w': // UCCI: the side to move's clock, and the other's
				c, u = side, unit
				if strings.HasPrefix(key, "opp") {
					c = side ^ 1
				}
			}
			d, ok := dur(u)
			if strings.HasSuffix(key, "time") {
				l.clock[c] = d
				l.hasClock[c] = l.hasClock[c] || ok
			} else {
				l.inc[c] = d
			}
		case "infinite":
			l.infinite = true
		case "ponder":
			l.ponder = true
		case "draw": // UCCI: the opponent offers a draw; palace plays on
		case "mate":
			errs = append(errs, errors.New("uci: go mate: unsupported, searching without it"))
		case "searchmoves":
			errs = append(errs, errors.New("uci: go searchmoves: unsupported, searching every move"))
			for i+1 < len(args) && !isGoKey(args[i+1]) {
				i++
			}
		default:
			errs = append(errs, fmt.Errorf("uci: go: unknown argument %q", args[i]))
		}
	}
	return l, errs
}

func takesValue(key string) bool {
	switch key {
	case "infinite", "ponder", "draw", "searchmoves":
		return false
	}
	return isGoKey(key)
}

func isGoKey(s string) bool {
	switch strings.ToLower(s) {
	case "nodes", "depth", "perft", "movestogo", "movetime", "wtime", "btime", "winc", "binc",
		"time", "opptime", "increment", "oppincrement", "infinite", "ponder", "draw", "mate", "searchmoves":
		return true
	}
	return false
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

// playParams are search parameters for playing to win, as an arena match
// plays: the full budget every move, no noise, no temperature, Gumbel's
// deterministic choice.
func playParams(nodes, threads, drawScore int) mcts.Params {
	p := mcts.PlayParams(max(nodes, 1))
	p.LeavesPerEval = leavesPerThread * max(threads, 1)
	p.DrawScore = float64(drawScore) / 100
	p.Seed = 1
	return p
}

// goCmd starts a search (or perft) in its own goroutine.
func (e *Engine) goCmd(args []string) {
	cur, err := e.current()
	if err != nil {
		e.out.info(err)
		cur = nil
	}
	side := rules.White
	if cur != nil {
		side = cur.Position().SideToMove()
	}
	l, errs := e.parseGo(args, side)
	for _, err := range errs {
		e.out.info(err)
	}
	if l.isPerft && (l.perft < 1 || l.perft > maxPerft) {
		e.out.info(fmt.Errorf("uci: go perft: want a depth of 1–%d", maxPerft))
		return
	}
	j := &job{
		out:     e.out,
		base:    e.base(),
		dialect: e.dialect,
		wdl:     e.showWDL,
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		perft:   l.perft,
		plan:    l.plan(side, e.nodes, time.Duration(e.overhead)*time.Millisecond),
		start:   time.Now(),
	}
	j.waitStop = j.plan.infinite && !l.isPerft
	if cur != nil {
		if j.g, err = clone(cur); err != nil {
			e.out.info(err)
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
	s        *mcts.Search
	g        *rules.Game
	base     rules.RankBase
	dialect  dialect
	wdl      bool
	plan     plan
	perft    int
	waitStop bool // infinite: bestmove only after stop
	start    time.Time

	stop    chan struct{} // closed by stop, ponderhit, quit, a new go
	halt    atomic.Bool   // set with stop, for perft's inner loop
	stopped bool          // the command loop's own record of closing stop
	done    chan struct{}
}

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
	best := j.search()
	if j.waitStop {
		<-j.stop
	}
	j.bestmove(best)
}

func (j *job) bestmove(m rules.Move) {
	switch {
	case m != rules.NoMove:
		j.out.line("bestmove " + string(m.AppendText(nil, j.base)))
	case j.dialect == dialectUCCI:
		j.out.line("nobestmove")
	default:
		j.out.line("bestmove (none)")
	}
}

// search searches the position within the plan and returns the move.
func (j *job) search() rules.Move {
	g := j.g
	if g == nil || j.s == nil {
		return rules.NoMove
	}
	legal := g.LegalMoves(nil)
	if len(legal) == 0 {
		j.out.line(j.endInfo(g))
		return rules.NoMove
	}
	if r := g.Result(); r.Over() {
		// A GUI that asks for a move here does not count the game over (a
		// claim it does not make): search the position afresh.
		j.out.info(fmt.Errorf("uci: the game is over (%s); searching the position without its history", r))
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
			j.out.info(fmt.Errorf("uci: search: %w", err))
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
		j.out.line(j.info(&res, nodes))
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
			j.out.line(j.info(&res, nodes))
			break
		}
		done = true
		j.out.line(j.info(&res, nodes))
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

// endInfo is the info line for a position without moves: mate 0 for a loss.
func (j *job) endInfo(g *rules.Game) string {
	r := g.Result()
	side := g.Position().SideToMove()
	lost := r.Outcome == rules.WhiteWins && side == rules.Black || r.Outcome == rules.BlackWins && side == rules.White
	won := r.Outcome == rules.WhiteWins && side == rules.White || r.Outcome == rules.BlackWins && side == rules.Black
	switch {
	case j.dialect == dialectUCCI && lost:
		return "info depth 0 score -10000"
	case j.dialect == dialectUCCI && won:
		return "info depth 0 score 10000"
	case j.dialect == dialectUCCI:
		return "info depth 0 score 0"
	case lost:
		return "info depth 0 score mate 0"
	case won:
		return "info depth 0 score cp 9900"
	}
	return "info depth 0 score cp 0"
}

// info is the info line for a search result, nodes simulations in.
func (j *job) info(r *mcts.Result, nodes int) string {
	ms := time.Since(j.start).Milliseconds()
	b := make([]byte, 0, 256)
	b = fmt.Appendf(b, "info depth %d score ", max(len(r.PV), 1))
	b = append(b, score(r, j.dialect)...)
	if j.wdl && j.dialect == dialectUCI {
		w, d, l := wdlPermille(r)
		b = fmt.Appendf(b, " wdl %d %d %d", w, d, l)
	}
	b = fmt.Appendf(b, " nodes %d", nodes)
	if j.dialect == dialectUCI {
		b = fmt.Appendf(b, " nps %d", nodes*1000/max(int(ms), 1))
	}
	b = fmt.Appendf(b, " time %d", ms)
	if len(r.PV) > 0 {
		b = append(b, " pv"...)
		for _, m := range r.PV {
			b = append(b, ' ')
			b = m.AppendText(b, j.base)
		}
	}
	return string(b)
}

// score writes the root's value: "cp C" or "mate M" (UCI), or a number
// with mates at ±(10000 − plies) (UCCI).
func score(r *mcts.Result, d dialect) string {
	plies := max(r.ProofPlies, 0)
	switch {
	case r.Proof == mcts.ProvenWin && d == dialectUCCI:
		return strconv.Itoa(10000 - min(plies, 99))
	case r.Proof == mcts.ProvenLoss && d == dialectUCCI:
		return strconv.Itoa(-10000 + min(plies, 99))
	case r.Proof == mcts.ProvenWin:
		return "mate " + strconv.Itoa((plies+1)/2)
	case r.Proof == mcts.ProvenLoss:
		return "mate -" + strconv.Itoa((plies+1)/2)
	case r.Proof == mcts.ProvenDraw:
		if d == dialectUCCI {
			return "0"
		}
		return "cp 0"
	}
	cp := strconv.Itoa(ValueToCentipawns(float64(r.Value)))
	if d == dialectUCCI {
		return cp
	}
	return "cp " + cp
}

// ValueToCentipawns maps a value v ∈ [-1, 1] (win − loss) to centipawns,
// round(100·tan(1.5637·v)) clamped to ±9900: 0.25 is 41, 0.5 is 99, 0.75 is
// 238, 0.9 is 606.
func ValueToCentipawns(v float64) int {
	if math.IsNaN(v) {
		return 0
	}
	v = max(-1, min(1, v))
	cp := math.Round(100 * math.Tan(1.5637*v))
	return int(max(-9900, min(9900, cp)))
}

// CentipawnsToValue is ValueToCentipawns's inverse, atan(cp/100)/1.5637,
// within [-1, 1].
func CentipawnsToValue(cp int) float64 {
	return max(-1, min(1, math.Atan(float64(cp)/100)/1.5637))
}

// wdlPermille is the result's WDL in per mille, summing to 1000.
func wdlPermille(r *mcts.Result) (w, d, l int) {
	w = int(math.Round(1000 * float64(r.WDL[0])))
	l = int(math.Round(1000 * float64(r.WDL[2])))
	w, l = max(0, min(1000, w)), max(0, min(1000, l))
	if w+l > 1000 {
		l = 1000 - w
	}
	return w, 1000 - w - l, l
}

// maxPerft bounds go perft's depth.
const maxPerft = 20

// runPerft counts the legal-move tree's leaves under each move, as
// rules.Game.PerftDivide does, but stops at once on stop or quit.
func (j *job) runPerft() {
	if j.g == nil {
		return
	}
	g := j.g
	moves := g.LegalMoves(nil)
	bufs := make([]rules.Move, j.perft*rules.MaxMoves)
	type count struct {
		text  string
		nodes uint64
	}
	counts := make([]count, 0, len(moves))
	var total uint64
	for _, m := range moves {
		g.Play(m)
		n, ok := perft(g, j.perft-1, bufs, &j.halt)
		g.Undo()
		if !ok {
			j.out.info(errors.New("uci: perft stopped"))
			return
		}
		total += n
		counts = append(counts, count{string(m.AppendText(nil, j.base)), n})
	}
	slices.SortFunc(counts, func(a, b count) int { return strings.Compare(a.text, b.text) })
	for _, c := range counts {
		j.out.line(fmt.Sprintf("%s: %d", c.text, c.nodes))
	}
	j.out.line("")
	j.out.line(fmt.Sprintf("Nodes searched: %d", total))
	j.out.line("")
}

// perft is rules' perft (the last ply counted in bulk) that gives up when
// halt is set.
func perft(g *rules.Game, depth int, buf []rules.Move, halt *atomic.Bool) (uint64, bool) {
	if depth == 0 {
		return 1, true
	}
	moves := g.LegalMoves(buf[:0:rules.MaxMoves])
	if depth == 1 {
		return uint64(len(moves)), true
	}
	if halt.Load() {
		return 0, false
	}
	var n uint64
	for _, m := range moves {
		g.Play(m)
		k, ok := perft(g, depth-1, buf[rules.MaxMoves:], halt)
		g.Undo()
		if !ok {
			return 0, false
		}
		n += k
	}
	return n, true
}

// uniform is the evaluator without a network.
func uniform() nn.Evaluator { return nn.NewUniform(encode.InputSize, encode.PolicySize()) }

// newEvaluator loads the network (or none: the uniform evaluator) with
// threads copies evaluating each batch in parallel.
func newEvaluator(file string, threads int) (nn.Evaluator, error) {
	if file == "" {
		return uniform(), nil
	}
	ck, err := model.Load(file)
	if err != nil {
		return nil, fmt.Errorf("uci: network: %w", err)
	}
	if ck.EncodingVersion != encode.Version {
		return nil, fmt.Errorf("uci: network %s reads encoding version %d, this palace writes %d", file, ck.EncodingVersion, encode.Version)
	}
	par := &parallel{}
	for range max(threads, 1) {
		ev, err := model.NewEvaluator(ck.Weights)
		if err != nil {
			return nil, fmt.Errorf("uci: network %s: %w", file, err)
		}
		par.evs = append(par.evs, ev)
	}
	if len(par.evs) == 1 {
		return par.evs[0], nil
	}
	return par, nil
}

// parallel splits each batch among copies of a network, one goroutine
// each.
type parallel struct {
	evs  []nn.Evaluator
	errs []error
}

func (p *parallel) InputSize() int  { return p.evs[0].InputSize() }
func (p *parallel) PolicySize() int { return p.evs[0].PolicySize() }

func (p *parallel) Evaluate(in []nn.Input, out []nn.Output) error {
	if err := nn.Validate(p.InputSize(), p.PolicySize(), in, out); err != nil {
		return err
	}
	k := min(len(p.evs), len(in))
	if k <= 1 {
		return p.evs[0].Evaluate(in, out)
	}
	p.errs = append(p.errs[:0], make([]error, k)...)
	var wg sync.WaitGroup
	for i := range k {
		lo, hi := i*len(in)/k, (i+1)*len(in)/k
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.errs[i] = p.evs[i].Evaluate(in[lo:hi], out[lo:hi])
		}()
	}
	wg.Wait()
	return errors.Join(p.errs...)
}
