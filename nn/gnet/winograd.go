package gnet

import (
	"sync"

	"github.com/palace-chess/palace/nn/model"
)

// Training's bf16 3×3 products in Winograd F(2×2, 3×3), as inference
// runs them (nn/model/winograd.go): 16 products over a position's 25
// tiles where the direct convolution has 9 over its 90 points, about half
// the multiply-adds, for the forward pass, the input gradient (the same
// convolution by the flipped filters) and the filter gradient (in the
// transformed domain, dU_ξ = V_ξᵀ · dM_ξ, then dW = Gᵀ dU G). The tile
// transforms want point-major activations, so a chunk is transposed in
// and its result out, as the direct products' results already are.
//
// The transforms are float32; the products take bf16 operands and sum in
// float32, as the direct bf16 products do. PALACE_WINOGRAD=off keeps the
// direct products. A variable so that tests can compare the two.
var useWinograd = sync.OnceValue(func() bool {
	on, err := model.WinogradEnabled()
	return err == nil && on
})

// wgPositions is the positions a Winograd product takes at once: 100
// tiles, whose transformed operands (16 planes each) stay in the core's
// cache.
const wgPositions = 4

// wgRows is the transformed rows (tiles, padded for the kernels and to an
// even count) of wgPositions positions.
func wgRows(ch int) int { return model.PadRows(wgPositions*model.WinogradTiles+1, ch) }

// winogradFits reports whether c's 3×3 products with inCh input and outCh
// output channels run in Winograd: bf16 products, the tile transforms'
// channel blocks of 16, and the kernels' shapes (convKernelFits).
func (c *convOp) winogradFits(inCh, outCh int) bool {
	return c.bf16Products(inCh) && useWinograd() && inCh%16 == 0 && convKernelFits(outCh, inCh*9)
}

// wgCache is the forward pass's filters, transformed and packed, kept for
// the input gradient of the same step, whose filters are the same numbers
// rearranged (inputGradFilters). (Keeping the batch's point-major input
// and output gradient for the filter gradient, two of a step's six
// transposes, measured slower: the chunks' own transposes stay in cache.)
type wgCache struct {
	u      []uint16
	uOf    *float32
	uFresh bool
}

// wgScratch is a worker's buffers for the Winograd products.
type wgScratch struct {
	x, dy []float32 // a sub-chunk's activations and output gradient, point-major
	v, m  []float32 // transformed input, transformed output (or its gradient)
	vb    []uint16  // transformed input in bf16 (forward), or paired by tiles (filter gradient)
	mb    []uint16  // the transformed output gradient paired by tiles
	zero  []float32
	drop  []float32
	yt    []float32 // a sub-chunk's result, point-major
}

// wgWorker is worker w's scratch, sized for in and out channels.
func (c *convOp) wgWorker(w, in, out int) *wgScratch {
	s := c.s.wg[w] // made by chunks, before its workers start
	ch := max(in, out)
	points := wgPositions * model.Squares
	rows := max(wgRows(in), wgRows(out))
	s.x = grow(s.x, points*ch)
	s.dy = grow(s.dy, points*ch)
	s.yt = grow(s.yt, points*ch)
	s.v = grow(s.v, 16*rows*ch)
	s.m = grow(s.m, 16*rows*ch)
	s.vb = grow(s.vb, 16*rows*ch+2*ch)
	s.mb = grow(s.mb, 16*rows*ch)
	s.zero = grow(s.zero, ch)
	s.drop = grow(s.drop, ch)
	return s
}

// grow returns s with length n, reallocated (zeroed) only when too short.
func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// gatherPoints sets dst[j·ch + c] = src[c·cols + j] for the n points j:
// a chunk of channel-major activations, point-major (scatterColumns'
// inverse).
func gatherPoints(ch, n int, src []float32, cols int, dst []float32) {
	whole := 0
	if haveTransposeAsm && ch%8 == 0 && n >= 8 {
		whole = n / 8 * 8
		_, _ = src[(ch-1)*cols+n-1], dst[n*ch-1]
		for c0 := 0; c0 < ch; c0 += 8 {
			transpose8AVX2(&src[c0*cols], cols, &dst[c0], ch, whole/8)
		}
	}
	for c := 0; c < ch; c++ {
		row := src[c*cols:][:n]
		for j := whole; j < n; j++ {
			dst[j*ch+c] = row[j]
		}
	}
}

