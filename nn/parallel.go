package nn

import (
	"errors"
	"fmt"
	"sync"
)

// Parallel splits each batch among copies of one network, one goroutine a
// copy, so that a batch of a single search uses several cores (palace's
// engine with Threads above 1). The copies must compute the same function;
// each is called by one goroutine at a time, and Parallel itself is for one
// goroutine at a time, as an Evaluator is.
type Parallel struct {
	evs  []Evaluator
	errs []error // one a copy, reused from call to call
}

// NewParallel splits batches among evs, which need the same input and
// policy sizes.
func NewParallel(evs ...Evaluator) (*Parallel, error) {
	if len(evs) == 0 {
		return nil, errors.New("nn: parallel: no evaluator")
	}
	for i, ev := range evs[1:] {
		if ev.InputSize() != evs[0].InputSize() || ev.PolicySize() != evs[0].PolicySize() {
			return nil, fmt.Errorf("nn: parallel: evaluator %d takes %d inputs and %d policy slots, evaluator 0 %d and %d",
				i+1, ev.InputSize(), ev.PolicySize(), evs[0].InputSize(), evs[0].PolicySize())
		}
	}
	return &Parallel{evs: evs}, nil
}

func (p *Parallel) InputSize() int  { return p.evs[0].InputSize() }
func (p *Parallel) PolicySize() int { return p.evs[0].PolicySize() }

// Evaluate gives each copy an equal share of in (the first copies when in
// is shorter than the copies) and returns every copy's error, joined.
func (p *Parallel) Evaluate(in []Input, out []Output) error {
	if err := Validate(p.InputSize(), p.PolicySize(), in, out); err != nil {
		return err
	}
	k := min(len(p.evs), len(in))
	if k <= 1 {
		return p.evs[0].Evaluate(in, out)
	}
	p.errs = append(p.errs[:0], make([]error, k)...)
	var wg sync.WaitGroup
	for i := range k {
		lo, hi := i*len(in)/k, (i+1)*len(in)/k
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.errs[i] = p.evs[i].Evaluate(in[lo:hi], out[lo:hi])
		}()
	}
	wg.Wait()
	return errors.Join(p.errs...)
}
