package model

import (
	"fmt"
	"math"
)

// Net is a network ready for inference: batch norms folded into the
// convolutions (w·γ/σ, β − μγ/σ). It is not safe for concurrent use: each
// worker owns one (the weights may be shared through Fold's result).
type Net struct {
	cfg                 Config
	convs               []foldedConv // stem, then two per block, then policy, value
	pfcT                []float32    // policy.fc.w transposed: [in][out]
	pfcB, v1B, v2W, v2B []float32
	pfcP                []float32 // the kernel paths: pfcT with its columns padded to pfcN
	pfcPB               []uint16  // the bf16 path: pfcP packed (packBF16)
	pfcN                int
	v1T                 []float32 // value.fc1.w transposed: [in][v1N], columns padded on the kernel paths
	v1N                 int
	scratch             forwardScratch
	winograd            bool   // 3×3 convolutions by Winograd F(2×2, 3×3) (winograd.go)
	kernel              Kernel // the tower's GEMM path (kernel.go)
}

type foldedConv struct {
	out, in, k int
	wt         []float32 // [tap·in + channel][out], taps row-major over the k×k window
	b          []float32 // [out]
	wu         []float32 // 3×3 only: Winograd weights [16][in][out]
	wub        []uint16  // the bf16 path: wu as packBF16 lays each ξ out
	wp         []float32 // 1×1 on the kernel paths: wt with out padded to padOut columns
	padOut     int
}

type forwardScratch struct {
	batch        int
	in           [][]float32 // Forward: each position's share of its input
	x, y, t, col []float32
	wv, wm, wz   []float32 // Winograd: transformed input, products, zero row
	wvb          []uint16  // the bf16 path: wv rounded
	hc, pout     []float32 // the kernel paths: head products with padded columns
	pflatb       []uint16  // the bf16 path: pflat rounded
	pflat, vflat []float32
	phid, vhid   []float32
	vout         []float32 // the kernel paths: value.fc1's products with padded columns
}

// NewNet folds the batch norms of w into its convolutions, for the kernel
// path DefaultKernel names.
func NewNet(w *Weights) (*Net, error) {
	k, err := DefaultKernel()
	if err != nil {
		return nil, err
	}
	return NewNetKernel(w, k)
}

