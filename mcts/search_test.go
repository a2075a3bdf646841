package mcts

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
)

func TestParamsValidate(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*Params){
		"Mode":             func(p *Params) { p.Mode = 7 },
		"Simulations":      func(p *Params) { p.Simulations = 0 },
		"CheapSimulations": func(p *Params) { p.CheapSimulations = p.Simulations + 1 },
		"FullFraction":     func(p *Params) { p.FullFraction = math.NaN() },
		"CPuctInit":        func(p *Params) { p.CPuctInit = 0 },
		"CPuctBase":        func(p *Params) { p.CPuctBase = -1 },
		"FPUReduction":     func(p *Params) { p.FPUReduction = math.Inf(1) },
		"NoiseFraction":    func(p *Params) { p.NoiseFraction = 1.5 },
		"DirichletTotal":   func(p *Params) { p.DirichletTotal = 0 },
		"GumbelK":          func(p *Params) { p.GumbelK = 0 },
		"CScale":           func(p *Params) { p.CScale = 0 },
		"Temperature":      func(p *Params) { p.Temperature = -1 },
		"LeavesPerEval":    func(p *Params) { p.LeavesPerEval = 0 },
		"VirtualLoss":      func(p *Params) { p.VirtualLoss = 2 },
		"DrawScore":        func(p *Params) { p.DrawScore = -1.5 },
		"MaxNodes":         func(p *Params) { p.MaxNodes = 10 },
	} {
		p := DefaultParams()
		change(&p)
		err := p.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), "mcts: "+name+" ") {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := New(p, uniform()); err == nil {
			t.Errorf("%s: New accepted bad params", name)
		}
	}
	if _, err := New(DefaultParams(), nil); err == nil {
		t.Error("New accepted a nil evaluator")
	}
	if _, err := New(DefaultParams(), nn.NewUniform(10, encode.PolicySize())); err == nil {
		t.Error("New accepted an evaluator of the wrong input size")
	}
}

func TestTemperatureSchedule(t *testing.T) {
	p := DefaultParams() // AlphaZero: 1 for 30 plies, then 0
	if p.TemperatureAt(0) != 1 || p.TemperatureAt(29) != 1 || p.TemperatureAt(30) != 0 {
		t.Errorf("step schedule: %v %v %v", p.TemperatureAt(0), p.TemperatureAt(29), p.TemperatureAt(30))
	}
	p.Temperature, p.TemperatureFinal, p.TemperatureHalfLife, p.TemperaturePlies = 0.8, 0.2, 10, 0
	if got := p.TemperatureAt(10); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("half-life schedule at one half-life: %v, want 0.5", got)
	}
}

// failing is an evaluator whose backend fails, or answers nonsense.
type failing struct {
	nn.Evaluator
	calls, failAt int
	nan           bool
}

var errBackend = errors.New("backend down")

func (f *failing) Evaluate(in []nn.Input, out []nn.Output) error {
	f.calls++
	if f.calls < f.failAt {
		return f.Evaluator.Evaluate(in, out)
	}
	if f.nan {
		_ = f.Evaluator.Evaluate(in, out)
		out[0].WDL[0] = float32(math.NaN())
		return nil
	}
	return errBackend
}

// Errors come back wrapped, the game is left as it was, and the search
// recovers.
func TestRunErrors(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	over := newGame(t, rs, "3k5/R8/9/8p/9/9/9/9/9/1R2K4 w - - 0 1")
	over.Play(rules.NewMove(rules.SquareAt(1, 0), rules.SquareAt(1, 9)))
	s := newSearch(t, DefaultParams(), uniform())
	if _, err := s.Run(over); !errors.Is(err, ErrGameOver) {
		t.Errorf("finished game: %v", err)
	}
	for _, nan := range []bool{false, true} {
		f := &failing{Evaluator: uniform(), failAt: 5, nan: nan}
		p := DefaultParams()
		p.Simulations, p.CheapSimulations = 50, 0
		s := newSearch(t, p, f)
		g := newGame(t, rs, rs.StartFEN())
		_, err := s.Run(g)
		switch {
		case nan && !errors.Is(err, ErrBadOutput):
			t.Errorf("NaN output: %v", err)
		case !nan && !errors.Is(err, errBackend):
			t.Errorf("backend error: %v", err)
		case err == nil || !strings.HasPrefix(err.Error(), "mcts: "):
			t.Errorf("error %v", err)
		}
		if g.Ply() != 0 || g.Position().FEN() != newGame(t, rs, rs.StartFEN()).Position().FEN() {
			t.Error("the failed search left the game changed")
		}
		f.failAt = math.MaxInt
		r, err := s.Run(g)
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, g, &r)
	}
}