// packWinogradFilters sets ub (grown) to U = G w Gᵀ ([16][in][out]) of w
// ([out][in][3][3]) rounded and packed as the kernels read B
// ([16][in/2][out][2]).
func (c *convOp) packWinogradFilters(in, out int, w []float32, ub *[]uint16) []uint16 {
	u := scratch[float32](&c.s.wgU, 16*in*out)
	*ub = grow(*ub, 16*in*out)
	t := slotFor[wgFilterTask](&c.s.tasks)
	*t = wgFilterTask{kind: wgTransform, in: in, out: out, w: w, u: u, ub: *ub}
	parallel(wgBands(in*out), 16*in*out*8, t)
	t.kind = wgPack
	parallel(16, 16*in*out*2, t)
	*t = wgFilterTask{}
	return *ub
}

// The filter transforms run in bands over the cores (they were a serial
// part of a two-core step): each value is computed as one core computes
// it, so the split changes nothing.
const (
	wgTransform  = iota // U = G w Gᵀ, by bands of (in, out) pairs
	wgPack              // U rounded and paired for the kernels, by ξ planes
	wgRearrange         // the input gradient's U′ from the forward pass's, by ξ planes
	wgFilterGrad        // the parts of dU summed and dW = Gᵀ dU G, by bands of pairs
)

// wgFilterTask is one of the filter transforms over bands [lo, hi).
type wgFilterTask struct {
	kind    int
	in, out int
	w, u    []float32 // the filters and their transform (wgTransform, wgPack)
	ub, src []uint16  // packed U (wgPack), or U′ and the packed U it is made from (wgRearrange)
	// wgFilterGrad: the parts of dU (planes stride floats apart), and dW.
	du     [][]float32
	stride int
	dw     []float32
}

// wgBands is the number of WinogradBlock bands of n (in, out) pairs.
func wgBands(n int) int { return (n + model.WinogradBlock - 1) / model.WinogradBlock }

func (t *wgFilterTask) run(lo, hi int) {
	in, out := t.in, t.out
	pairs := in * out
	bandLo, bandHi := lo*model.WinogradBlock, min(hi*model.WinogradBlock, pairs)
	switch t.kind {
	case wgTransform:
		model.WinogradFiltersRange(out, in, bandLo, bandHi, t.w, t.u)
	case wgPack:
		for x := lo; x < hi; x++ {
			plane := t.u[x*pairs:][:pairs]
			for cp := 0; cp < in/2; cp++ {
				model.PairBF16(plane[2*cp*out:][:out], plane[(2*cp+1)*out:][:out], t.ub[(x*in+2*cp)*out:][:2*out])
			}
		}
	case wgRearrange:
		q := [4]int{3, 1, 2, 0}
		for xi := lo; xi < hi; xi++ {
			src := t.src[(q[xi/4]*4+q[xi%4])*pairs:][:pairs] // [in/2][out][2]
			d := t.ub[xi*pairs:][:pairs]                     // [out/2][in][2]
			for i := 0; i < in; i++ {
				row := src[(i/2)*2*out+i%2:]
				for o := 0; o < out; o++ {
					d[((o/2)*in+i)*2+o%2] = row[2*o]
				}
			}
		}
	case wgFilterGrad:
		du := t.du[0]
		for x := 0; x < 16; x++ {
			band := du[x*t.stride+bandLo : x*t.stride+bandHi]
			for _, part := range t.du[1:] {
				for i, v := range part[x*t.stride+bandLo : x*t.stride+bandHi] {
					band[i] += v
				}
			}
		}
		model.WinogradFilterGradsRange(out, in, t.stride, bandLo, bandHi, du, t.dw)
	}
}

