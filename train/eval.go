package train

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/rundir"
)

// EvalOptions say which records Eval reads and how it batches them.
type EvalOptions struct {
	// Every reads one record in Every (1 or 0: all), in file order, so a
	// quick look at a large directory still spans all its games.
	Every int
	// Batch is how many positions go to the evaluator at once (0: 64).
	Batch int
	// CheckRuleSet, when set, is asked once about each rule set the
	// positions are under, and its error ends the evaluation: the
	// network's own check (model.Checkpoint.CheckRuleSet) that it was made
	// for that game.
	CheckRuleSet func(*rules.RuleSet) error
	// HeldOutOnly (EvalGames) keeps only the games on the held-out side of
	// the filter's split (its HeldOut share and Seed): the games that
	// palace train, given the same share and seed, kept out of training.
	HeldOutOnly bool
}

// EvalReport is how well a network predicts a set of positions: the
// trainer's losses without training, on data it may never have seen, each
// beside a predictor that knows nothing. On held-out games it is what
// tells a network that generalises from one that memorised its own games:
// a value head that has learnt something beats ConstWDLCE, the best any
// constant prediction can do, and a policy head beats UniformCE.
type EvalReport struct {
	Positions int64 // records evaluated
	Games     int64 // games they came from (EvalGames)
	// Results counts the records by their game's result to the side to
	// move: wins, draws, losses; ValuePositions is their sum (positions of
	// games without a result have no value target).
	Results        [3]int64
	ValuePositions int64
	// WDLCE is the mean cross-entropy of the WDL head against the games'
	// results; ConstWDLCE is that of the results' own frequencies.
	WDLCE, ConstWDLCE float64
	// ValueMSE is the mean of (W − L − result)², result in {1, 0, −1};
	// ConstValueMSE is that of the results' mean, a constant.
	ValueMSE, ConstValueMSE float64
	// PolicyPositions are the records with a policy target (full
	// searches, every recorded move); PolicyCE is the policy head's mean
	// cross-entropy against those targets over the legal moves and
	// TargetEntropy the targets' own mean entropy, the least PolicyCE can
	// be. UniformCE is the cross-entropy of a uniform choice among the
	// legal moves.
	PolicyPositions                    int64
	PolicyCE, TargetEntropy, UniformCE float64
	// Top1 and Top3 are the shares of policy positions where the target's
	// most likely move (a record's move played) is the network's first
	// choice, or among its first three; UniformTop1 and UniformTop3 are a
	// uniform random choice's expected shares.
	Top1, Top3, UniformTop1, UniformTop3 float64
}

// Eval evaluates the records of the shards listed in dirs' manifests with
// ev. sets are the rule sets the shards may name; a shard under another is
// an error, never skipped.
func Eval(ev nn.Evaluator, dirs []string, sets []*rules.RuleSet, o EvalOptions) (EvalReport, error) {
	if o.Every < 0 || o.Batch < 0 {
		return EvalReport{}, fmt.Errorf("train: eval: every %d, batch %d: want ≥ 0", o.Every, o.Batch)
	}
	every := max(o.Every, 1)
	e, err := newEvaluation(ev, o)
	if err != nil {
		return EvalReport{}, err
	}
	byID := map[string]*rules.RuleSet{}
	for _, rs := range sets {
		byID[rs.String()] = rs
	}
	for _, dir := range dirs {
		m, err := datasets.ReadManifest(dir)
		if err != nil {
			return EvalReport{}, fmt.Errorf("train: eval: %w", err)
		}
		if len(m.Shards) == 0 {
			return EvalReport{}, fmt.Errorf("train: eval: %s lists no shards", dir)
		}
		for _, s := range m.Shards {
			if err := e.shard(filepath.Join(dir, s.Name), byID, every); err != nil {
				return EvalReport{}, err
			}
		}
	}
	return e.finish()
}

// newEvaluation checks ev against the encoding and sets up batches of
// o.Batch positions (0: 64).
func newEvaluation(ev nn.Evaluator, o EvalOptions) (*evaluation, error) {
	size := o.Batch
	if size == 0 {
		size = 64
	}
	if ev.InputSize() != encode.InputSize || ev.PolicySize() != encode.PolicySize() {
		return nil, fmt.Errorf("train: eval: the evaluator takes %d inputs and %d policy slots, the encoding %d and %d",
			ev.InputSize(), ev.PolicySize(), encode.InputSize, encode.PolicySize())
	}
	return &evaluation{ev: ev, check: o.CheckRuleSet, checked: map[string]bool{}, rep: &EvalReport{}, in: make([]nn.Input, 0, size), out: make([]nn.Output, size),
		recs: make([]datasets.Record, size), legal: make([][]int32, size), planes: make([]float32, size*encode.InputSize)}, nil
}

// finish evaluates what is queued and turns the sums into means.
func (e *evaluation) finish() (EvalReport, error) {
	if err := e.flush(); err != nil {
		return EvalReport{}, err
	}
	rep := *e.rep
	if rep.Positions == 0 {
		return rep, errors.New("train: eval: no positions to evaluate (none given, or every one left out by the filters)")
	}
	n := float64(rep.ValuePositions)
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
	if n > 0 {
		rep.WDLCE /= n
		rep.ValueMSE /= n
	}
	if p := float64(rep.PolicyPositions); p > 0 {
		for _, x := range []*float64{&rep.PolicyCE, &rep.TargetEntropy, &rep.UniformCE, &rep.Top1, &rep.Top3, &rep.UniformTop1, &rep.UniformTop3} {
			*x /= p
		}
	}
	return rep, nil
}

