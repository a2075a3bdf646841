package model

// Winograd F(2×2, 3×3) for training (package gnet): the same tile
// transforms as inference, on point-major activations ([batch·90][ch]),
// plus the two the backward pass needs: the output transform's transpose
// (an output gradient into the transformed domain) and the filter
// transform's transpose (a transformed filter gradient back to 3×3).
// Filters here are training's layout, w [out][in][3][3], the tap (dy, dx)
// of a cross-correlation: y[r][f] = Σ w[dy][dx] · x[r+dy−1][f+dx−1].

// WinogradTiles is the tiles of one position: its 10×9 outputs padded to
// 10×10, in 2×2 blocks.
const WinogradTiles = wgTiles

// WinogradEnabled reports PALACE_WINOGRAD's setting (on unless off): an
// error for any other value.
func WinogradEnabled() (bool, error) { return winogradEnabled() }

// WinogradFilters sets u ([16][in][out]) to U = G g Gᵀ of every filter
// of w ([out][in][3][3]).
//
//	G = [1 0 0; ½ ½ ½; ½ −½ ½; 0 0 1]
func WinogradFilters(out, in int, w, u []float32) {
	WinogradFiltersRange(out, in, 0, in*out, w, u)
}

// WinogradFiltersRange is WinogradFilters for the (in, out) pairs lo to
// hi−1 of each plane (i·out + o; lo a multiple of WinogradBlock): bands of
// a plane can be made on several cores, each value as the whole makes it.
func WinogradFiltersRange(out, in, lo, hi int, w, u []float32) {
	// Lengths, not reads of the last values: another band may be writing
	// them.
	if len(w) < out*in*9 || len(u) < 16*in*out {
		panic("model: WinogradFiltersRange: short slices")
	}
	plane := in * out
	// A block of wgBlock outputs is made in blk and written plane by
	// plane: the 16 planes lie a multiple of 4 KB apart for 64×64, and
	// writing them a value at a time thrashes the cache's sets.
	var blk [16][wgBlock]float32
	for at0 := lo; at0 < hi; at0 += wgBlock {
		n := min(wgBlock, hi-at0)
		for k := 0; k < n; k++ {
			i, o := (at0+k)/out, (at0+k)%out
			g := (*[9]float32)(w[(o*in+i)*9:])
			var t [4][3]float32 // t = G g
			for c := 0; c < 3; c++ {
				t[0][c] = g[c]
				t[1][c] = (g[c] + g[3+c] + g[6+c]) * 0.5
				t[2][c] = (g[c] - g[3+c] + g[6+c]) * 0.5
				t[3][c] = g[6+c]
			}
			for r := 0; r < 4; r++ { // U = t Gᵀ
				blk[r*4+0][k] = t[r][0]
				blk[r*4+1][k] = (t[r][0] + t[r][1] + t[r][2]) * 0.5
				blk[r*4+2][k] = (t[r][0] - t[r][1] + t[r][2]) * 0.5
				blk[r*4+3][k] = t[r][2]
			}
		}
		for x := range blk {
			copy(u[x*plane+at0:][:n], blk[x][:n])
		}
	}
}

// wgBlock is the filter transforms' block of (in, out) pairs.
const wgBlock = 16

// WinogradBlock is the filter transforms' block of (in, out) pairs: a
// band of WinogradFiltersRange or WinogradFilterGradsRange starts at a
// multiple of it.
const WinogradBlock = wgBlock

// WinogradFilterGrads sets dw ([out][in][3][3]) to Gᵀ dU G, the gradient
// of w from that of U (du: [16][in][out], the ξ planes stride floats
// apart).
func WinogradFilterGrads(out, in, stride int, du, dw []float32) {
	WinogradFilterGradsRange(out, in, stride, 0, in*out, du, dw)
}

