package rules

// Xiangqi's perpetual-chase rule, as Fairy-Stockfish applies the Asian
// Xiangqi Federation rules: after each move, the set of the opponent's
// pieces that the move newly chases. The rule compares these sets across a
// repetition (see Game.repetitionEnd). Everything here runs only when a
// repetition completes, so it favours plain code over speed.

// xqAttacksTo returns the pieces of colour c that attack s, with occ as the
// occupancy for blocking (a piece absent from occ still attacks if it is on
// the board). Pieces attack only within the points their type may reach.
func (p *Position) xqAttackersTo(s Square, occ Bitboard, c Color) Bitboard {
	g := p.geo
	b := &p.board
	var out Bitboard
	for d := 0; d < 4; d++ {
		r := &g.rays[s][d]
		screens := 0
		for i := uint8(0); i < r.n; i++ {
			q := r.sq[i]
			if !occ.Has(q) {
				continue
			}
			pc := b[q]
			if screens == 0 && pc == MakePiece(c, Chariot) {
				out.set(q)
			}
			if screens == 1 && pc == MakePiece(c, Cannon) {
				out.set(q)
			}
			screens++
			if screens == 2 {
				break
			}
		}
	}
	for _, l := range g.horseFrom[s].l[:g.horseFrom[s].n] {
		if b[l.to] == MakePiece(c, Horse) && !occ.Has(l.leg1) {
			out.set(l.to)
		}
	}
	// Elephants, advisors and the general attack only points of their own
	// half or palace, from wherever they stand.
	f, r := s.File(), s.Rank()
	for _, d := range [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
		if g.half[c].Has(s) && onBoard(f+2*d[0], r+2*d[1]) {
			if q := SquareAt(f+2*d[0], r+2*d[1]); b[q] == MakePiece(c, Elephant) && !occ.Has(SquareAt(f+d[0], r+d[1])) {
				out.set(q)
			}
		}
		if g.palace[c].Has(s) && onBoard(f+d[0], r+d[1]) {
			if q := SquareAt(f+d[0], r+d[1]); b[q] == MakePiece(c, Advisor) {
				out.set(q)
			}
		}
	}
	for _, o := range orthogonal {
		if g.palace[c].Has(s) && onBoard(f+o[0], r+o[1]) {
			if q := SquareAt(f+o[0], r+o[1]); b[q] == MakePiece(c, King) {
				out.set(q)
			}
		}
	}
	for _, q := range g.soldierFrom[c][s].sq[:g.soldierFrom[c][s].n] {
		if b[q] == MakePiece(c, Soldier) {
			out.set(q)
		}
	}
	return out
}

// xqRayAttacks is what a chariot (cannon false) or cannon (true) on s
// attacks with occupancy occ: a chariot up to and including the first
// piece; a cannon every point beyond the first piece up to and including
// the second.
func (p *Position) xqRayAttacks(s Square, occ Bitboard, cannon bool) Bitboard {
	var out Bitboard
	for d := 0; d < 4; d++ {
		r := &p.geo.rays[s][d]
		screens := 0
		for i := uint8(0); i < r.n; i++ {
			q := r.sq[i]
			if !cannon || screens == 1 {
				out.set(q)
			}
			if occ.Has(q) {
				screens++
				if !cannon || screens == 2 {
					break
				}
			}
		}
	}
	return out
}

// xqAttacks is what a piece of type t and colour c on s attacks with
// occupancy occ. With restricted, the general, advisors and elephants keep
// to their points and unpromoted soldiers attack only forward, as when the
// piece moves; without it the bare movement pattern applies (Fairy-Stockfish
// uses the bare pattern for discovered attacks and for what a pinned piece
// defends).
func (p *Position) xqAttacks(c Color, t PieceType, s Square, occ Bitboard, restricted bool) Bitboard {
	g := p.geo
	var out Bitboard
	f, r := s.File(), s.Rank()
	fwd := 1
	if c == Black {
		fwd = -1
	}
	step := func(df, dr int) {
		if onBoard(f+df, r+dr) {
			out.set(SquareAt(f+df, r+dr))
		}
	}
	switch t {
	case Chariot:
		return p.xqRayAttacks(s, occ, false)
	case Cannon:
		return p.xqRayAttacks(s, occ, true)
	case Horse:
		for _, l := range g.horse[s].l[:g.horse[s].n] {
			if !occ.Has(l.leg1) {
				out.set(l.to)
			}
		}
	case Elephant:
		for _, d := range [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
			tf, tr := f+2*d[0], r+2*d[1]
			if onBoard(tf, tr) && !occ.Has(SquareAt(f+d[0], r+d[1])) {
				out.set(SquareAt(tf, tr))
			}
		}
		if restricted {
			out = out.and(g.half[c])
		}
	case Advisor:
		for _, d := range [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
			step(d[0], d[1])
		}
		if restricted {
			out = out.and(g.palace[c])
		}
	case King:
		for _, o := range orthogonal {
			step(o[0], o[1])
		}
		if restricted {
			out = out.and(g.palace[c])
		}
	case Soldier:
		step(0, fwd)
		crossed := (c == White && r >= 5) || (c == Black && r <= 4)
		if !restricted || crossed {
			step(-1, 0)
			step(1, 0)
		}
	}
	return out
}

