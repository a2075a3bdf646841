package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn"
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
	// thinkOn: once the move is out, search on in the position after it
	// until stopped (CECP's pondering, hard), so that the tree the next
	// search reuses has grown on the opponent's time.
	thinkOn     bool
	mate        int          // go mate N: moves
	searchmoves []string     // go searchmoves: the moves' text, read against the position
	root        []rules.Move // the root moves to search (searchmoves, banmoves); nil: every move
}

// plan is what a search may spend: simulations (0: no cap) and time (0:
// none), or until stop; mate, when positive, ends it once the root is a
// proven win in at most that many plies.
type plan struct {
	nodes    int
	limit    time.Duration
	infinite bool
	mate     int
}

// depthNodes maps go depth to simulations: 2^(depth+3), at most maxNodes.
func depthNodes(depth int) int {
	return 1 << min(max(depth, 0)+3, 24)
}

// mateNodes is the budget of go mate N without other limits:
// 2^(2N+8) simulations (mate 1: 1024, 3: 16384, 5: 262144), at most
// maxNodes.
func mateNodes(moves int) int {
	return 1 << min(2*max(moves, 1)+8, 24)
}

// capNodes is the simulations the client capped the search at (nodes,
// depth, the smaller of the two), 0 for none.
func (l limits) capNodes() int {
	n := 0
	if l.nodes > 0 {
		n = min(l.nodes, maxNodes)
	}
	if l.depth > 0 {
		if d := depthNodes(l.depth); n == 0 || d < n {
			n = d
		}
	}
	return n
}

// movesToGo is how many more moves a clock without movestogo is shared
// over, ply plies into the game. With an increment, 20 at the start and
// one fewer every 8 plies down to 8: palace's games against
// Fairy-Stockfish last about 70 plies (median; 90% under 120), and a fixed
// 30 left about a quarter of a 1 minute + 1 s game's time unused at such a
// game's end (by the plan's arithmetic: the clock decays by 1/30 a move),
// where this leaves about 8%; the increment (0.8 of it a move) keeps the
// longest games going. Without an increment nothing comes back, so the
// share stays 1/30 of what is left: a game of hundreds of moves keeps a
// reserve.
func movesToGo(ply int, inc time.Duration) int {
	if inc <= 0 {
		return 30
	}
	return max(8, 20-max(ply, 0)/8)
}

// plan turns go's limits into a budget (see the package comment) for side
// to move at ply ply. go ponder's limits are those after ponderhit:
// job.ponder marks the pondering itself.
func (l limits) plan(side rules.Color, ply, defaultNodes int, overhead time.Duration) plan {
	if l.infinite {
		return plan{infinite: true}
	}
	p := plan{nodes: l.capNodes()}
	if l.mate > 0 {
		p.mate = 2*min(l.mate, 1<<14) - 1
	}
	if l.movetime > 0 {
		p.limit = max(withoutOverhead(l.movetime, overhead), time.Millisecond)
	}
	if l.hasClock[side] {
		// The overhead comes off the clock before it is shared out, as
		// Stockfish takes it: taken off one move's share, it would eat the
		// whole of it on a short clock.
		rem := withoutOverhead(l.clock[side], overhead)
		mtg := l.movestogo
		if mtg <= 0 {
			mtg = movesToGo(ply, l.inc[side])
		}
		t := min(rem/time.Duration(mtg)+l.inc[side]*8/10, rem*8/10)
		t = max(t, time.Millisecond)
		if p.limit == 0 || t < p.limit {
			p.limit = t
		}
	}
	if p.nodes == 0 && p.limit == 0 {
		p.nodes = defaultNodes
		if l.mate > 0 {
			p.nodes = max(defaultNodes, mateNodes(l.mate))
		}
	}
	return p
}

// withoutOverhead is d less the move overhead, but never less than a
// quarter of d: an overhead set for a long time control must not leave a
// short one nothing to search with.
func withoutOverhead(d, overhead time.Duration) time.Duration {
	return max(d-overhead, d/4)
}

