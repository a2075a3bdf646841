package sim

import (
	"math"
	"strings"
	"testing"
)

func base(mode string, workers int) Params {
	return Params{Mode: mode, Workers: workers, BlockSeconds: 60, BlockPositions: 3000, BlocksPerGeneration: 4,
		TrainRate: 1000, SamplesPerPosition: 2, GatePairs: 30, PairSeconds: 20, Duration: 36000, Seed: 1}
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.4g, want %.4g ± %.2g", what, got, want, tol)
	}
}

// The exact mode with fixed job times is arithmetic: one worker plays a
// generation's 4 blocks (240 s), the trainer trains its 24,000 samples
// (24 s), the worker plays the gate's 30 pairs (600 s).
func TestExactOneWorker(t *testing.T) {
	r, err := Run(base(Exact, 1))
	if err != nil {
		t.Fatal(err)
	}
	gen := 240.0 + 24 + 600
	near(t, "busy share", r.WorkerBusy, 840/gen, 1e-9)
	near(t, "trainer busy", r.TrainerBusy, 24/gen, 1e-9)
	near(t, "positions/s", r.PositionsPerSecond, 12000/gen, 1e-9)
	near(t, "samples per position", r.AchievedRatio, 2, 1e-9)
	if r.Candidates != r.Gates || r.Candidates != int(math.Ceil(36000/gen)) {
		t.Errorf("%d candidates, %d gates, want %v each", r.Candidates, r.Gates, math.Ceil(36000/gen))
	}
}

// With more workers than a generation has blocks, the exact mode's
// workers mostly wait: 8 workers, 4 blocks and 30 pairs a generation.
func TestExactManyWorkersIdle(t *testing.T) {
	r, err := Run(base(Exact, 8))
	if err != nil {
		t.Fatal(err)
	}
	gen := 60.0 + 24 + 4*20 // one round of blocks, training, ⌈30/8⌉ rounds of pairs
	near(t, "busy share", r.WorkerBusy, (240+600)/(8*gen), 1e-9)
}

// The async mode keeps every worker playing; with a trainer to spare it
// trains the config's samples per position, and positions come at the
// workers' full rate less the gates' share.
func TestAsyncWorkersAlwaysBusy(t *testing.T) {
	p := base(Async, 4)
	p.TrainRate = 1e6
	p.GatePairs = 0
	r, err := Run(p)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "busy share", r.WorkerBusy, 1, 1e-9)
	near(t, "positions/s", r.PositionsPerSecond, 4*3000/60.0, 4*3000/60.0*0.01)
	near(t, "samples per position", r.AchievedRatio, 2, 0.01)
	if r.TrainerBusy > 0.01 {
		t.Errorf("a trainer 1,000 times too fast is busy %.3g of the time", r.TrainerBusy)
	}
	if want := int(r.Positions * 2 / 24000); r.Candidates < want-1 || r.Candidates > want {
		t.Errorf("%d candidates for %v positions, want %d", r.Candidates, r.Positions, want)
	}
}

// When positions come faster than the trainer can train them at the
// ratio, it trains all the time and fewer samples go to each position:
// 8 workers make 400 positions a second, 1,000 samples a second train 2.5
// each at most (the ratio asks 2: not yet bound); 32 make 1,600, which get
// 0.625 each.
func TestAsyncTrainerBound(t *testing.T) {
	for _, c := range []struct {
		workers     int
		ratio, busy float64
	}{{8, 2, 0.8}, {32, 0.625, 1}} {
		p := base(Async, c.workers)
		p.GatePairs = 0
		p.BlockCV = 0.3
		r, err := Run(p)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "samples per position", r.AchievedRatio, c.ratio, c.ratio*0.03)
		near(t, "trainer busy", r.TrainerBusy, c.busy, 0.03)
		near(t, "worker busy", r.WorkerBusy, 1, 1e-9)
	}
}

// Gated, the async mode still keeps the workers playing (pairs first),
// plays gates as candidates come, and a run repeats from its seed.
func TestAsyncGated(t *testing.T) {
	p := base(Async, 2)
	p.BlockCV, p.PairCV = 0.3, 0.3
	r, err := Run(p)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "busy share", r.WorkerBusy, 1, 1e-9)
	if r.Gates == 0 || r.Gates > r.Candidates || r.MaxQueue != 30 {
		t.Errorf("%d gates for %d candidates, queue up to %d", r.Gates, r.Candidates, r.MaxQueue)
	}
	again, _ := Run(p)
	if again != r {
		t.Errorf("the same seed gave %+v, then %+v", r, again)
	}
	exact, _ := Run(func() Params { q := p; q.Mode = Exact; return q }())
	if exact.PositionsPerSecond >= r.PositionsPerSecond {
		t.Errorf("exact %.1f positions/s, async %.1f: async should make more", exact.PositionsPerSecond, r.PositionsPerSecond)
	}
}

func TestValidate(t *testing.T) {
	p := base("fast", 0)
	p.Duration = 0
	err := p.Validate()
	for _, want := range []string{`mode "fast"`, "workers 0", "duration 0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	if _, err := Run(p); err == nil {
		t.Error("Run took invalid parameters")
	}
}
