package mcts

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
)

// ErrGameOver is returned for a search asked of a finished game.
var ErrGameOver = errors.New("mcts: the game is over")

// ErrBadOutput is returned when the evaluator's answer is not a
// distribution (NaN, negative, or summing to nothing).
var ErrBadOutput = errors.New("mcts: evaluator returned an invalid output")

// Budget chooses a search's budget under playout-cap randomization.
type Budget uint8

const (
	BudgetAuto  Budget = iota // draw full or cheap from the Search's random numbers
	BudgetFull                // Params.Simulations
	BudgetCheap               // Params.CheapSimulations, no root noise
)

// RunOptions are one search's options beyond Params.
type RunOptions struct {
	Budget Budget
	// Simulations, when positive, replaces the budget's simulation count
	// (analysis: "go nodes").
	Simulations int
	// Deadline, when set, stops the search at that time; Stop, when not
	// nil, stops it once closed. Both are checked between evaluations, and
	// make the result depend on timing.
	Deadline time.Time
	Stop     <-chan struct{}
	// RootMoves, when not empty, restricts the search to these root moves
	// (UCI's go searchmoves): the root's other moves are never selected,
	// their visits and proofs do not count towards the root's proof, and
	// Best, PV and Policy are among these moves only. Moves not legal at the
	// root are ignored; when none is legal RunWith returns ErrNoRootMoves.
	// The tree keeps everything: a later search without RootMoves sees the
	// root as it truly stands.
	RootMoves []rules.Move
	// MatePlies, when positive, ends the search as soon as the root is a
	// proven win in at most MatePlies plies (UCI's go mate N: 2N-1 plies),
	// rather than going on within the budget for a shorter one. Gumbel
	// then considers every root move (GumbelK aside): a mate is proven
	// only through the moves searched.
	MatePlies int
}

// ErrNoRootMoves is returned for a search whose RootMoves holds no legal
// move.
var ErrNoRootMoves = errors.New("mcts: none of the root moves asked for is legal")

// maxVisits keeps visit counts far from int32's limit in a tree searched
// again and again (analysis).
const maxVisits = 1 << 30

// maxReuseDepth is how many plies past the last searched root a game may
// have moved on for Run still to find its subtree.
const maxReuseDepth = 32

// Search is one game's search: its tree, its evaluator and its random
// numbers. It is for one goroutine at a time; run one Search per concurrent
// game, each with its own evaluator (typically
// cache.WithBackend(batcher.NewClient())), and the Batcher turns their
// leaves into one batch.
//
// The tree is kept between moves: Run finds the subtree of the position it
// is asked about when that position follows the last one searched by up to
// 32 plies of the same game (checked by encode's history-aware key), and
// starts afresh otherwise.
type Search struct {
	p   Params
	ev  nn.Evaluator
	pcg *rand.PCG // rng's source, reseeded by Restart
	rng *rand.Rand
	t   tree

	// The game state the tree's root stands for.
	rootKey   uint64
	rootPly   int
	rootRules *rules.RuleSet

	slots []slot
	in    []nn.Input
	out   []nn.Output
	hist  []rules.Move
	reply []rules.Move // the root lookahead's replies to one root move
	// The lookahead's replies to each root move, kept for the expansion of
	// that root child (the same position, so the same legal moves): root
	// child j's are kidMoves[kidSpan[j][0]:kidSpan[j][1]], when kidSpan[j]
	// is not empty and the tree is still at generation kidGen with root
	// kidRoot.
	kidMoves []rules.Move
	kidSpan  [][2]int32
	kidGen   uint32
	kidRoot  int32
	equal    []float32 // 1 per move: the priors of a position expanded without evaluation

	// Per-search root state.
	noised     bool
	noisedRoot int32
	saved      []float32 // root children's priors before noise
	noise      []float64
	score      []float64 // Gumbel: GumbelScale·g(a) + logit(a) per root child
	runVisits  []int32   // Gumbel: root child visits this search, in flight included
	sched      []phase   // Gumbel: sequential halving's schedule
	q          []float64 // scratch: completed Q per child
	visited    []bool    // scratch: whether q[j] is the child's own
	halved     bool      // Gumbel's root state is set up for this search
	sims       int
	evals      int
	depth      int    // the deepest leaf this search reached, in plies below the root
	leafDepths int    // the sum of this search's simulations' leaf depths
	allow      []bool // RunOptions.RootMoves: per root child, whether it may be searched
	poolFull   bool
}