// xqBlockersForKing is every piece, of either colour, whose removal would
// expose c's general to a chariot, a cannon (two pieces between: both
// block) or a horse (its leg).
func (p *Position) xqBlockersForKing(c Color) Bitboard {
	g := p.geo
	b := &p.board
	k := p.kings[c]
	enemy := c.Other()
	all := p.occ[White].or(p.occ[Black])
	var blockers Bitboard
	for d := 0; d < 4; d++ {
		r := &g.rays[k][d]
		// The pieces along the ray, nearest first.
		var line [9]Square
		n := 0
		for i := uint8(0); i < r.n; i++ {
			if all.Has(r.sq[i]) {
				line[n] = r.sq[i]
				n++
			}
		}
		for j := 0; j < n; j++ {
			switch b[line[j]] {
			case MakePiece(enemy, Chariot):
				// A chariot that attacks (j == 0) pins nothing. Enemy
				// chariots between it and the general do not count: they
				// are snipers too, taken off the board for this test.
				between, count := NoSquare, 0
				for q := 0; q < j; q++ {
					if q == 0 || b[line[q]] != MakePiece(enemy, Chariot) {
						between = line[q]
						count++
					}
				}
				if j > 0 && count == 1 {
					blockers.set(between)
				}
			case MakePiece(enemy, Cannon):
				if j == 2 {
					blockers.set(line[0])
					blockers.set(line[1])
				}
			}
		}
	}
	for _, l := range g.horseFrom[k].l[:g.horseFrom[k].n] {
		if b[l.to] == MakePiece(enemy, Horse) && all.Has(l.leg1) {
			blockers.set(l.leg1)
		}
	}
	return blockers
}

// line is the whole file or rank through two squares on one, else empty.
func line(a, b Square) Bitboard {
	var out Bitboard
	for s := Square(0); s < Squares; s++ {
		if (a.File() == b.File() && s.File() == a.File()) || (a.Rank() == b.Rank() && s.Rank() == a.Rank()) {
			out.set(s)
		}
	}
	return out
}