// WinogradFilterGradsRange is WinogradFilterGrads for the (in, out) pairs
// lo to hi−1 (lo a multiple of WinogradBlock).
func WinogradFilterGradsRange(out, in, stride, lo, hi int, du, dw []float32) {
	if len(du) < 15*stride+in*out || len(dw) < out*in*9 { // as WinogradFiltersRange
		panic("model: WinogradFilterGradsRange: short slices")
	}
	var blk [16][wgBlock]float32 // read plane by plane, as WinogradFilters writes
	for at0 := lo; at0 < hi; at0 += wgBlock {
		n := min(wgBlock, hi-at0)
		for x := range blk {
			copy(blk[x][:n], du[x*stride+at0:][:n])
		}
		for k := 0; k < n; k++ {
			i, o := (at0+k)/out, (at0+k)%out
			var t [3][4]float32 // t = Gᵀ dU
			for c := 0; c < 4; c++ {
				d0, d1, d2, d3 := blk[c][k], blk[4+c][k], blk[8+c][k], blk[12+c][k]
				t[0][c] = d0 + (d1+d2)*0.5
				t[1][c] = (d1 - d2) * 0.5
				t[2][c] = (d1+d2)*0.5 + d3
			}
			g := (*[9]float32)(dw[(o*in+i)*9:])
			for r := 0; r < 3; r++ { // dg = t G
				g[r*3+0] = t[r][0] + (t[r][1]+t[r][2])*0.5
				g[r*3+1] = (t[r][1] - t[r][2]) * 0.5
				g[r*3+2] = (t[r][1]+t[r][2])*0.5 + t[r][3]
			}
		}
	}
}

// WinogradInput writes V = Bᵀ d B of every tile of in ([batch·90][ch])
// into v ([16][rows][ch], rows ≥ batch·25); zero is ch zeros.
func WinogradInput(ch, batch, rows int, in, v, zero []float32) {
	winogradInput(ch, batch, rows, in, v, zero)
}

// WinogradInputBF16 is WinogradInput rounded to bf16 into vb; v is
// scratch of v's size, used only where ch is not a multiple of 16.
func WinogradInputBF16(ch, batch, rows int, in []float32, vb []uint16, v, zero []float32) {
	winogradInputBF16(ch, batch, rows, in, vb, v, zero)
}

// WinogradOutput writes Y = Aᵀ M A of every tile of m ([16][rows][ch])
// into out ([batch·90][ch]), cropped to the board; zero is ch zeros and
// drop ch floats of scratch.
func WinogradOutput(ch, batch, rows int, m, out, zero, drop []float32) {
	winogradOutput(ch, batch, rows, m, zero, out, nil, zero, drop, false)
}

// WinogradOutputGrads writes dM = A dY Aᵀ of every tile into dm
// ([16][rows][ch]) from the output gradient dy ([batch·90][ch]); the
// padded outputs (the tenth file) have none.
//
//	A = [1 0; 1 1; 1 −1; 0 −1]
func WinogradOutputGrads(ch, batch, rows int, dy, dm, zero []float32) {
	stride := rows * ch
	_ = dm[15*stride+batch*wgTiles*ch-1]
	zero = zero[:ch]
	var y [4][]float32
	var yp [4]*float32
	for b := 0; b < batch; b++ {
		for ty := 0; ty < wgTileRows; ty++ {
			for tx := 0; tx < wgTileFiles; tx++ {
				for r := 0; r < 2; r++ {
					for c := 0; c < 2; c++ {
						y[r*2+c] = zero
						if sf := 2*tx + c; sf < Files {
							y[r*2+c] = dy[(b*Squares+(2*ty+r)*Files+sf)*ch:][:ch]
						}
					}
				}
				off := (b*wgTiles + ty*wgTileFiles + tx) * ch
				if haveAVX2 && ch%8 == 0 {
					for i := range y {
						yp[i] = &y[i][0]
					}
					outputGradTileAVX2(ch/8, &yp, &dm[off], stride)
					continue
				}
				outputGradTile(ch, &y, dm[off:], stride)
			}
		}
	}
}

// outputGradTile is one tile's dM = A dY Aᵀ: y holds the tile's four
// output gradients (row-major), m receives dM's 16 rows, stride apart.
func outputGradTile(ch int, y *[4][]float32, m []float32, stride int) {
	y00, y01, y10, y11 := y[0][:ch], y[1][:ch], y[2][:ch], y[3][:ch]
	var rows [16][]float32
	for x := range rows {
		rows[x] = m[x*stride:][:ch]
	}
	for k := range ch {
		// t = A dY (4×2), then dM = t Aᵀ (4×4).
		a0, b0 := y00[k], y01[k]
		a1, b1 := y00[k]+y10[k], y01[k]+y11[k]
		a2, b2 := y00[k]-y10[k], y01[k]-y11[k]
		a3, b3 := -y10[k], -y11[k]
		rows[0][k], rows[1][k], rows[2][k], rows[3][k] = a0, a0+b0, a0-b0, -b0
		rows[4][k], rows[5][k], rows[6][k], rows[7][k] = a1, a1+b1, a1-b1, -b1
		rows[8][k], rows[9][k], rows[10][k], rows[11][k] = a2, a2+b2, a2-b2, -b2
		rows[12][k], rows[13][k], rows[14][k], rows[15][k] = a3, a3+b3, a3-b3, -b3
	}
}
