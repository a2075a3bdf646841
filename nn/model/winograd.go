package model

import (
	"fmt"
	"math"
	"os"
)

// Winograd F(2×2, 3×3) for the tower's 3×3 convolutions: each 2×2 block of
// outputs comes from a 4×4 input patch with 16 multiplications per channel
// pair instead of 36. The 10×9 board's outputs are padded to 10×10, so a
// position is 5×5 = 25 tiles, and the 16 element positions ξ of the
// transformed tile are 16 GEMMs over the tiles of wgChunk positions at a
// time (unchunked, V and M fall out of cache and batches of 16–32 ran
// about a third slower):
//
//	V_ξ [tiles×in] = (Bᵀ d B)_ξ,  M_ξ = V_ξ · U_ξ [in×out],  Y = Aᵀ M A
//
// with U = G g Gᵀ transformed once in NewNet (Lavin & Gray 2015, as lc0
// and KataGo use on CPU). The work counted is still the direct
// convolution's: that is the throughput palace reports.
const (
	wgTileRows  = (Ranks + 1) / 2 // 5
	wgTileFiles = (Files + 1) / 2 // 5
	wgTiles     = wgTileRows * wgTileFiles
	// wgChunk positions are transformed and multiplied at a time.
	wgChunk = 8
)

// winogradEnabled is the default for new Nets: PALACE_WINOGRAD=off keeps
// every convolution direct (im2col + GEMM); on, or unset, is Winograd.
// Any other value is an error, not the default (issue 47).
func winogradEnabled() (bool, error) {
	switch v := os.Getenv("PALACE_WINOGRAD"); v {
	case "", "on":
		return true, nil
	case "off":
		return false, nil
	default:
		return false, fmt.Errorf("model: PALACE_WINOGRAD=%q: want on or off", v)
	}
}

// winogradWeights computes U = G g Gᵀ for each (in, out) pair of a folded
// 3×3 convolution, stored as 16 matrices [ξ][in][out].
//
//	G = [1 0 0; ½ ½ ½; ½ −½ ½; 0 0 1]
func winogradWeights(fc *foldedConv) []float32 {
	in, out := fc.in, fc.out
	u := make([]float32, 16*in*out)
	var g [3][3]float64
	var t [4][3]float64
	for i := 0; i < in; i++ {
		for o := 0; o < out; o++ {
			for dy := 0; dy < 3; dy++ {
				for dx := 0; dx < 3; dx++ {
					g[dy][dx] = float64(fc.wt[((dy*3+dx)*in+i)*out+o])
				}
			}
			// t = G g (4×3)
			for c := 0; c < 3; c++ {
				t[0][c] = g[0][c]
				t[1][c] = (g[0][c] + g[1][c] + g[2][c]) / 2
				t[2][c] = (g[0][c] - g[1][c] + g[2][c]) / 2
				t[3][c] = g[2][c]
			}
			// U = t Gᵀ (4×4)
			for r := 0; r < 4; r++ {
				row := [4]float64{
					t[r][0],
					(t[r][0] + t[r][1] + t[r][2]) / 2,
					(t[r][0] - t[r][1] + t[r][2]) / 2,
					t[r][2],
				}
				for c, v := range row {
					u[((r*4+c)*in+i)*out+o] = float32(v)
				}
			}
		}
	}
	return u
}

// winogradInput writes V = Bᵀ d B for every tile of every position of in
// ([batch·90 points][ch], zero beyond the board) into v ([16][rows][ch],
// rows ≥ batch·25 tiles: the kernels' padding); zero is ch zeros.
//
//	Bᵀ = [1 0 −1 0; 0 1 1 0; 0 −1 1 0; 0 1 0 −1]
func winogradInput(ch, batch, rows int, in, v, zero []float32) {
	transformInput(ch, batch, rows, in, v, nil, zero)
}

// winogradInputBF16 is winogradInput writing V rounded to bf16 into vb;
// for channel counts the bf16 transform does not take (a multiple of 16)
// it transforms into v and rounds that.
func winogradInputBF16(ch, batch, rows int, in []float32, vb []uint16, v, zero []float32) {
	if !haveBF16 || ch%16 != 0 {
		winogradInput(ch, batch, rows, in, v, zero)
		convertBF16(v[:16*rows*ch], vb)
		return
	}
	transformInput(ch, batch, rows, in, nil, vb, zero)
}

