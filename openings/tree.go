// Package openings builds opening trees from game records: for every
// position the games reached (within a depth), how many games reached it
// and how they ended, and for every move played there how often it was
// played and how the mover fared, with a 95% Wilson interval on the
// mover's score. For janggi it also tabulates the 4×4 start setups (Cho's
// against Han's).
//
// A position is its board and side to move under one rule set (name@hash):
// games that reach it by different move orders share it (transpositions
// merge), and janggi's setups, being different boards, are different
// start positions. A game counts once at each position and for each move
// however often it repeats them.
//
// Results are White's (Red, Cho) view in the records: 1-0, 1/2-1/2, 0-1,
// or * when unknown. A game with an unknown result counts where it went
// and what it played, but in no score: it is reported as unscored.
//
// Every move is checked as it is replayed: an illegal or unreadable move
// is an error naming the game and ply, never skipped, since statistics
// over silently shortened games would mislead.
package openings

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/rundir"
)

// ErrRecord is wrapped by every error about a game record's contents.
var ErrRecord = errors.New("openings: bad game record")

// Result indices into the W/D/L counters, White's view.
const (
	whiteWins = 0
	draw      = 1
	blackWins = 2
	unknown   = 3
)

func resultIndex(r string) (int, error) {
	switch r {
	case gamerec.WhiteWins:
		return whiteWins, nil
	case gamerec.Draw:
		return draw, nil
	case gamerec.BlackWins:
		return blackWins, nil
	case gamerec.Unknown:
		return unknown, nil
	}
	return 0, fmt.Errorf("result %q (want 1-0, 0-1, 1/2-1/2 or *)", r)
}

// nodeKey identifies a position: its Zobrist key (which covers the side
// to move: rules XORs a side key in) and its rule set's index. Two
// positions sharing a 64-bit key would merge; among a million positions
// the chance is about 3·10⁻⁸.
type nodeKey struct{ key, rs uint64 }

// node is a position reached. Its FEN is not stored: it is rebuilt from a
// root's FEN and the edges that first led here (via), which keeps a node
// small enough for millions of them.
type node struct {
	ply   int32 // the fewest plies from a game's start it was reached in
	tally       // the games that reached it
	first int32 // first edge from here; -1: none
	via   int32 // the edge that first reached it; -1: a game started here
	fen   int32 // index in Tree.fens when via is -1
	rs    uint16
	side  rules.Color
	root  bool // some game started here
	setup int8 // a root's janggi setup, cho*4+han; -1: none
}

// edge is a move played at a position.
type edge struct {
	from, to int32
	next     int32 // next edge from the same position; -1: none
	tally          // the games that played it
	move     rules.Move
}

// tally counts the games through a node or an edge, each once.
type tally struct {
	games    int32
	wdl      [3]int32 // scored games, White's view
	unscored int32
	last     int32 // serial of the last game counted
}

// add counts game serial, of result res, unless it is already counted.
func (c *tally) add(serial int32, res int) {
	if c.last == serial {
		return
	}
	c.last = serial
	c.games++
	if res == unknown {
		c.unscored++
	} else {
		c.wdl[res]++
	}
}

// Tree is an opening tree built from games. It is read-only once built.
type Tree struct {
	filter   Filter
	nodes    []node
	edges    []edge
	index    map[nodeKey]int32
	edgeAt   map[uint64]int32 // from<<16 | move → edge
	ruleSets []*rules.RuleSet
	rsNames  []string
	rsIndex  map[string]uint16
	fens     []string // the FENs of positions games started from
	games    int
	skipped  Skipped
	setups   map[uint16]*SetupMatrix
}

// Builder adds games to a tree one at a time.
type Builder struct {
	t      *Tree
	gf     gameFilter
	starts map[startKey]*start
	serial int32
	failed error
}

type startKey struct{ rs, fen, setup string }

// start is a start position seen before: a game to Reset rather than
// parse again, and its janggi setup.
type start struct {
	game  *rules.Game
	rs    uint16
	setup int8 // cho*4+han; -1: not a janggi setup
}

// maxStarts bounds the cached start positions; a collection with more
// distinct starts parses the extra ones per game.
const maxStarts = 1024

// NewBuilder starts an empty tree for the games f keeps.
func NewBuilder(f Filter) (*Builder, error) {
	gf, err := f.compile()
	if err != nil {
		return nil, err
	}
	t := &Tree{
		filter:  f,
		index:   map[nodeKey]int32{},
		edgeAt:  map[uint64]int32{},
		rsIndex: map[string]uint16{},
		setups:  map[uint16]*SetupMatrix{},
	}
	return &Builder{t: t, gf: gf, starts: map[startKey]*start{}}, nil
}

// Build reads the games at paths (rundir.Collect: games files, match and
// experiment record files, self-play directories, run directories) into a
// tree.
func Build(paths []string, f Filter) (*Tree, error) {
	b, err := NewBuilder(f)
	if err != nil {
		return nil, err
	}
	if err := rundir.Collect(paths, b.Add); err != nil {
		return nil, err
	}
	return b.Tree(), nil
}