// playSequence plays n moves of a game by search and returns the results.
func playSequence(t *testing.T, p Params, ev nn.Evaluator, base string, n int) []Result {
	rs := rules.MustPreset(base)
	g := newGame(t, rs, rs.StartFEN())
	s := newSearch(t, p, ev)
	var out []Result
	for range n {
		if g.Result().Over() {
			break
		}
		r, err := s.Run(g)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
		g.Play(r.Best)
	}
	return out
}

// The same seed, network and positions give the same results; another seed
// gives other ones.
func TestDeterminism(t *testing.T) {
	for _, mode := range []Mode{PUCT, Gumbel} {
		for _, leaves := range []int{1, 8} {
			p := DefaultParams()
			p.Mode, p.LeavesPerEval, p.Simulations = mode, leaves, 64
			p.Seed = 42
			a := playSequence(t, p, random(3), "janggi", 12)
			b := playSequence(t, p, random(3), "janggi", 12)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%v, %d leaves: the same seed gave different results", mode, leaves)
			}
			p.Seed = 43
			c := playSequence(t, p, random(3), "janggi", 12)
			if reflect.DeepEqual(a, c) {
				t.Errorf("%v, %d leaves: another seed gave the same results", mode, leaves)
			}
		}
	}
}

// Root noise changes the root's priors during the search and nothing else:
// every other node's priors are the network's, the Result's Prior is the
// network's, and the next search of the position starts from them again.
func TestNoiseOnlyAtRoot(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	g := newGame(t, rs, xiangqiMiddlegame)
	ev := random(5)
	p := DefaultParams()
	p.Mode, p.Simulations, p.CheapSimulations = PUCT, 300, 50
	s := newSearch(t, p, ev)
	var r Result
	if err := s.RunWith(g, RunOptions{Budget: BudgetFull}, &r); err != nil {
		t.Fatal(err)
	}
	net := evaluate(t, ev, g)
	for j := range r.Prior {
		if math.Abs(float64(r.Prior[j]-net[j])) > 1e-6 {
			t.Fatalf("Result.Prior[%d] = %v, network %v", j, r.Prior[j], net[j])
		}
	}
	rootKids := s.t.kids(s.t.root)
	changed := 0
	for j := range rootKids {
		if math.Abs(float64(rootKids[j].prior-net[j])) > 1e-6 {
			changed++
		}
	}
	if changed < len(rootKids)/2 {
		t.Errorf("noise changed %d of %d root priors", changed, len(rootKids))
	}
	// Every expanded node below the root has the network's priors, but
	// for proven ones: the mate check and the root lookahead expand a won
	// position with equal priors and no evaluation.
	checked := 0
	var walk func(i int32)
	walk = func(i int32) {
		nd := s.t.nodes[i]
		if nd.nkids == 0 {
			return
		}
		if i != s.t.root && nd.proof == unproven {
			want := evaluate(t, ev, g)
			for j, c := range s.t.kids(i) {
				if math.Abs(float64(c.prior-want[j])) > 1e-6 {
					t.Fatalf("node %d child %d prior %v, network %v", i, j, c.prior, want[j])
				}
			}
			checked++
		}
		for j := range int32(nd.nkids) {
			c := nd.first + j
			if s.t.nodes[c].nkids > 0 {
				g.Play(s.t.nodes[c].move)
				walk(c)
				g.Undo()
			}
		}
	}
	walk(s.t.root)
	if checked < 10 {
		t.Errorf("only %d nodes checked", checked)
	}
	// A cheap search of the same position (no noise) starts from the
	// network's priors.
	if err := s.RunWith(g, RunOptions{Budget: BudgetCheap}, &r); err != nil {
		t.Fatal(err)
	}
	for j, c := range s.t.kids(s.t.root) {
		if math.Abs(float64(c.prior-net[j])) > 1e-6 {
			t.Fatalf("after a cheap search, root prior %d is %v, network %v", j, c.prior, net[j])
		}
	}
}