// slot holds one leaf awaiting evaluation; its buffers are allocated once.
type slot struct {
	planes []float32
	enc    encode.Encoder // what planes hold, so the next leaf rewrites only what differs
	legal  []int32
	moves  []rules.Move
	policy []float32
	path   []int32 // node indices from the root to the leaf
}

// New makes a Search with params p over evaluator ev, whose sizes must be
// encode's.
func New(p Params, ev nn.Evaluator) (*Search, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if ev == nil {
		return nil, errors.New("mcts: nil evaluator")
	}
	if ev.InputSize() != encode.InputSize || ev.PolicySize() != encode.PolicySize() {
		return nil, fmt.Errorf("mcts: evaluator sizes %d/%d, want encode's %d/%d",
			ev.InputSize(), ev.PolicySize(), encode.InputSize, encode.PolicySize())
	}
	pcg := rand.NewPCG(p.Seed, searchStream)
	s := &Search{
		p:       p,
		ev:      ev,
		pcg:     pcg,
		rng:     rand.New(pcg),
		slots:   make([]slot, p.LeavesPerEval),
		in:      make([]nn.Input, p.LeavesPerEval),
		out:     make([]nn.Output, p.LeavesPerEval),
		saved:   make([]float32, rules.MaxMoves),
		noise:   make([]float64, rules.MaxMoves),
		score:   make([]float64, rules.MaxMoves),
		q:       make([]float64, rules.MaxMoves),
		visited: make([]bool, rules.MaxMoves),
		allow:   make([]bool, rules.MaxMoves),
		reply:   make([]rules.Move, 0, rules.MaxMoves),
		equal:   make([]float32, rules.MaxMoves),
	}
	for j := range s.equal {
		s.equal[j] = 1
	}
	s.runVisits = make([]int32, rules.MaxMoves)
	for i := range s.slots {
		s.slots[i] = slot{
			planes: make([]float32, encode.InputSize),
			legal:  make([]int32, 0, rules.MaxMoves),
			moves:  make([]rules.Move, 0, rules.MaxMoves),
			policy: make([]float32, rules.MaxMoves),
			path:   make([]int32, 0, 64),
		}
	}
	return s, nil
}

// searchStream is the second word of every search's PCG seed: "palacemc".
const searchStream = 0x70616c6163656d63

// Restart makes s what New(p, ev) would make with p.Seed = seed, keeping
// its buffers: a worker playing game after game (self-play) reuses one
// Search instead of growing a new node pool for each game.
func (s *Search) Restart(seed uint64) {
	s.Reset()
	s.p.Seed = seed
	s.pcg.Seed(seed, searchStream)
}

// Params returns the search's parameters.
func (s *Search) Params() Params { return s.p }

// Reset drops the tree; the next Run starts afresh. The random numbers go
// on where they were.
func (s *Search) Reset() {
	s.t.nodes = s.t.nodes[:0]
	s.t.root = 0
	s.t.gen++
	s.noised = false
}

// Nodes is the number of nodes in the tree.
func (s *Search) Nodes() int { return len(s.t.nodes) }

// Run searches g's position with an automatic budget and returns a fresh
// Result. g is left as it was found.
func (s *Search) Run(g *rules.Game) (Result, error) {
	var r Result
	err := s.RunWith(g, RunOptions{}, &r)
	return r, err
}

// RunWith searches g's position under o and writes the answer into r,
// reusing r's slices, so a caller that keeps one Result searches without
// allocating. g is played and taken back during the search and left as it
// was found.
func (s *Search) RunWith(g *rules.Game, o RunOptions, r *Result) (err error) {
	if g == nil || r == nil {
		return errors.New("mcts: nil game or result")
	}
	if g.Result().Over() {
		return ErrGameOver
	}
	ply0 := g.Ply()
	defer func() {
		for g.Ply() > ply0 && g.Undo() {
		}
		if err != nil {
			s.Reset()
		}
	}()

	s.restoreNoise()
	s.moveRoot(g)
	s.sims, s.evals, s.depth, s.leafDepths, s.poolFull, s.halved = 0, 0, 0, 0, false, false

	full := true
	budget := s.p.Simulations
	switch o.Budget {
	case BudgetCheap:
		full, budget = false, s.p.CheapSimulations
	case BudgetAuto:
		if s.p.CheapSimulations > 0 && s.p.FullFraction < 1 && s.rng.Float64() >= s.p.FullFraction {
			full, budget = false, s.p.CheapSimulations
		}
	}
	if o.Simulations > 0 {
		budget = min(o.Simulations, maxSimulations)
	}

	t := &s.t
	if !t.nodes[t.root].expanded() {
		if err := s.expandRoot(g); err != nil {
			return err
		}
		if s.poolFull { // a reused tree left no room: start afresh
			t.reset()
			s.poolFull = false
			if err := s.expandRoot(g); err != nil {
				return err
			}
		}
	}
	if len(o.RootMoves) > 0 {
		if err := s.restrict(o.RootMoves); err != nil {
			return err
		}
		defer s.unrestrict()
	}
	if s.p.RootLookahead && t.nodes[t.root].flags&flagLookedAhead == 0 && t.nodes[t.root].nkids > 1 {
		s.lookahead(g)
	}
	root := &t.nodes[t.root]
	if root.nkids == 1 {
		full, budget = false, 0 // a forced move teaches nothing
	}
	if !s.settled() && !s.mated(&o) && root.nkids > 1 {
		s.prepareRoot(full, budget, o.MatePlies > 0)
		if err := s.loop(g, budget, &o); err != nil {
			return err
		}
	}
	s.fill(g, r, full)
	return nil
}

