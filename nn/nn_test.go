package nn

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Sizes like xiangqi's: small planes keep the tests fast, the policy size is
// realistic.
const (
	testInputSize  = 90
	testPolicySize = 2086
)

// randInput makes an input with random planes and 1–maxMoves distinct legal
// indices.
func randInput(rng *rand.Rand, key uint64, maxMoves int) Input {
	planes := make([]float32, testInputSize)
	for i := range planes {
		if rng.IntN(4) == 0 {
			planes[i] = 1
		}
	}
	n := 1 + rng.IntN(maxMoves)
	legal := make([]int32, 0, n)
	for _, m := range rng.Perm(testPolicySize)[:n] {
		legal = append(legal, int32(m))
	}
	return Input{Planes: planes, Legal: legal, Key: key}
}

// outputsFor allocates outputs of the right shape for in.
func outputsFor(in []Input) []Output {
	out := make([]Output, len(in))
	for i := range in {
		out[i].Policy = make([]float32, len(in[i].Legal))
	}
	return out
}

// direct evaluates in on ev and fails the test on error.
func direct(t testing.TB, ev Evaluator, in []Input) []Output {
	t.Helper()
	out := outputsFor(in)
	if err := ev.Evaluate(in, out); err != nil {
		t.Fatalf("direct evaluation: %v", err)
	}
	return out
}

// sameOutputs reports the first difference between two outputs, bit for bit.
func sameOutputs(got, want []Output) (int, bool) {
	for i := range want {
		if got[i].WDL != want[i].WDL || !slices.Equal(got[i].Policy, want[i].Policy) {
			return i, false
		}
	}
	return 0, len(got) == len(want)
}

// checkDistribution fails unless out[i] is a proper distribution over in[i]'s moves.
func checkDistribution(t *testing.T, in []Input, out []Output) {
	t.Helper()
	for i := range out {
		if len(out[i].Policy) != len(in[i].Legal) {
			t.Fatalf("output %d: %d probabilities for %d moves", i, len(out[i].Policy), len(in[i].Legal))
		}
		var sum float64
		for j, p := range out[i].Policy {
			if !(p > 0 && p <= 1) {
				t.Fatalf("output %d: Policy[%d] = %v, want in (0, 1]", i, j, p)
			}
			sum += float64(p)
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Fatalf("output %d: policy sums to %v", i, sum)
		}
		sum = 0
		for k, p := range out[i].WDL {
			if !(p >= 0 && p <= 1) {
				t.Fatalf("output %d: WDL[%d] = %v", i, k, p)
			}
			sum += float64(p)
		}
		if math.Abs(sum-1) > 1e-6 {
			t.Fatalf("output %d: WDL %v sums to %v", i, out[i].WDL, sum)
		}
	}
}

// countingBackend wraps a backend, records every call, fails calls that
// contain a poisoned key, and notices if it is ever called concurrently.
type countingBackend struct {
	inner      Evaluator
	active     atomic.Int32
	concurrent atomic.Bool

	mu         sync.Mutex
	sizes      []int           // positions per call
	poison     map[uint64]bool // a call with any of these keys fails
	failedKeys map[uint64]bool // keys of every input in a failed call
}

var errBackend = errors.New("test backend failure")

func newCounting(inner Evaluator) *countingBackend {
	return &countingBackend{inner: inner, poison: map[uint64]bool{}, failedKeys: map[uint64]bool{}}
}

func (c *countingBackend) InputSize() int  { return c.inner.InputSize() }
func (c *countingBackend) PolicySize() int { return c.inner.PolicySize() }

func (c *countingBackend) Evaluate(in []Input, out []Output) error {
	if c.active.Add(1) != 1 {
		c.concurrent.Store(true)
	}
	defer c.active.Add(-1)
	c.mu.Lock()
	c.sizes = append(c.sizes, len(in))
	fail := false
	for i := range in {
		fail = fail || c.poison[in[i].Key]
	}
	if fail {
		for i := range in {
			c.failedKeys[in[i].Key] = true
		}
	}
	c.mu.Unlock()
	if fail {
		return errBackend
	}
	return c.inner.Evaluate(in, out)
}

func (c *countingBackend) calls() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sizes)
}

// within fails the test if f has not returned after d: a deadlock becomes a
// failure naming the test instead of a hung run.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %v: deadlock?", d)
	}
}