// Tree is the tree built so far. The Builder must not be used after it.
func (b *Builder) Tree() *Tree { return b.t }

// Add replays g under rs into the tree, if the filter keeps it. An error
// names the game; after one the tree holds part of that game, so the
// Builder refuses further games.
func (b *Builder) Add(g *gamerec.Game, rs *rules.RuleSet) error {
	if b.failed != nil {
		return fmt.Errorf("openings: the tree is incomplete after an earlier error: %w", b.failed)
	}
	t := b.t
	if !b.gf.keep(g, &t.skipped) {
		return nil
	}
	err := b.add(g, rs)
	if err != nil {
		err = fmt.Errorf("%w: %s: %w", ErrRecord, g.Where(), err)
		b.failed = err
	}
	return err
}

func (b *Builder) add(g *gamerec.Game, rs *rules.RuleSet) error {
	t := b.t
	res, err := resultIndex(g.Result)
	if err != nil {
		return err
	}
	st, err := b.start(g, rs)
	if err != nil {
		return err
	}
	game := st.game
	game.Reset()
	if b.serial == 1<<31-1 {
		return errors.New("more than 2³¹ games")
	}
	b.serial++
	serial := b.serial
	cur := t.rootNode(st, game.Position())
	t.nodes[cur].add(serial, res)
	depth := t.filter.Depth
	moves := g.Moves
	for i, ply := 0, 0; ; {
		for i < len(moves) && isSpace(moves[i]) {
			i++
		}
		if i == len(moves) || (depth > 0 && ply == depth) {
			// A record whose moves and plies disagree is damaged (every
			// other reader of games files refuses it too).
			if n := ply + countFields(moves[i:]); n != g.Plies {
				return fmt.Errorf("%d moves, the record says %d plies", n, g.Plies)
			}
			break
		}
		j := i
		for j < len(moves) && !isSpace(moves[j]) {
			j++
		}
		text := moves[i:j]
		i = j
		ply++
		m, err := rules.ParseMoveText(text, rules.Ranks1)
		if err != nil {
			return fmt.Errorf("ply %d: %w", ply, err)
		}
		if !game.IsLegal(m) {
			return fmt.Errorf("ply %d: illegal move %s in %s", ply, text, game.Position().FEN())
		}
		game.Play(m)
		cur = t.step(cur, m, game.Position(), ply, serial, res)
	}
	t.games++
	if st.setup >= 0 {
		t.setups[st.rs].add(int(st.setup), res)
	} else if m := t.setups[st.rs]; m != nil {
		m.Other++
	}
	return nil
}

// countFields is len(strings.Fields(s)) for ASCII move text, without
// the slice.
func countFields(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if !isSpace(s[i]) && (i == 0 || isSpace(s[i-1])) {
			n++
		}
	}
	return n
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// start finds or makes the game to replay g from.
func (b *Builder) start(g *gamerec.Game, rs *rules.RuleSet) (*start, error) {
	k := startKey{g.RuleSet, g.StartFEN, g.Setup}
	if st := b.starts[k]; st != nil {
		return st, nil
	}
	t := b.t
	idx, ok := t.rsIndex[g.RuleSet]
	if !ok {
		if rs == nil {
			return nil, fmt.Errorf("rule set %s unknown", g.RuleSet)
		}
		if rs.String() != g.RuleSet {
			return nil, fmt.Errorf("rule set %s, given %s", g.RuleSet, rs)
		}
		if len(t.ruleSets) == 1<<16-1 {
			return nil, errors.New("more than 65535 rule sets")
		}
		idx = uint16(len(t.ruleSets))
		t.ruleSets = append(t.ruleSets, rs)
		t.rsNames = append(t.rsNames, g.RuleSet)
		t.rsIndex[g.RuleSet] = idx
		if rs.Game == rules.Janggi {
			t.setups[idx] = &SetupMatrix{RuleSet: g.RuleSet}
		}
	}
	rs = t.ruleSets[idx]
	setup, err := setupOf(g, rs)
	if err != nil {
		return nil, err
	}
	game, err := rules.NewGame(rs, g.StartFEN)
	if err != nil {
		return nil, err
	}
	st := &start{game: game, rs: idx, setup: setup}
	if len(b.starts) >= maxStarts {
		clear(b.starts)
	}
	b.starts[k] = st
	return st, nil
}

// setupFENs maps the board and side of each janggi setup's start FEN to
// cho*4+han.
var setupFENs = func() map[string]int8 {
	m := map[string]int8{}
	for c := range 4 {
		for h := range 4 {
			m[boardAndSide(rules.JanggiSetupFEN(rules.JanggiSetup(c), rules.JanggiSetup(h)))] = int8(c*4 + h)
		}
	}
	return m
}()