// moveRoot points the tree's root at g's position: the same root, a
// descendant along g's history, or a fresh tree.
func (s *Search) moveRoot(g *rules.Game) {
	t := &s.t
	key := encode.Key(g)
	ok := false
	if !t.empty() && g.Rules() == s.rootRules {
		switch d := g.Ply() - s.rootPly; {
		case d == 0:
			ok = key == s.rootKey
		case d > 0 && d <= maxReuseDepth:
			ok = s.descend(g, d)
		}
	}
	if !ok {
		t.reset()
	}
	s.rootKey, s.rootPly, s.rootRules = key, g.Ply(), g.Rules()
}

// restrict limits the search to the root children whose moves are in
// moves (RunOptions.RootMoves): the tree's root mask, which selection,
// the root's proof and the answer respect, until unrestrict.
func (s *Search) restrict(moves []rules.Move) error {
	t := &s.t
	kids := t.kids(t.root)
	n := 0
	for j := range kids {
		s.allow[j] = slices.Contains(moves, kids[j].move)
		if s.allow[j] {
			n++
		}
	}
	if n == 0 {
		return ErrNoRootMoves
	}
	t.mask = s.allow[:len(kids)]
	t.updateProof(t.root) // the root's worth among the moves allowed
	return nil
}

// unrestrict lifts the root mask and gives the root back its proof over
// every move.
func (s *Search) unrestrict() {
	t := &s.t
	t.mask = nil
	if !t.empty() {
		t.updateProof(t.root)
	}
}

// mated reports whether the root is the proven win RunOptions.MatePlies
// asks for.
func (s *Search) mated(o *RunOptions) bool {
	root := &s.t.nodes[s.t.root]
	return o.MatePlies > 0 && root.proof == provenWin && int(root.plies) <= o.MatePlies
}

// descend checks that g's position d plies back is the tree's root, and if
// so promotes the subtree reached by the d moves since.
func (s *Search) descend(g *rules.Game, d int) bool {
	i := s.nodeAfter(g, d)
	if i < 0 {
		return false
	}
	s.t.promote(i)
	return true
}

// nodeAfter is the tree's node for g's position when g's position d plies
// back is the root and the tree holds the d moves since; else -1. g is
// left as it was found.
func (s *Search) nodeAfter(g *rules.Game, d int) int32 {
	s.hist = g.Moves(s.hist[:0])
	last := s.hist[len(s.hist)-d:]
	for range d {
		g.Undo()
	}
	match := encode.Key(g) == s.rootKey
	for _, m := range last {
		g.Play(m)
	}
	if !match {
		return -1
	}
	i := s.t.root
	for _, m := range last {
		if i = s.t.child(i, m); i < 0 {
			return -1
		}
	}
	return i
}

// restoreNoise puts back the priors the last search's noise replaced.
func (s *Search) restoreNoise() {
	if !s.noised {
		return
	}
	s.noised = false
	if int(s.noisedRoot) >= len(s.t.nodes) {
		return
	}
	kids := s.t.kids(s.noisedRoot)
	for j := range kids {
		kids[j].prior = s.saved[j]
	}
}

