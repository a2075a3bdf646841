package encode

import "github.com/palace-chess/palace/rules"

// The policy index: one slot for every (from, to) pair that some piece of
// either game could ever play, in the side to move's frame (its own side at
// the bottom), plus one slot for the janggi pass. One index serves both
// games, so one network shape serves every rule set.

// PassIndex is the policy slot of the janggi pass.
const PassIndex = 0

type fromTo struct{ from, to rules.Square }

var (
	policyIndex [rules.Squares][rules.Squares]int16 // -1: no such move
	policyMoves []fromTo                            // by index; PassIndex has none
	mirrored    []int32                             // policy index of the left–right mirror
)

// PolicySize is the number of policy slots.
func PolicySize() int { return len(policyMoves) }

func init() {
	// A few thousand table entries: cheap enough for package start-up.
	for f := range policyIndex {
		for t := range policyIndex[f] {
			policyIndex[f][t] = -1
		}
	}
	policyMoves = append(policyMoves, fromTo{rules.NoSquare, rules.NoSquare})
	for from := rules.Square(0); from < rules.Squares; from++ {
		for to := rules.Square(0); to < rules.Squares; to++ {
			if from != to && geometricallyPossible(from, to) {
				policyIndex[from][to] = int16(len(policyMoves))
				policyMoves = append(policyMoves, fromTo{from, to})
			}
		}
	}
	mirrored = make([]int32, len(policyMoves))
	for i, m := range policyMoves {
		if i == PassIndex {
			mirrored[i] = PassIndex
			continue
		}
		mirrored[i] = int32(policyIndex[mirrorSquare(m.from)][mirrorSquare(m.to)])
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// geometricallyPossible reports whether any piece of either game could move
// from one square to the other in the side to move's frame (own palace on
// ranks 0–2, files d–f; the enemy's on ranks 7–9).
func geometricallyPossible(from, to rules.Square) bool {
	ff, fr, tf, tr := from.File(), from.Rank(), to.File(), to.Rank()
	df, dr := abs(tf-ff), abs(tr-fr)
	inPalace := func(f, r int) bool { return f >= 3 && f <= 5 && (r <= 2 || r >= 7) }
	onPalaceDiagonal := func(f, r int) bool {
		return inPalace(f, r) && (f == 4) == (r == 1 || r == 8) // centres and corners
	}
	samePalace := (fr <= 2) == (tr <= 2)
	switch {
	case ff == tf || fr == tr: // chariot, cannon, general, guard, soldier
		return true
	case (df == 1 && dr == 2) || (df == 2 && dr == 1): // horse
		return true
	case (df == 2 && dr == 3) || (df == 3 && dr == 2): // janggi elephant
		return true
	case df == 2 && dr == 2 && tr <= 4: // xiangqi elephant, into its own half
		return true
	case df == 1 && dr == 1 && inPalace(tf, tr) && tr <= 2: // xiangqi advisor, into its palace
		return true
	case df == dr && df <= 2 && inPalace(ff, fr) && inPalace(tf, tr) && samePalace &&
		onPalaceDiagonal(ff, fr) && onPalaceDiagonal(tf, tr) && (df == 1) == ((ff == 4) != (tf == 4)):
		// janggi palace diagonals: a step between a centre and a corner, or
		// corner to opposite corner through the centre
		return true
	}
	return false
}

// frame maps a square to the side to move's frame: Black's view is the
// board turned upside down (ranks reversed, files kept).
func frame(s rules.Square, side rules.Color) rules.Square {
	if side == rules.White {
		return s
	}
	return rules.SquareAt(s.File(), rules.Ranks-1-s.Rank())
}

func mirrorSquare(s rules.Square) rules.Square {
	return rules.SquareAt(rules.Files-1-s.File(), s.Rank())
}

// MoveIndex is the policy slot of m, played by side; -1 if the move is not
// one any piece could play (never for a legal move).
func MoveIndex(m rules.Move, side rules.Color) int {
	if m.IsPass() {
		return PassIndex
	}
	return int(policyIndex[frame(m.From(), side)][frame(m.To(), side)])
}

// IndexMove is the move in slot i for side, whose general stands on king
// (needed for the pass); false if i is out of range.
func IndexMove(i int, side rules.Color, king rules.Square) (rules.Move, bool) {
	if i < 0 || i >= len(policyMoves) {
		return rules.NoMove, false
	}
	if i == PassIndex {
		return rules.PassMove(king), true
	}
	m := policyMoves[i]
	return rules.NewMove(frame(m.from, side), frame(m.to, side)), true
}

// LegalIndices appends the policy slots of moves, played by side, to dst.
func LegalIndices(moves []rules.Move, side rules.Color, dst []int32) []int32 {
	for _, m := range moves {
		dst = append(dst, int32(MoveIndex(m, side)))
	}
	return dst
}

// MirrorIndex is the slot of the left–right mirror image of slot i.
func MirrorIndex(i int) int { return int(mirrored[i]) }
