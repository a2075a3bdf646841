package rules

// GivesCheck reports whether m, a legal move, checks the opponent's
// general: InCheck after Play(m), without the history's bookkeeping.
func (g *Game) GivesCheck(m Move) bool {
	p := &g.pos
	u := p.MakeMove(m)
	check := p.checkedBy(m)
	p.UnmakeMove(m, u)
	return check
}

// WinsWith reports whether m, a legal move, ends the game at once in favour
// of the side playing it: what Play(m), then Result, would say. A search
// asks it of every reply to every root move, and most replies end nothing,
// so those are judged on the position alone (mate, stalemate, material)
// once no end that needs the history can apply; the rest take the long way.
func (g *Game) WinsWith(m Move) bool { return g.winsWith(m, Bitboard{}) }

// winsWith is WinsWith knowing mobile, the squares a move may end on and,
// when it gives no check and no bikjang, leave the opponent a legal move
// (mobileAfter's, or none).
func (g *Game) winsWith(m Move, mobile Bitboard) bool {
	p := &g.pos
	mover := p.side
	u := p.MakeMove(m)
	inCheck, bikjang := p.checkedBy(m), p.InBikjang()
	if !g.historyMayEnd(m, bikjang) {
		// result's steps with the history's ends ruled out.
		rs := p.rules
		won := false
		switch {
		case rs.MaterialDraw && p.insufficientMaterial(): // a draw
		case !inCheck && !bikjang && !m.IsPass() && mobile.Has(m.To()): // nothing ends
		case p.hasLegalMove(inCheck, bikjang): // nothing ends
		default: // mated or stalemated: a win, but for a bikjang that must be broken
			won = inCheck || !(rs.Facing == FacingMustBreak && bikjang)
		}
		p.UnmakeMove(m, u)
		return won
	}
	p.UnmakeMove(m, u)
	g.Play(m)
	r := g.Result()
	g.Undo()
	return r.Over() && r.Outcome == winFor(mover)
}

// historyMayEnd reports whether, with m just made on the position (but not
// yet on the history) and bikjang its state, an end that result reads from
// the history could apply: bikjang twice, a double pass, a claim (bikjang,
// the move limit, a repetition as mayRepeat sees it) or the length cap.
func (g *Game) historyMayEnd(m Move, bikjang bool) bool {
	return g.historyMayEndAt(m, bikjang, g.pos.key, g.pos.halfmove, nil)
}

// historyMayEndAt is historyMayEnd for the position after m given by its
// key and halfmove clock, which m need not have been made for. window, when
// not nil, holds the keys the repetition scan would compare key with (see
// keyFilter): a key it does not hold repeats nothing, without the scan.
func (g *Game) historyMayEndAt(m Move, bikjang bool, key uint64, halfmove int, window *keyFilter) bool {
	rs := g.pos.rules
	n := len(g.states) // m's state would be states[n]
	prev := &g.states[n-1]
	switch {
	case rs.Facing == FacingBikjang && bikjang && prev.bikjang,
		m.IsPass() && prev.move.IsPass(),
		rs.BikjangClaim && bikjang,
		rs.MoveLimit > 0 && halfmove >= rs.MoveLimit,
		rs.MaxPlies > 0 && n >= rs.MaxPlies:
		return true
	}
	// mayRepeat on the history with m appended.
	end := min(halfmove, n)
	if end < 4 {
		return false
	}
	if rs.ShuttleRule && (g.states[n-2].move == reverseMove(m) || g.states[n-2].move.IsPass()) {
		return true
	}
	if window != nil && !window.mayHold(key) {
		return false
	}
	for i := 4; i <= end; i += 2 {
		if g.keys[n-i] == key {
			return true
		}
	}
	return false
}

// keyFilter is a one-hash Bloom filter of Zobrist keys (their top bits
// index it; Zobrist keys are uniform): a key it does not hold was never
// added, so a repetition scan over the added keys may be skipped.
type keyFilter [16]uint64

func (f *keyFilter) add(key uint64)          { f[key>>60] |= 1 << (key >> 54 & 63) }
func (f *keyFilter) mayHold(key uint64) bool { return f[key>>60]>>(key>>54&63)&1 != 0 }

// WinningMove is the first of moves (g's legal moves, in order) with which
// the side to move ends the game at once in its favour, as WinsWith would
// judge each in turn; false when none does. With checksOnly it looks only
// at the moves that give check (GivesCheck), as a search's mate test does.
//
// A search asks it of every reply to every root move, and almost every
// reply is quiet, so it proves most moves end nothing without playing
// them. A move that neither starts nor ends on a square that matters to
// the opponent's general (its sensitive squares) gives check only as a
// horse or janggi elephant landing on an attacking square, read from the
// board before the move; one that does is tested with its piece moved on
// the board alone (attackAfter). A quiet move (no check, no bikjang) wins only by
// leaving the opponent without a legal move, or by an end read from the
// history: the opponent keeps a legal move when it has one of its own
// moves off its general's sensitive squares that the move cannot block or
// capture (see mobileAfter), and the history's ends are tested on the key
// and clock the move would give. The rest take WinsWith's way.
func (g *Game) WinningMove(moves []Move, checksOnly bool) (Move, bool) {
	p := &g.pos
	rs := p.rules
	k := p.kings[p.side.Other()]
	sens := p.geo.sensitive[k]
	// A move off the sensitive squares moves no general onto the other's
	// file and opens none between them: after it the generals are in
	// bikjang as they are now.
	facing := rs.Facing.bikjang() && p.kingsFacing()
	var mobile Bitboard
	var window keyFilter
	if !checksOnly {
		mobile = p.mobileAfter()
		// Every quiet move but a capture leaves the clock at halfmove+1,
		// so its repetition scan reads these keys.
		n := len(g.states)
		for i, end := 4, min(p.halfmove+1, n); i <= end; i += 2 {
			window.add(g.keys[n-i])
		}
	}
	for _, m := range moves {
		if m.IsPass() {
			if (!checksOnly || g.GivesCheck(m)) && g.winsWith(m, mobile) {
				return m, true
			}
			continue
		}
		from, to := m.From(), m.To()
		moving, captured := p.board[from], p.board[to]
		var check, bikjang bool
		if sens.Has(from) || sens.Has(to) {
			check, bikjang = p.attackAfter(m, k)
		} else {
			check, bikjang = p.leapChecks(moving.Type(), to, k), facing
		}
		if check || bikjang {
			if (check || !checksOnly) && g.winsWith(m, mobile) {
				return m, true
			}
			continue
		}
		if checksOnly {
			continue // no check
		}
		if !mobile.Has(to) {
			if g.winsWith(m, mobile) {
				return m, true
			}
			continue
		}
		// Quiet, and the opponent keeps a move: only the history can end
		// the game. MakeMove's key and clock.
		key := p.key ^ zobristSide ^ zobristPiece[moving][from] ^ zobristPiece[moving][to]
		halfmove := p.halfmove + 1
		if captured != NoPiece {
			key ^= zobristPiece[captured][to]
			halfmove = 0
		}
		if g.historyMayEndAt(m, false, key, halfmove, &window) && g.winsWith(m, mobile) {
			return m, true
		}
	}
	return NoMove, false
}

