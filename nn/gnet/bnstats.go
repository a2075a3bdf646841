package gnet

// Batch norm's statistics taken where its input is made: a training
// graph's Winograd forward product (winogradForward) has each output
// chunk in cache, point-major, before it scatters it into the
// activation; summing its channels there spares batch norm a pass over the
// whole activation (the passes over activations, not the arithmetic, are
// what a step's non-product time goes to: docs/measurements.md).

// bnStatsInProduct false leaves batch norm to sum its input itself: a
// variable so that tests can compare the two.
var bnStatsInProduct = true

// bnInput is the statistics a convolution hands the batch norm that
// reads its output: Σy and Σy² of each channel for each of its
// sub-chunks (wgPositions positions), summed in sub-chunk order by the
// batch norm, so that the totals do not depend on which core made which.
type bnInput struct {
	parts []float64 // [sub-chunks][2][ch]
	fresh bool      // made by this run's forward product, not yet read
}

// add sets sub-chunk k's sums from yt, its point-major output of ch
// channels over n points.
func (s *bnInput) add(k, ch, n int, yt []float32) {
	p := s.parts[k*2*ch:][:2*ch]
	for c0 := 0; c0 < ch; c0 += 8 {
		var out [16]float64
		if haveBNAsm && c0+8 <= ch && n > 0 {
			colSumSquaresAVX2(&yt[c0], n, ch, &out)
		} else {
			for r := 0; r < n; r++ {
				for c := c0; c < min(c0+8, ch); c++ {
					v := float64(yt[r*ch+c])
					out[c-c0] += v
					out[8+c-c0] += v * v
				}
			}
		}
		for c := c0; c < min(c0+8, ch); c++ {
			p[c], p[ch+c] = out[c-c0], out[8+c-c0]
		}
	}
}

// reset sizes s for a forward product of ch channels over batch
// positions.
func (s *bnInput) reset(ch, batch int) {
	subs := (batch + wgPositions - 1) / wgPositions
	s.parts = grow(s.parts, subs*2*ch)
	s.fresh = false
}

// take returns channel c's Σx and Σx², the sub-chunks' sums in order.
func (s *bnInput) take(c, ch int) (sum, squares float64) {
	for k := 0; k < len(s.parts)/(2*ch); k++ {
		p := s.parts[k*2*ch:]
		sum += p[c]
		squares += p[ch+c]
	}
	return sum, squares
}
