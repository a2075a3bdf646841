package rules

import "slices"

// kingAttacked reports whether c's general is attacked: by a chariot,
// cannon, horse, janggi elephant or soldier, or in xiangqi by the other
// general on an open file. Facing generals in janggi are bikjang, not an
// attack; see kingsFacing.
func (p *Position) kingAttacked(c Color) bool {
	return p.squareAttackedForKing(p.kings[c], c.Other(), true)
}

// squareAttackedForKing reports whether a general of the other colour on k
// would be attacked by pieces of colour by, reading only the board; flying
// says whether the other general facing it on an open file counts (xiangqi).
func (p *Position) squareAttackedForKing(k Square, by Color, flying bool) bool {
	g := p.geo
	b := &p.board
	chariot, cannon := MakePiece(by, Chariot), MakePiece(by, Cannon)
	horse, soldier := MakePiece(by, Horse), MakePiece(by, Soldier)
	// The piece sets may hold stale squares while legalAfter has moved a
	// piece on the board alone, but never miss an attacker: they only
	// decide what is worth scanning on the board.
	lines := p.pieces[chariot].or(p.pieces[cannon])
	for d := 0; d < 4; d++ {
		sliders := lines
		if d < 2 && flying && !g.janggi {
			sliders = sliders.or(p.pieces[MakePiece(by, King)])
		}
		if g.rayMask[k][d].and(sliders).Empty() {
			continue
		}
		r := &g.rays[k][d]
		i := uint8(0)
		for ; i < r.n && b[r.sq[i]] == NoPiece; i++ {
		}
		if i == r.n {
			continue
		}
		first := b[r.sq[i]]
		if first == chariot {
			return true
		}
		if d < 2 && flying && !g.janggi && first == MakePiece(by, King) {
			return true // flying general
		}
		if g.janggi && first.Type() == Cannon {
			continue // a cannon never screens in janggi
		}
		for i++; i < r.n && b[r.sq[i]] == NoPiece; i++ {
		}
		if i < r.n && b[r.sq[i]] == cannon {
			return true
		}
	}
	if g.janggi {
		if !g.diagMask[k].and(lines).Empty() {
			for j := uint8(0); j < g.nDiags[k]; j++ {
				r := &g.diags[k][j]
				first := b[r.sq[0]]
				if first == chariot {
					return true
				}
				if r.n < 2 {
					continue
				}
				second := b[r.sq[1]]
				if first == NoPiece {
					if second == chariot {
						return true
					}
				} else if first.Type() != Cannon && second == cannon {
					return true
				}
			}
		}
		elephant := MakePiece(by, Elephant)
		if !g.elephantMask[k].and(p.pieces[elephant]).Empty() {
			el := &g.elephantFrom[k]
			for j := uint8(0); j < el.n; j++ {
				l := &el.l[j]
				if b[l.to] == elephant && b[l.leg1] == NoPiece && b[l.leg2] == NoPiece {
					return true
				}
			}
		}
	}
	if !g.horseMask[k].and(p.pieces[horse]).Empty() {
		hl := &g.horseFrom[k]
		for j := uint8(0); j < hl.n; j++ {
			l := &hl.l[j]
			if b[l.to] == horse && b[l.leg1] == NoPiece {
				return true
			}
		}
	}
	if !g.soldierMask[by][k].and(p.pieces[soldier]).Empty() {
		sl := &g.soldierFrom[by][k]
		for j := uint8(0); j < sl.n; j++ {
			if b[sl.sq[j]] == soldier {
				return true
			}
		}
	}
	return false
}

