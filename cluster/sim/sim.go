// Package sim predicts a distributed run's throughput and its workers'
// busy share for more workers than one has, from job times measured on
// the workers one has (issue 46): a discrete-event simulation of the
// queue, the workers, the trainer and the gatekeeper.
//
// Two modes. Exact is today's `palace run --distributed`: each generation
// plays its self-play blocks, then the trainer trains while the workers
// wait, then the gate's pairs are played while the trainer waits. Async
// is KataGo's and lc0's shape: workers always play, gate pairs first; the
// trainer trains whenever the samples it has trained are fewer than the
// config's samples per position times the positions received, so it
// waits only when data is short, and when positions come faster than it
// can train them, fewer samples go to each (the window grows); it makes a
// candidate after each generation's worth of samples, and the gatekeeper
// tests the newest candidate waiting whenever no gate is being played.
//
// Job times are drawn from a lognormal with the mean and coefficient of
// variation given (both measured), so that a generation's slowest block,
// which the exact mode waits for, is in the figures.
package sim

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Modes.
const (
	Exact = "exact"
	Async = "async"
)

// Params are a simulated run: its shape, and the job times measured.
type Params struct {
	Mode    string
	Workers int
	// A self-play block: seconds a worker takes (mean, and the
	// coefficient of variation), and the positions it makes.
	BlockSeconds, BlockCV float64
	BlockPositions        float64
	// A generation's self-play blocks (the config's games over a block's).
	BlocksPerGeneration int
	// The trainer: samples a second it trains, samples per position the
	// config asks, and the positions the window needs before training.
	TrainRate          float64
	SamplesPerPosition float64
	MinPositions       float64
	// The gate: pairs a candidate's match plays (the mean, the sequential
	// test's early stops counted), seconds a pair takes (mean, CV); 0
	// pairs: ungated.
	GatePairs           int
	PairSeconds, PairCV float64
	Duration            float64 // simulated seconds
	Seed                uint64
}

// Result is what the simulated run did.
type Result struct {
	Params
	Seconds            float64 // simulated wall-clock (Duration, or the last generation's end)
	Positions          float64 // self-play positions made
	PositionsPerSecond float64
	// WorkerBusy is the share of the workers' time spent playing (blocks
	// and pairs); TrainerBusy the trainer's time training.
	WorkerBusy, TrainerBusy float64
	SamplesPerSecond        float64 // samples trained a second
	// AchievedRatio is the samples trained per position received.
	AchievedRatio float64
	Candidates    int
	Gates         int // gate matches played to the end
	// MaxQueue is the most jobs waiting at once (async: gate pairs).
	MaxQueue int
}

// Validate checks p.
func (p Params) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("sim: "+format, a...)) }
	if p.Mode != Exact && p.Mode != Async {
		bad("mode %q, want %s or %s", p.Mode, Exact, Async)
	}
	if p.Workers < 1 {
		bad("workers %d, want at least 1", p.Workers)
	}
	if !(p.BlockSeconds > 0) || !(p.BlockPositions > 0) || p.BlocksPerGeneration < 1 {
		bad("a block of %v s and %v positions, %d a generation: want all above 0", p.BlockSeconds, p.BlockPositions, p.BlocksPerGeneration)
	}
	if !(p.TrainRate > 0) || !(p.SamplesPerPosition > 0) || p.MinPositions < 0 {
		bad("trainer rate %v samples/s, %v samples a position, min %v positions: want rate and ratio above 0", p.TrainRate, p.SamplesPerPosition, p.MinPositions)
	}
	if p.GatePairs < 0 || (p.GatePairs > 0 && !(p.PairSeconds > 0)) {
		bad("a gate of %d pairs of %v s", p.GatePairs, p.PairSeconds)
	}
	if p.BlockCV < 0 || p.PairCV < 0 {
		bad("coefficients of variation %v, %v: want 0 or more", p.BlockCV, p.PairCV)
	}
	if !(p.Duration > 0) {
		bad("duration %v s, want above 0", p.Duration)
	}
	return errors.Join(errs...)
}

// Run simulates p.
func Run(p Params) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	s := &state{p: p, rng: rand.New(rand.NewPCG(p.Seed, 0x9e3779b97f4a7c15))}
	if p.Mode == Exact {
		s.exact()
	} else {
		s.async()
	}
	r := Result{Params: p, Seconds: s.now, Positions: s.positions, Candidates: s.candidates, Gates: s.gates, MaxQueue: s.maxQueue}
	if s.now > 0 {
		r.PositionsPerSecond = s.positions / s.now
		r.WorkerBusy = s.workerBusy / (s.now * float64(p.Workers))
		r.TrainerBusy = s.trained / p.TrainRate / s.now
		r.SamplesPerSecond = s.trained / s.now
	}
	if s.positions > 0 {
		r.AchievedRatio = s.trained / s.positions
	}
	return r, nil
}

type state struct {
	p   Params
	rng *rand.Rand
	now float64
	// Totals: positions received, samples trained, the workers' busy
	// seconds (counted for the part of each job done by now).
	positions, trained, workerBusy float64
	candidates, gates, maxQueue    int
}

