package model

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// The AVX-512 kernels agree with the Go kernel on every shape they take:
// row and column blocks, strided A and C, k from 1, with and without
// accumulation.
func TestKernelGemmMatchesGoKernel(t *testing.T) {
	if !KernelAVX512.Supported() {
		t.Skip("no AVX-512 here: the kernels do not run")
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for _, d := range [][3]int{{12, 32, 1}, {6, 64, 64}, {12, 64, 64}, {24, 96, 80}, {204, 64, 64}, {36, 32, 33}, {6, 128, 7}, {48, 160, 64}} {
		m, n, k := d[0], d[1], d[2]
		lda, ldc := k+3, n+5
		a := make([]float32, m*lda)
		for i := range a {
			a[i] = rng.Float32()*2 - 1
		}
		b := make([]float32, k*n)
		for i := range b {
			b[i] = rng.Float32()*2 - 1
		}
		for _, acc := range []bool{false, true} {
			c := make([]float32, m*ldc)
			want := make([]float32, m*n)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					c[i*ldc+j] = float32((i+j)%5) - 2
					if acc {
						want[i*n+j] = c[i*ldc+j]
					}
				}
			}
			dense := make([]float32, m*k)
			for i := 0; i < m; i++ {
				copy(dense[i*k:][:k], a[i*lda:])
			}
			goSgemm(m, n, k, dense, b, want)
			// A stored transposed, as training's channel-major
			// activations are: the same product through its strides.
			ldt := m + 7
			at := make([]float32, k*ldt)
			for i := 0; i < m; i++ {
				for p := 0; p < k; p++ {
					at[p*ldt+i] = dense[i*k+p]
				}
			}
			ct := make([]float32, len(c))
			copy(ct, c)
			if !Sgemm(m, n, k, at, 1, ldt, b, ct, ldc, acc) {
				t.Fatalf("%v: the kernel refused the shape transposed", d)
			}
			if !Sgemm(m, n, k, a, lda, 1, b, c, ldc, acc) {
				t.Fatalf("%v: the kernel refused the shape", d)
			}
			for i := range c {
				if c[i] != ct[i] {
					t.Fatalf("%v acc %v: c[%d] %v from A, %v from Aᵀ", d, acc, i, c[i], ct[i])
				}
			}
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					if got := c[i*ldc+j]; math.Abs(float64(got-want[i*n+j])) > 1e-4*float64(k) {
						t.Fatalf("%v acc %v: c[%d][%d] = %v, want %v", d, acc, i, j, got, want[i*n+j])
					}
				}
				for j := n; j < ldc && i < m-1; j++ {
					if c[i*ldc+j] != 0 {
						t.Fatalf("%v: wrote past row %d's %d columns", d, i, n)
					}
				}
			}
		}
	}
	if Sgemm(6, 32, 4, make([]float32, 6*4), 4, 1, make([]float32, 4*32), make([]float32, 6*32), 32, false) {
		t.Error("6 rows of 32 columns: the kernel took a row count it cannot do")
	}
	if Sgemm(6, 96, 4, make([]float32, 6*4), 4, 1, make([]float32, 4*96), make([]float32, 6*96), 96, false) {
		t.Error("6 rows of 96 columns: the kernel took a row count it cannot do")
	}
}

// The bf16 kernels compute exactly the products of the bf16-rounded
// operands, summed in float32: checked against float64 sums of the same
// rounded values, on the shapes they take.
func TestKernelGemmBF16MatchesRoundedProducts(t *testing.T) {
	if !KernelBF16.Supported() {
		t.Skip("no AVX-512 BF16 here: the bf16 kernels do not run")
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for _, d := range [][3]int{{12, 32, 2}, {6, 64, 64}, {12, 64, 64}, {24, 96, 80}, {204, 64, 64}, {36, 32, 34}, {6, 128, 8}, {48, 160, 64}, {6, 2624, 360}} {
		m, n, k := d[0], d[1], d[2]
		lda, ldc := k+4, n+5
		af := make([]float32, m*lda)
		for i := range af {
			af[i] = rng.Float32()*2 - 1
		}
		a := make([]uint16, len(af))
		for i, v := range af {
			a[i] = toBF16(v)
		}
		bf := make([]float32, k*n)
		for i := range bf {
			bf[i] = rng.Float32()*2 - 1
		}
		b := packBF16(k, n, bf)
		for _, acc := range []bool{false, true} {
			c := make([]float32, m*ldc)
			for i := range c {
				c[i] = float32(i%5) - 2
			}
			want := make([]float64, m*n)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					if acc {
						want[i*n+j] = float64(c[i*ldc+j])
					}
					for p := 0; p < k; p++ {
						want[i*n+j] += float64(fromBF16(a[i*lda+p])) * float64(fromBF16(toBF16(bf[p*n+j])))
					}
				}
			}
			if !kernelGemmBF16(m, n, k, a, lda, b, c, ldc, acc) {
				t.Fatalf("%v: the bf16 kernel refused the shape", d)
			}
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					if got := c[i*ldc+j]; math.Abs(float64(got)-want[i*n+j]) > 2e-6*float64(k) {
						t.Fatalf("%v acc %v: c[%d][%d] = %v, want %v", d, acc, i, j, got, want[i*n+j])
					}
				}
				if i < m-1 {
					for j := n; j < ldc; j++ {
						if c[i*ldc+j] != float32((i*ldc+j)%5)-2 {
							t.Fatalf("%v: wrote past row %d's %d columns", d, i, n)
						}
					}
				}
			}
		}
	}
	if kernelGemmBF16(12, 32, 3, make([]uint16, 12*4), 4, make([]uint16, 4*32), make([]float32, 12*32), 32, false) {
		t.Error("odd k: the bf16 kernel took a depth it cannot do")
	}
}

