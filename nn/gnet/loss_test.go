package gnet

import (
	"math"
	"math/rand/v2"
	"testing"
)

// xentOp's loss and gradient against the formula in float64, on rows with
// masked slots, a row without a target (zeros: no loss, no gradient) and
// a row whose every slot is masked (likewise, not a NaN).
func TestXentRows(t *testing.T) {
	const rows, size = 5, 9
	rng := rand.New(rand.NewPCG(1, 2))
	logits, mask, target := make([]float64, rows*size), make([]float64, rows*size), make([]float64, rows*size)
	for r := 0; r < rows; r++ {
		var sum float64
		for i := 0; i < size; i++ {
			k := r*size + i
			logits[k] = rng.Float64()*6 - 3
			switch {
			case r == 4 || (r < 3 && i%3 == 1):
				mask[k] = maskedLogit
			case r != 3:
				target[k] = rng.Float64()
				sum += target[k]
			}
		}
		for i := 0; i < size && sum > 0; i++ {
			target[r*size+i] /= sum
		}
	}
	op := newXent("test", rows, size, true)
	probs, dz := make([]float64, rows*size), make([]float64, rows*size)
	loss := xentForward(op, logits, mask, target, probs)
	xentBackward(op, 0.5, probs, target, dz)
	var want float64
	for r := 0; r < rows; r++ {
		var z float64
		for i := 0; i < size; i++ {
			if mask[r*size+i] == 0 {
				z += math.Exp(logits[r*size+i])
			}
		}
		var tsum float64
		for i := 0; i < size; i++ {
			tsum += target[r*size+i]
		}
		for i := 0; i < size; i++ {
			k := r*size + i
			var p float64
			if mask[k] == 0 && z > 0 {
				p = math.Exp(logits[k]) / z
				want -= target[k] * math.Log(p) / rows
			}
			if g := 0.5 / rows * (p*tsum - target[k]); math.Abs(dz[k]-g) > 1e-12 {
				t.Errorf("row %d slot %d: gradient %v, want %v", r, i, dz[k], g)
			}
		}
	}
	if math.IsNaN(loss) || math.Abs(loss-want) > 1e-12 {
		t.Errorf("loss %v, want %v", loss, want)
	}
}