// NewNetKernel is NewNet on a given kernel path (one this CPU supports).
func NewNetKernel(w *Weights, kernel Kernel) (*Net, error) {
	if !kernel.Supported() {
		return nil, fmt.Errorf("model: kernel %v needs a CPU with %s; this one has not", kernel, kernelNeeds[kernel])
	}
	if err := w.Check(); err != nil {
		return nil, err
	}
	winograd, err := winogradEnabled()
	if err != nil {
		return nil, err
	}
	c := w.Config
	n := &Net{cfg: c, winograd: winograd, kernel: kernel}
	fold := func(name string, out, in, k int) {
		src := w.Tensors[name+".w"]
		g, be := w.Tensors[name+".bn.gamma"], w.Tensors[name+".bn.beta"]
		mu, va := w.Tensors[name+".bn.mean"], w.Tensors[name+".bn.var"]
		fc := foldedConv{out: out, in: in, k: k, wt: make([]float32, len(src)), b: make([]float32, out)}
		for o := 0; o < out; o++ {
			s := g[o] / float32(math.Sqrt(float64(va[o])+BNEpsilon))
			for i := 0; i < in; i++ {
				for tap := 0; tap < k*k; tap++ {
					fc.wt[(tap*in+i)*out+o] = src[(o*in+i)*k*k+tap] * s
				}
			}
			fc.b[o] = be[o] - mu[o]*s
		}
		if k == 1 && kernel != KernelBLAS {
			fc.padOut = padCols(out)
			fc.wp = make([]float32, in*fc.padOut)
			for i := 0; i < in; i++ {
				copy(fc.wp[i*fc.padOut:], fc.wt[i*out:][:out])
			}
		}
		if k == 3 {
			fc.wu = winogradWeights(&fc)
			if kernel == KernelBF16 && in%2 == 0 && out%32 == 0 {
				fc.wub = make([]uint16, 0, len(fc.wu))
				for xi := 0; xi < 16; xi++ {
					fc.wub = append(fc.wub, packBF16(in, out, fc.wu[xi*in*out:][:in*out])...)
				}
			}
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
	if kernel != KernelBLAS {
		n.pfcN = padCols(c.PolicySize)
		n.pfcP = make([]float32, pin*n.pfcN)
		for i := 0; i < pin; i++ {
			copy(n.pfcP[i*n.pfcN:], n.pfcT[i*c.PolicySize:][:c.PolicySize])
		}
		if kernel == KernelBF16 && pin%2 == 0 {
			n.pfcPB = packBF16(pin, n.pfcN, n.pfcP)
		}
	}
	v1W := w.Tensors["value.fc1.w"]
	n.v1B = w.Tensors["value.fc1.b"]
	// value.fc1 transposed ([in][out]) for a GEMM over the batch, its
	// columns padded to v1N on the kernel paths.
	vin := c.ValueChannels * Squares
	n.v1N = c.ValueHidden
	if kernel != KernelBLAS {
		n.v1N = padCols(c.ValueHidden)
	}
	n.v1T = make([]float32, vin*n.v1N)
	for o := 0; o < c.ValueHidden; o++ {
		for i := 0; i < vin; i++ {
			n.v1T[i*n.v1N+o] = v1W[o*vin+i]
		}
	}
	n.v2W, n.v2B = w.Tensors["value.fc2.w"], w.Tensors["value.fc2.b"]
	return n, nil
}

// Copy is a network with n's folded weights, shared, and scratch space of
// its own, for another worker: the copies' weights take one place in the
// CPU's caches instead of one each (the policy layer alone is 1.9 MB in
// bf16 for 4 policy channels).
func (n *Net) Copy() *Net {
	c := *n
	c.scratch = forwardScratch{}
	return &c
}

// Kernel is the path the tower's products take.
func (n *Net) Kernel() Kernel { return n.kernel }

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
//
// Activations are kept point-major ([batch·90 points][channels]). The 3×3
// convolutions run as Winograd F(2×2, 3×3) (winograd.go), 16 GEMMs over a
// chunk of positions' tiles; with PALACE_WINOGRAD=off (read by NewNet) they
// run direct: the 3×3 neighbourhood a convolution reads is three runs of
// three points' channels, copied whole, and each convolution is one GEMM
// over the batch.
func (n *Net) Forward(batch int, input, policy, wdl []float32) error {
	c := n.cfg
	if batch < 1 {
		return fmt.Errorf("model: batch %d", batch)
	}
	if len(input) != batch*c.InputSize() || len(policy) != batch*c.PolicySize || len(wdl) != batch*3 {
		return fmt.Errorf("model: forward of %d positions needs input %d, policy %d, wdl %d floats; got %d, %d, %d",
			batch, batch*c.InputSize(), batch*c.PolicySize, batch*3, len(input), len(policy), len(wdl))
	}
	n.scratch.in = n.scratch.in[:0]
	for b := 0; b < batch; b++ {
		n.scratch.in = append(n.scratch.in, input[b*c.InputSize():][:c.InputSize()])
	}
	err := n.forward(n.scratch.in, policy, wdl)
	clear(n.scratch.in) // keep no reference to the caller's input
	return err
}

// ForwardPlanes is Forward over positions whose planes lie apart (a
// search's buffers), read where they are: Forward's first step reorders
// the planes anyway, so gathering them into one input first would be a
// second copy.
func (n *Net) ForwardPlanes(planes [][]float32, policy, wdl []float32) error {
	c := n.cfg
	batch := len(planes)
	if batch < 1 {
		return fmt.Errorf("model: batch %d", batch)
	}
	for b, p := range planes {
		if len(p) != c.InputSize() {
			return fmt.Errorf("model: forward: position %d has %d input floats, want %d", b, len(p), c.InputSize())
		}
	}
	if len(policy) != batch*c.PolicySize || len(wdl) != batch*3 {
		return fmt.Errorf("model: forward of %d positions needs policy %d, wdl %d floats; got %d, %d",
			batch, batch*c.PolicySize, batch*3, len(policy), len(wdl))
	}
	return n.forward(planes, policy, wdl)
}

// forward is Forward on checked arguments, each position's planes a slice
// of their own.
func (n *Net) forward(planes [][]float32, policy, wdl []float32) error {
	c := n.cfg
	batch := len(planes)
	s := &n.scratch
	points := batch * Squares
	maxCh := max(c.Filters, c.Planes)
	// Rows padded for the kernels' 1×1 convolutions (kernel.go).
	rows := n.kernel.padRows(points, 32)
	s.x = grow(s.x, rows*maxCh)
	s.y = grow(s.y, rows*maxCh)
	s.t = grow(s.t, rows*maxCh)
	if n.winograd {
		tiles := n.kernel.padRows(min(batch, wgChunk)*wgTiles, c.Filters)
		s.wv = grow(s.wv, 16*tiles*maxCh)
		if n.kernel == KernelBF16 {
			if cap(s.wvb) < 16*tiles*maxCh {
				s.wvb = make([]uint16, 16*tiles*maxCh)
			}
		}
		s.wm = grow(s.wm, 16*tiles*c.Filters)
		s.wz = grow(s.wz, 2*maxCh)
		clear(s.wz)
	} else {
		s.col = grow(s.col, points*9*maxCh)
	}
	x := s.x[:points*c.Planes]
	for b, in := range planes {
		in = in[:c.InputSize()]
		for sq := 0; sq < Squares; sq++ {
			row := x[(b*Squares+sq)*c.Planes:][:c.Planes]
			for p := range row {
				row[p] = in[p*Squares+sq]
			}
		}
	}
	conv := func(fc *foldedConv, in, out []float32, relu bool, skip []float32) {
		if fc.k == 3 && n.winograd {
			// A chunk of positions at a time keeps the transformed tiles
			// and their products in the core's cache.
			for b0 := 0; b0 < batch; b0 += wgChunk {
				nb := min(wgChunk, batch-b0)
				tiles := n.kernel.padRows(nb*wgTiles, fc.out)
				m := s.wm[:16*tiles*fc.out]
				n.winogradProducts(fc, nb, tiles, in[b0*Squares*fc.in:], m)
				var sk []float32
				if skip != nil {
					sk = skip[b0*Squares*fc.out:]
				}
				winogradOutput(fc.out, nb, tiles, m, fc.b, out[b0*Squares*fc.out:], sk, s.wz[:fc.out], s.wz[maxCh:][:fc.out], relu)
			}
			return
		}
		var col []float32
		if fc.k == 3 {
			col = s.col[:points*9*fc.in]
			im2col3(fc.in, batch, in, col)
		} else {
			col = in[:points*fc.in]
		}
		out = out[:points*fc.out]
		gemm(points, fc.out, fc.in*fc.k*fc.k, col, fc.wt, out, false)
		// Bias, skip connection and ReLU in one pass over the output.
		bias := fc.b[:fc.out]
		switch {
		case skip != nil:
			for p := 0; p < points; p++ {
				row, sk := out[p*fc.out:][:len(bias)], skip[p*fc.out:][:len(bias)]
				for o, v := range row {
					row[o] = max(v+bias[o]+sk[o], 0)
				}
			}
		case relu:
			for p := 0; p < points; p++ {
				row := out[p*fc.out:][:len(bias)]
				for o, v := range row {
					row[o] = max(v+bias[o], 0)
				}
			}
		default:
			for p := 0; p < points; p++ {
				row := out[p*fc.out:][:len(bias)]
				for o, v := range row {
					row[o] = v + bias[o]
				}
			}
		}
	}
	conv(&n.convs[0], x, s.y, true, nil)
	cur, tmp, nxt := s.y, s.t, s.x
	for b := 0; b < c.Blocks; b++ {
		conv(&n.convs[1+2*b], cur, tmp, true, nil)
		conv(&n.convs[2+2*b], tmp, nxt, false, cur[:points*c.Filters])
		cur, nxt = nxt, cur
	}
	// Heads: 1×1 convolutions, then dense layers over each position's
	// values in [channel][square] order.
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
			for sq := 0; sq < Squares; sq++ {
				src := act[(b*Squares+sq)*ch:][:ch]
				for k, v := range src {
					dst[(b*ch+k)*Squares+sq] = v
				}
			}
		}
		return dst
	}
	pc, vc := &n.convs[len(n.convs)-2], &n.convs[len(n.convs)-1]
	if n.kernel != KernelBLAS {
		prows := n.kernel.padRows(batch, n.pfcN)
		pin := c.PolicyChannels * Squares
		s.pflat = n.headConv(pc, batch, cur, grow(s.pflat, prows*pin))
		n.policyDense(batch, prows, policy)
		vin, vrows := c.ValueChannels*Squares, n.kernel.padRows(batch, n.v1N)
		s.vflat = n.headConv(vc, batch, cur, grow(s.vflat, vrows*vin))
		s.vhid = grow(s.vhid, batch*c.ValueHidden)
		n.valueDense(batch, vrows)
		dense(3, c.ValueHidden, n.v2W, n.v2B, s.vhid, wdl, false)
		return nil
	}
	conv(pc, cur, tmp, true, nil)
	s.pflat = flatten(c.PolicyChannels, tmp, s.pflat)
	// The policy layer is the largest dense one: a GEMM over the batch.
	for b := 0; b < batch; b++ {
		copy(policy[b*c.PolicySize:][:c.PolicySize], n.pfcB)
	}
	gemm(batch, c.PolicySize, c.PolicyChannels*Squares, s.pflat, n.pfcT, policy, true)
	conv(vc, cur, tmp, true, nil)
	s.vflat = flatten(c.ValueChannels, tmp, s.vflat)
	s.vhid = grow(s.vhid, batch*c.ValueHidden)
	for b := 0; b < batch; b++ {
		copy(s.vhid[b*c.ValueHidden:][:c.ValueHidden], n.v1B)
	}
	// A GEMM over the batch, as the policy layer's (dense's one dot
	// product an output is latency-bound).
	gemm(batch, c.ValueHidden, c.ValueChannels*Squares, s.vflat, n.v1T, s.vhid, true)
	for i, v := range s.vhid {
		s.vhid[i] = max(v, 0)
	}
	dense(3, c.ValueHidden, n.v2W, n.v2B, s.vhid, wdl, false)
	return nil
}