// minSimulations is what every search of a go gets before a clock can stop
// it (a stop still can): a move the search has looked at, never one picked
// blind.
const minSimulations = 32

// playParams are the engine's search parameters before any setoption:
// playing to win, as an arena match plays (the full budget every move, no
// noise, no temperature, Gumbel's deterministic choice), nodes simulations
// and leavesPerThread leaves a network copy.
func playParams(nodes, threads int) mcts.Params {
	p := mcts.PlayParams(max(nodes, 1))
	p.LeavesPerEval = threadLeaves(threads)
	p.MaxNodes = treeNodes(defaultTreeMB)
	p.Seed = 1
	return p
}

// capNodes is a budget of nodes (0: none) capped at most.
func capNodes(nodes, most int) int {
	if nodes == 0 || nodes > most {
		return most
	}
	return nodes
}

// treeNodes is the tree's cap in nodes for mb megabytes (Tree Memory).
func treeNodes(mb int) int { return mb << 20 / treeNodeBytes }

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
	side, ply := rules.White, 0
	if cur != nil {
		// The game's ply by its move number, which a FEN sent afresh
		// every move (some GUIs' way) carries, where the moves after it
		// are none.
		pos := cur.Position()
		side = pos.SideToMove()
		ply = 2*(pos.FullmoveNumber()-1) + int(side)
	}
	j := &job{
		out:      e.out,
		report:   e.proto.reporter(e),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
		perft:    l.perft,
		plan:     l.plan(side, ply, e.params.Simulations, time.Duration(e.overhead)*time.Millisecond),
		infinite: l.infinite && !l.isPerft,
		ponder:   l.ponder && !l.isPerft,
		root:     l.root,
		multiPV:  e.multiPV,
		treeMB:   e.treeMB,
		ponderOK: e.ponder,
		start:    time.Now(),
	}
	// A strength limit caps what a move may search (the pondering
	// included, which would otherwise hand the move a bigger tree), never
	// an analysis (go infinite).
	lim := e.strength()
	if lim.nodes == 0 {
		e.strengthSaid = ""
	}
	if lim.nodes > 0 && !j.infinite && !l.isPerft {
		j.plan.nodes = capNodes(j.plan.nodes, lim.nodes)
		if lim.note != e.strengthSaid {
			e.out.line(e.proto.note(lim.note))
			e.strengthSaid = lim.note
		}
	}
	if j.ponder {
		// Pondering has no deadline; the nodes, depth or mate budget the
		// client gave caps it as it caps the whole go.
		j.pause = make(chan struct{})
		j.ponderPlan = plan{nodes: l.capNodes(), mate: j.plan.mate}
		if l.mate > 0 && j.ponderPlan.nodes == 0 {
			j.ponderPlan.nodes = j.plan.nodes
		}
		if lim.nodes > 0 {
			j.ponderPlan.nodes = capNodes(j.ponderPlan.nodes, lim.nodes)
		}
		j.ponderPlan.infinite = j.ponderPlan.nodes == 0
		if !j.ponderPlan.infinite {
			j.idle = make(chan struct{})
		}
	}
	j.waitStop = j.infinite || j.ponder
	if l.thinkOn && !l.isPerft && !j.infinite && !j.ponder {
		j.thinkOn, j.waitStop = true, true
		j.idle = make(chan struct{}) // closed once the move is out
	}
	if cur != nil {
		var err error
		if j.g, err = clone(cur); err != nil {
			e.note(err)
		}
	}
	if j.perft == 0 && j.g != nil {
		j.s = e.machinery()
		j.cache = e.cache
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
	cache    *nn.Cache // the search's evaluation cache, for hashfull; nil: none
	g        *rules.Game
	plan     plan
	perft    int
	infinite bool         // go infinite: bestmove only after stop
	root     []rules.Move // the root moves searched; nil: every move
	multiPV  int
	thinkOn  bool // limits.thinkOn
	treeMB   int  // Tree Memory, for the note when the tree is full
	ponderOK bool // the Ponder option: bestmove names the reply it expects
	start    time.Time

	// go ponder: the search runs under ponderPlan until ponderhit or stop
	// close pause; after ponderhit (at hitAt, written before pause is
	// closed) it goes on under plan, its clock starting then. idle, when
	// not nil, is closed once a capped pondering has spent its budget.
	ponder     bool
	ponderPlan plan
	pause      chan struct{}
	hitAt      time.Time
	idle       chan struct{}

	// The command loop's own records: whether the job will not end by
	// itself (infinite, or pondering before ponderhit), whether it closed
	// stop and pause.
	waitStop bool
	stopped  bool
	paused   bool

	stop chan struct{} // closed by stop, quit, a new go
	halt atomic.Bool   // set with stop, for perft's inner loop
	done chan struct{}

	// best is the move the search answered with (rules.NoMove for none),
	// for a protocol that plays it itself; read it once done is closed.
	best rules.Move
}