// rayAttacked reports whether a chariot or cannon of colour by, or (flying,
// xiangqi, along the file) by's general, attacks k along its ray d.
//
// squareAttackedForKing scans the same way inline: four calls cost it a
// sixth of its time. The piece sets may hold stale squares while a piece is
// moved on the board alone, but never miss an attacker: they only decide
// what is worth scanning on the board.
func (p *Position) rayAttacked(k Square, d int, by Color, flying bool) bool {
	g := p.geo
	b := &p.board
	chariot, cannon := MakePiece(by, Chariot), MakePiece(by, Cannon)
	sliders := p.pieces[chariot].or(p.pieces[cannon])
	flyingKing := d < 2 && flying && !g.janggi
	if flyingKing {
		sliders = sliders.or(p.pieces[MakePiece(by, King)])
	}
	if g.rayMask[k][d].and(sliders).Empty() {
		return false
	}
	r := &g.rays[k][d]
	i := uint8(0)
	for ; i < r.n && b[r.sq[i]] == NoPiece; i++ {
	}
	if i == r.n {
		return false
	}
	first := b[r.sq[i]]
	if first == chariot {
		return true
	}
	if flyingKing && first == MakePiece(by, King) {
		return true // flying general
	}
	if g.janggi && first.Type() == Cannon {
		return false // a cannon never screens in janggi
	}
	for i++; i < r.n && b[r.sq[i]] == NoPiece; i++ {
	}
	return i < r.n && b[r.sq[i]] == cannon
}

// diagsAttacked reports whether a chariot or cannon of colour by attacks k
// along a janggi palace diagonal. squareAttackedForKing keeps its own inline
// copy: calling this made HasLegalMove's janggi benchmark 8% slower.
func (p *Position) diagsAttacked(k Square, by Color) bool {
	g := p.geo
	b := &p.board
	chariot, cannon := MakePiece(by, Chariot), MakePiece(by, Cannon)
	if g.diagMask[k].and(p.pieces[chariot].or(p.pieces[cannon])).Empty() {
		return false
	}
	for j := uint8(0); j < g.nDiags[k]; j++ {
		r := &g.diags[k][j]
		first := b[r.sq[0]]
		if first == chariot {
			return true
		}
		if r.n < 2 {
			continue
		}
		second := b[r.sq[1]]
		if first == NoPiece {
			if second == chariot {
				return true
			}
		} else if first.Type() != Cannon && second == cannon {
			return true
		}
	}
	return false
}

// attackedThrough is squareAttackedForKing(k, by, true) after a move from
// from to to, made on the board, for a general on k that the move did not
// move and that was not attacked by by before it. Only the squares the move
// changed can have made an attack: from, emptied (a line through it opened,
// a cannon screen gone, a horse's or janggi elephant's leg freed), and to,
// filled (a new cannon screen, or by's piece that moved there attacking),
// so it rescans the lines through them, the palace diagonals when either is
// on one, and the leapers whose leg is from or who stand on to, and not the
// rest.
func (p *Position) attackedThrough(k, from, to Square, by Color) bool {
	g := p.geo
	b := &p.board
	df, dt := lineDir(k, from), lineDir(k, to)
	if df >= 0 && p.rayAttacked(k, df, by, true) {
		return true
	}
	if dt >= 0 && dt != df && p.rayAttacked(k, dt, by, true) {
		return true
	}
	if g.janggi {
		if (g.diagMask[k].Has(from) || g.diagMask[k].Has(to)) && p.diagsAttacked(k, by) {
			return true
		}
		elephant := MakePiece(by, Elephant)
		if !g.elephantMask[k].and(p.pieces[elephant]).Empty() {
			el := &g.elephantFrom[k]
			for j := uint8(0); j < el.n; j++ {
				l := &el.l[j]
				if (l.leg1 == from || l.leg2 == from || l.to == to) &&
					b[l.to] == elephant && b[l.leg1] == NoPiece && b[l.leg2] == NoPiece {
					return true
				}
			}
		}
	}
	horse := MakePiece(by, Horse)
	if !g.horseMask[k].and(p.pieces[horse]).Empty() {
		hl := &g.horseFrom[k]
		for j := uint8(0); j < hl.n; j++ {
			l := &hl.l[j]
			if (l.leg1 == from || l.to == to) && b[l.to] == horse && b[l.leg1] == NoPiece {
				return true
			}
		}
	}
	return b[to] == MakePiece(by, Soldier) && g.soldierMask[by][k].Has(to)
}