// An A laid out as B is ([k/2][m][2], PairBF16's rows, as training lays
// out its activations) gives the same products as the row-major A, and
// PairBF16 interleaves as its scalar tail does.
func TestGemmBF16PackedA(t *testing.T) {
	if !KernelBF16.Supported() {
		t.Skip("no AVX-512 BF16 here: the bf16 kernels do not run")
	}
	rng := rand.New(rand.NewPCG(6, 6))
	for _, d := range [][3]int{{12, 32, 2}, {720, 64, 576}, {725, 64, 720}, {13, 32, 34}} {
		m, n, k := d[0], d[1], d[2]
		pad := PadRows(m, n)
		af := make([]float32, k*m) // Aᵀ: [k][m]
		for i := range af {
			af[i] = rng.Float32()*2 - 1
		}
		packed := make([]uint16, k*m+2*(pad-m)) // the padded rows read past the last pair row
		for q := 0; q < k/2; q++ {
			PairBF16(af[2*q*m:][:m], af[(2*q+1)*m:][:m], packed[2*q*m:])
		}
		rowMajor := make([]uint16, pad*k)
		for i := 0; i < m; i++ {
			for p := 0; p < k; p++ {
				rowMajor[i*k+p] = toBF16(af[p*m+i])
			}
		}
		bf := make([]float32, k*n)
		for i := range bf {
			bf[i] = rng.Float32()*2 - 1
		}
		b := packBF16(k, n, bf)
		want, got := make([]float32, pad*n), make([]float32, pad*n)
		if !GemmBF16(pad, n, k, rowMajor, k, 2, b, want, n, false) || !GemmBF16(pad, n, k, packed, 2, 2*m, b, got, n, false) {
			t.Fatalf("%v: the bf16 kernel refused the shape", d)
		}
		for i := 0; i < m*n; i++ {
			if got[i] != want[i] {
				t.Fatalf("%v: c[%d][%d] = %v from the packed A, %v from the row-major one", d, i/n, i%n, got[i], want[i])
			}
		}
	}
	lo, hi := make([]float32, 37), make([]float32, 37)
	for i := range lo {
		lo[i], hi[i] = rng.Float32()*4-2, rng.Float32()*4-2
	}
	dst := make([]uint16, 2*len(lo))
	PairBF16(lo, hi, dst)
	for j := range lo {
		if dst[2*j] != toBF16(lo[j]) || dst[2*j+1] != toBF16(hi[j]) {
			t.Fatalf("pair %d: %#04x %#04x, want %#04x %#04x", j, dst[2*j], dst[2*j+1], toBF16(lo[j]), toBF16(hi[j]))
		}
	}
	// PairRowsBF16 is PairBF16 of each two consecutive rows, for rows of
	// whole blocks of 16 and not.
	for _, n := range []int{64, 37} {
		const pairs = 5
		src := make([]float32, 2*pairs*n)
		for i := range src {
			src[i] = rng.Float32()*4 - 2
		}
		got, want := make([]uint16, len(src)), make([]uint16, len(src))
		PairRowsBF16(pairs, n, src, got)
		for j := 0; j < pairs; j++ {
			PairBF16(src[2*j*n:][:n], src[(2*j+1)*n:][:n], want[2*j*n:])
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("PairRowsBF16, rows of %d: value %d is %#04x, want %#04x", n, i, got[i], want[i])
			}
		}
	}
}

