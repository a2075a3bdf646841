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
func (g *Game) WinsWith(m Move) bool {
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
	p := &g.pos
	rs := p.rules
	n := len(g.states) // m's state would be states[n]
	prev := &g.states[n-1]
	switch {
	case rs.Facing == FacingBikjang && bikjang && prev.bikjang,
		m.IsPass() && prev.move.IsPass(),
		rs.BikjangClaim && bikjang,
		rs.MoveLimit > 0 && p.halfmove >= rs.MoveLimit,
		rs.MaxPlies > 0 && n >= rs.MaxPlies:
		return true
	}
	// mayRepeat on the history with m appended.
	end := min(p.halfmove, n)
	if end < 4 {
		return false
	}
	if rs.ShuttleRule && (g.states[n-2].move == reverseMove(m) || g.states[n-2].move.IsPass()) {
		return true
	}
	for i := 4; i <= end; i += 2 {
		if g.keys[n-i] == p.key {
			return true
		}
	}
	return false
}
