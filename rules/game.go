package rules

import (
	"fmt"
)

// Game is a position plus the plies that led to it from its root FEN. It
// owns everything that depends on history: the janggi double pass and pass
// under bikjang (no legal move follows), repetition, perpetual check and
// chase, the shuttle rule and the move limits, and so the game's Result.
type Game struct {
	pos     Position
	root    Position
	rootFEN string
	states  []plyState // states[0] is the root; states[i] follows the i-th ply
	keys    []uint64   // states[i].key, packed for the repetition scan
}

// plyState is what the history rules need of each position.
type plyState struct {
	move    Move // the move that led here (NoMove at the root)
	undo    Undo
	key     uint64
	inCheck bool // the side to move is in check
	bikjang bool // the side to move faces bikjang
}

// NewGame starts a game from fen under rs.
func NewGame(rs *RuleSet, fen string) (*Game, error) {
	pos, err := ParseFEN(fen, rs)
	if err != nil {
		return nil, err
	}
	g := &Game{pos: pos, root: pos, rootFEN: fen, states: make([]plyState, 1, 256), keys: make([]uint64, 1, 256)}
	g.states[0] = g.stateAfter(NoMove, Undo{})
	g.keys[0] = pos.key
	return g, nil
}

func (g *Game) stateAfter(m Move, u Undo) plyState {
	p := &g.pos
	return plyState{move: m, undo: u, key: p.key, inCheck: p.checkedBy(m), bikjang: p.InBikjang()}
}

// Reset returns to the root position, keeping the history's storage: a
// self-play worker reuses one Game for many games without allocating.
func (g *Game) Reset() {
	g.pos = g.root
	g.states = g.states[:1]
	g.keys = g.keys[:1]
}

// Position is the current position. It must not be changed except through
// the Game.
func (g *Game) Position() *Position { return &g.pos }

// Rules is the game's rule set.
func (g *Game) Rules() *RuleSet { return g.pos.rules }

// RootFEN is the FEN the game started from.
func (g *Game) RootFEN() string { return g.rootFEN }

// Ply is the number of plies played since the root.
func (g *Game) Ply() int { return len(g.states) - 1 }

// Moves appends the moves played since the root to dst.
func (g *Game) Moves(dst []Move) []Move {
	for i := 1; i < len(g.states); i++ {
		dst = append(dst, g.states[i].move)
	}
	return dst
}

// Ancestor returns a copy of the position k plies back (0 is the current
// one); false when that is before the root.
func (g *Game) Ancestor(k int) (Position, bool) {
	n := len(g.states) - 1
	if k < 0 || k > n {
		return Position{}, false
	}
	pos := g.pos
	for j := n; j > n-k; j-- {
		pos.UnmakeMove(g.states[j].move, g.states[j].undo)
	}
	return pos, true
}

// Boards writes the board k plies back into dst[k] (0 is the current one)
// for each k below len(dst) that the game reaches, and returns how many it
// wrote: Ancestor's boards, each from the one after it by a move taken
// back on the board alone, as an encoder of the recent history needs them.
func (g *Game) Boards(dst [][Squares]Piece) int {
	n := len(g.states) - 1
	k := 0
	for ; k < len(dst) && k <= n; k++ {
		if k == 0 {
			dst[0] = g.pos.board
			continue
		}
		dst[k] = dst[k-1]
		st := &g.states[n-k+1]
		if m := st.move; !m.IsPass() {
			b := &dst[k]
			b[m.From()], b[m.To()] = b[m.To()], st.undo.captured
		}
	}
	return k
}

// MoveBack is the move played k plies back (0 is the last one) and the
// piece it captured (NoPiece for none, or a pass); false when that is
// before the root. A record of the recent moves reads them so, where
// Moves and Ancestor copy the whole history and positions.
func (g *Game) MoveBack(k int) (Move, Piece, bool) {
	n := len(g.states) - 1
	if k < 0 || k >= n {
		return NoMove, NoPiece, false
	}
	st := &g.states[n-k]
	return st.move, st.undo.captured, true
}

