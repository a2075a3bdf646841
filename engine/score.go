package engine

import (
	"math"

	"github.com/palace-chess/palace/mcts"
)

// ValueToCentipawns maps a value v ∈ [-1, 1] (win − loss) to centipawns,
// round(100·tan(1.5637·v)) clamped to ±9900: 0.25 is 41, 0.5 is 99, 0.75 is
// 238, 0.9 is 606.
func ValueToCentipawns(v float64) int {
	if math.IsNaN(v) {
		return 0
	}
	v = max(-1, min(1, v))
	cp := math.Round(100 * math.Tan(1.5637*v))
	return int(max(-9900, min(9900, cp)))
}

// CentipawnsToValue is ValueToCentipawns's inverse, atan(cp/100)/1.5637,
// within [-1, 1].
func CentipawnsToValue(cp int) float64 {
	return max(-1, min(1, math.Atan(float64(cp)/100)/1.5637))
}

// wdlPermille is the result's WDL in per mille, summing to 1000.
func wdlPermille(r *mcts.Result) (w, d, l int) {
	w = int(math.Round(1000 * float64(r.WDL[0])))
	l = int(math.Round(1000 * float64(r.WDL[2])))
	w, l = max(0, min(1000, w)), max(0, min(1000, l))
	if w+l > 1000 {
		l = 1000 - w
	}
	return w, 1000 - w - l, l
}