// transformInput is the input transform into v, or into vb (bf16) when
// vb is not nil, by the widest tile transform the CPU and ch allow.
func transformInput(ch, batch, rows int, in, v []float32, vb []uint16, zero []float32) {
	tiles := batch * wgTiles
	stride := rows * ch
	if vb != nil {
		_ = vb[15*stride+tiles*ch-1]
	} else {
		_ = v[15*stride+tiles*ch-1]
	}
	zero = zero[:ch]
	var d [16][]float32
	var dp [16]*float32
	for b := 0; b < batch; b++ {
		for ty := 0; ty < wgTileRows; ty++ {
			for tx := 0; tx < wgTileFiles; tx++ {
				for r := 0; r < 4; r++ {
					sr := 2*ty - 1 + r
					for c := 0; c < 4; c++ {
						sf := 2*tx - 1 + c
						if sr < 0 || sr >= Ranks || sf < 0 || sf >= Files {
							d[r*4+c] = zero
						} else {
							d[r*4+c] = in[(b*Squares+sr*Files+sf)*ch:][:ch]
						}
					}
				}
				for i := range d {
					dp[i] = &d[i][0]
				}
				off := (b*wgTiles + ty*wgTileFiles + tx) * ch
				switch {
				case vb != nil:
					inputTileBF16(ch/16, &dp, &vb[off], stride)
				case haveAVX512 && ch%16 == 0:
					inputTileAVX512(ch/16, &dp, &v[off], stride)
				case haveAVX2 && ch%8 == 0:
					inputTileAVX2(ch/8, &dp, &v[off], stride)
				default:
					inputTile(ch, &d, v[off:], stride)
				}
			}
		}
	}
}

// inputTile is one tile's input transform: d holds the 4×4 patch's
// channel rows, v receives the 16 rows of V, stride floats apart.
func inputTile(ch int, d *[16][]float32, v []float32, stride int) {
	d00, d01, d02, d03 := d[0][:ch], d[1][:ch], d[2][:ch], d[3][:ch]
	d10, d11, d12, d13 := d[4][:ch], d[5][:ch], d[6][:ch], d[7][:ch]
	d20, d21, d22, d23 := d[8][:ch], d[9][:ch], d[10][:ch], d[11][:ch]
	d30, d31, d32, d33 := d[12][:ch], d[13][:ch], d[14][:ch], d[15][:ch]
	v0, v1, v2, v3 := v[0*stride:][:ch], v[1*stride:][:ch], v[2*stride:][:ch], v[3*stride:][:ch]
	v4, v5, v6, v7 := v[4*stride:][:ch], v[5*stride:][:ch], v[6*stride:][:ch], v[7*stride:][:ch]
	v8, v9, v10, v11 := v[8*stride:][:ch], v[9*stride:][:ch], v[10*stride:][:ch], v[11*stride:][:ch]
	v12, v13, v14, v15 := v[12*stride:][:ch], v[13*stride:][:ch], v[14*stride:][:ch], v[15*stride:][:ch]
	for k := range ch {
		// t = Bᵀ d, column by column.
		t00, t01, t02, t03 := d00[k]-d20[k], d01[k]-d21[k], d02[k]-d22[k], d03[k]-d23[k]
		t10, t11, t12, t13 := d10[k]+d20[k], d11[k]+d21[k], d12[k]+d22[k], d13[k]+d23[k]
		t20, t21, t22, t23 := d20[k]-d10[k], d21[k]-d11[k], d22[k]-d12[k], d23[k]-d13[k]
		t30, t31, t32, t33 := d10[k]-d30[k], d11[k]-d31[k], d12[k]-d32[k], d13[k]-d33[k]
		// V = t B, row by row.
		v0[k], v1[k], v2[k], v3[k] = t00-t02, t01+t02, t02-t01, t01-t03
		v4[k], v5[k], v6[k], v7[k] = t10-t12, t11+t12, t12-t11, t11-t13
		v8[k], v9[k], v10[k], v11[k] = t20-t22, t21+t22, t22-t21, t21-t23
		v12[k], v13[k], v14[k], v15[k] = t30-t32, t31+t32, t32-t31, t31-t33
	}
}

