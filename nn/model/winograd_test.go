package model

import (
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"
)

// One tile through the three transforms equals the 2×2 outputs of a
// direct 3×3 correlation of its 4×4 patch.
func TestWinogradTile(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 100; trial++ {
		fc := foldedConv{out: 1, in: 1, k: 3, wt: make([]float32, 9)}
		for i := range fc.wt {
			fc.wt[i] = rng.Float32()*2 - 1
		}
		u := winogradWeights(&fc)
		var d [16][]float32
		var patch [4][4]float32
		for r := range 4 {
			for c := range 4 {
				patch[r][c] = rng.Float32()*2 - 1
				d[r*4+c] = []float32{patch[r][c]}
			}
		}
		v := make([]float32, 16)
		inputTile(1, &d, v, 1)
		m := make([]float32, 16)
		for xi := range m {
			m[xi] = v[xi] * u[xi]
		}
		for _, bias := range []float32{0, 0.25} {
			var y, sk [4][]float32
			for i := range y {
				y[i], sk[i] = make([]float32, 1), make([]float32, 1)
			}
			outputTile(1, m, 1, []float32{bias}, &y, &sk, -math.MaxFloat32)
			for r := range 2 {
				for c := range 2 {
					want := float64(bias)
					for dy := range 3 {
						for dx := range 3 {
							want += float64(fc.wt[dy*3+dx]) * float64(patch[r+dy][c+dx])
						}
					}
					if got := y[r*2+c][0]; math.Abs(float64(got)-want) > 1e-5 {
						t.Fatalf("trial %d: y[%d][%d] = %v, direct %v", trial, r, c, got, want)
					}
				}
			}
		}
	}
}

// The assembly tile transforms equal the Go ones: AVX2 (8 channels a
// step), AVX-512 (16), and the bf16 input transform is the Go one rounded.
func TestWinogradTileAsm(t *testing.T) {
	type transforms struct {
		name   string
		have   bool
		width  int
		input  func(blocks int, d *[16]*float32, v *float32, stride int)
		output func(blocks int, m *float32, stride int, bias *float32, y, s *[4]*float32, lo float32)
	}
	for _, tr := range []transforms{
		{"AVX2", haveAVX2, 8, inputTileAVX2, outputTileAVX2},
		{"AVX-512", haveAVX512, 16, inputTileAVX512, outputTileAVX512},
	} {
		if !tr.have {
			t.Logf("%s: not on this CPU", tr.name)
			continue
		}
		rng := rand.New(rand.NewPCG(8, uint64(tr.width)))
		ch, stride := 3*tr.width, 3*tr.width+16
		rnd := func(n int) []float32 {
			x := make([]float32, n)
			for i := range x {
				x[i] = rng.Float32()*2 - 1
			}
			return x
		}
		var d [16][]float32
		var dp [16]*float32
		for i := range d {
			d[i] = rnd(ch)
			dp[i] = &d[i][0]
		}
		v1, v2 := make([]float32, 16*stride), make([]float32, 16*stride)
		inputTile(ch, &d, v1, stride)
		tr.input(ch/tr.width, &dp, &v2[0], stride)
		for i := range v1 {
			if v1[i] != v2[i] {
				t.Fatalf("%s input: v[%d] Go %v, assembly %v", tr.name, i, v1[i], v2[i])
			}
		}
		if tr.width == 16 && haveBF16 {
			vb := make([]uint16, 16*stride)
			inputTileBF16(ch/16, &dp, &vb[0], stride)
			for i := range v1 {
				if vb[i] != toBF16(v1[i]) {
					t.Fatalf("bf16 input: v[%d] %#04x, the Go transform rounded %#04x", i, vb[i], toBF16(v1[i]))
				}
			}
		}
		m, bias := rnd(16*stride), rnd(ch)
		for _, lo := range []float32{0, -math.MaxFloat32} {
			var y1, y2, s [4][]float32
			var yp, sp [4]*float32
			for i := range y1 {
				y1[i], y2[i], s[i] = make([]float32, ch), make([]float32, ch), rnd(ch)
				yp[i], sp[i] = &y2[i][0], &s[i][0]
			}
			outputTile(ch, m, stride, bias, &y1, &s, lo)
			tr.output(ch/tr.width, &m[0], stride, &bias[0], &yp, &sp, lo)
			for i := range y1 {
				for k := range y1[i] {
					if math.Abs(float64(y1[i][k]-y2[i][k])) > 1e-6 {
						t.Fatalf("%s output lo %v: y[%d][%d] Go %v, assembly %v", tr.name, lo, i, k, y1[i][k], y2[i][k])
					}
				}
			}
		}
	}
}