// note reports err to the client in the protocol's form.
func (j *job) note(err error) { j.out.line(j.report.note(oneLine(err))) }

func (j *job) stopRequested() bool { return closed(j.stop) }

// closed reports whether c is closed (a nil c never is).
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
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
	var ponder rules.Move
	j.best, ponder = j.search()
	if j.ponder {
		<-j.pause // pondering answers after ponderhit or stop
	}
	if j.infinite {
		<-j.stop
	}
	if f, ok := j.report.(fullReporter); ok && j.ponderOK {
		j.out.line(f.bestPonder(j.best, ponder))
		return
	}
	j.out.line(j.report.best(j.best))
	if j.thinkOn {
		close(j.idle)
		j.searchOn()
	}
}

// searchOn searches the position after the move played until stop, writing
// nothing: the next search of the game reuses the tree (limits.thinkOn).
func (j *job) searchOn() {
	g := j.g
	if g == nil || j.s == nil || j.best == rules.NoMove || !g.IsLegal(j.best) || j.stopRequested() {
		return
	}
	g.Play(j.best)
	if g.Result().Over() {
		return
	}
	q := &sequence{j: j, g: g, budget: 64}
	q.run(plan{infinite: true}, j.stop, time.Now())
}

// search searches the position within the plan and returns the move and
// the reply it expects (rules.NoMove when it does not know one).
func (j *job) search() (best, ponder rules.Move) {
	g := j.g
	if g == nil || j.s == nil {
		return rules.NoMove, rules.NoMove
	}
	legal := g.LegalMoves(nil)
	if len(legal) == 0 {
		j.out.line(j.over(g))
		return rules.NoMove, rules.NoMove
	}
	fallback := legal[0]
	if len(j.root) > 0 {
		fallback = j.root[0]
	}
	if r := g.Result(); r.Over() {
		// A GUI that asks for a move here does not count the game over (a
		// claim it does not make): search the position afresh.
		j.note(fmt.Errorf("uci: the game is over (%s); searching the position without its history", r))
		fresh, err := rules.NewGame(g.Rules(), g.Position().FEN())
		if err != nil || fresh.Result().Over() {
			return fallback, rules.NoMove
		}
		g = fresh
	}
	q := &sequence{j: j, g: g, budget: 64}
	if j.ponder {
		q.run(j.ponderPlan, j.pause, j.start)
		if j.idle != nil {
			close(j.idle)
		}
		<-j.pause
		if !j.stopRequested() { // ponderhit: a normal search from now on
			q.run(j.plan, j.stop, j.hitAt)
		}
	} else {
		q.run(j.plan, j.stop, j.start)
	}
	if !q.done {
		// Stopped before any search: a one-visit search still plays the
		// network's choice, not a move picked blind.
		if !q.search(plan{mate: j.plan.mate}, mcts.RunOptions{Simulations: 1}) {
			return fallback, rules.NoMove
		}
		q.done = true
	}
	if p := j.plan; p.mate > 0 && !q.mated(p) && !j.stopRequested() {
		j.note(fmt.Errorf("uci: go mate %d: no mate in %d found", (p.mate+1)/2, (p.mate+1)/2))
	}
	r := &q.res
	if len(r.PV) > 1 && r.PV[0] == r.Best {
		ponder = r.PV[1]
	} else if j.ponderOK && r.Best != rules.NoMove {
		ponder = anyReply(g, r.Best)
	}
	return r.Best, ponder
}