// The conversion instruction and toBF16 round alike: ties to even,
// subnormals, infinities, the largest finite values.
func TestConvertBF16MatchesToBF16(t *testing.T) {
	vals := []float32{0, -0.0, 1, -1, 1.00390625, 1.01171875, 1.005859375, 3.1415927, 1e-40, -1e-40,
		float32(math.Inf(1)), float32(math.Inf(-1)), math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32}
	rng := rand.New(rand.NewPCG(5, 5))
	for len(vals)%16 != 0 || len(vals) < 4096 {
		vals = append(vals, math.Float32frombits(rng.Uint32()&0xff7fffff)) // no NaNs
	}
	for i, v := range vals {
		if got := fromBF16(toBF16(v)); math.Abs(float64(v)) >= 0x1p-126 && math.Abs(float64(v)) < 0x1.fefp127 && math.Abs(float64(got-v)) > math.Abs(float64(v))/256 {
			t.Fatalf("value %d: %v rounds to %v", i, v, got)
		}
	}
	if !KernelBF16.Supported() {
		t.Skip("no AVX-512 BF16 here: only toBF16 checked")
	}
	got := make([]uint16, len(vals))
	convertBF16(vals[:len(vals)-5], got) // a tail of 11: toBF16's
	convertBF16(vals[len(vals)-5:], got[len(vals)-5:])
	for i, v := range vals {
		if got[i] != toBF16(v) {
			t.Fatalf("value %d (%v, %#08x): VCVTNEPS2BF16 gives %#04x, toBF16 %#04x", i, v, math.Float32bits(v), got[i], toBF16(v))
		}
	}
}

// PALACE_KERNEL's values: auto is the best path, a path the CPU lacks and
// an unknown name are errors that say what is possible.
func TestParseKernel(t *testing.T) {
	for _, s := range []string{"", "auto"} {
		if k, err := ParseKernel(s); err != nil || k != BestKernel() {
			t.Errorf("%q: %v, %v; want %v", s, k, err, BestKernel())
		}
	}
	if k, err := ParseKernel("off"); err != nil || k != KernelBLAS {
		t.Errorf("off: %v, %v", k, err)
	}
	for _, k := range []Kernel{KernelBLAS, KernelAVX512, KernelBF16} {
		got, err := ParseKernel(k.String())
		switch {
		case k.Supported() && (err != nil || got != k):
			t.Errorf("%v: %v, %v", k, got, err)
		case !k.Supported() && (err == nil || !strings.Contains(err.Error(), "needs a CPU with")):
			t.Errorf("%v on a CPU without it: %v", k, err)
		}
	}
	if _, err := ParseKernel("fp16"); err == nil || !strings.Contains(err.Error(), `unknown kernel "fp16"`) {
		t.Errorf("fp16: %v", err)
	}
	t.Setenv("PALACE_KERNEL", "nope")
	if _, err := NewNet(&Weights{}); err == nil || !strings.Contains(err.Error(), "PALACE_KERNEL") {
		t.Errorf("PALACE_KERNEL=nope: NewNet said %v", err)
	}
}

// On every kernel path a position's outputs do not depend on the batch it
// is evaluated in, nor on its place there: self-play and the cluster
// replay games exactly (selfplay's package doc).
func TestKernelBatchIndependent(t *testing.T) {
	for _, cfg := range []Config{
		{Planes: 16, PolicySize: 130, Blocks: 1, Filters: 64, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 8},
		{Planes: 16, PolicySize: 70, Blocks: 2, Filters: 32, PolicyChannels: 3, ValueChannels: 1, ValueHidden: 5},
	} {
		w, err := NewRandom(cfg, 7)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(6, 7))
		const batch = 19
		input := make([]float32, batch*cfg.InputSize())
		for i := range input {
			if rng.IntN(3) == 0 {
				input[i] = 1
			}
		}
		for _, kernel := range []Kernel{KernelAVX512, KernelBF16} {
			if !kernel.Supported() {
				continue
			}
			net, err := NewNetKernel(w, kernel)
			if err != nil {
				t.Fatal(err)
			}
			policy, wdl := make([]float32, batch*cfg.PolicySize), make([]float32, batch*3)
			if err := net.Forward(batch, input, policy, wdl); err != nil {
				t.Fatal(err)
			}
			for _, b := range []int{0, 7, 18} {
				p1, w1 := make([]float32, cfg.PolicySize), make([]float32, 3)
				if err := net.Forward(1, input[b*cfg.InputSize():][:cfg.InputSize()], p1, w1); err != nil {
					t.Fatal(err)
				}
				for i, v := range p1 {
					if v != policy[b*cfg.PolicySize+i] {
						t.Fatalf("%d filters, %v: position %d's policy[%d] is %v alone, %v in a batch of %d", cfg.Filters, kernel, b, i, v, policy[b*cfg.PolicySize+i], batch)
					}
				}
				for i, v := range w1 {
					if v != wdl[b*3+i] {
						t.Fatalf("%d filters, %v: position %d's wdl[%d] is %v alone, %v in a batch", cfg.Filters, kernel, b, i, v, wdl[b*3+i])
					}
				}
			}
		}
	}
}
