package rules

// Outcome is who won, if anyone yet.
type Outcome uint8

const (
	Ongoing Outcome = iota
	WhiteWins
	BlackWins
	Draw
)

// Termination is why a game ended.
type Termination uint8

const (
	NotOver              Termination = iota
	Checkmate                        // no legal move, in check
	Stalemate                        // no legal move, not in check: the side to move loses
	Repetition                       // n-fold repetition without perpetual check or chase
	PerpetualCheck                   // a repetition in which a side checked on every move
	PerpetualChase                   // xiangqi: a repetition in which a side chased one piece throughout
	DoublePass                       // janggi: two passes in a row
	Bikjang                          // janggi: generals facing, ended as the rule set says
	MoveLimit                        // too many plies without a capture
	InsufficientMaterial             // neither side has more than its general and palace-bound pieces
	NoLegalMoves                     // janggiclassic: neither side could move (both passed)
	Shuttle                          // janggimodern: a side shuttled one piece back and forth
	LengthCap                        // the rule set's maximum game length
)

// terminationLabels are the reasons as palace's files and the reference
// corpus write them.
var terminationLabels = [...]string{
	"ongoing", "checkmate", "stalemate", "repetition", "perpetual-check", "perpetual-chase",
	"double-pass", "bikjang", "n-move", "insufficient-material", "no-legal-moves", "move-repetition", "length-cap",
}

func (t Termination) String() string { return terminationLabels[t] }

// Result is how a game stands: the outcome, the reason, and both sides'
// counts when material counting decided it.
type Result struct {
	Outcome Outcome
	Reason  Termination
	Counted bool
	// Count is each side's material count when Counted (Black's includes
	// the Han bonus).
	Count [2]float64
}

// Over reports whether the game has ended.
func (r Result) Over() bool { return r.Outcome != Ongoing }

// Score is the result in PGN form: 1-0, 0-1, 1/2-1/2, or * while the game
// goes on.
func (r Result) Score() string {
	switch r.Outcome {
	case WhiteWins:
		return "1-0"
	case BlackWins:
		return "0-1"
	case Draw:
		return "1/2-1/2"
	}
	return "*"
}

func (r Result) String() string { return r.Score() + " " + r.Reason.String() }

func winFor(c Color) Outcome {
	if c == White {
		return WhiteWins
	}
	return BlackWins
}

// countingValues are janggi's material values, indexed by piece type.
var countingValues = [pieceTypeCount]int{Chariot: 13, Cannon: 7, Horse: 5, Elephant: 3, Advisor: 3, Soldier: 2}

// MaterialCount is c's material count under janggi counting, without the
// Han bonus.
func (p *Position) MaterialCount(c Color) int {
	n := 0
	for t := Advisor; t < pieceTypeCount; t++ {
		n += countingValues[t] * p.Count(MakePiece(c, t))
	}
	return n
}

// MaterialBalance is c's material count less its opponent's (janggi
// counting's values, no bonus; palace uses them for xiangqi too).
func (p *Position) MaterialBalance(c Color) int {
	return p.MaterialCount(c) - p.MaterialCount(c.Other())
}

// countingResult decides a game by material counting: White (Cho) wins
// only with more than Black's count plus its bonus.
func (p *Position) countingResult(reason Termination) Result {
	w, b := p.MaterialCount(White), p.MaterialCount(Black)
	bonus := p.rules.HanBonusHalves
	r := Result{Reason: reason, Counted: true, Count: [2]float64{float64(w), float64(b) + float64(bonus)/2}}
	if 2*w > 2*b+bonus {
		r.Outcome = WhiteWins
	} else {
		r.Outcome = BlackWins
	}
	return r
}

// scored ends a game that is not decisive by itself: by counting where the
// rule set counts, else a draw.
func (p *Position) scored(reason Termination) Result {
	if p.rules.Counting {
		return p.countingResult(reason)
	}
	return Result{Outcome: Draw, Reason: reason}
}

// insufficientMaterial reports whether neither side has anything but its
// general and pieces that cannot leave their own side (xiangqi advisors
// and elephants, janggi guards).
func (p *Position) insufficientMaterial() bool {
	for c := White; c <= Black; c++ {
		for t := Elephant; t < pieceTypeCount; t++ {
			if t == Elephant && p.rules.Game == Xiangqi {
				continue
			}
			if p.Count(MakePiece(c, t)) > 0 {
				return false
			}
		}
	}
	return true
}