// lineDir is the index d of the ray from k that holds s (rays[k][d]: north,
// south, east, west), or -1 when s is on none.
func lineDir(k, s Square) int {
	switch {
	case squareFile[s] == squareFile[k]:
		if s > k {
			return 0
		}
		return 1
	case squareRank[s] == squareRank[k]:
		if s > k {
			return 2
		}
		return 3
	}
	return -1
}

// squareFile and squareRank are Square.File and Square.Rank by table: the
// attack test asks them per move, where dividing costs more.
var squareFile, squareRank = func() (f, r [Squares]uint8) {
	for s := Square(0); s < Squares; s++ {
		f[s], r[s] = uint8(s.File()), uint8(s.Rank())
	}
	return f, r
}()

// checkedBy reports whether the side to move is in check after m, the move
// just made. The side to move was not in check before m (it was the side
// not to move), so a move that neither starts nor ends on a square that
// matters to its general, and is no horse or janggi elephant landing on a
// square that attacks it, cannot have given check, and one that does can
// only have given it through its two squares (attackedThrough).
func (p *Position) checkedBy(m Move) bool {
	if m == NoMove || m.IsPass() {
		return p.kingAttacked(p.side)
	}
	g := p.geo
	k := p.kings[p.side]
	from, to := m.From(), m.To()
	if sens := &g.sensitive[k]; sens.Has(from) || sens.Has(to) {
		return p.attackedThrough(k, from, to, p.side.Other())
	}
	return p.leapChecks(p.board[to].Type(), to, k)
}

// leapChecks reports whether a piece of type t on to, a horse or a janggi
// elephant, attacks a general on k. Its legs are sensitive squares of k, so
// for a move off k's sensitive squares the answer is the same before the
// move is made as after.
func (p *Position) leapChecks(t PieceType, to, k Square) bool {
	g := p.geo
	b := &p.board
	switch t {
	case Horse:
		for _, l := range g.horseFrom[k].l[:g.horseFrom[k].n] {
			if l.to == to && b[l.leg1] == NoPiece {
				return true
			}
		}
	case Elephant:
		if g.janggi {
			for _, l := range g.elephantFrom[k].l[:g.elephantFrom[k].n] {
				if l.to == to && b[l.leg1] == NoPiece && b[l.leg2] == NoPiece {
					return true
				}
			}
		}
	}
	return false
}

// kingsFacing reports whether the generals stand on one file with nothing
// between them.
func (p *Position) kingsFacing() bool {
	w, bl := p.kings[White], p.kings[Black]
	if w.File() != bl.File() {
		return false
	}
	for s := w + Files; s < bl; s += Files {
		if p.board[s] != NoPiece {
			return false
		}
	}
	return true
}

// InCheck reports whether the side to move's general is attacked.
func (p *Position) InCheck() bool { return p.kingAttacked(p.side) }

// InBikjang reports whether the side to move faces bikjang: generals facing
// on an open file under a rule set where that means bikjang.
func (p *Position) InBikjang() bool { return p.rules.Facing.bikjang() && p.kingsFacing() }

// appendPseudo appends every move of the side to move that obeys piece
// movement, ignoring whether it leaves the general attacked.
func (p *Position) appendPseudo(dst []Move) []Move {
	for pieces := p.occ[p.side]; !pieces.Empty(); {
		dst = p.appendPieceMoves(dst, pieces.popLowest())
	}
	return dst
}