// evaluate is the network's policy in g's position.
func evaluate(t *testing.T, ev nn.Evaluator, g *rules.Game) []float32 {
	t.Helper()
	moves := g.LegalMoves(nil)
	planes := make([]float32, encode.InputSize)
	if err := encode.Encode(g, moves, planes); err != nil {
		t.Fatal(err)
	}
	in := []nn.Input{{Planes: planes, Legal: encode.LegalIndices(moves, g.Position().SideToMove(), nil), Key: encode.Key(g)}}
	out := []nn.Output{{Policy: make([]float32, len(moves))}}
	if err := ev.Evaluate(in, out); err != nil {
		t.Fatal(err)
	}
	var sum float32
	for _, p := range out[0].Policy {
		sum += p
	}
	for j := range out[0].Policy {
		out[0].Policy[j] *= 1 / sum
	}
	return out[0].Policy
}

// Temperature changes the move played and nothing the search computed: at
// 0 it is the most visited, at 1 a draw in proportion to the visits.
func TestTemperature(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	g := newGame(t, rs, xiangqiMiddlegame)
	var res [2]Result
	for i, temp := range []float64{0, 1} {
		p := DefaultParams()
		p.Mode, p.Simulations, p.CheapSimulations = PUCT, 400, 0
		p.Temperature, p.TemperaturePlies = temp, 0
		s := newSearch(t, p, random(9))
		r, err := s.Run(g)
		if err != nil {
			t.Fatal(err)
		}
		res[i] = r
	}
	a, b := res[0], res[1]
	if !reflect.DeepEqual(a.Visits, b.Visits) || !reflect.DeepEqual(a.Policy, b.Policy) || a.Value != b.Value || !reflect.DeepEqual(a.PV, b.PV) {
		t.Fatal("temperature changed the search")
	}
	most := 0
	for j, v := range a.Visits {
		if v > a.Visits[most] {
			most = j
		}
	}
	if a.Best != a.Moves[most] || a.PV[0] != a.Moves[most] {
		t.Errorf("temperature 0 played %v, most visited %v", a.Best, a.Moves[most])
	}
	// Select at temperature 1 draws in proportion to the visits.
	rng := rand.New(rand.NewPCG(3, 4))
	const draws = 40000
	count := map[rules.Move]int{}
	for range draws {
		count[a.Select(1, rng.Float64())]++
	}
	for j, m := range a.Moves {
		want := float64(a.Policy[j]) * draws
		sd := math.Sqrt(want*(1-float64(a.Policy[j]))) + 1
		if math.Abs(float64(count[m])-want) > 5*sd {
			t.Errorf("move %v drawn %d times, want %.0f ± %.0f", m, count[m], want, sd)
		}
	}
	// A low temperature sharpens towards the most visited; 0 is the argmax.
	if a.Select(0, 0.999) != a.Moves[most] {
		t.Error("Select(0) is not the most visited move")
	}
	sharp := 0
	for range 2000 {
		if a.Select(0.1, rng.Float64()) == a.Moves[most] {
			sharp++
		}
	}
	if float64(sharp)/2000 < float64(a.Policy[most]) {
		t.Errorf("temperature 0.1 chose the most visited move %d/2000 times, policy %v", sharp, a.Policy[most])
	}
}