// anyReply is a legal reply to best when the tree knows none (the search
// never went below best): a GUI that ponders expects a ponder move
// whenever there is one (UCI2WB, given none, ponders on nothing and
// writes an error). The game is copied from its position, since the
// client may read the engine's game meanwhile.
func anyReply(g *rules.Game, best rules.Move) rules.Move {
	after, err := rules.NewGame(g.Rules(), g.Position().FEN())
	if err != nil {
		return rules.NoMove
	}
	after.Play(best)
	if after.ImmediateResult().Over() {
		return rules.NoMove
	}
	if replies := after.LegalMoves(nil); len(replies) > 0 {
		return replies[0]
	}
	return rules.NoMove
}

// sequence is a go's searches of one growing tree: what they found and
// spent so far.
type sequence struct {
	j         *job
	g         *rules.Game
	res, prev mcts.Result
	nodes     int  // simulations, every search of this go together
	leaves    int  // the sum of their leaves' depths (mcts.Result.LeafDepths)
	depth     int  // the depth last reported
	done      bool // a search finished its budget: res is an answer
	budget    int  // the next search's size in a time-limited sequence
	seldepth  int
	lines     []mcts.Line
	treeFull  bool // the note that the tree is full was written
}

// search runs one search of the tree; false after an error (reported).
func (q *sequence) search(p plan, o mcts.RunOptions) bool {
	o.RootMoves, o.MatePlies = q.j.root, p.mate
	if err := q.j.s.RunWith(q.g, o, &q.res); err != nil {
		q.j.note(fmt.Errorf("uci: search: %w", err))
		return false
	}
	q.nodes += q.res.Simulations
	q.leaves += q.res.LeafDepths
	q.seldepth = max(q.seldepth, q.res.Depth)
	if q.res.TreeFull && !q.treeFull {
		// The search ends here whatever its limits: say so, and what
		// lets it go on, rather than stop growing silently.
		q.treeFull = true
		q.j.note(fmt.Errorf("uci: the search tree is full (%d nodes, Tree Memory %d MB): the search stops here; raise Tree Memory to search on",
			q.j.s.Nodes(), q.j.treeMB))
	}
	return true
}

// mated reports whether the answer is the mate go mate asked for.
func (q *sequence) mated(p plan) bool {
	return p.mate > 0 && q.done && q.res.Proof == mcts.ProvenWin && q.res.ProofPlies <= p.mate
}

// run searches under p until its budget, its time (counted from clock),
// stop's closing or the end of what there is to search.
func (q *sequence) run(p plan, stop <-chan struct{}, clock time.Time) {
	j := q.j
	if q.mated(p) {
		return
	}
	if !p.infinite && p.limit == 0 {
		b := p.nodes - q.nodes
		if b <= 0 || closed(stop) {
			return
		}
		if q.done {
			q.prev, q.res = q.res, q.prev
		}
		if !q.search(p, mcts.RunOptions{Simulations: b, Stop: stop}) {
			if q.done {
				q.prev, q.res = q.res, q.prev
			}
			return
		}
		q.done = true
		q.info()
		return
	}
	// A sequence of searches of the growing tree, each twice the last,
	// until the time, the nodes or the stop.
	var deadline time.Time
	if p.limit > 0 {
		deadline = clock.Add(p.limit)
	}
	for !closed(stop) {
		b := q.budget
		if p.nodes > 0 {
			b = min(b, p.nodes-q.nodes)
		}
		if !q.done && b > 0 {
			// The first search has minSimulations whatever the clock says.
			if !q.search(p, mcts.RunOptions{Simulations: min(b, minSimulations), Stop: stop}) {
				break
			}
			q.done = true
			q.info()
			if q.res.Simulations < min(b, minSimulations) {
				break // nothing left to search, or stopped
			}
			continue
		}
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left < time.Millisecond || left < p.limit/50 {
				break
			}
			if el := time.Since(j.start); q.nodes > 0 && el > 0 {
				speed := float64(q.nodes) / el.Seconds()
				b = min(b, max(int(speed*left.Seconds()*0.9), 1))
			}
		}
		if b <= 0 {
			break
		}
		if q.done {
			q.prev, q.res = q.res, q.prev
		}
		if !q.search(p, mcts.RunOptions{Simulations: b, Deadline: deadline, Stop: stop}) {
			if q.done {
				q.prev, q.res = q.res, q.prev
			}
			break
		}
		cut := q.res.Simulations < b && (closed(stop) || !deadline.IsZero() && !time.Now().Before(deadline))
		if cut && q.done {
			// The last search was cut short: play the one before.
			q.prev, q.res = q.res, q.prev
			q.info()
			break
		}
		q.done = true
		q.info()
		if q.res.Simulations < b || closed(stop) {
			break // nothing left to search (proven, forced, the tree full, the mate found), or stopped
		}
		q.budget = min(2*q.budget, maxNodes)
	}
}