// appendPieceMoves appends the pseudo-legal moves of the piece on from.
func (p *Position) appendPieceMoves(dst []Move, from Square) []Move {
	us := p.side
	g := p.geo
	b := &p.board
	them := us.Other()
	switch b[from].Type() {
	case King:
		dst = p.appendSteps(dst, from, &g.king[us][from])
	case Advisor:
		dst = p.appendSteps(dst, from, &g.advisor[us][from])
	case Soldier:
		dst = p.appendSteps(dst, from, &g.soldier[us][from])
	case Horse:
		ll := &g.horse[from]
		for j := uint8(0); j < ll.n; j++ {
			l := &ll.l[j]
			if b[l.leg1] == NoPiece && (b[l.to] == NoPiece || b[l.to].Color() == them) {
				dst = append(dst, NewMove(from, l.to))
			}
		}
	case Elephant:
		ll := &g.elephant[us][from]
		for j := uint8(0); j < ll.n; j++ {
			l := &ll.l[j]
			if b[l.leg1] == NoPiece && (l.leg2 == NoSquare || b[l.leg2] == NoPiece) &&
				(b[l.to] == NoPiece || b[l.to].Color() == them) {
				dst = append(dst, NewMove(from, l.to))
			}
		}
	case Chariot:
		for d := 0; d < 4; d++ {
			dst = p.appendSlides(dst, from, &g.rays[from][d])
		}
		for d := uint8(0); d < g.nDiags[from]; d++ {
			dst = p.appendSlides(dst, from, &g.diags[from][d])
		}
	case Cannon:
		if g.janggi {
			for d := 0; d < 4; d++ {
				dst = p.appendJanggiCannon(dst, from, &g.rays[from][d])
			}
			for d := uint8(0); d < g.nDiags[from]; d++ {
				dst = p.appendJanggiCannon(dst, from, &g.diags[from][d])
			}
		} else {
			for d := 0; d < 4; d++ {
				dst = p.appendXiangqiCannon(dst, from, &g.rays[from][d])
			}
		}
	}
	return dst
}

// HasLegalMove reports whether the position (without history) has a legal
// move; it stops at the first one it finds, so it costs far less than
// LegalMoves.
func (p *Position) HasLegalMove() bool {
	return p.hasLegalMove(p.kingAttacked(p.side), p.InBikjang())
}

// hasLegalMove is HasLegalMove for callers that already know whether the
// side to move is in check and in bikjang.
func (p *Position) hasLegalMove(inCheck, bikjang bool) bool {
	us := p.side
	if p.rules.Pass == PassUnlessInCheck && (!inCheck || bikjang) {
		return true
	}
	k := p.kings[us]
	sens := &p.geo.sensitive[k]
	var buf [maxPieceMoves]Move
	// First the moves that need no attack test (usually there is one),
	// then the rest.
	if !inCheck && !bikjang {
		// Pieces with few moves first: the first free soldier step is
		// usually the answer.
		for _, t := range [...]PieceType{Soldier, Horse, Elephant, Advisor, Chariot, Cannon} {
			for pieces := p.pieces[MakePiece(us, t)]; !pieces.Empty(); {
				from := pieces.popLowest()
				if sens.Has(from) {
					continue
				}
				for _, m := range p.appendPieceMoves(buf[:0], from) {
					if !sens.Has(m.To()) {
						return true
					}
				}
			}
		}
	}
	// The general's own steps answer most checks; then the other pieces.
	for _, m := range p.appendPieceMoves(buf[:0], k) {
		if p.legalAfter(m, bikjang) {
			return true
		}
	}
	others := p.occ[us]
	others.clear(k)
	if !inCheck && !bikjang {
		open, lines := p.exposure()
		for !others.Empty() {
			from := others.popLowest()
			for _, m := range p.appendPieceMoves(buf[:0], from) {
				if !open.Has(from) && !lines.Has(m.To()) || p.safeAfter(m) {
					return true
				}
			}
		}
		return p.rules.Pass == PassWhenStuck
	}
	for !others.Empty() {
		for _, m := range p.appendPieceMoves(buf[:0], others.popLowest()) {
			if p.legalAfter(m, bikjang) {
				return true
			}
		}
	}
	return p.rules.Pass == PassWhenStuck && !inCheck && !bikjang
}

func (p *Position) appendSteps(dst []Move, from Square, l *stepList) []Move {
	for j := uint8(0); j < l.n; j++ {
		to := l.sq[j]
		if t := p.board[to]; t == NoPiece || t.Color() != p.side {
			dst = append(dst, NewMove(from, to))
		}
	}
	return dst
}

