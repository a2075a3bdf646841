package mcts

import (
	"math"

	"github.com/palace-chess/palace/rules"
)

// proof is what a node is proven to be worth to its side to move.
type proof int8

const (
	unproven proof = iota
	provenWin
	provenLoss
	provenDraw
)

// value is the proven value from the side to move's view.
func (p proof) value() float64 {
	switch p {
	case provenWin:
		return 1
	case provenLoss:
		return -1
	}
	return 0
}

// wdl is the proven value as win, draw, loss.
func (p proof) wdl() (w, d, l float64) {
	switch p {
	case provenWin:
		return 1, 0, 0
	case provenLoss:
		return 0, 0, 1
	}
	return 0, 1, 0
}

// node is one position of the tree, stored in the node pool and linked by index:
// a node's children are contiguous, kids[first : first+nkids]. Values are
// from the view of the node's side to move; a parent reads a child's value
// negated. Virtual loss is kept as a count apart from the sums, so taking it
// back leaves the sums exactly as real visits made them.
type node struct {
	vsum  float64 // sum of backed-up values (win − loss)
	dsum  float64 // sum of backed-up draw probabilities
	prior float32 // the parent's policy for this move
	raw   float32 // the network's value of this node, when expanded
	n     int32   // completed visits
	vl    int32   // visits in flight (virtual loss)
	first int32   // first child, when nkids > 0
	nkids uint16
	move  rules.Move // the move from the parent
	proof proof      // unproven, or the node's proven value
	flags uint8
	plies uint16 // when proven: plies to the end along the proof
}

const (
	flagExpanded      = 1 << iota // children exist (or the position has none)
	flagTerminal                  // the game is over here
	flagPending                   // an evaluation is in flight
	flagLookedAhead               // a root whose moves and replies were played (Params.RootLookahead)
	flagNoWinningMove             // the lookahead found no move here that wins at once: MateCheck has nothing to find
)

func (nd *node) expanded() bool { return nd.flags&flagExpanded != 0 }

// end marks nd a finished game, worth p to its side to move.
func (nd *node) end(p proof) {
	nd.flags |= flagExpanded | flagTerminal
	nd.proof, nd.plies = p, 0
}

// utility is the node's mean value to its side to move (0 when unvisited)
// as that side chooses by it: a draw counts drawScore (Params.DrawScore),
// through the node's mean draw probability.
func (nd *node) utility(drawScore float64) float64 {
	if nd.proof != unproven {
		_, d, _ := nd.proof.wdl()
		return nd.proof.value() + drawScore*d
	}
	if nd.n == 0 {
		return 0
	}
	return (nd.vsum + drawScore*nd.dsum) / float64(nd.n)
}

// moverQ is child c's mean value to its parent's side to move, as that
// side chooses by it (a draw worth drawScore), with inFlight visits in
// flight counted as losses of vl each. c has visits, done or in flight.
func (c *node) moverQ(drawScore, vl float64, inFlight int32) float64 {
	return (-c.vsum + drawScore*c.dsum - vl*float64(inFlight)) / float64(c.n+inFlight)
}

// moverValue is a proven child's worth to its parent's side to move, as
// that side chooses by it (a draw worth drawScore).
func (p proof) moverValue(drawScore float64) float64 {
	_, d, _ := p.wdl()
	return -p.value() + drawScore*d
}

// tree is the node pool. nodes[root] is the searched position; spare is
// the second pool that compaction copies the kept subtree into, so moving
// the root allocates nothing once both have grown.
type tree struct {
	nodes []node
	spare []node
	root  int32
	// mask, when not nil, says which of the root's children a search may
	// consider (RunOptions.RootMoves); the root's proof is then over them.
	mask []bool
	// gen changes whenever nodes move or go (reset, promote), so that what
	// is remembered about nodes by index can tell it is stale.
	gen uint32
}

// allowed reports whether child j of node i may be searched: every child
// but the root's outside the mask.
func (t *tree) allowed(i int32, j int) bool {
	return t.mask == nil || i != t.root || t.mask[j]
}

// firstAllowed is the first child of i that may be searched (0 when none).
func (t *tree) firstAllowed(i int32) int {
	for j := range int(t.nodes[i].nkids) {
		if t.allowed(i, j) {
			return j
		}
	}
	return 0
}

func (t *tree) reset() {
	t.nodes = append(t.nodes[:0], node{})
	t.root = 0
	t.gen++
}

func (t *tree) empty() bool { return len(t.nodes) == 0 }

// kids returns the children of i. The slice aliases the pool: it is valid
// until the next append.
func (t *tree) kids(i int32) []node {
	nd := &t.nodes[i]
	return t.nodes[nd.first : nd.first+int32(nd.nkids)]
}

// child finds the child of i reached by m; -1 if none.
func (t *tree) child(i int32, m rules.Move) int32 {
	nd := &t.nodes[i]
	for k := range int32(nd.nkids) {
		if t.nodes[nd.first+k].move == m {
			return nd.first + k
		}
	}
	return -1
}

// promote makes the subtree under i the whole tree, copying it breadth
// first into the spare pool (Cheney's copy: the new pool is its own
// queue) so children stay contiguous and the dropped nodes cost nothing.
func (t *tree) promote(i int32) {
	if i == t.root {
		return
	}
	dst := append(t.spare[:0], t.nodes[i])
	for j := 0; j < len(dst); j++ {
		nd := &dst[j]
		if nd.nkids == 0 {
			continue
		}
		from := nd.first
		nd.first = int32(len(dst))
		dst = append(dst, t.nodes[from:from+int32(nd.nkids)]...)
	}
	t.spare, t.nodes = t.nodes[:0], dst
	t.root = 0
	t.gen++
}

// updateProof recomputes i's proof from its children, as MCTS-Solver does,
// with the distance to the end: a child lost for its side to move makes i a
// win, by the shortest such child; when every child is proven, i is worth
// the best of them (a loss by the longest). It reports whether i's proof or
// distance changed. Children of a proven node are not searched again, except
// at the root, where the search goes on looking for a shorter win.
func (t *tree) updateProof(i int32) bool {
	nd := &t.nodes[i]
	if nd.nkids == 0 {
		return false
	}
	var (
		win, draw, loss = false, false, true
		winPly, drawPly = uint16(math.MaxUint16), uint16(math.MaxUint16)
		lossPly         uint16
	)
	for j, c := range t.kids(i) {
		if !t.allowed(i, j) {
			continue
		}
		switch c.proof {
		case provenLoss:
			win, winPly = true, min(winPly, c.plies)
		case provenDraw:
			draw, drawPly = true, min(drawPly, c.plies)
		case provenWin:
			lossPly = max(lossPly, c.plies)
		default:
			loss = false
		}
	}
	p, plies := unproven, uint16(0)
	switch {
	case win:
		p, plies = provenWin, winPly
	case !loss: // an open child: nothing settled yet
	case draw:
		p, plies = provenDraw, drawPly
	default:
		p, plies = provenLoss, lossPly
	}
	if plies < math.MaxUint16 {
		plies++
	}
	if p == nd.proof && (p == unproven || plies == nd.plies) {
		return false
	}
	nd.proof, nd.plies = p, plies
	return true
}
