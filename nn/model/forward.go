package model

import (
	"fmt"
	"math"
)

// Net is a network ready for inference: batch norms folded into the
// convolutions (w·γ/σ, β − μγ/σ). It is not safe for concurrent use: each
// worker owns one (the weights may be shared through Fold's result).
type Net struct {
	cfg                      Config
	convs                    []foldedConv // stem, then two per block, then policy, value
	pfcT                     []float32    // policy.fc.w transposed: [in][out]
	pfcB, v1W, v1B, v2W, v2B []float32
	scratch                  forwardScratch
}

type foldedConv struct {
	out, in, k int
	w          []float32 // [out][in·k·k]
	b          []float32 // [out]
}

type forwardScratch struct {
	batch        int
	x, y, t, col []float32
	pflat, vflat []float32
	phid, vhid   []float32
}

// NewNet folds the batch norms of w into its convolutions.
func NewNet(w *Weights) (*Net, error) {
	if err := w.Check(); err != nil {
		return nil, err
	}
	c := w.Config
	n := &Net{cfg: c}
	fold := func(name string, out, in, k int) {
		src := w.Tensors[name+".w"]
		g, be := w.Tensors[name+".bn.gamma"], w.Tensors[name+".bn.beta"]
		mu, va := w.Tensors[name+".bn.mean"], w.Tensors[name+".bn.var"]
		fc := foldedConv{out: out, in: in, k: k, w: make([]float32, len(src)), b: make([]float32, out)}
		per := in * k * k
		for o := 0; o < out; o++ {
			s := g[o] / float32(math.Sqrt(float64(va[o])+BNEpsilon))
			for i := 0; i < per; i++ {
				fc.w[o*per+i] = src[o*per+i] * s
			}
			fc.b[o] = be[o] - mu[o]*s
		}
		n.convs = append(n.convs, fc)
	}
	fold("stem", c.Filters, c.Planes, 3)
	for b := 0; b < c.Blocks; b++ {
		fold(fmt.Sprintf("block%d.conv1", b), c.Filters, c.Filters, 3)
		fold(fmt.Sprintf("block%d.conv2", b), c.Filters, c.Filters, 3)
	}
	fold("policy.conv", c.PolicyChannels, c.Filters, 1)
	fold("value.conv", c.ValueChannels, c.Filters, 1)
	pin := c.PolicyChannels * Squares
	pw := w.Tensors["policy.fc.w"]
	n.pfcT = make([]float32, len(pw))
	for o := 0; o < c.PolicySize; o++ {
		for i := 0; i < pin; i++ {
			n.pfcT[i*c.PolicySize+o] = pw[o*pin+i]
		}
	}
	n.pfcB = w.Tensors["policy.fc.b"]
	n.v1W, n.v1B = w.Tensors["value.fc1.w"], w.Tensors["value.fc1.b"]
	n.v2W, n.v2B = w.Tensors["value.fc2.w"], w.Tensors["value.fc2.b"]
	return n, nil
}

// Config is the network's shape.
func (n *Net) Config() Config { return n.cfg }

func grow(s []float32, size int) []float32 {
	if cap(s) < size {
		return make([]float32, size)
	}
	return s[:size]
}