func (p *Position) appendSlides(dst []Move, from Square, r *ray) []Move {
	for i := uint8(0); i < r.n; i++ {
		to := r.sq[i]
		t := p.board[to]
		if t == NoPiece {
			dst = append(dst, NewMove(from, to))
			continue
		}
		if t.Color() != p.side {
			dst = append(dst, NewMove(from, to))
		}
		break
	}
	return dst
}

// appendXiangqiCannon: quiet moves like a chariot; captures over exactly one screen.
func (p *Position) appendXiangqiCannon(dst []Move, from Square, r *ray) []Move {
	i := uint8(0)
	for ; i < r.n && p.board[r.sq[i]] == NoPiece; i++ {
		dst = append(dst, NewMove(from, r.sq[i]))
	}
	for i++; i < r.n; i++ {
		if t := p.board[r.sq[i]]; t != NoPiece {
			if t.Color() != p.side {
				dst = append(dst, NewMove(from, r.sq[i]))
			}
			break
		}
	}
	return dst
}

// appendJanggiCannon: moves and captures only over one screen that is not a
// cannon, and never captures a cannon.
func (p *Position) appendJanggiCannon(dst []Move, from Square, r *ray) []Move {
	i := uint8(0)
	for ; i < r.n && p.board[r.sq[i]] == NoPiece; i++ {
	}
	if i == r.n || p.board[r.sq[i]].Type() == Cannon {
		return dst
	}
	for i++; i < r.n; i++ {
		t := p.board[r.sq[i]]
		if t == NoPiece {
			dst = append(dst, NewMove(from, r.sq[i]))
			continue
		}
		if t.Color() != p.side && t.Type() != Cannon {
			dst = append(dst, NewMove(from, r.sq[i]))
		}
		break
	}
	return dst
}

// LegalMoves appends the legal moves of the position, as if it had no
// history (Game.LegalMoves applies the rules that depend on history), and
// returns the extended slice. It allocates nothing when dst has room.
func (p *Position) LegalMoves(dst []Move) []Move {
	return p.legalMoves(dst, p.kingAttacked(p.side), p.InBikjang())
}

// legalMoves is LegalMoves for callers that already know whether the side
// to move is in check and in bikjang (a Game keeps both for each ply).
func (p *Position) legalMoves(dst []Move, inCheck, bikjang bool) []Move {
	start := len(dst)
	dst = p.appendPseudo(dst)
	k := p.kings[p.side]
	quiet := !inCheck && !bikjang
	var open, lines Bitboard
	if quiet {
		open, lines = p.exposure()
	}
	n := start
	for i := start; i < len(dst); i++ {
		m := dst[i]
		from, to := m.From(), m.To()
		if !quiet || from == k {
			if !p.legalAfter(m, bikjang) {
				continue
			}
		} else if (open.Has(from) || lines.Has(to)) && !p.safeAfter(m) {
			continue
		}
		dst[n] = m
		n++
	}
	dst = dst[:n]
	switch p.rules.Pass {
	case PassUnlessInCheck:
		if !inCheck || bikjang {
			dst = append(dst, PassMove(k))
		}
	case PassWhenStuck:
		// A side stuck in bikjang under mustBreak is drawn, not passing.
		if n == start && !inCheck && !bikjang {
			dst = append(dst, PassMove(k))
		}
	}
	return dst
}

// legalAfter plays m on the board alone and reports whether the mover's
// general is then safe, and, if the mover was in bikjang, whether m broke it.
func (p *Position) legalAfter(m Move, bikjang bool) bool {
	from, to := m.From(), m.To()
	b := &p.board
	moving, captured := b[from], b[to]
	b[to], b[from] = moving, NoPiece
	kingMove := moving.Type() == King
	if kingMove {
		p.kings[p.side] = to
	}
	ok := !p.squareAttackedForKing(p.kings[p.side], p.side.Other(), true) && !(bikjang && p.kingsFacing())
	b[from], b[to] = moving, captured
	if kingMove {
		p.kings[p.side] = from
	}
	return ok
}

