package rules

// Undo is what MakeMove returns and UnmakeMove needs: the caller keeps it
// (on its stack), so making a move allocates nothing.
type Undo struct {
	captured Piece
	halfmove int32
	key      uint64
}

// Captured is the piece the move took, or NoPiece.
func (u Undo) Captured() Piece { return u.captured }

// MakeMove plays m, which must be legal (or at least pseudo-legal) in p.
func (p *Position) MakeMove(m Move) Undo {
	u := Undo{halfmove: int32(p.halfmove), key: p.key}
	if !m.IsPass() {
		from, to := m.From(), m.To()
		moving := p.board[from]
		captured := p.board[to]
		u.captured = captured
		if captured != NoPiece {
			p.occ[captured.Color()].clear(to)
			p.pieces[captured].clear(to)
			p.counts[captured]--
			p.key ^= zobristPiece[captured][to]
			p.halfmove = -1 // counted up to 0 below
		}
		p.board[from], p.board[to] = NoPiece, moving
		p.occ[p.side].clear(from)
		p.occ[p.side].set(to)
		p.pieces[moving].clear(from)
		p.pieces[moving].set(to)
		p.key ^= zobristPiece[moving][from] ^ zobristPiece[moving][to]
		if moving.Type() == King {
			p.kings[p.side] = to
		}
	}
	p.halfmove++
	if p.side == Black {
		p.fullmove++
	}
	p.side = p.side.Other()
	p.key ^= zobristSide
	return u
}

// UnmakeMove takes back m, given the Undo its MakeMove returned.
func (p *Position) UnmakeMove(m Move, u Undo) {
	p.side = p.side.Other()
	if p.side == Black {
		p.fullmove--
	}
	p.halfmove = int(u.halfmove)
	p.key = u.key
	if m.IsPass() {
		return
	}
	from, to := m.From(), m.To()
	moving := p.board[to]
	p.board[from], p.board[to] = moving, u.captured
	p.occ[p.side].clear(to)
	p.occ[p.side].set(from)
	p.pieces[moving].clear(to)
	p.pieces[moving].set(from)
	if u.captured != NoPiece {
		p.occ[u.captured.Color()].set(to)
		p.pieces[u.captured].set(to)
		p.counts[u.captured]++
	}
	if moving.Type() == King {
		p.kings[p.side] = from
	}
}