// forwardFilters is the forward pass's packed U, kept for the input
// gradient of the same step.
func (c *convOp) forwardFilters(w []float32) []uint16 {
	u := c.packWinogradFilters(c.in, c.out, w, &c.pm.u)
	c.pm.uOf, c.pm.uFresh = &w[0], true
	return u
}

// inputGradFilters is the input gradient's packed filters: the transform
// of w flipped and transposed ([in][out][3][3]), which is the forward
// pass's U rearranged. Flipping a filter swaps G's first and last rows
// (G·P = Q·G, Q the swap), so U' = Q U Q: U'_ξ = U_π(ξ)ᵀ, π swapping 0
// and 3 in both of ξ's tile coordinates. Without the forward pass's U
// (taken once, for the same w) it is computed from w.
func (c *convOp) inputGradFilters(w []float32) []uint16 {
	in, out := c.in, c.out
	dst := scratch[uint16](&c.s.wgUB, 16*in*out)
	pm := &c.pm
	if !pm.uFresh || pm.uOf != &w[0] {
		wf := scratch[float32](&c.s.wf, in*out*9)
		flip3(out, in, w, wf)
		ub := dst
		return c.packWinogradFilters(out, in, wf, &ub)
	}
	pm.uFresh = false
	t := slotFor[wgFilterTask](&c.s.tasks)
	*t = wgFilterTask{kind: wgRearrange, in: in, out: out, ub: dst, src: pm.u}
	parallel(16, 16*in*out*2, t)
	*t = wgFilterTask{}
	return dst
}

// convolveWinogradBF16 is the 3×3 convolution y [outCh] = w [outCh][inCh·9]
// ∗ x [inCh] over c's batch in Winograd, M_ξ = V_ξ · U_ξ a product per ξ;
// ub is w's U packed.
// stats, when not nil, takes the sums of y's channels for the batch norm
// that reads y (bnstats.go).
func convolveWinogradBF16(c *convOp, inCh, outCh int, ub []uint16, x, y []float32, stats *bnInput) {
	if stats != nil {
		stats.reset(outCh, c.batch)
	}
	t := slotFor[winogradForward](&c.s.tasks)
	*t = winogradForward{c: c, inCh: inCh, outCh: outCh, ub: ub, x: x, y: y, stats: stats}
	c.chunks(t)
	*t = winogradForward{}
	if stats != nil {
		stats.fresh = true
	}
}

type winogradForward struct {
	c           *convOp
	inCh, outCh int
	ub          []uint16
	x, y        []float32
	stats       *bnInput
}

func (t *winogradForward) chunk(worker, _, p0, p1 int, _ bool) {
	c, inCh, outCh, ub, x, y := t.c, t.inCh, t.outCh, t.ub, t.x, t.y
	cols := c.cols()
	s := c.wgWorker(worker, inCh, outCh)
	for q0 := p0; q0 < p1; q0 += wgPositions {
		np := min(wgPositions, p1-q0)
		n, tiles := np*model.Squares, np*model.WinogradTiles
		rows := model.PadRows(tiles, outCh)
		xt := s.x[:n*inCh]
		gatherPoints(inCh, n, x[q0*model.Squares:], cols, xt)
		vb := s.vb[:16*rows*inCh]
		model.WinogradInputBF16(inCh, np, rows, xt, vb, s.v, s.zero)
		m := s.m[:16*rows*outCh]
		for xi := 0; xi < 16; xi++ {
			if !model.GemmBF16(rows, outCh, inCh, vb[xi*rows*inCh:][:rows*inCh], inCh, 2,
				ub[xi*inCh*outCh:][:inCh*outCh], m[xi*rows*outCh:][:rows*outCh], outCh, false) {
				panic("gnet: a checked bf16 kernel shape refused")
			}
		}
		yt := s.yt[:n*outCh]
		model.WinogradOutput(outCh, np, rows, m, yt, s.zero, s.drop)
		if t.stats != nil {
			t.stats.add(q0/wgPositions, outCh, n, yt)
		}
		scatterColumns(outCh, n, yt, y[q0*model.Squares:], cols)
	}
}