// Playout-cap randomization: about FullFraction of moves get the full budget
// (and noise); the rest the cheap one.
func TestPlayoutCap(t *testing.T) {
	rs := rules.MustPreset("janggi")
	g := newGame(t, rs, rs.StartFEN())
	p := DefaultParams()
	p.Simulations, p.CheapSimulations, p.FullFraction = 8, 2, 0.25
	s := newSearch(t, p, uniform())
	const runs = 2000
	full := 0
	var r Result
	for range runs {
		s.Reset()
		if err := s.RunWith(g, RunOptions{}, &r); err != nil {
			t.Fatal(err)
		}
		want := p.CheapSimulations
		if r.Full {
			full++
			want = p.Simulations
		}
		if r.Simulations != want {
			t.Fatalf("full %v: %d simulations", r.Full, r.Simulations)
		}
	}
	sd := math.Sqrt(runs * 0.25 * 0.75)
	if math.Abs(float64(full)-runs*0.25) > 5*sd {
		t.Errorf("%d of %d searches full, want %.0f ± %.0f", full, runs, runs*0.25, sd)
	}
	for _, b := range []Budget{BudgetFull, BudgetCheap} {
		if err := s.RunWith(g, RunOptions{Budget: b}, &r); err != nil {
			t.Fatal(err)
		}
		if r.Full != (b == BudgetFull) {
			t.Errorf("budget %d: full %v", b, r.Full)
		}
	}
	if err := s.RunWith(g, RunOptions{Simulations: 77}, &r); err != nil || r.Simulations != 77 {
		t.Errorf("explicit simulations: %d, %v", r.Simulations, err)
	}
}

// A forced move is played without searching and is not a training target.
func TestForcedMove(t *testing.T) {
	g := newGame(t, rules.MustPreset("xiangqi"), "3k5/R8/9/8p/9/9/9/9/1R7/4K4 b - - 1 1")
	s := newSearch(t, DefaultParams(), uniform())
	r, err := s.Run(g)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, g, &r)
	if r.Best.String() != "i7i6" || r.Simulations != 0 || r.Full || r.Evaluations != 1 {
		t.Errorf("forced move: %+v", r)
	}
}

// The subtree of the move played, and of the reply, is kept.
func TestTreeReuse(t *testing.T) {
	for _, mode := range []Mode{PUCT, Gumbel} {
		rs := rules.MustPreset("xiangqi")
		g := newGame(t, rs, rs.StartFEN())
		p := DefaultParams()
		p.Mode, p.Simulations, p.CheapSimulations = mode, 400, 0
		s := newSearch(t, p, random(11))
		r1, err := s.Run(g)
		if err != nil {
			t.Fatal(err)
		}
		// Play the most visited move and its most visited reply.
		pv := r1.PV[:2]
		kept := s.t.nodes[s.t.child(s.t.child(s.t.root, pv[0]), pv[1])].n
		if kept < 2 {
			t.Fatalf("%v: the PV's second node has %d visits", mode, kept)
		}
		g.Play(pv[0])
		g.Play(pv[1])
		r2, err := s.Run(g)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, v := range r2.Visits {
			sum += v
		}
		if sum != int(kept)-1+r2.Simulations || r2.Evaluations != r2.Simulations {
			t.Errorf("%v: reused node had %d visits; now children have %d after %d simulations, %d evaluations",
				mode, kept, sum, r2.Simulations, r2.Evaluations)
		}
		// A new game from the start is not the old tree.
		g2 := newGame(t, rs, rs.StartFEN())
		r3, err := s.Run(g2)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sumInts(r3.Visits); sum != r3.Simulations {
			t.Errorf("%v: a new game found %d visits after %d simulations", mode, sum, r3.Simulations)
		}
	}
}

