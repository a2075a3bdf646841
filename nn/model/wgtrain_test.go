package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The backward transforms are the forward ones' transposes, as gradients
// must be: ⟨WinogradOutput(m), dy⟩ = ⟨m, WinogradOutputGrads(dy)⟩ over the
// board's outputs, and ⟨WinogradFilters(w), du⟩ = ⟨w, WinogradFilterGrads(du)⟩.
// A wrong sign or index in either breaks the identity by far more than
// float32's rounding.
func TestWinogradTrainingTransformsAreAdjoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	rnd := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = rng.Float32()*2 - 1
		}
		return x
	}
	dot := func(a, b []float32) float64 {
		s := 0.0
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	const batch = 3
	rows := batch*WinogradTiles + 1
	for _, ch := range []int{16, 12} { // AVX2 blocks of 8 channels, and the scalar loop
		zero, drop := make([]float32, ch), make([]float32, ch)
		m := rnd(16 * rows * ch)
		for x := 0; x < 16; x++ { // the rows past the tiles are not read: zero them for the identity
			clear(m[(x*rows+batch*WinogradTiles)*ch:][:ch])
		}
		y := make([]float32, batch*Squares*ch)
		WinogradOutput(ch, batch, rows, m, y, zero, drop)
		dy := rnd(len(y))
		dm := make([]float32, len(m))
		WinogradOutputGrads(ch, batch, rows, dy, dm, zero)
		if a, b := dot(y, dy), dot(m, dm); math.Abs(a-b) > 1e-3*math.Abs(a)+1e-3 {
			t.Errorf("%d channels: output transform: ⟨Y, dY⟩ = %v, ⟨M, dM⟩ = %v", ch, a, b)
		}
	}

	const in, out = 6, 5
	w := rnd(out * in * 9)
	u := make([]float32, 16*in*out)
	WinogradFilters(out, in, w, u)
	du := rnd(len(u))
	dw := make([]float32, len(w))
	WinogradFilterGrads(out, in, in*out, du, dw)
	if a, b := dot(u, du), dot(w, dw); math.Abs(a-b) > 1e-4*math.Abs(a)+1e-4 {
		t.Errorf("filter transform: ⟨U, dU⟩ = %v, ⟨W, dW⟩ = %v", a, b)
	}

	// And the forward transforms compute the convolution: Winograd in
	// float32 against the direct sum, for one filter pair.
	const ch = 16
	zero, drop := make([]float32, ch), make([]float32, ch)
	m := make([]float32, 16*rows*ch)
	y := make([]float32, batch*Squares*ch)
	x := rnd(batch * Squares * ch)
	v := make([]float32, 16*rows*ch)
	WinogradInput(ch, batch, rows, x, v, zero)
	g := rnd(9)
	wf := make([]float32, ch*ch*9) // channel 0 → channel 0 only
	copy(wf, g)
	uf := make([]float32, 16*ch*ch)
	WinogradFilters(ch, ch, wf, uf)
	for xi := 0; xi < 16; xi++ {
		for tile := 0; tile < rows; tile++ {
			row := m[(xi*rows+tile)*ch:][:ch]
			clear(row)
			row[0] = v[(xi*rows+tile)*ch] * uf[xi*ch*ch]
		}
	}
	WinogradOutput(ch, batch, rows, m, y, zero, drop)
	for b := 0; b < batch; b++ {
		for r := 0; r < Ranks; r++ {
			for f := 0; f < Files; f++ {
				want := float32(0)
				for dy := 0; dy < 3; dy++ {
					for dx := 0; dx < 3; dx++ {
						if sr, sf := r+dy-1, f+dx-1; sr >= 0 && sr < Ranks && sf >= 0 && sf < Files {
							want += g[dy*3+dx] * x[(b*Squares+sr*Files+sf)*ch]
						}
					}
				}
				if got := y[(b*Squares+r*Files+f)*ch]; math.Abs(float64(got-want)) > 1e-5 {
					t.Fatalf("position %d, rank %d, file %d: Winograd %v, direct %v", b, r, f, got, want)
				}
			}
		}
	}
}

// BenchmarkWinogradFilterTransforms: the 3×3 filters' transform and its
// transpose for a 64→64 convolution, as training runs them each step.
func BenchmarkWinogradFilterTransforms(b *testing.B) {
	const in, out = 64, 64
	w := make([]float32, out*in*9)
	u := make([]float32, 16*in*out)
	for i := range w {
		w[i] = float32(i%7) - 3
	}
	b.ReportAllocs()
	for b.Loop() {
		WinogradFilters(out, in, w, u)
		WinogradFilterGrads(out, in, in*out, u, w)
	}
}
