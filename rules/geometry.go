package rules

// The geometry of each game, precomputed once: where every piece type can
// step from every square, the squares that must be empty on the way, and the
// reverse tables the attack test uses. Move generation reads only these
// tables and the board, so a rule set never branches the movement code.

type stepList struct {
	n  uint8
	sq [8]Square
}

// leap is a horse or elephant move: the target and the points that must be
// empty on the way (leg2 is NoSquare for a horse).
type leap struct{ to, leg1, leg2 Square }

type leapList struct {
	n uint8
	l [8]leap
}

type ray struct {
	n  uint8
	sq [9]Square
}

type geometry struct {
	janggi   bool
	rays     [Squares][4]ray // north, south, east, west
	diags    [Squares][4]ray // janggi palace diagonals
	nDiags   [Squares]uint8
	king     [2][Squares]stepList
	advisor  [2][Squares]stepList
	elephant [2][Squares]leapList
	horse    [Squares]leapList
	soldier  [2][Squares]stepList
	// Reverse tables: who could attack a square.
	horseFrom    [Squares]leapList    // a horse on l.to attacks the square when l.leg1 is empty
	elephantFrom [Squares]leapList    // janggi: an elephant on l.to attacks the square when both legs are empty
	soldierFrom  [2][Squares]stepList // a soldier of colour c on these squares attacks the square
	// sensitive[k]: a move that neither starts nor ends on these squares
	// cannot change whether a king on k is attacked (lines, horse and
	// elephant legs, palace lines).
	sensitive [Squares]Bitboard
	palace    [2]Bitboard
	half      [2]Bitboard // each side's half of the board, up to the river
	// Masks for the attack test's quick rejections: the squares of each
	// ray and palace diagonal from a square, and where horses, janggi
	// elephants and soldiers of each colour could attack it from.
	rayMask      [Squares][4]Bitboard
	diagMask     [Squares]Bitboard
	horseMask    [Squares]Bitboard
	elephantMask [Squares]Bitboard
	soldierMask  [2][Squares]Bitboard
}

var (
	xiangqiGeometry = buildGeometry(false)
	janggiGeometry  = buildGeometry(true)
)

func onBoard(f, r int) bool { return f >= 0 && f < Files && r >= 0 && r < Ranks }

// ownHalf reports whether rank r is on c's side of the river.
func ownHalf(c Color, r int) bool { return (c == White && r <= 4) || (c == Black && r >= 5) }

func inPalace(c Color, f, r int) bool {
	if f < 3 || f > 5 || r < 0 || r >= Ranks {
		return false
	}
	if c == White {
		return r <= 2
	}
	return r >= 7
}

// palaceDiagonalStep reports whether a–b is one step along a janggi palace
// diagonal: one of them is a palace centre and the other a corner of it.
func palaceDiagonalStep(af, ar, bf, br int) bool {
	df, dr := bf-af, br-ar
	if df*df != 1 || dr*dr != 1 {
		return false
	}
	for _, cr := range [2]int{1, 8} {
		if (af == 4 && ar == cr && (bf == 3 || bf == 5) && (br == cr-1 || br == cr+1)) ||
			(bf == 4 && br == cr && (af == 3 || af == 5) && (ar == cr-1 || ar == cr+1)) {
			return true
		}
	}
	return false
}

func (l *stepList) add(s Square) { l.sq[l.n] = s; l.n++ }
func (l *leapList) add(x leap)   { l.l[l.n] = x; l.n++ }

var orthogonal = [4][2]int{{0, 1}, {0, -1}, {1, 0}, {-1, 0}}