// winogradOutput computes Y = Aᵀ M A for every tile of m ([16][rows][ch],
// rows ≥ batch·25 tiles), crops it to the board and writes out ([batch·90][ch]) with
// the bias, then the skip connection (if any) and ReLU (if relu or skip).
// zero is ch zeros; drop (ch floats) receives the outputs that fall off
// the board (the tenth file).
//
//	Aᵀ = [1 1 1 0; 0 1 −1 −1]
func winogradOutput(ch, batch, rows int, m, bias, out, skip, zero, drop []float32, relu bool) {
	tiles := batch * wgTiles
	stride := rows * ch
	_ = m[15*stride+tiles*ch-1]
	bias, zero, drop = bias[:ch], zero[:ch], drop[:ch]
	lo := float32(0)
	if !relu && skip == nil {
		lo = -math.MaxFloat32
	}
	var y, sk [4][]float32
	var yp, sp [4]*float32
	for b := 0; b < batch; b++ {
		for ty := 0; ty < wgTileRows; ty++ {
			for tx := 0; tx < wgTileFiles; tx++ {
				for r := 0; r < 2; r++ {
					for c := 0; c < 2; c++ {
						i := r*2 + c
						y[i], sk[i] = drop, zero
						if sf := 2*tx + c; sf < Files {
							p := (b*Squares + (2*ty+r)*Files + sf) * ch
							y[i] = out[p:][:ch]
							if skip != nil {
								sk[i] = skip[p:][:ch]
							}
						}
					}
				}
				off := (b*wgTiles + ty*wgTileFiles + tx) * ch
				switch {
				case haveAVX512 && ch%16 == 0:
					for i := range y {
						yp[i], sp[i] = &y[i][0], &sk[i][0]
					}
					outputTileAVX512(ch/16, &m[off], stride, &bias[0], &yp, &sp, lo)
				case haveAVX2 && ch%8 == 0:
					for i := range y {
						yp[i], sp[i] = &y[i][0], &sk[i][0]
					}
					outputTileAVX2(ch/8, &m[off], stride, &bias[0], &yp, &sp, lo)
				default:
					outputTile(ch, m[off:], stride, bias, &y, &sk, lo)
				}
			}
		}
	}
}

// outputTile is one tile's output transform: m holds the 16 rows of M,
// stride floats apart; y[i] = max(Y_i + bias + s[i], lo) for the tile's
// four outputs (row-major).
func outputTile(ch int, m []float32, stride int, bias []float32, y, s *[4][]float32, lo float32) {
	m0, m1, m2, m3 := m[0*stride:][:ch], m[1*stride:][:ch], m[2*stride:][:ch], m[3*stride:][:ch]
	m4, m5, m6, m7 := m[4*stride:][:ch], m[5*stride:][:ch], m[6*stride:][:ch], m[7*stride:][:ch]
	m8, m9, m10, m11 := m[8*stride:][:ch], m[9*stride:][:ch], m[10*stride:][:ch], m[11*stride:][:ch]
	m12, m13, m14, m15 := m[12*stride:][:ch], m[13*stride:][:ch], m[14*stride:][:ch], m[15*stride:][:ch]
	y0, y1, y2, y3 := y[0][:ch], y[1][:ch], y[2][:ch], y[3][:ch]
	s0, s1, s2, s3 := s[0][:ch], s[1][:ch], s[2][:ch], s[3][:ch]
	bias = bias[:ch]
	for k := range ch {
		// t = Aᵀ M (2×4), then Y = t A (2×2).
		t00, t01, t02, t03 := m0[k]+m4[k]+m8[k], m1[k]+m5[k]+m9[k], m2[k]+m6[k]+m10[k], m3[k]+m7[k]+m11[k]
		t10, t11, t12, t13 := m4[k]-m8[k]-m12[k], m5[k]-m9[k]-m13[k], m6[k]-m10[k]-m14[k], m7[k]-m11[k]-m15[k]
		bk := bias[k]
		y0[k] = max(t00+t01+t02+bk+s0[k], lo)
		y1[k] = max(t01-t02-t03+bk+s1[k], lo)
		y2[k] = max(t10+t11+t12+bk+s2[k], lo)
		y3[k] = max(t11-t12-t13+bk+s3[k], lo)
	}
}