// headConv is a head's 1×1 convolution with bias and ReLU on the kernel
// paths: one product over the batch's points (rows padded) into columns
// padded to 32, then bias and ReLU on the way to flat ([batch][ch][square],
// the dense layer's order), which it returns.
func (n *Net) headConv(fc *foldedConv, batch int, act, flat []float32) []float32 {
	s := &n.scratch
	points := batch * Squares
	rows, pad := n.kernel.padRows(points, fc.padOut), fc.padOut
	s.hc = grow(s.hc, rows*pad)
	if !Sgemm(rows, pad, fc.in, act, fc.in, 1, fc.wp, s.hc, pad, false) {
		panic("model: head convolution's padded shape not a kernel's") // NewNetKernel pads it
	}
	bias := fc.b[:fc.out]
	for b := 0; b < batch; b++ {
		for sq := 0; sq < Squares; sq++ {
			row := s.hc[(b*Squares+sq)*pad:][:fc.out]
			for o, v := range row {
				flat[(b*fc.out+o)*Squares+sq] = max(v+bias[o], 0)
			}
		}
	}
	return flat
}

// policyDense is the policy head's dense layer on the kernel paths: the
// flat policy convolution (rows rows, padded) times the padded weights,
// then the bias, into policy.
func (n *Net) policyDense(batch, rows int, policy []float32) {
	c, s := n.cfg, &n.scratch
	pin, pn := c.PolicyChannels*Squares, n.pfcN
	s.pout = grow(s.pout, rows*pn)
	if n.pfcPB != nil {
		if cap(s.pflatb) < rows*pin {
			s.pflatb = make([]uint16, rows*pin)
		}
		a := s.pflatb[:rows*pin]
		convertBF16(s.pflat[:rows*pin], a)
		kernelGemmBF16(rows, pn, pin, a, pin, n.pfcPB, s.pout, pn, false)
	} else if !Sgemm(rows, pn, pin, s.pflat, pin, 1, n.pfcP, s.pout, pn, false) {
		panic("model: policy layer's padded shape not a kernel's") // NewNetKernel pads it
	}
	for b := 0; b < batch; b++ {
		dst, src := policy[b*c.PolicySize:][:c.PolicySize], s.pout[b*pn:][:c.PolicySize]
		for o, v := range src {
			dst[o] = v + n.pfcB[o]
		}
	}
}