func buildGeometry(janggi bool) *geometry {
	g := &geometry{janggi: janggi}
	for s := Square(0); s < Squares; s++ {
		f, r := s.File(), s.Rank()
		for c := White; c <= Black; c++ {
			if inPalace(c, f, r) {
				g.palace[c].set(s)
			}
			if ownHalf(c, r) {
				g.half[c].set(s)
			}
		}
		for d, o := range orthogonal {
			for i := 1; onBoard(f+i*o[0], r+i*o[1]); i++ {
				rr := &g.rays[s][d]
				rr.sq[rr.n] = SquareAt(f+i*o[0], r+i*o[1])
				rr.n++
			}
		}
		if janggi {
			// Palace diagonals: from a corner through the centre to the
			// opposite corner, or from the centre to each corner.
			for _, cr := range [2]int{1, 8} {
				if f == 4 && r == cr {
					for _, d := range [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
						rr := &g.diags[s][g.nDiags[s]]
						rr.sq[0], rr.n = SquareAt(4+d[0], cr+d[1]), 1
						g.nDiags[s]++
					}
				} else if (f == 3 || f == 5) && (r == cr-1 || r == cr+1) {
					rr := &g.diags[s][g.nDiags[s]]
					rr.sq[0], rr.sq[1], rr.n = SquareAt(4, cr), SquareAt(8-f, 2*cr-r), 2
					g.nDiags[s]++
				}
			}
		}
		for c := White; c <= Black; c++ {
			fwd := 1
			if c == Black {
				fwd = -1
			}
			// General and advisor / guard: any step that ends in the own
			// palace (a piece set up outside it may step in, as
			// Fairy-Stockfish allows); janggi adds the palace diagonals.
			for df := -1; df <= 1; df++ {
				for dr := -1; dr <= 1; dr++ {
					tf, tr := f+df, r+dr
					if (df == 0 && dr == 0) || !inPalace(c, tf, tr) {
						continue
					}
					diagonal := df != 0 && dr != 0
					if janggi {
						if !diagonal || palaceDiagonalStep(f, r, tf, tr) {
							g.king[c][s].add(SquareAt(tf, tr))
							g.advisor[c][s].add(SquareAt(tf, tr))
						}
					} else if diagonal {
						g.advisor[c][s].add(SquareAt(tf, tr))
					} else {
						g.king[c][s].add(SquareAt(tf, tr))
					}
				}
			}
			// Elephant.
			if janggi {
				for _, o := range orthogonal {
					for _, side := range [2]int{1, -1} {
						p := [2]int{o[1] * side, o[0] * side} // perpendicular to o
						l1f, l1r := f+o[0], r+o[1]
						l2f, l2r := l1f+o[0]+p[0], l1r+o[1]+p[1]
						tf, tr := l2f+o[0]+p[0], l2r+o[1]+p[1]
						if onBoard(tf, tr) {
							g.elephant[c][s].add(leap{SquareAt(tf, tr), SquareAt(l1f, l1r), SquareAt(l2f, l2r)})
						}
					}
				}
			} else {
				for _, d := range [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
					tf, tr := f+2*d[0], r+2*d[1]
					if onBoard(tf, tr) && ownHalf(c, tr) {
						g.elephant[c][s].add(leap{SquareAt(tf, tr), SquareAt(f+d[0], r+d[1]), NoSquare})
					}
				}
			}
			// Soldier.
			if onBoard(f, r+fwd) {
				g.soldier[c][s].add(SquareAt(f, r+fwd))
			}
			crossed := janggi || (c == White && r >= 5) || (c == Black && r <= 4)
			if crossed {
				for _, df := range [2]int{-1, 1} {
					if onBoard(f+df, r) {
						g.soldier[c][s].add(SquareAt(f+df, r))
					}
				}
			}
			if janggi && inPalace(c.Other(), f, r) {
				for _, df := range [2]int{-1, 1} {
					if inPalace(c.Other(), f+df, r+fwd) && palaceDiagonalStep(f, r, f+df, r+fwd) {
						g.soldier[c][s].add(SquareAt(f+df, r+fwd))
					}
				}
			}
		}
		// Horse: one orthogonal step, then one diagonal step outward.
		for _, o := range orthogonal {
			for _, side := range [2]int{1, -1} {
				p := [2]int{o[1] * side, o[0] * side}
				tf, tr := f+2*o[0]+p[0], r+2*o[1]+p[1]
				if onBoard(tf, tr) {
					g.horse[s].add(leap{SquareAt(tf, tr), SquareAt(f+o[0], r+o[1]), NoSquare})
				}
			}
		}
	}
	// Reverse tables.
	for s := Square(0); s < Squares; s++ {
		for i := uint8(0); i < g.horse[s].n; i++ {
			l := g.horse[s].l[i]
			g.horseFrom[l.to].add(leap{s, l.leg1, NoSquare})
		}
		if janggi {
			// Janggi elephants move alike for both colours.
			for i := uint8(0); i < g.elephant[White][s].n; i++ {
				l := g.elephant[White][s].l[i]
				g.elephantFrom[l.to].add(leap{s, l.leg1, l.leg2})
			}
		}
		for c := White; c <= Black; c++ {
			for i := uint8(0); i < g.soldier[c][s].n; i++ {
				g.soldierFrom[c][g.soldier[c][s].sq[i]].add(s)
			}
		}
	}
	for s := Square(0); s < Squares; s++ {
		for d := 0; d < 4; d++ {
			for _, q := range g.rays[s][d].sq[:g.rays[s][d].n] {
				g.rayMask[s][d].set(q)
			}
		}
		for j := uint8(0); j < g.nDiags[s]; j++ {
			for _, q := range g.diags[s][j].sq[:g.diags[s][j].n] {
				g.diagMask[s].set(q)
			}
		}
		for _, l := range g.horseFrom[s].l[:g.horseFrom[s].n] {
			g.horseMask[s].set(l.to)
		}
		for _, l := range g.elephantFrom[s].l[:g.elephantFrom[s].n] {
			g.elephantMask[s].set(l.to)
		}
		for c := White; c <= Black; c++ {
			for _, q := range g.soldierFrom[c][s].sq[:g.soldierFrom[c][s].n] {
				g.soldierMask[c][s].set(q)
			}
		}
	}
	for k := Square(0); k < Squares; k++ {
		kf, kr := k.File(), k.Rank()
		sens := &g.sensitive[k]
		for s := Square(0); s < Squares; s++ {
			f, r := s.File(), s.Rank()
			df, dr := f-kf, r-kr
			switch {
			case f == kf || r == kr:
				sens.set(s)
			case (df == 1 || df == -1) && (dr == 1 || dr == -1):
				sens.set(s) // horse legs
			case janggi && (df == 2 || df == -2) && (dr == 2 || dr == -2):
				sens.set(s) // elephant legs
			}
		}
		if janggi {
			for c := White; c <= Black; c++ {
				if g.palace[c].Has(k) {
					sens.lo |= g.palace[c].lo
					sens.hi |= g.palace[c].hi
				}
			}
		}
	}
	return g
}