func TestValidate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	good := func() ([]Input, []Output) {
		in := []Input{randInput(rng, 1, 40), randInput(rng, 2, 40), randInput(rng, 3, 40)}
		return in, outputsFor(in)
	}
	cases := []struct {
		name  string
		spoil func(in []Input, out []Output) ([]Input, []Output)
		index int
		want  string
	}{
		{"fewer outputs", func(in []Input, out []Output) ([]Input, []Output) { return in, out[:2] }, -1, "nn: 3 inputs but 2 outputs"},
		{"more outputs", func(in []Input, out []Output) ([]Input, []Output) { return in[:1], out }, -1, "nn: 1 inputs but 3 outputs"},
		{"short planes", func(in []Input, out []Output) ([]Input, []Output) {
			in[1].Planes = in[1].Planes[:10]
			return in, out
		}, 1, "nn: input 1: len(Planes) = 10, want InputSize() = 90"},
		{"nil planes", func(in []Input, out []Output) ([]Input, []Output) {
			in[2].Planes = nil
			return in, out
		}, 2, "nn: input 2: len(Planes) = 0"},
		{"no legal moves", func(in []Input, out []Output) ([]Input, []Output) {
			in[0].Legal, out[0].Policy = nil, nil
			return in, out
		}, 0, "nn: input 0: no legal moves"},
		{"short policy", func(in []Input, out []Output) ([]Input, []Output) {
			out[2].Policy = out[2].Policy[:len(out[2].Policy)-1]
			return in, out
		}, 2, "nn: input 2: len(Policy) = "},
		{"negative index", func(in []Input, out []Output) ([]Input, []Output) {
			in[1].Legal[0] = -1
			return in, out
		}, 1, "nn: input 1: Legal[0] = -1, outside [0, 2086)"},
		{"index past the policy", func(in []Input, out []Output) ([]Input, []Output) {
			in[2].Legal[len(in[2].Legal)-1] = testPolicySize
			return in, out
		}, 2, "= 2086, outside [0, 2086)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in, out := good()
			if err := Validate(testInputSize, testPolicySize, in, out); err != nil {
				t.Fatalf("valid call: %v", err)
			}
			in, out = tc.spoil(in, out)
			backend := newCounting(NewUniform(testInputSize, testPolicySize))
			batcher := NewBatcher(backend, 8)
			client := batcher.NewClient()
			defer client.Close()
			evaluators := map[string]Evaluator{
				"Validate": nil,
				"Uniform":  NewUniform(testInputSize, testPolicySize),
				"Random":   NewRandom(testInputSize, testPolicySize, 1),
				"Cache":    NewCache(backend, 16),
				"Client":   client,
			}
			for name, ev := range evaluators {
				var err error
				if ev == nil {
					err = Validate(testInputSize, testPolicySize, in, out)
				} else {
					err = ev.Evaluate(in, out)
				}
				if err == nil {
					t.Fatalf("%s: no error", name)
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: error %q does not contain %q", name, err, tc.want)
				}
				var ie *InputError
				if !errors.As(err, &ie) || ie.Index != tc.index {
					t.Errorf("%s: error %v: want an *InputError with Index %d", name, err, tc.index)
				}
				if !errors.Is(err, ErrBadInput) {
					t.Errorf("%s: error %v does not wrap ErrBadInput", name, err)
				}
			}
			if calls := backend.calls(); len(calls) != 0 {
				t.Errorf("a bad call reached the backend: %v", calls)
			}
		})
	}
}

func TestEmptyCall(t *testing.T) {
	backend := newCounting(NewUniform(testInputSize, testPolicySize))
	b := NewBatcher(backend, 4)
	c := b.NewClient()
	defer c.Close()
	for _, ev := range []Evaluator{backend, NewRandom(testInputSize, testPolicySize, 1), NewCache(backend, 4), c} {
		if err := ev.Evaluate(nil, nil); err != nil {
			t.Errorf("%T: empty call: %v", ev, err)
		}
	}
}

func TestUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	u := NewUniform(testInputSize, testPolicySize)
	if u.InputSize() != testInputSize || u.PolicySize() != testPolicySize {
		t.Fatalf("sizes %d, %d", u.InputSize(), u.PolicySize())
	}
	var in []Input
	for i := range 50 {
		in = append(in, randInput(rng, uint64(i), 120))
	}
	out := direct(t, u, in)
	checkDistribution(t, in, out)
	for i := range out {
		want := 1 / float32(len(in[i].Legal))
		for j, p := range out[i].Policy {
			if p != want {
				t.Fatalf("output %d: Policy[%d] = %v, want %v", i, j, p, want)
			}
		}
		if out[i].WDL != [3]float32{0, 1, 0} {
			t.Fatalf("output %d: WDL %v, want a draw", i, out[i].WDL)
		}
	}
}

func TestRandomIsADistribution(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	r := NewRandom(testInputSize, testPolicySize, 7)
	var in []Input
	for i := range 200 {
		in = append(in, randInput(rng, uint64(i%3)*uint64(i), 200)) // every third key is 0
	}
	out := direct(t, r, in)
	checkDistribution(t, in, out)
	// Not uniform: the point of Random is priors and values that vary.
	for i := range out {
		if len(out[i].Policy) > 1 && slices.Min(out[i].Policy) == slices.Max(out[i].Policy) {
			t.Fatalf("output %d: flat policy %v", i, out[i].Policy)
		}
	}
}

func TestRandomIsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x := randInput(rng, 12345, 60)
	one := func(seed uint64, x Input) Output {
		return direct(t, NewRandom(testInputSize, testPolicySize, seed), []Input{x})[0]
	}
	differ := func(a, b Output) bool {
		_, same := sameOutputs([]Output{a}, []Output{b})
		return !same
	}
	base := one(1, x)
	if differ(base, one(1, x)) {
		t.Fatal("same seed and input gave different outputs")
	}
	// A batch gives what single calls give.
	y := randInput(rng, 999, 60)
	both := direct(t, NewRandom(testInputSize, testPolicySize, 1), []Input{x, y})
	if differ(both[0], base) || differ(both[1], one(1, y)) {
		t.Fatal("batched outputs differ from single ones")
	}
	if !differ(base, one(2, x)) {
		t.Fatal("another seed gave the same output")
	}
	other := x
	other.Key = 12346
	if !differ(base, one(1, other)) {
		t.Fatal("another key gave the same output")
	}
	// With a key, the key alone decides: the planes are not read.
	samekey := x
	samekey.Planes = make([]float32, testInputSize)
	if differ(base, one(1, samekey)) {
		t.Fatal("with a key, changing the planes changed the output")
	}
	// Without one, planes and legal moves decide.
	nokey := x
	nokey.Key = 0
	a := one(1, nokey)
	if differ(a, one(1, nokey)) {
		t.Fatal("key 0: same input gave different outputs")
	}
	changed := nokey
	changed.Planes = slices.Clone(x.Planes)
	changed.Planes[17] += 0.5
	if !differ(a, one(1, changed)) {
		t.Fatal("key 0: changing a plane did not change the output")
	}
	changed = nokey
	changed.Legal = slices.Clone(x.Legal)
	changed.Legal[0] = (changed.Legal[0] + 1) % testPolicySize
	if slices.Contains(x.Legal[1:], changed.Legal[0]) {
		changed.Legal[0] = (changed.Legal[0] + 1) % testPolicySize
	}
	if !differ(a, one(1, changed)) {
		t.Fatal("key 0: changing a legal move did not change the output")
	}
	// A move's logit follows its index: reversing Legal (with a key)
	// reverses the policy.
	rev := x
	rev.Legal = slices.Clone(x.Legal)
	slices.Reverse(rev.Legal)
	rp := one(1, rev).Policy
	slices.Reverse(rp)
	for j := range rp {
		if math.Abs(float64(rp[j]-base.Policy[j])) > 1e-6 {
			t.Fatalf("reversed legal list: Policy[%d] = %v, want %v", j, rp[j], base.Policy[j])
		}
	}
}

func TestTestEvaluatorsDoNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	in := []Input{randInput(rng, 1, 80), randInput(rng, 0, 80)}
	out := outputsFor(in)
	for _, ev := range []Evaluator{NewUniform(testInputSize, testPolicySize), NewRandom(testInputSize, testPolicySize, 3)} {
		if n := testing.AllocsPerRun(100, func() { _ = ev.Evaluate(in, out) }); n != 0 {
			t.Errorf("%T: %v allocations per call", ev, n)
		}
	}
}