// evaluation gathers records into batches and sums their losses into rep.
type evaluation struct {
	ev      nn.Evaluator
	check   func(*rules.RuleSet) error // EvalOptions.CheckRuleSet
	checked map[string]bool            // the rule sets check passed
	rep     *EvalReport
	in      []nn.Input
	out     []nn.Output
	recs    []datasets.Record
	legal   [][]int32
	planes  []float32
	where   []func() string // each queued record's file and index, for errors
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
		index := i
		if err := e.add(rec, rs, func() string { return fmt.Sprintf("%s record %d", path, index) }); err != nil {
			return err
		}
	}
	return nil
}

// add queues a copy of rec (a position under rs; where names it for
// errors) and evaluates the queue when it is full.
func (e *evaluation) add(rec *datasets.Record, rs *rules.RuleSet, where func() string) error {
	if e.check != nil && !e.checked[rs.String()] {
		if err := e.check(rs); err != nil {
			return fmt.Errorf("train: eval: %s: %w", where(), err)
		}
		e.checked[rs.String()] = true
	}
	k := len(e.in)
	// Readers reuse their records; each slot keeps its own copies.
	policy, legal := e.recs[k].Policy[:0], e.legal[k][:0]
	e.recs[k] = *rec
	e.recs[k].Policy = append(policy, rec.Policy...)
	planes := e.planes[k*encode.InputSize : (k+1)*encode.InputSize]
	if err := datasets.EncodeRecord(&e.recs[k], rs, planes); err != nil {
		return fmt.Errorf("train: eval: %s: %w", where(), err)
	}
	for _, p := range rec.Policy {
		legal = append(legal, int32(p.Index))
	}
	e.legal[k] = legal
	e.in = append(e.in, nn.Input{Planes: planes, Legal: legal})
	e.out[k].Policy = slices.Grow(e.out[k].Policy[:0], len(legal))[:len(legal)]
	e.where = append(e.where, where)
	if len(e.in) == cap(e.in) {
		return e.flush()
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
		case datasets.NoResult:
			j = -1
		default:
			return fmt.Errorf("train: eval: %s: result %d", e.where[k](), rec.Result)
		}
		rep.Positions++
		if j >= 0 {
			rep.ValuePositions++
			rep.Results[j]++
			rep.WDLCE -= math.Log(max(float64(o.WDL[j]), 1e-12))
			v := float64(o.WDL[0]) - float64(o.WDL[2]) - float64(1-j)
			rep.ValueMSE += v * v
		}
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
		best := 0 // the target's most likely move (the first of equals)
		for i, p := range rec.Policy {
			if p.P > rec.Policy[best].P {
				best = i
			}
			if p.P <= 0 {
				continue
			}
			t := float64(p.P) / sum
			ce -= t * math.Log(max(float64(o.Policy[i]), 1e-12))
			h -= t * math.Log(t)
		}
		// The network's rank of that move: how many moves it prefers
		// (ties count against it, so a constant policy scores no better
		// than chance).
		above := 0
		for i, q := range o.Policy {
			if i != best && q >= o.Policy[best] {
				above++
			}
		}
		n := float64(len(rec.Policy))
		rep.PolicyPositions++
		rep.PolicyCE += ce
		rep.TargetEntropy += h
		rep.UniformCE += math.Log(n)
		rep.UniformTop1 += 1 / n
		rep.UniformTop3 += min(3, n) / n
		if above == 0 {
			rep.Top1++
		}
		if above < 3 {
			rep.Top3++
		}
	}
	e.in, e.where = e.in[:0], e.where[:0]
	return nil
}

// EvalGames evaluates ev on the positions of the recorded games at paths
// (games or record files, or directories of them: rundir.Collect) that filter keeps
// (every kept game counts, or with o.HeldOutOnly only those its split
// holds out), each built as training builds them (GamePositions). A game
// that does not replay is an error naming it, never skipped.
func EvalGames(ev nn.Evaluator, paths []string, filter GameFilter, o EvalOptions) (EvalReport, Dropped, error) {
	if o.Every < 0 || o.Batch < 0 {
		return EvalReport{}, Dropped{}, fmt.Errorf("train: eval: every %d, batch %d: want ≥ 0", o.Every, o.Batch)
	}
	if !o.HeldOutOnly {
		filter.HeldOut = 0
	} else if filter.HeldOut <= 0 {
		return EvalReport{}, Dropped{}, fmt.Errorf("train: eval: held-out games only, with a held-out share of %v: want a share > 0", filter.HeldOut)
	}
	sel, err := NewSelector(filter)
	if err != nil {
		return EvalReport{}, Dropped{}, err
	}
	e, err := newEvaluation(ev, o)
	if err != nil {
		return EvalReport{}, Dropped{}, err
	}
	every := int64(max(o.Every, 1))
	var recs []datasets.Record
	var seen, games int64 = -1, 0
	err = rundir.Collect(paths, func(g *gamerec.Game, rs *rules.RuleSet) error {
		if keep, heldOut := sel.Select(g); !keep || o.HeldOutOnly && !heldOut {
			return nil
		}
		games++
		if recs, err = filter.Positions(recs[:0], g, rs); err != nil {
			return err
		}
		name := g.Where() // g is Collect's, reused after this call
		for k := range recs {
			seen++
			if seen%every != 0 {
				continue
			}
			ply := k + 1
			if err := e.add(&recs[k], rs, func() string { return fmt.Sprintf("%s ply %d", name, ply) }); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return EvalReport{}, sel.Dropped, err
	}
	rep, err := e.finish()
	rep.Games = games
	return rep, sel.Dropped, err
}
