package nn

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// Parallel's answers are its copies' answers, each copy gets an equal share
// of a batch, and a copy's failure is the call's.
func TestParallel(t *testing.T) {
	copies := make([]*countingBackend, 3)
	evs := make([]Evaluator, len(copies))
	for i := range copies {
		copies[i] = newCounting(NewRandom(testInputSize, testPolicySize, 9))
		evs[i] = copies[i]
	}
	p, err := NewParallel(evs...)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	in := make([]Input, 10)
	for i := range in {
		in[i] = randInput(rng, uint64(i+1), 50)
	}
	got := outputsFor(in)
	if err := p.Evaluate(in, got); err != nil {
		t.Fatal(err)
	}
	if i, ok := sameOutputs(got, direct(t, NewRandom(testInputSize, testPolicySize, 9), in)); !ok {
		t.Errorf("output %d differs from one network's", i)
	}
	for i, want := range [][]int{{3}, {3}, {4}} {
		if calls := copies[i].calls(); !slices.Equal(calls, want) {
			t.Errorf("copy %d evaluated batches of %v, want %v", i, calls, want)
		}
	}

	// A batch smaller than the copies goes to the first copies, one each.
	if err := p.Evaluate(in[:2], got[:2]); err != nil {
		t.Fatal(err)
	}
	if c := copies[2].calls(); len(c) != 1 {
		t.Errorf("copy 2 was called for a batch of 2: %v", c)
	}

	copies[1].poison[in[4].Key] = true
	if err := p.Evaluate(in, got); !errors.Is(err, errBackend) {
		t.Errorf("a failing copy: err = %v, want the copy's error", err)
	}
	if err := p.Evaluate(in, got[:3]); !errors.Is(err, ErrBadInput) {
		t.Errorf("mismatched outputs: err = %v, want ErrBadInput", err)
	}

	if _, err := NewParallel(); err == nil {
		t.Error("NewParallel(): no error")
	}
	if _, err := NewParallel(NewUniform(testInputSize, testPolicySize), NewUniform(testInputSize+1, testPolicySize)); err == nil {
		t.Error("NewParallel of different sizes: no error")
	}
}