// info writes the lines that follow a search.
func (q *sequence) info() {
	j := q.j
	f, ok := j.report.(fullReporter)
	if !ok {
		j.out.line(j.report.info(&q.res, q.depthNow(), q.nodes, time.Since(j.start)))
		return
	}
	si := searchInfo{depth: q.depthNow(), nodes: q.nodes, elapsed: time.Since(j.start), seldepth: q.seldepth, hashfull: -1}
	if j.cache != nil {
		si.hashfull = hashfull(j.cache.Stats())
	}
	if j.multiPV > 1 {
		q.lines = j.s.Lines(q.lines)
		kept := q.lines[:0]
		for _, l := range q.lines {
			if j.root == nil || slices.Contains(j.root, l.Move) {
				kept = append(kept, l)
			}
		}
		rankLines(kept, &q.res)
		si.lines = kept[:min(len(kept), j.multiPV)]
	}
	for _, line := range f.infoLines(&q.res, &si) {
		j.out.line(line)
	}
}

// depthNow is the depth to report: the mean depth of this go's
// simulations' leaves, rounded (lc0's depth), at least 1, and never less
// than the depth reported before in this go, so that it rises from one
// info line to the next as the search deepens. (The principal variation's
// length, reported before, went up and down with the tree's shape.)
func (q *sequence) depthNow() int {
	if q.nodes > 0 {
		q.depth = max(q.depth, (q.leaves+q.nodes/2)/q.nodes)
	}
	q.depth = max(q.depth, 1)
	return q.depth
}

// rankLines orders MultiPV lines as the search ranks their moves: the move
// it plays first, then by its policy target (Gumbel's improved policy,
// softmax(logit + σ(completed Q)), the ranking its choice is made by;
// PUCT's visits), then as mcts.Lines has them (by visits). mcts.Lines
// ranks by visits alone, and Gumbel's choice need not be the most visited
// move, so line 1 could differ from bestmove.
func rankLines(lines []mcts.Line, r *mcts.Result) {
	policy := func(m rules.Move) float32 {
		if i := slices.Index(r.Moves, m); i >= 0 && i < len(r.Policy) {
			return r.Policy[i]
		}
		return -1
	}
	slices.SortStableFunc(lines, func(a, b mcts.Line) int {
		switch {
		case a.Move == b.Move:
			return 0
		case a.Move == r.Best:
			return -1
		case b.Move == r.Best:
			return 1
		}
		pa, pb := policy(a.Move), policy(b.Move)
		switch {
		case pa > pb:
			return -1
		case pa < pb:
			return 1
		}
		return 0
	})
}

// hashfull is the cache's fill in per mille, estimated from the positions
// it stored (its misses): a table of E slots hashed into uniformly holds
// E·(1 − e^(−m/E)) of m positions in expectation, within a few slots of
// the truth for tables of the sizes Hash makes.
func hashfull(st nn.CacheStats) int {
	if st.Entries <= 0 {
		return 0
	}
	f := 1 - math.Exp(-float64(st.Misses)/float64(st.Entries))
	return min(int(math.Round(1000*f)), 1000)
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