// expandRoot evaluates the root; it is not counted as a simulation. A root
// without children may still carry a proof (the lookahead's, when the
// node pool had no room to give it children): it is searched afresh.
func (s *Search) expandRoot(g *rules.Game) error {
	root := &s.t.nodes[s.t.root]
	root.proof, root.plies = unproven, 0
	queued, _, err := s.visit(g, 0)
	if err != nil || !queued {
		return err
	}
	return s.evaluate(1)
}

// lookahead is Params.RootLookahead: each open root move is played, and
// proven when it ends the game or when a reply ends it in the replier's
// favour. A root is looked at once however often it is searched.
func (s *Search) lookahead(g *rules.Game) {
	t := &s.t
	ri := t.root
	t.nodes[ri].flags |= flagLookedAhead
	first := t.nodes[ri].first
	s.kidMoves = s.kidMoves[:0]
	s.kidSpan = slices.Grow(s.kidSpan[:0], int(t.nodes[ri].nkids))[:t.nodes[ri].nkids]
	clear(s.kidSpan)
	s.kidGen, s.kidRoot = t.gen, ri
	for k := first; k < first+int32(t.nodes[ri].nkids); k++ {
		if t.nodes[k].proof != unproven {
			continue
		}
		g.Play(t.nodes[k].move)
		if res := g.Result(); res.Over() {
			t.nodes[k].end(outcomeProof(res.Outcome, g.Position().SideToMove()))
		} else {
			start := len(s.kidMoves)
			s.kidMoves = g.LegalMoves(s.kidMoves)
			s.reply = s.kidMoves[start:]
			s.kidSpan[k-first] = [2]int32{int32(start), int32(len(s.kidMoves))}
			r, ok := winningMove(g, s.reply, false)
			if !ok {
				// Every reply was judged, so the expansion's mate check
				// (checking replies only) would find nothing either.
				t.nodes[k].flags |= flagNoWinningMove
			} else if !s.proveWonBy(k, s.reply, r) {
				t.nodes[k].proof, t.nodes[k].plies = provenWin, 1 // no room: proven without children
			}
		}
		g.Undo()
	}
	t.updateProof(ri)
}

// proveWonBy proves node i, whose side to move ends the game in its
// favour with move win (moves are i's legal moves), won in one ply: the
// end's node is marked, and i, when it has no children yet, gets them
// without an evaluation (equal priors). It reports false when the node
// pool has no room for them.
func (s *Search) proveWonBy(i int32, moves []rules.Move, win rules.Move) bool {
	t := &s.t
	if !t.nodes[i].expanded() {
		s.expand(i, moves, s.equal[:len(moves)], 1/float32(len(moves)))
	}
	j := int32(-1)
	if t.nodes[i].expanded() {
		j = t.child(i, win)
	}
	if j < 0 {
		return false
	}
	t.nodes[j].end(provenLoss)
	t.updateProof(i)
	return true
}

// winningMove finds the first of moves (g's legal moves) that ends the game
// in favour of g's side to move. checksOnly judges only the moves that give
// check (Params.MateCheck's test; a stalemating win without check is left
// to the search).
func winningMove(g *rules.Game, moves []rules.Move, checksOnly bool) (rules.Move, bool) {
	return g.WinningMove(moves, checksOnly)
}

// prepareRoot sets up the root for one search: Dirichlet noise (PUCT, full
// searches), or Gumbel's samples and halving schedule.
func (s *Search) prepareRoot(full bool, budget int, every bool) {
	t := &s.t
	kids := t.kids(t.root)
	if s.p.Mode == PUCT {
		if !full || s.p.NoiseFraction == 0 {
			return
		}
		eta := s.noise[:len(kids)]
		dirichlet(s.rng, s.p.DirichletTotal/float64(len(kids)), eta)
		eps := s.p.NoiseFraction
		for j := range kids {
			s.saved[j] = kids[j].prior
			kids[j].prior = float32((1-eps)*float64(kids[j].prior) + eps*eta[j])
		}
		s.noised, s.noisedRoot = true, t.root
		return
	}
	open := 0 // moves not decided: a proven win or loss is never visited
	for j := range kids {
		s.score[j] = s.p.GumbelScale*gumbelSample(s.rng) + logit(kids[j].prior)
		s.runVisits[j] = 0
		if p := kids[j].proof; p != provenWin && p != provenLoss && t.allowed(t.root, j) {
			open++
		}
	}
	k := min(s.p.GumbelK, open)
	if every {
		k = open
	}
	s.sched = halvingSchedule(s.sched[:0], k, budget)
	s.halved = true
}

// logit is log p with a floor, so a zero prior is a very unlikely move
// rather than -Inf arithmetic.
func logit(p float32) float64 { return math.Log(max(float64(p), 1e-30)) }