// xqChased returns the pieces of the side to move that the last move m
// (which captured captured) chases. prevBlockers are the blockers of the
// position before m, indexed by the general's colour.
func (p *Position) xqChased(m Move, captured Piece, prevBlockers [2]Bitboard) Bitboard {
	us := p.side // the victims
	them := us.Other()
	b := &p.board
	all := p.occ[White].or(p.occ[Black])
	blockersUs := p.xqBlockersForKing(us)
	pins := blockersUs
	ourKing := p.kings[us]
	// Flying general: our lone piece on the opponent general's file, with
	// our general on it too, counts as pinned.
	var onFile Bitboard
	theirFile := p.kings[them].File()
	for s := Square(theirFile); s < Squares; s += Files {
		if p.occ[us].Has(s) {
			onFile.set(s)
		}
	}
	if onFile.Has(ourKing) {
		others := onFile.andNot(squareBB(ourKing))
		if !others.moreThanOne() {
			pins = pins.or(others)
		}
	}
	// Our general and unpromoted soldiers are never chased.
	var exempt Bitboard
	exempt.set(ourKing)
	for s := p.occ[us]; !s.Empty(); {
		q := s.popLowest()
		if b[q].Type() == Soldier && !((us == White && q.Rank() >= 5) || (us == Black && q.Rank() <= 4)) {
			exempt.set(q)
		}
	}
	ofType := func(c Color, types ...PieceType) Bitboard {
		var out Bitboard
		for s := p.occ[c]; !s.Empty(); {
			q := s.popLowest()
			for _, t := range types {
				if b[q].Type() == t {
					out.set(q)
				}
			}
		}
		return out
	}
	var chased Bitboard
	addChased := func(attacker Square, t PieceType, attacks Bitboard) {
		if attacks.andNot(chased).Empty() {
			return
		}
		attacks = attacks.andNot(exempt)
		// Attacks on stronger pieces chase whether protected or not.
		if t == Horse || t == Cannon {
			chased = chased.or(attacks.and(ofType(us, Chariot)))
		}
		if t == Elephant || t == Advisor {
			chased = chased.or(attacks.and(ofType(us, Chariot, Cannon, Horse)))
		}
		// Mutual attacks do not chase, except by a lame horse or on a
		// pinned piece.
		lameHorse := false
		if t == Horse {
			f, r := attacker.File(), attacker.Rank()
			for _, d := range [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
				if onBoard(f+d[0], r+d[1]) && all.Has(SquareAt(f+d[0], r+d[1])) {
					lameHorse = true
				}
			}
		}
		if lameHorse {
			for h := attacks.and(ofType(us, Horse)); !h.Empty(); {
				q := h.popLowest()
				if p.xqAttacks(us, Horse, q, all, false).Has(attacker) {
					attacks.clear(q)
				}
			}
		} else {
			attacks = attacks.and(p.occ[us].andNot(ofType(us, t)).or(pins))
		}
		// Attacks on pieces without real protection chase.
		without := all.andNot(squareBB(attacker))
		for a := attacks; !a.Empty(); {
			q := a.popLowest()
			roots := p.xqAttackersTo(q, without, us).andNot(pins)
			if roots.Empty() ||
				(roots == squareBB(ourKing) && p.xqRayAttacks(p.kings[them], without, false).Has(q)) {
				chased.set(q)
			}
		}
	}

	from, to := m.From(), m.To()
	moved := b[to].Type()
	if moved != King && moved != Soldier {
		direct := p.xqAttacks(them, moved, to, all, true).and(p.occ[us])
		if moved == Chariot || moved == Cannon {
			direct = direct.andNot(line(from, to))
		}
		addChased(to, moved, direct)
	}
	// Discovered attacks: a horse whose leg, an elephant whose eye or a
	// chariot or cannon whose line the move opened, or a cannon it screens.
	var candidates Bitboard
	fromF, fromR := from.File(), from.Rank()
	for _, o := range orthogonal {
		if onBoard(fromF+o[0], fromR+o[1]) {
			if q := SquareAt(fromF+o[0], fromR+o[1]); b[q] == MakePiece(them, Horse) {
				candidates.set(q)
			}
		}
	}
	for _, d := range [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
		if onBoard(fromF+d[0], fromR+d[1]) {
			if q := SquareAt(fromF+d[0], fromR+d[1]); b[q] == MakePiece(them, Elephant) {
				candidates.set(q)
			}
		}
	}
	for s := p.occ[them]; !s.Empty(); {
		q := s.popLowest()
		t := b[q].Type()
		sameLine := func(a Square) bool { return q != a && (q.File() == a.File() || q.Rank() == a.Rank()) }
		if ((t == Cannon || t == Chariot) && sameLine(from)) || (t == Cannon && sameLine(to)) {
			candidates.set(q)
		}
	}
	before := all.xor(squareBB(from))
	if captured == NoPiece {
		before = before.xor(squareBB(to))
	}
	for c := candidates; !c.Empty(); {
		q := c.popLowest()
		t := b[q].Type()
		disc := p.occ[us].and(p.xqAttacks(them, t, q, all, false)).andNot(p.xqAttacks(them, t, q, before, false))
		addChased(q, t, disc)
	}
	// Pieces that lost their real protection to a new pin, and attacks a
	// new discovered check lets through.
	newBlockers := blockersUs.andNot(prevBlockers[us])
	blockersThem := p.xqBlockersForKing(them)
	for s := newBlockers.and(p.occ[us]); !s.Empty(); {
		q := s.popLowest()
		fakeRooted := p.occ[us].andNot(exempt).and(p.xqAttacks(us, b[q].Type(), q, all, false))
		for f := fakeRooted; !f.Empty(); {
			q2 := f.popLowest()
			if !p.xqAttackersTo(q2, all, them).andNot(blockersThem).Empty() {
				chased.set(q2)
			}
		}
	}
	kingSteps := p.xqAttacks(us, King, ourKing, all, true)
	for s := newBlockers.and(p.occ[them]); !s.Empty(); {
		q := s.popLowest()
		attacks := p.xqAttacks(them, b[q].Type(), q, all, true).and(p.occ[us])
		chased = chased.or(attacks.andNot(kingSteps))
		occ := all.andNot(squareBB(q)).andNot(squareBB(ourKing))
		for a := attacks.and(kingSteps); !a.Empty(); {
			q2 := a.popLowest()
			if !p.xqAttackersTo(q2, occ, them).andNot(squareBB(q)).Empty() {
				chased.set(q2)
			}
		}
	}
	return chased
}

// undoMoveBoard maps a set of squares of the position after m back to the
// position before it: a piece m moved returns to its origin.
func undoMoveBoard(b Bitboard, m Move) Bitboard {
	if m == NoMove || m.IsPass() || !b.Has(m.To()) {
		return b
	}
	b.clear(m.To())
	b.set(m.From())
	return b
}