// attackAfter reports whether m, a legal move of the side to move, attacks
// the other general (on k) and whether it leaves the generals in bikjang:
// checkedBy's and InBikjang's answers after m, found by moving the piece on
// the board and in its piece set alone (the attack test reads both), which
// costs less than MakeMove and UnmakeMove.
func (p *Position) attackAfter(m Move, k Square) (check, bikjang bool) {
	from, to := m.From(), m.To()
	b := &p.board
	moving, captured := b[from], b[to]
	b[to], b[from] = moving, NoPiece
	p.pieces[moving].clear(from)
	p.pieces[moving].set(to)
	kingMove := moving.Type() == King
	if kingMove {
		p.kings[p.side] = to
	}
	// The captured piece stays in its set: a stale square of the side
	// attacked, which the test does not read. The other general was not
	// attacked before m, so only m's squares can have made an attack.
	check = p.attackedThrough(k, from, to, p.side)
	bikjang = p.rules.Facing.bikjang() && p.kingsFacing()
	b[from], b[to] = moving, captured
	p.pieces[moving].clear(to)
	p.pieces[moving].set(from)
	if kingMove {
		p.kings[p.side] = from
	}
	return check, bikjang
}

// mobileAfter is, for the side not to move, the squares t such that after
// any move of the side to move that ends on t and leaves it out of check
// and out of bikjang, it still has a legal move: one of its moves from a
// square off its general's sensitive squares to another, which needs no
// attack test (see hasLegalMove), with none of its squares (origin, legs,
// target) on t. The other square of the move, the one it leaves, only
// empties: that blocks none of these moves (cannons, whose screens it could
// take away, are left out). A rule set with passes leaves that side a move
// whatever happens (a pass, or the pass that stands in for having none).
func (p *Position) mobileAfter() Bitboard {
	all := Bitboard{^uint64(0), 1<<(Squares-64) - 1}
	if p.rules.Pass == PassUnlessInCheck || p.rules.Pass == PassWhenStuck {
		return all
	}
	us := p.side.Other()
	g := p.geo
	b := &p.board
	sens := &g.sensitive[p.kings[us]]
	open := func(to Square) bool { return !sens.Has(to) && (b[to] == NoPiece || b[to].Color() != us) }
	// need: the squares every move found so far has; a t outside it
	// leaves one of them standing. Two moves with no square in common
	// settle every t.
	need, found := all, false
	add := func(squares Bitboard) bool {
		need, found = need.and(squares), true
		return need.Empty()
	}
	// Pieces with few moves first, as hasLegalMove takes them.
	for _, t := range [...]PieceType{Soldier, Horse, Elephant, Advisor, Chariot} {
		for pieces := p.pieces[MakePiece(us, t)]; !pieces.Empty(); {
			from := pieces.popLowest()
			if sens.Has(from) {
				continue
			}
			at := squareBB(from)
			switch t {
			case Soldier, Advisor:
				l := &g.soldier[us][from]
				if t == Advisor {
					l = &g.advisor[us][from]
				}
				for _, to := range l.sq[:l.n] {
					if open(to) && add(at.or(squareBB(to))) {
						return all
					}
				}
			case Horse:
				for _, l := range g.horse[from].l[:g.horse[from].n] {
					if b[l.leg1] == NoPiece && open(l.to) && add(at.or(squareBB(l.leg1)).or(squareBB(l.to))) {
						return all
					}
				}
			case Elephant:
				for _, l := range g.elephant[us][from].l[:g.elephant[us][from].n] {
					if b[l.leg1] != NoPiece || l.leg2 != NoSquare && b[l.leg2] != NoPiece || !open(l.to) {
						continue
					}
					squares := at.or(squareBB(l.leg1)).or(squareBB(l.to))
					if l.leg2 != NoSquare {
						squares = squares.or(squareBB(l.leg2))
					}
					if add(squares) {
						return all
					}
				}
			case Chariot:
				// One step along each line: no squares on the way.
				for d := range 4 {
					if r := &g.rays[from][d]; r.n > 0 && open(r.sq[0]) && add(at.or(squareBB(r.sq[0]))) {
						return all
					}
				}
			}
		}
	}
	if !found {
		return Bitboard{}
	}
	return all.andNot(need)
}