// Forward runs a batch: input holds batch positions of Planes×90 floats
// (plane, rank, file); policy receives batch×PolicySize logits and wdl
// batch×3 logits (win, draw, loss). Scratch space grows to the largest
// batch seen and is then reused.
func (n *Net) Forward(batch int, input, policy, wdl []float32) error {
	c := n.cfg
	if batch < 1 {
		return fmt.Errorf("model: batch %d", batch)
	}
	if len(input) != batch*c.InputSize() || len(policy) != batch*c.PolicySize || len(wdl) != batch*3 {
		return fmt.Errorf("model: forward of %d positions needs input %d, policy %d, wdl %d floats; got %d, %d, %d",
			batch, batch*c.InputSize(), batch*c.PolicySize, batch*3, len(input), len(policy), len(wdl))
	}
	s := &n.scratch
	cols := batch * Squares
	maxCh := max(c.Filters, c.Planes)
	s.x = grow(s.x, maxCh*cols)
	s.y = grow(s.y, maxCh*cols)
	s.t = grow(s.t, maxCh*cols)
	s.col = grow(s.col, maxCh*9*cols)
	// Activations are [channel][position·square]: one GEMM per convolution
	// covers the whole batch.
	x := s.x[:c.Planes*cols]
	for b := 0; b < batch; b++ {
		for p := 0; p < c.Planes; p++ {
			copy(x[p*cols+b*Squares:][:Squares], input[(b*c.Planes+p)*Squares:][:Squares])
		}
	}
	conv := func(fc *foldedConv, in, out []float32, relu bool, skip []float32) {
		var col []float32
		if fc.k == 3 {
			col = s.col[:fc.in*9*cols]
			im2col3(fc.in, batch, in, col)
		} else {
			col = in[:fc.in*cols]
		}
		out = out[:fc.out*cols]
		clear(out)
		gemm(fc.out, cols, fc.in*fc.k*fc.k, fc.w, col, out)
		// Bias, skip connection and ReLU in one pass over the output.
		for o := 0; o < fc.out; o++ {
			row := out[o*cols:][:cols]
			bias := fc.b[o]
			switch {
			case skip != nil:
				sk := skip[o*cols:][:cols]
				for j, v := range row {
					row[j] = max(v+bias+sk[j], 0)
				}
			case relu:
				for j, v := range row {
					row[j] = max(v+bias, 0)
				}
			default:
				for j, v := range row {
					row[j] = v + bias
				}
			}
		}
	}
	conv(&n.convs[0], x, s.y, true, nil)
	cur, tmp, nxt := s.y, s.t, s.x
	for b := 0; b < c.Blocks; b++ {
		conv(&n.convs[1+2*b], cur, tmp, true, nil)
		conv(&n.convs[2+2*b], tmp, nxt, false, cur[:c.Filters*cols])
		cur, nxt = nxt, cur
	}
	// Heads: 1×1 convolutions, then dense layers over each position's
	// [channel][square] values.
	dense := func(out, in int, w, bias, x, y []float32, relu bool) {
		// y[batch][out] = x[batch][in] · wᵀ + bias
		for b := 0; b < batch; b++ {
			xb := x[b*in:][:in]
			for o := 0; o < out; o++ {
				wo := w[o*in:][:in]
				sum := bias[o]
				for i, v := range xb {
					sum += wo[i] * v
				}
				if relu {
					sum = max(sum, 0)
				}
				y[b*out+o] = sum
			}
		}
	}
	flatten := func(ch int, act []float32, dst []float32) []float32 {
		dst = grow(dst, batch*ch*Squares)
		for b := 0; b < batch; b++ {
			for k := 0; k < ch; k++ {
				copy(dst[(b*ch+k)*Squares:][:Squares], act[k*cols+b*Squares:][:Squares])
			}
		}
		return dst
	}
	pc, vc := &n.convs[len(n.convs)-2], &n.convs[len(n.convs)-1]
	conv(pc, cur, tmp, true, nil)
	s.pflat = flatten(c.PolicyChannels, tmp, s.pflat)
	// The policy layer is the largest dense one: a GEMM over the batch.
	for b := 0; b < batch; b++ {
		copy(policy[b*c.PolicySize:][:c.PolicySize], n.pfcB)
	}
	gemm(batch, c.PolicySize, c.PolicyChannels*Squares, s.pflat, n.pfcT, policy)
	conv(vc, cur, tmp, true, nil)
	s.vflat = flatten(c.ValueChannels, tmp, s.vflat)
	s.vhid = grow(s.vhid, batch*c.ValueHidden)
	dense(c.ValueHidden, c.ValueChannels*Squares, n.v1W, n.v1B, s.vflat, s.vhid, true)
	dense(3, c.ValueHidden, n.v2W, n.v2B, s.vhid, wdl, false)
	return nil
}

// im2col3 lays out the 3×3 neighbourhoods (zero beyond the board) of in
// ([ch][batch·90]) as col ([ch·9][batch·90]) so a 3×3 convolution is one
// GEMM. Shifts by whole ranks are single copies; shifts by a file copy each
// rank's eight overlapping points.
func im2col3(ch, batch int, in, col []float32) {
	cols := batch * Squares
	for c := 0; c < ch; c++ {
		src := in[c*cols:][:cols]
		for dy := -1; dy <= 1; dy++ {
			// Destination ranks [r0, r1) read source ranks shifted by dy.
			r0, r1 := max(0, -dy), Ranks-max(0, dy)
			for dx := -1; dx <= 1; dx++ {
				dst := col[((c*3+dy+1)*3+dx+1)*cols:][:cols]
				for b := 0; b < batch; b++ {
					sb, db := src[b*Squares:][:Squares], dst[b*Squares:][:Squares]
					clear(db[:r0*Files])
					clear(db[r1*Files:])
					switch dx {
					case 0:
						copy(db[r0*Files:r1*Files], sb[(r0+dy)*Files:(r1+dy)*Files])
					case -1:
						for r := r0; r < r1; r++ {
							row, srow := db[r*Files:][:Files], sb[(r+dy)*Files:][:Files]
							row[0] = 0
							copy(row[1:], srow[:Files-1])
						}
					case 1:
						for r := r0; r < r1; r++ {
							row, srow := db[r*Files:][:Files], sb[(r+dy)*Files:][:Files]
							copy(row[:Files-1], srow[1:])
							row[Files-1] = 0
						}
					}
				}
			}
		}
	}
}