// filterGradWinogradBF16 is the filter gradient in Winograd: each part
// sums dU_ξ [in][out] = V_ξᵀ · dM_ξ over its chunks' tiles (a k pair two
// neighbouring tiles), and dW = Gᵀ dU G of the parts' total.
func filterGradWinogradBF16(c *convOp, xs, dys, dws []float32) {
	in, out := c.in, c.out
	plane := model.PadRows(in, out) * out // winogradFilterGrad's du planes
	t := slotFor[winogradFilterGrad](&c.s.tasks)
	*t = winogradFilterGrad{c: c, xs: xs, dys: dys}
	parts := c.chunkSums(t)
	*t = winogradFilterGrad{}
	g := slotFor[wgFilterTask](&c.s.tasks)
	*g = wgFilterTask{kind: wgFilterGrad, in: in, out: out, du: c.s.wgDU[:parts], stride: plane, dw: dws}
	parallel(wgBands(in*out), 16*in*out*(parts+4), g)
	*g = wgFilterTask{}
}

type winogradFilterGrad struct {
	c       *convOp
	xs, dys []float32
}

func (t *winogradFilterGrad) chunk(worker, p, p0, p1 int, first bool) {
	c, xs, dys := t.c, t.xs, t.dys
	in, out, cols := c.in, c.out, c.cols()
	// The kernels' rows are in's channels, padded: the padded rows read
	// past a plane's pairs into the next (or vb's slack), and are dropped.
	mRows := model.PadRows(in, out)
	plane := mRows * out
	s := c.wgWorker(worker, in, out)
	c.s.wgDU[p] = grow(c.s.wgDU[p], 16*plane)
	du := c.s.wgDU[p]
	for q0 := p0; q0 < p1; q0 += wgPositions {
		np := min(wgPositions, p1-q0)
		n, tiles := np*model.Squares, np*model.WinogradTiles
		rows := tiles + tiles%2 // an even count: the products pair tiles
		xt := s.x[:n*in]
		gatherPoints(in, n, xs[q0*model.Squares:], cols, xt)
		v := s.v[:16*rows*in]
		model.WinogradInput(in, np, rows, xt, v, s.zero)
		dyt := s.dy[:n*out]
		gatherPoints(out, n, dys[q0*model.Squares:], cols, dyt)
		dm := s.m[:16*rows*out]
		model.WinogradOutputGrads(out, np, rows, dyt, dm, s.zero)
		if rows > tiles { // the odd tile's partner is zero
			for xi := 0; xi < 16; xi++ {
				clear(v[(xi*rows+tiles)*in:][:in])
				clear(dm[(xi*rows+tiles)*out:][:out])
			}
		}
		pairs := rows / 2
		vp, mp := s.vb[:16*pairs*2*in+2*(mRows-in)], s.mb[:16*pairs*2*out]
		for xi := 0; xi < 16; xi++ {
			model.PairRowsBF16(pairs, in, v[xi*rows*in:][:rows*in], vp[xi*rows*in:][:rows*in])
			model.PairRowsBF16(pairs, out, dm[xi*rows*out:][:rows*out], mp[xi*rows*out:][:rows*out])
		}
		acc := !first || q0 > p0
		for xi := 0; xi < 16; xi++ {
			a := vp[xi*pairs*2*in:][:(pairs-1)*2*in+2*mRows]
			if !model.GemmBF16(mRows, out, rows, a, 2, 2*in, mp[xi*pairs*2*out:][:pairs*2*out],
				du[xi*plane:][:plane], out, acc) {
				panic("gnet: a checked bf16 kernel shape refused")
			}
		}
	}
}