// exposure is, for the side to move in neither check nor bikjang, where a
// move of a piece other than its general must start (open) or end (lines)
// to be able to expose the general; any other such move is legal without
// an attack test. The general is attacked after a move only by what the
// move changed (see attackedThrough), and the opponent's pieces stay put:
// a line or palace diagonal from the general changes nothing unless an
// opposing chariot or cannon (or, in xiangqi, along the file, the other
// general) stands on it, and a horse or janggi elephant only attacks once
// the move leaves its leg. lines is the squares of the lines and palace
// diagonals holding such a piece; open adds those legs.
func (p *Position) exposure() (open, lines Bitboard) {
	g := p.geo
	b := &p.board
	k := p.kings[p.side]
	by := p.side.Other()
	sliders := p.pieces[MakePiece(by, Chariot)].or(p.pieces[MakePiece(by, Cannon)])
	for d := 0; d < 4; d++ {
		s := sliders
		if d < 2 && !g.janggi {
			s = s.or(p.pieces[MakePiece(by, King)])
		}
		if !g.rayMask[k][d].and(s).Empty() {
			lines = lines.or(g.rayMask[k][d])
		}
	}
	open = lines
	horse := MakePiece(by, Horse)
	if !g.horseMask[k].and(p.pieces[horse]).Empty() {
		for _, l := range g.horseFrom[k].l[:g.horseFrom[k].n] {
			if b[l.to] == horse {
				open.set(l.leg1)
			}
		}
	}
	if g.janggi {
		if !g.diagMask[k].and(sliders).Empty() {
			lines = lines.or(g.diagMask[k])
			open = open.or(g.diagMask[k])
		}
		elephant := MakePiece(by, Elephant)
		if !g.elephantMask[k].and(p.pieces[elephant]).Empty() {
			for _, l := range g.elephantFrom[k].l[:g.elephantFrom[k].n] {
				if b[l.to] == elephant {
					open.set(l.leg1)
					open.set(l.leg2)
				}
			}
		}
	}
	return open, lines
}

// safeAfter is legalAfter(m, false) for a move of a piece other than the
// general when the side to move is in neither check nor bikjang: the attack
// test rescans only what the move changed (attackedThrough).
func (p *Position) safeAfter(m Move) bool {
	from, to := m.From(), m.To()
	b := &p.board
	moving, captured := b[from], b[to]
	b[to], b[from] = moving, NoPiece
	ok := !p.attackedThrough(p.kings[p.side], from, to, p.side.Other())
	b[from], b[to] = moving, captured
	return ok
}

// IsLegal reports whether m is among the position's legal moves. It
// generates only the moving piece's moves (importers and move parsers
// check every ply this way), and all of them only for a pass, whose
// legality depends on whether anything else can move.
func (p *Position) IsLegal(m Move) bool {
	from, to := m.From(), m.To()
	if m == NoMove || int(from) >= Squares || int(to) >= Squares || m>>14 != 0 {
		return false
	}
	if m.IsPass() {
		var buf [maxMoves]Move
		return slices.Contains(p.LegalMoves(buf[:0]), m)
	}
	pc := p.board[from]
	if pc == NoPiece || pc.Color() != p.side {
		return false
	}
	var buf [maxPieceMoves]Move
	if !slices.Contains(p.appendPieceMoves(buf[:0], from), m) {
		return false
	}
	return p.legalAfter(m, p.InBikjang())
}

// maxPieceMoves bounds one piece's moves (a janggi chariot in a palace
// corner has 17 plus palace diagonals).
const maxPieceMoves = 32

// maxMoves bounds the legal moves of any position of either game, with room
// to spare; callers size move buffers with it.
const maxMoves = 256

// MaxMoves is the buffer size that always holds a position's moves.
const MaxMoves = maxMoves
