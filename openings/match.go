package openings

import (
	"fmt"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// Matcher picks out the games a tree counts at one position, or for one
// move there: the games its filter keeps that reached the position
// (board and side to move, under one rule set) within its depth, or
// played the move there. A list of games linked from a tree's counts
// uses it, so that the list holds exactly the games counted, those that
// transposed into the position included.
type Matcher struct {
	gf      gameFilter
	depth   int
	ruleSet string
	fen     string
	move    rules.Move
	hasMove bool
	key     uint64
	keyed   bool
}

// Matcher is the matcher of the position fen under ruleSet (name@hash,
// as a View's Position names it) and, when move is not empty, of the
// move (ranks 1–10) played there, with the filter's games and depth.
func (f *Filter) Matcher(ruleSet, fen, move string) (*Matcher, error) {
	gf, err := f.compile()
	if err != nil {
		return nil, err
	}
	m := &Matcher{gf: gf, depth: f.Depth, ruleSet: ruleSet, fen: fen}
	if move != "" {
		mv, err := rules.ParseMoveText(move, rules.Ranks1)
		if err != nil {
			return nil, fmt.Errorf("openings: move %q: %w", move, err)
		}
		m.move, m.hasMove = mv, true
	}
	return m, nil
}

// Match reports whether the tree would count g (under rs) at the
// matcher's position or move. A game that cannot be replayed is an
// error, as it is to Build.
func (m *Matcher) Match(g *gamerec.Game, rs *rules.RuleSet) (bool, error) {
	var skipped Skipped
	if g.RuleSet != m.ruleSet || !m.gf.keep(g, &skipped) {
		return false, nil
	}
	if !m.keyed {
		pos, err := rules.ParseFEN(m.fen, rs)
		if err != nil {
			return false, fmt.Errorf("openings: position %q: %w", m.fen, err)
		}
		m.key, m.keyed = pos.Key(), true
	}
	game, err := rules.NewGame(rs, g.StartFEN)
	if err != nil {
		return false, fmt.Errorf("%w: %s: %w", ErrRecord, g.Where(), err)
	}
	for ply, text := range g.MoveList() {
		if m.depth > 0 && ply == m.depth {
			break
		}
		mv, err := rules.ParseMoveText(text, rules.Ranks1)
		if err != nil || !game.IsLegal(mv) {
			return false, fmt.Errorf("%w: %s: ply %d: illegal move %s", ErrRecord, g.Where(), ply+1, text)
		}
		if game.Position().Key() == m.key && (!m.hasMove || mv == m.move) {
			return true, nil
		}
		game.Play(mv)
	}
	// The last position: reached, and no move played from it.
	return !m.hasMove && game.Position().Key() == m.key, nil
}