// The Winograd forward pass agrees with the direct one (im2col + GEMM) on
// the yardstick shape with random batch norms, through OpenBLAS where it
// loads and, in a child process, through the Go kernel (PALACE_BLAS=off).
func TestWinogradMatchesDirect(t *testing.T) {
	cfg := Config{Planes: 80, PolicySize: 2581, Blocks: 6, Filters: 64, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 64}
	if testing.Short() {
		cfg.Blocks = 2
	}
	w, err := NewRandom(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	randomizeBN(w, rng)
	direct, err := NewNetKernel(w, KernelBLAS)
	if err != nil {
		t.Fatal(err)
	}
	direct.winograd = false
	t.Logf("GEMMs by %s", BLAS())
	// The float32 paths; the bf16 path's agreement is TestBF16Agreement's.
	for _, kernel := range []Kernel{KernelBLAS, KernelAVX512} {
		if !kernel.Supported() {
			t.Logf("kernel %v: not on this CPU", kernel)
			continue
		}
		wino, err := NewNetKernel(w, kernel)
		if err != nil {
			t.Fatal(err)
		}
		wino.winograd = true
		for _, batch := range []int{1, 3, 8, 32, 11} {
			input := make([]float32, batch*cfg.InputSize())
			for i := range input {
				if rng.IntN(3) == 0 {
					input[i] = 1
				}
			}
			pw, ww := make([]float32, batch*cfg.PolicySize), make([]float32, batch*3)
			pd, wd := make([]float32, batch*cfg.PolicySize), make([]float32, batch*3)
			if err := wino.Forward(batch, input, pw, ww); err != nil {
				t.Fatal(err)
			}
			if err := direct.Forward(batch, input, pd, wd); err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for i := range pd {
				worst = max(worst, math.Abs(float64(pw[i]-pd[i])))
				if math.Abs(float64(pw[i]-pd[i])) > 1e-4 {
					t.Fatalf("kernel %v batch %d: policy[%d] Winograd %v, direct %v", kernel, batch, i, pw[i], pd[i])
				}
			}
			for i := range wd {
				worst = max(worst, math.Abs(float64(ww[i]-wd[i])))
				if math.Abs(float64(ww[i]-wd[i])) > 1e-4 {
					t.Fatalf("kernel %v batch %d: wdl[%d] Winograd %v, direct %v", kernel, batch, i, ww[i], wd[i])
				}
			}
			t.Logf("kernel %v batch %d: largest difference %.2g", kernel, batch, worst)
		}
	}
	if BLAS() != "go" && os.Getenv("PALACE_BLAS") != "off" {
		args := []string{"-test.run=^(TestWinogradMatchesDirect|TestWinogradNoAllocs)$", "-test.v"}
		if testing.Short() {
			args = append(args, "-test.short")
		}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "PALACE_BLAS=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("with PALACE_BLAS=off: %v\n%s", err, out)
		}
		t.Logf("with PALACE_BLAS=off:\n%s", out)
	}
}

// Forward allocates nothing once its scratch has grown, either way. Only
// with the Go kernel: each OpenBLAS call through purego's reflect-based
// binding allocates (internal/openblas), so TestWinogradMatchesDirect runs
// this in a child process with PALACE_BLAS=off.
func TestWinogradNoAllocs(t *testing.T) {
	if BLAS() != "go" {
		t.Skip("calls through purego allocate; checked with PALACE_BLAS=off by TestWinogradMatchesDirect")
	}
	for _, cfg := range []Config{
		{Planes: 8, PolicySize: 30, Blocks: 1, Filters: 16, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 8},
		{Planes: 16, PolicySize: 70, Blocks: 1, Filters: 32, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 8},
	} {
		w, err := NewRandom(cfg, 4)
		if err != nil {
			t.Fatal(err)
		}
		for _, kernel := range []Kernel{KernelBLAS, KernelAVX512, KernelBF16} {
			if !kernel.Supported() {
				continue
			}
			for _, on := range []bool{true, false} {
				net, err := NewNetKernel(w, kernel)
				if err != nil {
					t.Fatal(err)
				}
				net.winograd = on
				for _, batch := range []int{1, 8, 32} {
					input := make([]float32, batch*cfg.InputSize())
					policy, wdl := make([]float32, batch*cfg.PolicySize), make([]float32, batch*3)
					net.Forward(batch, input, policy, wdl)
					if a := testing.AllocsPerRun(5, func() { net.Forward(batch, input, policy, wdl) }); a != 0 {
						t.Errorf("%d filters, kernel %v, winograd %v, batch %d: %v allocations per Forward", cfg.Filters, kernel, on, batch, a)
					}
				}
			}
		}
	}
}

// PALACE_WINOGRAD takes on or off; anything else is an error naming it,
// from NewNet and CheckEnv, not Winograd in silence (issue 47).
func TestWinogradEnvRefusesUnknown(t *testing.T) {
	cfg := Config{Planes: 80, PolicySize: 2581, Blocks: 1, Filters: 8, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}
	w, err := NewRandom(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PALACE_WINOGRAD", "garbage")
	const want = `model: PALACE_WINOGRAD="garbage": want on or off`
	if _, err := NewNet(w); err == nil || err.Error() != want {
		t.Errorf("NewNet: %v, want %q", err, want)
	}
	if err := CheckEnv(); err == nil || err.Error() != want {
		t.Errorf("CheckEnv: %v, want %q", err, want)
	}
	for v, on := range map[string]bool{"": true, "on": true, "off": false} {
		t.Setenv("PALACE_WINOGRAD", v)
		net, err := NewNet(w)
		if err != nil || net.winograd != on {
			t.Errorf("PALACE_WINOGRAD=%q: %v, winograd %v", v, err, net != nil && net.winograd)
		}
	}
}