// KeyBack is the Zobrist key of the position k plies back (0 is the
// current one); false when that is before the root.
func (g *Game) KeyBack(k int) (uint64, bool) {
	n := len(g.keys) - 1
	if k < 0 || k > n {
		return 0, false
	}
	return g.keys[n-k], true
}

// Repetitions counts the earlier occurrences of the current position
// (board and side to move) since the last capture and since the root, the
// window the repetition rule looks at.
func (g *Game) Repetitions() int {
	n := len(g.keys) - 1
	end := min(g.pos.halfmove, n)
	count := 0
	for i := 4; i <= end; i += 2 {
		if g.keys[n-i] == g.keys[n] {
			count++
		}
	}
	return count
}

// InCheck reports whether the side to move is in check (cached per ply).
func (g *Game) InCheck() bool { return g.states[len(g.states)-1].inCheck }

// LastMoveWasPass reports whether the last ply was a pass.
func (g *Game) LastMoveWasPass() bool { return g.states[len(g.states)-1].move.IsPass() }

// historyEnded reports whether the history leaves no legal move: two passes
// in a row, or (janggi's bikjang rule) a pass under bikjang.
func (g *Game) historyEnded() bool {
	n := len(g.states) - 1
	if n == 0 {
		return false
	}
	cur, prev := &g.states[n], &g.states[n-1]
	if cur.move.IsPass() && prev.move.IsPass() {
		return true
	}
	return g.pos.rules.Facing == FacingBikjang && cur.bikjang && prev.bikjang
}

// LegalMoves appends the legal moves in the current position, history
// included, to dst.
func (g *Game) LegalMoves(dst []Move) []Move {
	if g.historyEnded() {
		return dst
	}
	st := &g.states[len(g.states)-1]
	return g.pos.legalMoves(dst, st.inCheck, st.bikjang)
}

// Play makes m, which must be legal; callers that cannot vouch for m use
// PlayText or check IsLegal first.
func (g *Game) Play(m Move) {
	u := g.pos.MakeMove(m)
	g.states = append(g.states, g.stateAfter(m, u))
	g.keys = append(g.keys, g.pos.key)
}

// Undo takes back the last ply; it reports false at the root.
func (g *Game) Undo() bool {
	n := len(g.states) - 1
	if n == 0 {
		return false
	}
	g.pos.UnmakeMove(g.states[n].move, g.states[n].undo)
	g.states = g.states[:n]
	g.keys = g.keys[:n]
	return true
}

