package openings

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
)

// View is the part of a tree to show: the positions reachable from the
// selected start positions (Roots) through moves played in at least
// MinGames games, in a fixed order — depth first from the roots, roots by
// games, moves by count then text — so that every output is the same for
// the same games.
type View struct {
	RuleSets []string // of the tree's games
	Games    int      // games in the tree
	Skipped  Skipped
	Filter   Filter // the tree's, with the selection of this view
	// Roots index Positions: the selected positions, most games first.
	Roots     []int
	Positions []Position
}

// Position is one position with its statistics.
type Position struct {
	RuleSet string
	Game    rules.GameKind
	// FEN is the position as first reached (its clocks are those of the
	// first path that reached it).
	FEN  string
	Side rules.Color
	// Setup is "CHO,HAN" when games started here from a janggi setup.
	Setup string
	// Ply is the fewest plies from a game's start it was reached in.
	Ply      int
	Games    int
	Unscored int       // of the games, those with an unknown result
	White    stats.WDL // the others', from White's (Red's, Cho's) view
	Moves    []MoveStat
}

// ToMove is the games' W/D/L from the view of the side to move.
func (p *Position) ToMove() stats.WDL {
	if p.Side == rules.White {
		return p.White
	}
	return stats.WDL{Wins: p.White.Losses, Draws: p.White.Draws, Losses: p.White.Wins}
}

// MoveStat is one move played at a position.
type MoveStat struct {
	Move     string // ranks 1–10
	Count    int    // games that played it here
	Unscored int    // of them, those with an unknown result
	// WDL is the others' results from the mover's view.
	WDL stats.WDL
	// Next indexes View.Positions: the position the move leads to.
	Next int
}

// Score is the mover's mean score and its 95% Wilson interval; ok is false
// when no game that played the move has a known result.
func (m *MoveStat) Score() (score float64, ci stats.Interval, ok bool) { return scoreOf(m.WDL) }

// Share is the fraction of the position's games that played the move.
func (m *MoveStat) Share(p *Position) float64 {
	if p.Games == 0 {
		return 0
	}
	return float64(m.Count) / float64(p.Games)
}

// View selects what the tree's filter asks for: its MinGames, Position
// and Moves.
func (t *Tree) View() (*View, error) {
	return t.Select(t.filter.Position, t.filter.Moves, t.filter.MinGames)
}

// Select is View with another selection: the subtree at the position fen
// (every start position when empty) after moves, listing the positions and
// moves of at least minGames games.
func (t *Tree) Select(fen, moves string, minGames int) (*View, error) {
	return t.selectView(fen, moves, minGames, -1)
}

// Explore is Select one move deep, for browsing a large tree a position
// at a time: the selected positions with their moves, and the positions
// those moves lead to without theirs.
func (t *Tree) Explore(fen, moves string, minGames int) (*View, error) {
	return t.selectView(fen, moves, minGames, 1)
}

// selectView is Select, walking levels moves below the roots (-1: all).
func (t *Tree) selectView(fen, moves string, minGames, levels int) (*View, error) {
	if minGames < 0 {
		return nil, fmt.Errorf("openings: minimum games %d: want 0 or more", minGames)
	}
	starts, err := t.selectStarts(fen, moves)
	if err != nil {
		return nil, err
	}
	f := t.filter
	f.Position, f.Moves, f.MinGames = fen, moves, minGames
	v := &View{RuleSets: t.RuleSets(), Games: t.games, Skipped: t.skipped, Filter: f}
	ids := map[int32]int{}
	// walk lists n and what follows it. parent is the position of the
	// node walk came from (nil at a root): when that node is the one n
	// was first reached from, n's position is one move away instead of a
	// replay from its start.
	var walk func(n, from int32, parent *rules.Position, level int) (int, error)
	walk = func(n, from int32, parent *rules.Position, level int) (int, error) {
		if id, ok := ids[n]; ok {
			return id, nil
		}
		nd := &t.nodes[n]
		var pos rules.Position
		if parent != nil && nd.via >= 0 && t.edges[nd.via].from == from {
			pos = *parent
			pos.MakeMove(t.edges[nd.via].move)
		} else {
			var err error
			if pos, err = t.position(n); err != nil {
				return 0, err
			}
		}
		id := len(v.Positions)
		ids[n] = id
		p := Position{RuleSet: t.rsNames[nd.rs], Game: t.ruleSets[nd.rs].Game, FEN: pos.FEN(), Side: nd.side, Ply: int(nd.ply),
			Games: int(nd.games), Unscored: int(nd.unscored), White: wdlOf(nd.wdl, rules.White)}
		if nd.root && nd.setup >= 0 {
			p.Setup = rules.JanggiSetup(nd.setup/4).String() + "," + rules.JanggiSetup(nd.setup%4).String()
		}
		v.Positions = append(v.Positions, p)
		if level == levels {
			return id, nil
		}
		for _, e := range t.sortedEdges(n, minGames) {
			ed := &t.edges[e]
			next, err := walk(ed.to, n, &pos, level+1)
			if err != nil {
				return 0, err
			}
			v.Positions[id].Moves = append(v.Positions[id].Moves, MoveStat{Move: ed.move.String(), Count: int(ed.games),
				Unscored: int(ed.unscored), WDL: wdlOf(ed.wdl, nd.side), Next: next})
		}
		return id, nil
	}
	for _, n := range starts {
		if int(t.nodes[n].games) < minGames {
			continue
		}
		id, err := walk(n, -1, nil, 0)
		if err != nil {
			return nil, err
		}
		v.Roots = append(v.Roots, id)
	}
	return v, nil
}