// phase is a stretch of sequential halving's schedule: simulations
// start, start+1, ... go num at a time to the actions with v0, v0+1, ...
// visits.
type phase struct{ start, num, v0 int32 }

// halvingSchedule is Gumbel sequential halving's schedule (as mctx lays it
// out) for m actions and n simulations, in phases: the m actions get
// floor(n / (ceil(log2 m)·m)) visits each (at least 1), then the best half
// of them as many again relative to their number, and so on down to two,
// until the budget is spent. A handful of phases describe any budget, so
// the schedule costs nothing to build for a long, time-limited search.
func halvingSchedule(dst []phase, m, n int) []phase {
	if m <= 1 {
		return append(dst, phase{0, 1, 0})
	}
	log2m := int(math.Ceil(math.Log2(float64(m))))
	start, v, num := 0, 0, m
	for start < n {
		extra := max(1, n/(log2m*num))
		dst = append(dst, phase{int32(start), int32(num), int32(v)})
		start += extra * num
		v += extra
		num = max(2, num/2)
	}
	return dst
}

// consideredVisit is the visit count the root action of simulation i must
// have: the schedule's entry for i.
func consideredVisit(sched []phase, i int) int32 {
	if len(sched) == 0 {
		return 0
	}
	k := len(sched) - 1
	for k > 0 && int(sched[k].start) > i {
		k--
	}
	ph := sched[k]
	return ph.v0 + (int32(i)-ph.start)/ph.num
}

// settled reports whether the root's proof leaves nothing to search: a
// proven loss or draw, or a proven win that no open move can shorten. An
// open move already visited is not a win at once, so it wins in 3 plies at
// the soonest; one not yet visited might win in 1.
func (s *Search) settled() bool {
	t := &s.t
	root := &t.nodes[t.root]
	if root.proof != provenWin {
		return root.proof != unproven
	}
	soonest := uint16(math.MaxUint16)
	for j, c := range t.kids(t.root) {
		switch {
		case !t.allowed(t.root, j):
		case c.proof != unproven:
		case c.n == 0:
			soonest = 1
		default:
			soonest = min(soonest, 3)
		}
	}
	return root.plies <= soonest
}

// loop runs simulations until the budget is spent or the search must stop.
func (s *Search) loop(g *rules.Game, budget int, o *RunOptions) error {
	for s.sims < budget && !s.settled() && !s.mated(o) && !s.poolFull && s.t.nodes[s.t.root].n < maxVisits {
		if !o.Deadline.IsZero() && !time.Now().Before(o.Deadline) {
			return nil
		}
		if o.Stop != nil {
			select {
			case <-o.Stop:
				return nil
			default:
			}
		}
		k := 0
		for k < len(s.slots) && s.sims < budget && !s.settled() && !s.mated(o) {
			queued, collided, err := s.visit(g, k)
			if err != nil {
				return err
			}
			if collided {
				break
			}
			s.sims++
			s.leafDepths += len(s.slots[k].path) - 1
			if queued {
				k++
			}
		}
		if k > 0 {
			if err := s.evaluate(k); err != nil {
				return err
			}
		}
	}
	return nil
}

