package rules

import "fmt"

// Game is a position plus the plies that led to it from its root FEN. It
// owns the rules that depend on history: a janggi double pass and a pass
// under bikjang leave no legal move.
type Game struct {
	pos     Position
	rootFEN string
	plies   []plyRecord
}

type plyRecord struct {
	move    Move
	undo    Undo
	bikjang bool // the position before the move was in bikjang
}

// NewGame starts a game from fen under rs.
func NewGame(rs *RuleSet, fen string) (*Game, error) {
	pos, err := ParseFEN(fen, rs)
	if err != nil {
		return nil, err
	}
	return &Game{pos: pos, rootFEN: fen, plies: make([]plyRecord, 0, 256)}, nil
}

// Position is the current position. It must not be changed except through
// the Game.
func (g *Game) Position() *Position { return &g.pos }

// Rules is the game's rule set.
func (g *Game) Rules() *RuleSet { return g.pos.rules }

// RootFEN is the FEN the game started from.
func (g *Game) RootFEN() string { return g.rootFEN }

// Ply is the number of plies played since the root.
func (g *Game) Ply() int { return len(g.plies) }

// Moves appends the moves played since the root to dst.
func (g *Game) Moves(dst []Move) []Move {
	for i := range g.plies {
		dst = append(dst, g.plies[i].move)
	}
	return dst
}

// historyEnded reports whether the history leaves no legal move: two passes
// in a row, or (janggi's bikjang rule) a pass under bikjang.
func (g *Game) historyEnded() bool {
	n := len(g.plies)
	if n == 0 {
		return false
	}
	last := &g.plies[n-1]
	if n >= 2 && last.move.IsPass() && g.plies[n-2].move.IsPass() {
		return true
	}
	return g.pos.rules.Facing == FacingBikjang && last.bikjang && g.pos.kingsFacing()
}

// LegalMoves appends the legal moves in the current position, history
// included, to dst.
func (g *Game) LegalMoves(dst []Move) []Move {
	if g.historyEnded() {
		return dst
	}
	return g.pos.LegalMoves(dst)
}

// Play makes m, which must be legal; callers that cannot vouch for m use
// PlayText or check IsLegal first.
func (g *Game) Play(m Move) {
	bik := g.pos.rules.Facing.bikjang() && g.pos.kingsFacing()
	u := g.pos.MakeMove(m)
	g.plies = append(g.plies, plyRecord{move: m, undo: u, bikjang: bik})
}

// Undo takes back the last ply; it reports false at the root.
func (g *Game) Undo() bool {
	n := len(g.plies)
	if n == 0 {
		return false
	}
	r := &g.plies[n-1]
	g.pos.UnmakeMove(r.move, r.undo)
	g.plies = g.plies[:n-1]
	return true
}

// IsLegal reports whether m is legal now, history included.
func (g *Game) IsLegal(m Move) bool {
	var buf [maxMoves]Move
	for _, l := range g.LegalMoves(buf[:0]) {
		if l == m {
			return true
		}
	}
	return false
}

// PlayText parses a move (ranks as base says), checks it is legal now and
// plays it.
func (g *Game) PlayText(text string, base RankBase) (Move, error) {
	m, err := ParseMoveText(text, base)
	if err != nil {
		return NoMove, err
	}
	if !g.IsLegal(m) {
		return NoMove, fmt.Errorf("rules: illegal move %q in %s", text, g.pos.FEN())
	}
	g.Play(m)
	return m, nil
}