func sumInts(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

// A proven win is not searched again: the search stops as soon as the mate
// is proven, and a second search of the position runs no simulation.
func TestProvenNotSearchedAgain(t *testing.T) {
	for _, mode := range []Mode{PUCT, Gumbel} {
		g := newGame(t, rules.MustPreset("janggi"), "4k4/9/3P2N2/9/9/9/9/9/9/3K5 w - - 0 1")
		p := DefaultParams()
		p.Mode, p.Simulations, p.CheapSimulations, p.GumbelK = mode, 1000, 0, rules.MaxMoves
		s := newSearch(t, p, uniform())
		r, err := s.Run(g)
		if err != nil {
			t.Fatal(err)
		}
		if r.Proof != ProvenWin || r.ProofPlies != 1 || r.Simulations >= 100 {
			t.Fatalf("%v: proof %v in %d plies after %d simulations", mode, r.Proof, r.ProofPlies, r.Simulations)
		}
		nodes := s.Nodes()
		r2, err := s.Run(g)
		if err != nil {
			t.Fatal(err)
		}
		if r2.Simulations != 0 || r2.Evaluations != 0 || s.Nodes() != nodes || r2.Best != r.Best || r2.Policy[indexOf(r2.Moves, r.Best)] != 1 {
			t.Errorf("%v: second search ran %d simulations, %d evaluations, best %v", mode, r2.Simulations, r2.Evaluations, r2.Best)
		}
	}
}

func indexOf(moves []rules.Move, m rules.Move) int {
	for i, x := range moves {
		if x == m {
			return i
		}
	}
	return -1
}

// Gumbel's target is the improved policy softmax(logit + σ(completed Q)):
// recomputed here from the Result's own prior, Q and visits. At most GumbelK
// root moves are searched.
func TestGumbelImprovedPolicy(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	g := newGame(t, rs, xiangqiMiddlegame)
	for _, sims := range []int{8, 32, 200} {
		p := DefaultParams()
		p.Simulations, p.CheapSimulations = sims, 0
		s := newSearch(t, p, random(13))
		r, err := s.Run(g)
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, g, &r)
		maxN, searched := 0, 0
		for _, v := range r.Visits {
			maxN = max(maxN, v)
			if v > 0 {
				searched++
			}
		}
		if searched > p.GumbelK {
			t.Errorf("%d simulations: %d root moves searched, k = %d", sims, searched, p.GumbelK)
		}
		var z float64
		want := make([]float64, len(r.Moves))
		for j := range want {
			sigma := (p.CVisit + float64(maxN)) * p.CScale * (float64(r.Q[j]) + 1) / 2
			want[j] = math.Exp(math.Log(float64(r.Prior[j])) + sigma)
			z += want[j]
		}
		for j := range want {
			if math.Abs(want[j]/z-float64(r.Policy[j])) > 1e-4 {
				t.Fatalf("%d simulations: policy[%d] = %v, recomputed %v", sims, j, r.Policy[j], want[j]/z)
			}
		}
		// The played move is among those searched most.
		if r.Visits[indexOf(r.Moves, r.Best)] != maxN {
			t.Errorf("%d simulations: best move has %d visits, most %d", sims, r.Visits[indexOf(r.Moves, r.Best)], maxN)
		}
	}
}

// Sequential halving's schedule, as mctx lays it out
// (get_sequence_of_considered_visits).
func TestHalvingSchedule(t *testing.T) {
	expand := func(m, n int) []int32 {
		sched := halvingSchedule(nil, m, n)
		var out []int32
		for i := range n {
			out = append(out, consideredVisit(sched, i))
		}
		return out
	}
	for _, c := range []struct {
		m, n int
		want []int32
	}{
		{4, 8, []int32{0, 0, 0, 0, 1, 1, 2, 2}},
		{1, 3, []int32{0, 1, 2}},
		{16, 4, []int32{0, 0, 0, 0}},
		{2, 6, []int32{0, 0, 1, 1, 2, 2}},
		// 16 actions, 32 simulations: each gets a visit, the best 8 one
		// more, the best 4 two more (32/(4·4)), and the budget is spent.
		{16, 32, []int32{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}},
	} {
		if got := expand(c.m, c.n); !reflect.DeepEqual(got, c.want) {
			t.Errorf("m %d n %d: %v, want %v", c.m, c.n, got, c.want)
		}
	}
	if n := len(halvingSchedule(nil, 16, 1<<24)); n > 16 {
		t.Errorf("a 16M-simulation schedule has %d phases", n)
	}
}

// With 16 simulations the improved policy already moves towards the mate:
// over many seeds its mass on the mating move far exceeds the prior's.
func TestGumbelImprovesWithFewSimulations(t *testing.T) {
	g := newGame(t, rules.MustPreset("xiangqi"), "3aka3/R3N4/9/9/9/9/9/9/7C1/3K5 w - - 0 1")
	mate := matesIn1(g)[0]
	var mass, prior float64
	const seeds = 40
	for seed := range seeds {
		p := DefaultParams()
		p.Simulations, p.CheapSimulations, p.Seed = 16, 0, uint64(seed)
		s := newSearch(t, p, uniform())
		r, err := s.Run(g)
		if err != nil {
			t.Fatal(err)
		}
		j := indexOf(r.Moves, mate)
		mass += float64(r.Policy[j]) / seeds
		prior = float64(r.Prior[j])
	}
	if mass < 5*prior {
		t.Errorf("improved policy's mean mass on the mate %.3f, prior %.3f", mass, prior)
	}
	t.Logf("mean improved-policy mass on the mate %.3f, prior %.3f", mass, prior)
}