// draw is a job's time: lognormal with mean m and coefficient of
// variation cv.
func (s *state) draw(m, cv float64) float64 {
	if cv == 0 {
		return m
	}
	sigma2 := math.Log1p(cv * cv)
	return m * math.Exp(math.Sqrt(sigma2)*s.rng.NormFloat64()-sigma2/2)
}

// exact plays generations one stage at a time until the duration: the
// workers idle while the trainer trains, the trainer while they play.
func (s *state) exact() {
	p := s.p
	free := make([]float64, p.Workers)
	for s.now < p.Duration {
		s.now += s.stage(free, p.BlocksPerGeneration, p.BlockSeconds, p.BlockCV)
		gen := float64(p.BlocksPerGeneration) * p.BlockPositions
		s.positions += gen
		if s.positions < p.MinPositions {
			continue // the window is not full yet: more self-play
		}
		// Training: the generation's samples.
		samples := gen * p.SamplesPerPosition
		s.trained += samples
		s.now += samples / p.TrainRate
		s.candidates++
		if p.GatePairs == 0 {
			continue
		}
		s.now += s.stage(free, p.GatePairs, p.PairSeconds, p.PairCV)
		s.gates++
	}
}

// stage plays a stage's n jobs, each to the first free of the workers
// (free: their busy time within the stage, cleared first), and returns
// its length: its slowest worker's.
func (s *state) stage(free []float64, n int, mean, cv float64) float64 {
	clear(free)
	for range n {
		w := earliest(free)
		d := s.draw(mean, cv)
		free[w] += d
		s.workerBusy += d
	}
	return slowest(free)
}

func earliest(free []float64) int {
	w := 0
	for i, t := range free {
		if t < free[w] {
			w = i
		}
	}
	return w
}

func slowest(free []float64) float64 {
	m := 0.0
	for _, t := range free {
		m = max(m, t)
	}
	return m
}

// A job a worker holds: when it ends, and what it is.
type job struct {
	end      float64
	worker   int
	pair     bool
	duration float64
}

type jobs []job

func (h jobs) Len() int { return len(h) }
func (h jobs) Less(i, j int) bool {
	return h[i].end < h[j].end || h[i].end == h[j].end && h[i].worker < h[j].worker
}
func (h jobs) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *jobs) Push(x any)   { *h = append(*h, x.(job)) }
func (h *jobs) Pop() any {
	old := *h
	j := old[len(old)-1]
	*h = old[:len(old)-1]
	return j
}

// async runs the workers, the trainer and the gatekeeper at once until the
// duration. Events are the workers' job ends and the trainer's candidates;
// between events the trainer trains at its rate while its samples trail
// the ratio times the positions received.
func (s *state) async() {
	p := s.p
	perCandidate := float64(p.BlocksPerGeneration) * p.BlockPositions * p.SamplesPerPosition
	nextCandidate := perCandidate
	pairsQueued, pairsLeft := 0, 0 // the gate being played: pairs not yet taken, not yet done
	waiting := false               // a candidate waits for the gate
	var running jobs
	start := func(w int) {
		j := job{worker: w}
		if pairsQueued > 0 {
			pairsQueued--
			j.pair, j.duration = true, s.draw(p.PairSeconds, p.PairCV)
		} else {
			j.duration = s.draw(p.BlockSeconds, p.BlockCV)
		}
		j.end = s.now + j.duration
		heap.Push(&running, j)
	}
	startGate := func() {
		pairsQueued, pairsLeft, waiting = p.GatePairs, p.GatePairs, false
		s.maxQueue = max(s.maxQueue, pairsQueued)
	}
	for w := range p.Workers {
		start(w)
	}
	for s.now < p.Duration {
		// The next event: a job's end, or the trainer reaching its next
		// candidate at full speed (within what the positions allow).
		next := min(running[0].end, p.Duration)
		allowed := 0.0
		if s.positions >= p.MinPositions {
			allowed = s.positions * p.SamplesPerPosition
		}
		target := min(allowed, nextCandidate)
		candidateAt := math.Inf(1)
		if s.trained < target && target == nextCandidate {
			candidateAt = s.now + (target-s.trained)/p.TrainRate
		}
		t := min(next, candidateAt)
		switch {
		case t == candidateAt:
			s.trained = nextCandidate // exactly: no rounding short of it
		case s.trained < allowed:
			s.trained = min(allowed, s.trained+(t-s.now)*p.TrainRate)
		}
		s.now = t
		if s.trained >= nextCandidate {
			s.candidates++
			nextCandidate += perCandidate
			if p.GatePairs > 0 {
				if pairsLeft == 0 {
					startGate()
				} else {
					waiting = true // the newest waits; an older waiting one is superseded
				}
			}
		}
		if s.now >= p.Duration {
			break
		}
		for len(running) > 0 && running[0].end <= s.now {
			j := heap.Pop(&running).(job)
			s.workerBusy += j.duration
			if j.pair {
				if pairsLeft--; pairsLeft == 0 {
					s.gates++
					if waiting {
						startGate()
					}
				}
			} else {
				s.positions += p.BlockPositions
			}
			start(j.worker)
		}
	}
	// The jobs in hand at the end count for the part played.
	for _, j := range running {
		s.workerBusy += j.duration - (j.end - s.now)
	}
}