// visit descends from the root to a leaf under virtual loss, playing the
// moves on g and taking them back before it returns. A leaf whose value is
// known (terminal, proven) is backed up at once; a new one is encoded into
// slot k (queued). A leaf already waiting in this batch is a collision: the
// visit is withdrawn.
func (s *Search) visit(g *rules.Game, k int) (queued, collided bool, err error) {
	t := &s.t
	sl := &s.slots[k]
	path := append(sl.path[:0], t.root)
	i := t.root
	for {
		nd := &t.nodes[i]
		// A proven node is a leaf, but for a won root still looking for a
		// shorter win (the loop runs only while the root is unsettled).
		if nd.proof != unproven && i != t.root || !nd.expanded() || nd.flags&flagPending != 0 || nd.nkids == 0 {
			break
		}
		i = s.selectChild(i, len(path) == 1)
		g.Play(t.nodes[i].move)
		path = append(path, i)
	}
	sl.path = path
	s.depth = max(s.depth, len(path)-1)
	for _, j := range path {
		t.nodes[j].vl++
	}
	defer func() {
		for range len(path) - 1 {
			g.Undo()
		}
	}()

	leaf := &t.nodes[i]
	switch {
	case leaf.flags&flagPending != 0:
		s.withdraw(path)
		if s.halved && len(path) > 1 {
			s.runVisits[path[1]-t.nodes[t.root].first]--
		}
		return false, true, nil
	case leaf.proof != unproven:
		s.backupProof(path)
		return false, false, nil
	case leaf.expanded():
		// Expanded without children or proof cannot happen; refuse to loop.
		s.withdraw(path)
		return false, false, fmt.Errorf("mcts: internal error: expanded leaf without moves at %s", g.Position().FEN())
	}
	var moves []rules.Move
	if known := s.lookedAhead(path); known != nil {
		// The lookahead played this root move: the game goes on, and
		// these are its legal moves.
		moves = append(sl.moves[:0], known...)
	} else {
		if res := g.Result(); res.Over() {
			leaf.end(outcomeProof(res.Outcome, g.Position().SideToMove()))
			s.backupProof(path)
			return false, false, nil
		}
		moves = g.LegalMoves(sl.moves[:0])
	}
	if len(moves) == 0 {
		s.withdraw(path)
		return false, false, fmt.Errorf("mcts: no legal moves in an unfinished game at %s", g.Position().FEN())
	}
	if s.p.MateCheck && leaf.flags&flagNoWinningMove == 0 {
		if m, ok := winningMove(g, moves, true); ok && s.proveWonBy(i, moves, m) {
			sl.moves = moves
			s.backupProof(path)
			return false, false, nil
		}
	}
	if err := sl.enc.Encode(g, moves, sl.planes); err != nil {
		s.withdraw(path)
		return false, false, fmt.Errorf("mcts: %w", err)
	}
	sl.moves = moves
	sl.legal = encode.LegalIndices(moves, g.Position().SideToMove(), sl.legal[:0])
	s.in[k] = nn.Input{Planes: sl.planes, Legal: sl.legal, Key: encode.Key(g)}
	s.out[k].Policy = sl.policy[:len(moves)]
	leaf.flags |= flagPending
	return true, false, nil
}

// lookedAhead is the legal moves the root lookahead found after the root
// move path leads through, when path is a root child's and they are still
// at hand; else nil.
func (s *Search) lookedAhead(path []int32) []rules.Move {
	t := &s.t
	if len(path) != 2 || s.kidGen != t.gen || s.kidRoot != t.root || path[0] != t.root {
		return nil
	}
	j := path[1] - t.nodes[t.root].first
	if j < 0 || int(j) >= len(s.kidSpan) {
		return nil
	}
	sp := s.kidSpan[j]
	if sp[1] <= sp[0] {
		return nil
	}
	return s.kidMoves[sp[0]:sp[1]]
}

// outcomeProof is a finished game's result to the side to move.
func outcomeProof(o rules.Outcome, stm rules.Color) proof {
	switch {
	case o == rules.Draw:
		return provenDraw
	case (o == rules.WhiteWins) == (stm == rules.White):
		return provenWin
	}
	return provenLoss
}

// evaluate sends the k queued leaves to the evaluator, expands them and
// backs up their values.
func (s *Search) evaluate(k int) error {
	s.evals += k
	if err := s.ev.Evaluate(s.in[:k], s.out[:k]); err != nil {
		return fmt.Errorf("mcts: evaluate: %w", err)
	}
	t := &s.t
	for j := range k {
		sl := &s.slots[j]
		out := &s.out[j]
		w, d, l := float64(out.WDL[0]), float64(out.WDL[1]), float64(out.WDL[2])
		if !(w >= 0 && d >= 0 && l >= 0) || math.Abs(w+d+l-1) > 1e-3 {
			return fmt.Errorf("%w: WDL %v", ErrBadOutput, out.WDL)
		}
		var sum float64
		for _, p := range out.Policy {
			if !(p >= 0) || math.IsInf(float64(p), 0) {
				return fmt.Errorf("%w: policy entry %v", ErrBadOutput, p)
			}
			sum += float64(p)
		}
		if !(sum > 0) || math.IsInf(sum, 0) {
			return fmt.Errorf("%w: policy sums to %v", ErrBadOutput, sum)
		}
		leaf := sl.path[len(sl.path)-1]
		s.expand(leaf, sl.moves, out.Policy, float32(1/sum))
		v := w - l
		t.nodes[leaf].raw = float32(v)
		t.nodes[leaf].flags &^= flagPending
		s.backup(sl.path, v, d)
	}
	return nil
}