// IsLegal reports whether m is legal now, history included.
func (g *Game) IsLegal(m Move) bool {
	return !g.historyEnded() && g.pos.IsLegal(m)
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

// Result is how the game stands, with every end a player could claim
// (repetition, perpetual check or chase, shuttling, move limit) applied
// automatically: the game is over at the first position where any end
// applies.
func (g *Game) Result() Result { return g.result(true) }

// ImmediateResult reports only the ends that stop play at once (checkmate,
// stalemate, double pass, bikjang, insufficient material), as
// Fairy-Stockfish's result without claims does.
func (g *Game) ImmediateResult() Result { return g.result(false) }

func (g *Game) result(claims bool) Result {
	p := &g.pos
	rs := p.rules
	n := len(g.states) - 1
	cur := &g.states[n]
	if n > 0 {
		prev := &g.states[n-1]
		if rs.Facing == FacingBikjang && cur.bikjang && prev.bikjang {
			return p.scored(Bikjang)
		}
		if cur.move.IsPass() && prev.move.IsPass() {
			if rs.Pass == PassWhenStuck {
				return p.scored(NoLegalMoves)
			}
			return p.scored(DoublePass)
		}
	}
	if rs.MaterialDraw && p.insufficientMaterial() {
		return Result{Outcome: Draw, Reason: InsufficientMaterial}
	}
	if !p.hasLegalMove(cur.inCheck, cur.bikjang) {
		switch {
		case cur.inCheck:
			return Result{Outcome: winFor(p.side.Other()), Reason: Checkmate}
		case rs.Facing == FacingMustBreak && cur.bikjang:
			return Result{Outcome: Draw, Reason: Bikjang}
		default:
			return Result{Outcome: winFor(p.side.Other()), Reason: Stalemate}
		}
	}
	if claims {
		if rs.BikjangClaim && cur.bikjang {
			return Result{Outcome: Draw, Reason: Bikjang}
		}
		if rs.MoveLimit > 0 && p.halfmove >= rs.MoveLimit {
			if r := g.moveLimitEnd(); r.Over() {
				return r
			}
		}
		if g.mayRepeat() {
			if r := g.repetitionEnd(); r.Over() {
				return r
			}
		}
	}
	if rs.MaxPlies > 0 && n >= rs.MaxPlies {
		return p.scored(LengthCap)
	}
	return Result{}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// moveLimitEnd applies the n-move rule: MoveLimit plies without a capture.
// Xiangqi's limit grows by two plies for each check beyond ten by the side
// that checked more within the window, once 20 plies have been played.
func (g *Game) moveLimitEnd() Result {
	p := &g.pos
	rs := p.rules
	if rs.MoveLimit == 0 || p.halfmove < rs.MoveLimit {
		return Result{}
	}
	n := len(g.states) - 1
	offset := 0
	if rs.CheckExtension && n >= 20 {
		end := min(p.halfmove, n)
		checksThem, checksUs := b2i(g.states[n].inCheck), b2i(g.states[n-1].inCheck)
		for i := 2; i < end; i += 2 {
			checksThem += b2i(g.states[n-i].inCheck)
			checksUs += b2i(g.states[n-i-1].inCheck)
		}
		offset = 2 * max(max(checksThem, checksUs)-10, 0)
	}
	if p.halfmove-offset < rs.MoveLimit {
		return Result{}
	}
	return p.scored(MoveLimit)
}

// mayRepeat is repetitionEnd's cheap precondition: an earlier occurrence of
// the position within the window, or (janggimodern) a shuttle under way.
// Most positions have neither.
func (g *Game) mayRepeat() bool {
	st := g.states
	n := len(st) - 1
	end := min(g.pos.halfmove, n)
	if end < 4 {
		return false
	}
	if g.pos.rules.ShuttleRule && (st[n-2].move == reverseMove(st[n].move) || st[n-2].move.IsPass()) {
		return true
	}
	keys := g.keys
	key := keys[n]
	for i := 4; i <= end; i += 2 {
		if keys[n-i] == key {
			return true
		}
	}
	return false
}

// reverseMove is m played back.
func reverseMove(m Move) Move { return NewMove(m.To(), m.From()) }

// repetitionEnd applies the n-fold repetition rule and, within the same
// window, perpetual check, perpetual chase and janggimodern's shuttle rule,
// comparing positions since the last capture and since the root. "Them" is
// the side that just moved, "us" the side to move.
func (g *Game) repetitionEnd() Result {
	p := &g.pos
	rs := p.rules
	st := g.states
	n := len(st) - 1
	end := min(p.halfmove, n)
	if end < 4 {
		return Result{}
	}
	key := st[n].key
	shuttling := rs.ShuttleRule && (st[n-2].move == reverseMove(st[n].move) || st[n-2].move.IsPass())
	perpetualThem := st[n].inCheck && st[n-2].inCheck
	perpetualUs := st[n-1].inCheck && st[n-3].inCheck

	// Shuttle: count back-and-forth moves of one piece by "them".
	shuttle := 0
	if shuttling {
		last := st[n].move
		mover := p.board[last.To()].Type()
		if !last.IsPass() && mover != King && mover != Advisor && !st[n-1].inCheck && !st[n-3].inCheck {
			if st[n-2].move == reverseMove(last) {
				shuttle = 2
			} else if st[n-2].move.IsPass() {
				shuttle = 1 // one pass just before the last shuttle does not break it
			}
		}
	}
	count := 0
	for i := 4; i <= end; i += 2 {
		if shuttle > 0 {
			switch {
			case i+1 <= end && st[n-i-1].inCheck:
				shuttle = 0
			case shuttle < 4:
				ref := st[n-i+2].move
				if shuttle == 1 {
					ref = st[n].move
				}
				if st[n-i].move == reverseMove(ref) {
					shuttle++
				} else {
					shuttle = 0
				}
			default:
				if st[n-i].undo.captured == NoPiece && st[n-i+2].move.From() == st[n-i].move.To() {
					return Result{Outcome: winFor(p.side), Reason: Shuttle}
				}
				shuttle = 0
			}
		}
		perpetualThem = perpetualThem && st[n-i].inCheck
		if st[n-i].key == key {
			count++
			if count+1 == rs.Repetition {
				return g.repetitionVerdict(i, end, perpetualThem, perpetualUs)
			}
		}
		if i+1 <= end {
			perpetualUs = perpetualUs && st[n-i-1].inCheck
		}
	}
	return Result{}
}

// repetitionVerdict scores a repetition completed i plies back: a one-sided
// perpetual checker (or, in xiangqi, chaser) loses; otherwise it is scored
// as the rule set says.
func (g *Game) repetitionVerdict(i, end int, perpetualThem, perpetualUs bool) Result {
	p := &g.pos
	rs := p.rules
	oneSided := func(them, us bool, reason Termination) Result {
		switch {
		case !us:
			return Result{Outcome: winFor(p.side), Reason: reason}
		case !them:
			return Result{Outcome: winFor(p.side.Other()), Reason: reason}
		}
		return p.scored(reason)
	}
	if rs.PerpetualCheckLoses && (perpetualThem || perpetualUs) {
		return oneSided(perpetualThem, perpetualUs, PerpetualCheck)
	}
	if rs.ChaseRule {
		if them, us := g.chases(i, end); them || us {
			return oneSided(them, us, PerpetualChase)
		}
	}
	return p.scored(Repetition)
}

// chases reports whether "them" chased one piece on every move of the
// repetition i plies back, and whether "us" did, tracking each chased piece
// as it moves.
func (g *Game) chases(i, end int) (them, us bool) {
	st := g.states
	n := len(st) - 1
	chased := g.chasedSets(max(n-i, 1))
	at := func(j int) Bitboard {
		if j < 1 {
			return Bitboard{}
		}
		return chased[j-max(n-i, 1)]
	}
	chaseThem := undoMoveBoard(at(n), st[n-1].move).and(at(n - 2))
	chaseUs := undoMoveBoard(at(n-1), st[n-2].move).and(at(n - 3))
	for k := 4; k <= i; k += 2 {
		if k != n { // the root has no chased set
			chaseThem = undoMoveBoard(chaseThem, st[n-k+1].move).and(at(n - k))
		}
		if k < i && k+1 <= end {
			chaseUs = undoMoveBoard(chaseUs, st[n-k].move).and(at(n - k - 1))
		}
	}
	return !chaseThem.Empty(), !chaseUs.Empty()
}

// chasedSets replays the plies from lo to the current one on a copy of the
// position and returns, for each, the pieces its move chased.
func (g *Game) chasedSets(lo int) []Bitboard {
	st := g.states
	n := len(st) - 1
	pos := g.pos
	for j := n; j >= lo; j-- {
		pos.UnmakeMove(st[j].move, st[j].undo)
	}
	prev := [2]Bitboard{pos.xqBlockersForKing(White), pos.xqBlockersForKing(Black)}
	out := make([]Bitboard, 0, n-lo+1)
	for j := lo; j <= n; j++ {
		pos.MakeMove(st[j].move)
		out = append(out, pos.xqChased(st[j].move, st[j].undo.captured, prev))
		prev = [2]Bitboard{pos.xqBlockersForKing(White), pos.xqBlockersForKing(Black)}
	}
	return out
}