// countingEvaluator records batch sizes.
type countingEvaluator struct {
	nn.Evaluator
	calls, positions, largest int
}

func (c *countingEvaluator) Evaluate(in []nn.Input, out []nn.Output) error {
	c.calls++
	c.positions += len(in)
	c.largest = max(c.largest, len(in))
	return c.Evaluator.Evaluate(in, out)
}

// One tree gathers several leaves per evaluation under virtual loss.
func TestLeavesPerEval(t *testing.T) {
	for _, mode := range []Mode{PUCT, Gumbel} {
		rs := rules.MustPreset("xiangqi")
		g := newGame(t, rs, xiangqiMiddlegame)
		ce := &countingEvaluator{Evaluator: random(17)}
		p := DefaultParams()
		p.Mode, p.Simulations, p.CheapSimulations, p.LeavesPerEval = mode, 256, 0, 16
		s := newSearch(t, p, ce)
		r, err := s.Run(g)
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, g, &r)
		if ce.largest != 16 || float64(ce.positions)/float64(ce.calls) < 8 {
			t.Errorf("%v: %d positions in %d calls, largest %d", mode, ce.positions, ce.calls, ce.largest)
		}
		// Every in-flight visit was taken back.
		for i := range s.t.nodes {
			if nd := &s.t.nodes[i]; nd.vl != 0 || nd.flags&flagPending != 0 {
				t.Fatalf("%v: node %d left with virtual loss %d, flags %b", mode, i, nd.vl, nd.flags)
			}
		}
	}
}

// Searches of concurrent games batched through one Batcher and one Cache
// give exactly what each gives alone.
func TestBatchedGamesMatchSequential(t *testing.T) {
	const games, moves = 6, 6
	p := DefaultParams()
	p.Simulations, p.CheapSimulations = 24, 6
	rs := rules.MustPreset("janggi")
	play := func(s *Search, out *[]rules.Move) error {
		g, _ := rules.NewGame(rs, rs.StartFEN())
		for range moves {
			r, err := s.Run(g)
			if err != nil {
				return err
			}
			*out = append(*out, r.Best)
			g.Play(r.Best)
		}
		return nil
	}
	alone := make([][]rules.Move, games)
	for i := range games {
		q := p
		q.Seed = uint64(i)
		if err := play(newSearch(t, q, random(19)), &alone[i]); err != nil {
			t.Fatal(err)
		}
	}
	ce := &countingEvaluator{Evaluator: random(19)}
	bat := nn.NewBatcher(ce, 64)
	table := nn.NewCache(nil, 1<<12)
	batched := make([][]rules.Move, games)
	errs := make([]error, games)
	var wg sync.WaitGroup
	for i := range games {
		q := p
		q.Seed = uint64(i)
		c := bat.NewClient()
		s := newSearch(t, q, table.WithBackend(c))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			errs[i] = play(s, &batched[i])
		}()
	}
	wg.Wait()
	for i := range games {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
	}
	if !reflect.DeepEqual(alone, batched) {
		t.Errorf("batched games differ:\n%v\n%v", alone, batched)
	}
	if ce.largest < 2 {
		t.Errorf("the batcher never batched: largest %d", ce.largest)
	}
}