// valueDense is the value head's first dense layer on the kernel paths:
// the flat value convolution (rows rows, padded) times the padded
// weights, then the bias and ReLU, into vhid. A float32 kernel product:
// the dot-product loop it replaces cost a 4 × 32 network about a twentieth
// of its time.
func (n *Net) valueDense(batch, rows int) {
	c, s := n.cfg, &n.scratch
	vin, vn := c.ValueChannels*Squares, n.v1N
	s.vout = grow(s.vout, rows*vn)
	if !Sgemm(rows, vn, vin, s.vflat, vin, 1, n.v1T, s.vout, vn, false) {
		panic("model: value layer's padded shape not a kernel's") // NewNetKernel pads it
	}
	for b := 0; b < batch; b++ {
		dst, src := s.vhid[b*c.ValueHidden:][:c.ValueHidden], s.vout[b*vn:][:c.ValueHidden]
		for o, v := range src {
			dst[o] = max(v+n.v1B[o], 0)
		}
	}
}

// winogradProducts transforms a chunk of nb positions of act into V and
// computes the 16 products M_ξ = V_ξ · U_ξ (rows of V and m padded to
// tiles, the kernel's multiple) on the net's kernel path, falling back to
// the next path for shapes a kernel lacks.
func (n *Net) winogradProducts(fc *foldedConv, nb, tiles int, act, m []float32) {
	in, out := fc.in, fc.out
	s := &n.scratch
	v := s.wv[:16*tiles*in]
	if n.kernel == KernelBF16 && fc.wub != nil {
		vb := s.wvb[:16*tiles*in]
		winogradInputBF16(in, nb, tiles, act, vb, v, s.wz[:in])
		for xi := 0; xi < 16; xi++ {
			kernelGemmBF16(tiles, out, in, vb[xi*tiles*in:], in, fc.wub[xi*in*out:], m[xi*tiles*out:], out, false)
		}
		return
	}
	winogradInput(in, nb, tiles, act, v, s.wz[:in])
	for xi := 0; xi < 16; xi++ {
		vx, ux, mx := v[xi*tiles*in:], fc.wu[xi*in*out:], m[xi*tiles*out:]
		if n.kernel == KernelBLAS || !Sgemm(tiles, out, in, vx, in, 1, ux, mx, out, false) {
			gemm(tiles, out, in, vx, ux, mx, false)
		}
	}
}

// im2col3 lays out the 3×3 neighbourhoods (zero beyond the board) of in
// ([batch·90 points][ch]) as col ([batch·90 points][9 taps][ch]) so a 3×3
// convolution is one GEMM. A neighbourhood rank is three adjacent points,
// contiguous in this layout: one copy of 3·ch floats (two at the edges).
func im2col3(ch, batch int, in, col []float32) {
	for b := 0; b < batch; b++ {
		for r := 0; r < Ranks; r++ {
			for f := 0; f < Files; f++ {
				dst := col[((b*Squares+r*Files+f)*9)*ch:][:9*ch]
				for dy := -1; dy <= 1; dy++ {
					d := dst[(dy+1)*3*ch:][:3*ch]
					sr := r + dy
					if sr < 0 || sr >= Ranks {
						clear(d)
						continue
					}
					base := (b*Squares + sr*Files) * ch
					switch f {
					case 0:
						clear(d[:ch])
						copy(d[ch:], in[base:][:2*ch])
					case Files - 1:
						copy(d[:2*ch], in[base+(f-1)*ch:][:2*ch])
						clear(d[2*ch:])
					default:
						copy(d, in[base+(f-1)*ch:][:3*ch])
					}
				}
			}
		}
	}
}