// expand gives leaf its children, unless the node pool is full (then the search
// stops after this batch and the leaf stays a leaf).
func (s *Search) expand(leaf int32, moves []rules.Move, policy []float32, scale float32) {
	t := &s.t
	first := len(t.nodes)
	if first+len(moves) > s.p.MaxNodes {
		s.poolFull = true
		return
	}
	// Grown once and written in place: an append per child cost a
	// capacity check and a copy of the node each.
	t.nodes = slices.Grow(t.nodes, len(moves))[:first+len(moves)]
	kids := t.nodes[first:]
	for j, m := range moves {
		kids[j] = node{prior: policy[j] * scale, move: m}
	}
	nd := &t.nodes[leaf]
	nd.first, nd.nkids = int32(first), uint16(len(moves))
	nd.flags |= flagExpanded
}

// backup adds value v (to the leaf's side to move) and draw probability d
// along path, taking back the virtual loss.
func (s *Search) backup(path []int32, v, d float64) {
	nodes := s.t.nodes
	for j := len(path) - 1; j >= 0; j-- {
		nd := &nodes[path[j]]
		nd.n++
		nd.vl--
		nd.vsum += v
		nd.dsum += d
		v = -v
	}
}

// backupProof backs up a proven leaf's exact value and lets its proof rise
// as far as it goes.
func (s *Search) backupProof(path []int32) {
	t := &s.t
	leaf := &t.nodes[path[len(path)-1]]
	_, d, _ := leaf.proof.wdl()
	s.backup(path, leaf.proof.value(), d)
	for j := len(path) - 2; j >= 0 && t.updateProof(path[j]); j-- {
	}
}

// withdraw takes back a visit's virtual loss.
func (s *Search) withdraw(path []int32) {
	for _, j := range path {
		s.t.nodes[j].vl--
	}
}

func (s *Search) selectChild(i int32, atRoot bool) int32 {
	if s.p.Mode == Gumbel {
		if atRoot {
			return s.gumbelRoot()
		}
		return s.gumbelInterior(i)
	}
	return s.puct(i, atRoot)
}

// puct is AlphaZero's selection: argmax Q + c(N)·P·sqrt(N)/(1+n), with
// in-flight visits counted as losses, an unvisited child valued at the
// parent's mean less the first-play-urgency reduction, and decided children
// skipped: a lost one is never worth a visit, and a won one is met only at
// a proven-won root searching for a shorter win.
func (s *Search) puct(i int32, atRoot bool) int32 {
	t := &s.t
	nd := &t.nodes[i]
	parentN := float64(nd.n + nd.vl)
	cp := s.p.CPuctInit + math.Log((parentN+s.p.CPuctBase+1)/s.p.CPuctBase)
	cs := cp * math.Sqrt(parentN)
	vl, ds := s.p.VirtualLoss, s.p.DrawScore
	best, bestJ := math.Inf(-1), -1
	fresh, freshJ := float32(-1), -1
	var visitedP float64
	kids := t.kids(i)
	for j := range kids {
		c := &kids[j]
		var q float64
		switch {
		case c.proof == provenWin || c.proof == provenLoss || !t.allowed(i, j):
			continue
		case c.proof == provenDraw:
			q = ds
		case c.n+c.vl == 0:
			if c.prior > fresh {
				fresh, freshJ = c.prior, j
			}
			continue
		default:
			q = c.moverQ(ds, vl, c.vl)
		}
		visitedP += float64(c.prior)
		if u := q + cs*float64(c.prior)/float64(1+c.n+c.vl); u > best {
			best, bestJ = u, j
		}
	}
	if freshJ >= 0 {
		red := s.p.FPUReduction
		if atRoot {
			red = s.p.RootFPUReduction
		}
		fpu := nd.utility(ds) - red*math.Sqrt(visitedP)
		if u := fpu + cs*float64(fresh); u > best || bestJ < 0 {
			bestJ = freshJ
		}
	}
	if bestJ < 0 {
		bestJ = t.firstAllowed(i) // every child lost: i is a proven loss and is not searched
	}
	return nd.first + int32(bestJ)
}

