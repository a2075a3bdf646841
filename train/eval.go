package train

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
)

// EvalOptions say which records Eval reads and how it batches them.
type EvalOptions struct {
	// Every reads one record in Every (1 or 0: all), in file order, so a
	// quick look at a large directory still spans all its games.
	Every int
	// Batch is how many positions go to the evaluator at once (0: 64).
	Batch int
}

// EvalReport is how well a network predicts a set of shards: the trainer's
// losses without training, on data it may never have seen. On held-out
// games it is what tells a network that generalises from one that
// memorised its own games: a value head that has learnt something beats
// ConstWDLCE, the best any constant prediction can do.
type EvalReport struct {
	Positions int64 // records evaluated
	// Results counts the records by their game's result to the side to
	// move: wins, draws, losses.
	Results [3]int64
	// WDLCE is the mean cross-entropy of the WDL head against the games'
	// results; ConstWDLCE is that of the results' own frequencies.
	WDLCE, ConstWDLCE float64
	// ValueMSE is the mean of (W − L − result)², result in {1, 0, −1};
	// ConstValueMSE is that of the results' mean, a constant.
	ValueMSE, ConstValueMSE float64
	// PolicyPositions are the records with a policy target (full
	// searches); PolicyCE is the policy head's mean cross-entropy against
	// those targets and TargetEntropy the targets' own mean entropy, the
	// least PolicyCE can be.
	PolicyPositions         int64
	PolicyCE, TargetEntropy float64
}

// Eval evaluates the records of the shards listed in dirs' manifests with
// ev. sets are the rule sets the shards may name; a shard under another is
// an error, never skipped.
func Eval(ev nn.Evaluator, dirs []string, sets []*rules.RuleSet, o EvalOptions) (EvalReport, error) {
	var rep EvalReport
	if o.Every < 0 || o.Batch < 0 {
		return rep, fmt.Errorf("train: eval: every %d, batch %d: want ≥ 0", o.Every, o.Batch)
	}
	every, size := max(o.Every, 1), o.Batch
	if size == 0 {
		size = 64
	}
	if ev.InputSize() != encode.InputSize || ev.PolicySize() != encode.PolicySize() {
		return rep, fmt.Errorf("train: eval: the evaluator takes %d inputs and %d policy slots, the encoding %d and %d",
			ev.InputSize(), ev.PolicySize(), encode.InputSize, encode.PolicySize())
	}
	byID := map[string]*rules.RuleSet{}
	for _, rs := range sets {
		byID[rs.String()] = rs
	}
	e := evaluation{ev: ev, rep: &rep, in: make([]nn.Input, 0, size), out: make([]nn.Output, size),
		recs: make([]datasets.Record, size), legal: make([][]int32, size), planes: make([]float32, size*encode.InputSize)}
	for _, dir := range dirs {
		m, err := datasets.ReadManifest(dir)
		if err != nil {
			return rep, fmt.Errorf("train: eval: %w", err)
		}
		if len(m.Shards) == 0 {
			return rep, fmt.Errorf("train: eval: %s lists no shards", dir)
		}
		for _, s := range m.Shards {
			if err := e.shard(filepath.Join(dir, s.Name), byID, every); err != nil {
				return rep, err
			}
		}
	}
	if err := e.flush(); err != nil {
		return rep, err
	}
	if rep.Positions == 0 {
		return rep, errors.New("train: eval: no records")
	}
	n := float64(rep.Positions)
	mean := 0.0
	for j, c := range rep.Results {
		if c > 0 {
			f := float64(c) / n
			rep.ConstWDLCE -= f * math.Log(f)
			mean += f * float64(1-j)
		}
	}
	for j, c := range rep.Results {
		d := float64(1-j) - mean
		rep.ConstValueMSE += float64(c) / n * d * d
	}
	rep.WDLCE /= n
	rep.ValueMSE /= n
	if rep.PolicyPositions > 0 {
		rep.PolicyCE /= float64(rep.PolicyPositions)
		rep.TargetEntropy /= float64(rep.PolicyPositions)
	}
	return rep, nil
}

// evaluation gathers records into batches and sums their losses into rep.
type evaluation struct {
	ev     nn.Evaluator
	rep    *EvalReport
	in     []nn.Input
	out    []nn.Output
	recs   []datasets.Record
	legal  [][]int32
	planes []float32
	where  []string // each queued record's file and index, for errors
}

func (e *evaluation) shard(path string, byID map[string]*rules.RuleSet, every int) error {
	r, err := datasets.Open(path)
	if err != nil {
		return fmt.Errorf("train: eval: %w", err)
	}
	defer r.Close()
	id := r.Header().RuleSet()
	rs := byID[id]
	if rs == nil {
		return fmt.Errorf("train: eval: %s is under rule set %s, which is not among those given", path, id)
	}
	var i int64 = -1
	for rec, err := range r.Records() {
		if err != nil {
			return fmt.Errorf("train: eval: %w", err)
		}
		i++
		if i%int64(every) != 0 {
			continue
		}
		k := len(e.in)
		// The reader reuses its records; each slot keeps its own copies.
		policy, legal := e.recs[k].Policy[:0], e.legal[k][:0]
		e.recs[k] = *rec
		e.recs[k].Policy = append(policy, rec.Policy...)
		planes := e.planes[k*encode.InputSize : (k+1)*encode.InputSize]
		if err := datasets.EncodeRecord(&e.recs[k], rs, planes); err != nil {
			return fmt.Errorf("train: eval: %s record %d: %w", path, i, err)
		}
		for _, p := range rec.Policy {
			legal = append(legal, int32(p.Index))
		}
		e.legal[k] = legal
		e.in = append(e.in, nn.Input{Planes: planes, Legal: legal})
		e.out[k].Policy = slices.Grow(e.out[k].Policy[:0], len(legal))[:len(legal)]
		e.where = append(e.where, fmt.Sprintf("%s record %d", path, i))
		if len(e.in) == cap(e.in) {
			if err := e.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush evaluates the queued records and adds their losses.
func (e *evaluation) flush() error {
	if len(e.in) == 0 {
		return nil
	}
	out := e.out[:len(e.in)]
	if err := e.ev.Evaluate(e.in, out); err != nil {
		return fmt.Errorf("train: eval: %w", err)
	}
	rep := e.rep
	for k := range e.in {
		rec, o := &e.recs[k], &out[k]
		j := 0
		switch rec.Result {
		case datasets.Win:
		case datasets.Draw:
			j = 1
		case datasets.Loss:
			j = 2
		default:
			return fmt.Errorf("train: eval: %s: result %d", e.where[k], rec.Result)
		}
		rep.Positions++
		rep.Results[j]++
		rep.WDLCE -= math.Log(max(float64(o.WDL[j]), 1e-12))
		v := float64(o.WDL[0]) - float64(o.WDL[2]) - float64(1-j)
		rep.ValueMSE += v * v
		if !rec.Full {
			continue
		}
		// The target is normalised as the trainer's is (PolicyTarget).
		var sum float64
		for _, p := range rec.Policy {
			sum += float64(p.P)
		}
		if !(sum > 0) {
			continue // no target: the trainer takes no policy loss here either
		}
		var ce, h float64
		for i, p := range rec.Policy {
			if p.P <= 0 {
				continue
			}
			t := float64(p.P) / sum
			ce -= t * math.Log(max(float64(o.Policy[i]), 1e-12))
			h -= t * math.Log(t)
		}
		rep.PolicyPositions++
		rep.PolicyCE += ce
		rep.TargetEntropy += h
	}
	e.in, e.where = e.in[:0], e.where[:0]
	return nil
}