// wdlOf turns White's-view counts into side's view.
func wdlOf(c [3]int32, side rules.Color) stats.WDL {
	w := stats.WDL{Wins: int(c[whiteWins]), Draws: int(c[draw]), Losses: int(c[blackWins])}
	if side == rules.Black {
		w.Wins, w.Losses = w.Losses, w.Wins
	}
	return w
}

// sortedEdges lists the moves of at least minGames games at n, most
// played first, ties by move text.
func (t *Tree) sortedEdges(n int32, minGames int) []int32 {
	var es []int32
	for e := t.nodes[n].first; e >= 0; e = t.edges[e].next {
		if int(t.edges[e].games) >= minGames {
			es = append(es, e)
		}
	}
	slices.SortFunc(es, func(a, b int32) int {
		ea, eb := &t.edges[a], &t.edges[b]
		if c := cmp.Compare(eb.games, ea.games); c != 0 {
			return c
		}
		return strings.Compare(ea.move.String(), eb.move.String())
	})
	return es
}

// selectStarts finds the nodes a selection starts from, most games first.
func (t *Tree) selectStarts(fen, moves string) ([]int32, error) {
	var starts []int32
	if fen == "" {
		for i := range t.nodes {
			if t.nodes[i].root {
				starts = append(starts, int32(i))
			}
		}
	} else {
		var errs []error
		for i, rs := range t.ruleSets {
			pos, err := rules.ParseFEN(fen, rs)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if n, ok := t.index[nodeKey{pos.Key(), uint64(i)}]; ok {
				starts = append(starts, n)
			}
		}
		if len(starts) == 0 {
			if len(errs) > 0 && len(errs) == len(t.ruleSets) {
				return nil, fmt.Errorf("openings: position: %w", errs[0])
			}
			return nil, fmt.Errorf("%w: no game reached the position %s%s", ErrNotReached, fen, t.depthNote())
		}
	}
	if err := t.sortNodes(starts); err != nil {
		return nil, err
	}
	texts := strings.Fields(moves)
	if len(texts) == 0 {
		return starts, nil
	}
	var reached []int32
	seen := map[int32]bool{}
	for _, s := range starts {
		if n, k, err := t.follow(s, texts); err == nil && k == len(texts) && !seen[n] {
			seen[n] = true
			reached = append(reached, n)
		}
	}
	if len(reached) == 0 {
		if len(starts) == 0 {
			return nil, errors.New("openings: no games")
		}
		return nil, t.followError(starts, texts)
	}
	return reached, t.sortNodes(reached)
}

// follow plays texts from node n along the tree's edges. It returns the
// node reached and how many moves it followed: len(texts) unless a move is
// unreadable (err) or no game played it there.
func (t *Tree) follow(n int32, texts []string) (int32, int, error) {
	for i, text := range texts {
		m, err := rules.ParseMoveText(text, rules.Ranks1)
		if err != nil {
			return n, i, err
		}
		e, ok := t.edgeAt[uint64(n)<<16|uint64(m)]
		if !ok {
			return n, i, nil
		}
		n = t.edges[e].to
	}
	return n, len(texts), nil
}

// ErrNotReached is wrapped by a selection's error when no game of the
// tree reached the position asked for (a legal one: an illegal move is
// another error).
var ErrNotReached = errors.New("openings: not reached")

// followError explains why moves lead nowhere, from the first start.
func (t *Tree) followError(starts []int32, texts []string) error {
	n, i, err := t.follow(starts[0], texts)
	moves := strings.Join(texts, " ")
	if err != nil {
		return fmt.Errorf("openings: moves %q: move %d: %w", moves, i+1, err)
	}
	others := ""
	if len(starts) > 1 {
		others = fmt.Sprintf(" (nor from the %d other start positions)", len(starts)-1)
	}
	pos, err := t.position(n)
	if err != nil {
		return err
	}
	m, _ := rules.ParseMoveText(texts[i], rules.Ranks1)
	if !pos.IsLegal(m) {
		return fmt.Errorf("openings: moves %q: move %d (%s) is illegal in %s%s", moves, i+1, texts[i], pos.FEN(), others)
	}
	return fmt.Errorf("%w: moves %q: no game played move %d (%s) in %s%s%s", ErrNotReached, moves, i+1, texts[i], pos.FEN(), t.depthNote(), others)
}

func (t *Tree) depthNote() string {
	switch {
	case t.filter.Depth == 1:
		return " within the first ply"
	case t.filter.Depth > 1:
		return fmt.Sprintf(" within the first %d plies", t.filter.Depth)
	}
	return ""
}

// sortNodes orders nodes by games (most first), then rule set and FEN.
func (t *Tree) sortNodes(ns []int32) error {
	fens := map[int32]string{}
	for _, n := range ns {
		pos, err := t.position(n)
		if err != nil {
			return err
		}
		fens[n] = pos.FEN()
	}
	slices.SortFunc(ns, func(a, b int32) int {
		na, nb := &t.nodes[a], &t.nodes[b]
		if c := cmp.Compare(nb.games, na.games); c != 0 {
			return c
		}
		if c := strings.Compare(t.rsNames[na.rs], t.rsNames[nb.rs]); c != 0 {
			return c
		}
		return strings.Compare(fens[a], fens[b])
	})
	return nil
}