// A search stops at a deadline or a stop signal, only when asked.
func TestDeadlineAndStop(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	g := newGame(t, rs, xiangqiMiddlegame)
	p := DefaultParams()
	p.Simulations, p.CheapSimulations = 1<<20, 0
	s := newSearch(t, p, uniform())
	var r Result
	start := time.Now()
	if err := s.RunWith(g, RunOptions{Deadline: start.Add(100 * time.Millisecond)}, &r); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second || r.Simulations == 0 || r.Simulations >= p.Simulations {
		t.Errorf("deadline: %d simulations in %v", r.Simulations, el)
	}
	checkResult(t, g, &r)
	stop := make(chan struct{})
	close(stop)
	s.Reset()
	if err := s.RunWith(g, RunOptions{Stop: stop}, &r); err != nil || r.Simulations != 0 {
		t.Errorf("stopped: %d simulations, %v", r.Simulations, err)
	}
	checkResult(t, g, &r)
}

// In steady state a search allocates nothing: not per simulation, not per
// move (RunWith reuses the Result).
func TestNoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, mode := range []Mode{PUCT, Gumbel} {
		rs := rules.MustPreset("xiangqi")
		g := newGame(t, rs, xiangqiMiddlegame)
		p := DefaultParams()
		p.Mode, p.Simulations, p.CheapSimulations, p.LeavesPerEval = mode, 300, 0, 4
		s := newSearch(t, p, uniform())
		var r Result
		run := func() {
			s.Reset()
			if err := s.RunWith(g, RunOptions{}, &r); err != nil {
				t.Fatal(err)
			}
		}
		run()
		if a := testing.AllocsPerRun(5, run); a != 0 {
			t.Errorf("%v: %v allocations per search", mode, a)
		}
	}
}

// A search that fills the tree stops early with a sound result, and the
// next one starts afresh when the kept subtree leaves no room.
func TestTreeFull(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	g := newGame(t, rs, xiangqiMiddlegame)
	p := DefaultParams()
	p.Mode, p.Simulations, p.CheapSimulations, p.MaxNodes = PUCT, 5000, 0, 2048
	s := newSearch(t, p, random(23))
	for range 3 {
		r, err := s.Run(g)
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, g, &r)
		if r.Simulations >= p.Simulations || s.Nodes() > p.MaxNodes || !r.TreeFull {
			t.Fatalf("%d simulations, %d nodes, TreeFull %v", r.Simulations, s.Nodes(), r.TreeFull)
		}
		g.Play(r.Best)
	}
	p.MaxNodes = DefaultParams().MaxNodes
	if r, err := newSearch(t, p, random(23)).Run(g); err != nil || r.TreeFull {
		t.Errorf("a tree with room: TreeFull %v, %v", r.TreeFull, err)
	}
}

// A Search restarted with a seed plays as a new one with that seed, though
// it searched another game before (its tree, node pools and random numbers
// all used).
func TestRestartMatchesNew(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	for _, mode := range []Mode{Gumbel, PUCT} {
		p := DefaultParams()
		p.Mode, p.Seed = mode, 99
		reused := newSearch(t, p, random(3))
		g := newGame(t, rs, rs.StartFEN())
		for range 12 { // another game first
			r, err := reused.Run(g)
			if err != nil {
				t.Fatal(err)
			}
			g.Play(r.Best)
		}
		for _, seed := range []uint64{1, 2} {
			p.Seed = seed
			fresh := newSearch(t, p, random(3))
			reused.Restart(seed)
			if reused.Params() != fresh.Params() {
				t.Fatalf("params %+v after Restart, want %+v", reused.Params(), fresh.Params())
			}
			a, b := newGame(t, rs, rs.StartFEN()), newGame(t, rs, rs.StartFEN())
			for ply := 0; ply < 16 && !a.Result().Over(); ply++ {
				ra, err := fresh.Run(a)
				if err != nil {
					t.Fatal(err)
				}
				rb, err := reused.Run(b)
				if err != nil {
					t.Fatal(err)
				}
				if ra.Best != rb.Best || ra.Value != rb.Value || ra.Full != rb.Full || ra.Simulations != rb.Simulations ||
					!slices.Equal(ra.Moves, rb.Moves) || !slices.Equal(ra.Policy, rb.Policy) {
					t.Fatalf("%v, seed %d, ply %d: restarted search gave %v (value %v), a new one %v (value %v)",
						mode, seed, ply, rb.Best, rb.Value, ra.Best, ra.Value)
				}
				a.Play(ra.Best)
				b.Play(rb.Best)
			}
			g = a // the next seed restarts after this game
		}
	}
}