// completedQ fills s.q with each child's completed Q to i's side to move
// (its mean value when visited, else the mixed value v_mix of Danihelka et
// al., eq. 33: the network's value of i averaged with the prior-weighted Q
// of the visited children) and returns the children's largest and total
// visit counts. With inFlight, virtual losses count as visits.
func (s *Search) completedQ(i int32, inFlight bool) (maxN, sumN float64) {
	t := &s.t
	nd := &t.nodes[i]
	kids := t.kids(i)
	vl, ds := s.p.VirtualLoss, s.p.DrawScore
	var sumP, sumPQ float64
	for j := range kids {
		c := &kids[j]
		n := c.n
		if inFlight {
			n += c.vl
		}
		var q float64
		switch {
		case c.proof != unproven:
			q, n = c.proof.moverValue(ds), max(n, 1)
		case n == 0:
			s.visited[j] = false
			continue
		case inFlight:
			q = c.moverQ(ds, vl, c.vl)
		default:
			q = c.moverQ(ds, vl, 0)
		}
		s.visited[j] = true
		s.q[j] = q
		sumP += float64(c.prior)
		sumPQ += float64(c.prior) * q
		sumN += float64(n)
		maxN = max(maxN, float64(n))
	}
	// The network's own draw probability for i is not kept; i's mean
	// draw probability stands in for it.
	vmix := float64(nd.raw)
	if ds != 0 && nd.n > 0 {
		vmix += ds * nd.dsum / float64(nd.n)
	}
	if sumP > 0 {
		vmix = (vmix + sumN*sumPQ/sumP) / (1 + sumN)
	}
	for j := range kids {
		if !s.visited[j] {
			s.q[j] = vmix
		}
	}
	return maxN, sumN
}

// sigma is Gumbel's monotone transform of a completed Q in [-1, 1]:
// (c_visit + max visits)·c_scale·q̂ with q̂ = (q+1)/2 in [0, 1].
func (s *Search) sigma(q, maxN float64) float64 {
	return (s.p.CVisit + maxN) * s.p.CScale * (q + 1) / 2
}

// gumbelRoot is sequential halving's choice for the next simulation: among
// the root actions whose visits this search equal the schedule's count, the
// one with the largest g(a) + logit(a) + σ(q̂(a)).
func (s *Search) gumbelRoot() int32 {
	t := &s.t
	root := &t.nodes[t.root]
	maxN, _ := s.completedQ(t.root, false)
	cv := consideredVisit(s.sched, s.sims)
	best, bestJ := math.Inf(-1), -1
	top, topJ := math.Inf(-1), t.firstAllowed(t.root)
	kids := t.kids(t.root)
	for j := range kids {
		if p := kids[j].proof; p == provenWin || p == provenLoss || !t.allowed(t.root, j) {
			continue // decided (see puct), or not among RunOptions.RootMoves
		}
		sc := s.score[j] + s.sigma(s.q[j], maxN)
		if s.runVisits[j] == cv && sc > best {
			best, bestJ = sc, j
		}
		if sc > top {
			top, topJ = sc, j
		}
	}
	if bestJ < 0 {
		bestJ = topJ // off the schedule (decided moves skipped): the best open move
	}
	s.runVisits[bestJ]++
	return root.first + int32(bestJ)
}

// gumbelInterior is Gumbel MuZero's deterministic choice below the root:
// argmax π'(a) − N(a)/(1 + ΣN), with π' = softmax(logits + σ(completed Q))
// and in-flight visits counted (as losses) so batched leaves spread out.
func (s *Search) gumbelInterior(i int32) int32 {
	t := &s.t
	nd := &t.nodes[i]
	maxN, sumN := s.completedQ(i, true)
	kids := t.kids(i)
	// π'(a) ∝ P(a)·exp(σ(q̂(a))); shift by the largest exponent.
	top := math.Inf(-1)
	for j := range kids {
		s.q[j] = s.sigma(s.q[j], maxN) // q is no longer needed: keep σ
		top = max(top, s.q[j])
	}
	// The unvisited children (most of them) share one completed Q, so one
	// exponential serves them all.
	var z, shared float64
	haveShared := false
	for j := range kids {
		var e float64
		switch {
		case s.visited[j]:
			e = math.Exp(s.q[j] - top)
		case !haveShared:
			shared, haveShared = math.Exp(s.q[j]-top), true
			fallthrough
		default:
			e = shared
		}
		w := float64(kids[j].prior) * e
		s.q[j] = w // σ is no longer needed: keep the weight
		z += w
	}
	if !(z > 0) {
		z = 1
	}
	best, bestJ := math.Inf(-1), 0
	for j := range kids {
		c := &kids[j]
		if c.proof == provenWin || c.proof == provenLoss {
			continue
		}
		if u := s.q[j]/z - float64(c.n+c.vl)/(1+sumN); u > best {
			best, bestJ = u, j
		}
	}
	return nd.first + int32(bestJ)
}