// boardAndSide is a FEN's first two fields: clocks do not change a setup.
func boardAndSide(fen string) string {
	f := strings.Fields(fen)
	if len(f) < 2 {
		return strings.Join(f, " ") + " w"
	}
	return f[0] + " " + f[1]
}

// setupOf is the janggi setup g starts from: its Setup tag, checked
// against its start FEN, or else the one its start FEN is; -1 for none.
func setupOf(g *gamerec.Game, rs *rules.RuleSet) (int8, error) {
	if g.Setup != "" {
		c, h, err := rules.ParseJanggiSetups(g.Setup)
		if err != nil {
			return -1, fmt.Errorf("setup %q: want CHO,HAN setup names: %w", g.Setup, err)
		}
		if rs.Game != rules.Janggi {
			return -1, fmt.Errorf("setup %s under %s, a %s rule set", g.Setup, rs.Name, rs.Game)
		}
		fen := rules.JanggiSetupFEN(c, h)
		if boardAndSide(fen) != boardAndSide(g.StartFEN) {
			return -1, fmt.Errorf("setup %s starts from %s, the record from %s", g.Setup, fen, g.StartFEN)
		}
		return int8(c)*4 + int8(h), nil
	}
	if rs.Game != rules.Janggi {
		return -1, nil
	}
	if s, ok := setupFENs[boardAndSide(g.StartFEN)]; ok {
		return s, nil
	}
	return -1, nil
}

// rootNode finds or makes the node of a game's start position.
func (t *Tree) rootNode(st *start, pos *rules.Position) int32 {
	k := nodeKey{pos.Key(), uint64(st.rs)}
	n, ok := t.index[k]
	if !ok {
		n = t.newNode(k, pos, 0, -1)
	}
	nd := &t.nodes[n]
	nd.ply = 0
	if !nd.root {
		nd.root = true
		nd.setup = st.setup
		if nd.via < 0 {
			nd.fen = int32(len(t.fens))
			t.fens = append(t.fens, pos.FEN())
		}
	}
	return n
}

func (t *Tree) newNode(k nodeKey, pos *rules.Position, ply int, via int32) int32 {
	n := int32(len(t.nodes))
	t.nodes = append(t.nodes, node{ply: int32(ply), first: -1, via: via, fen: -1, rs: uint16(k.rs), side: pos.SideToMove(), setup: -1})
	t.index[k] = n
	return n
}

// step counts move m from node from, which led to pos at ply, and returns
// pos's node.
func (t *Tree) step(from int32, m rules.Move, pos *rules.Position, ply int, serial int32, res int) int32 {
	ek := uint64(from)<<16 | uint64(m)
	e, ok := t.edgeAt[ek]
	if !ok {
		// The same position and move always lead to the same position,
		// so only a new edge needs the child looked up.
		e = int32(len(t.edges))
		k := nodeKey{pos.Key(), uint64(t.nodes[from].rs)}
		to, seen := t.index[k]
		if !seen {
			to = t.newNode(k, pos, ply, e)
		}
		t.edges = append(t.edges, edge{from: from, to: to, next: t.nodes[from].first, move: m})
		t.nodes[from].first = e
		t.edgeAt[ek] = e
	}
	ed := &t.edges[e]
	ed.add(serial, res)
	to := ed.to
	if nd := &t.nodes[to]; int32(ply) < nd.ply {
		nd.ply = int32(ply)
	}
	t.nodes[to].add(serial, res)
	return to
}

// position rebuilds node n's position: its first path from a start.
func (t *Tree) position(n int32) (rules.Position, error) {
	var path []rules.Move
	for t.nodes[n].via >= 0 {
		e := &t.edges[t.nodes[n].via]
		path = append(path, e.move)
		n = e.from
	}
	nd := &t.nodes[n]
	pos, err := rules.ParseFEN(t.fens[nd.fen], t.ruleSets[nd.rs])
	if err != nil {
		return pos, fmt.Errorf("openings: %w", err)
	}
	for i := len(path) - 1; i >= 0; i-- {
		pos.MakeMove(path[i])
	}
	return pos, nil
}

// Games is the number of games in the tree.
func (t *Tree) Games() int { return t.games }

// Skipped counts the games the filter left out.
func (t *Tree) Skipped() Skipped { return t.skipped }

// Positions is the number of distinct positions in the tree.
func (t *Tree) Positions() int { return len(t.nodes) }

// Filter is the filter the tree was built with.
func (t *Tree) Filter() Filter { return t.filter }

// RuleSets names the rule sets of the tree's games (name@hash), sorted.
func (t *Tree) RuleSets() []string {
	names := append([]string(nil), t.rsNames...)
	sort.Strings(names)
	return names
}

// RuleSet is the rule set of the tree's games named name (name@hash, as
// RuleSets lists them), or nil.
func (t *Tree) RuleSet(name string) *rules.RuleSet {
	if i, ok := t.rsIndex[name]; ok {
		return t.ruleSets[i]
	}
	return nil
}
