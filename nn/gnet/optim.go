package gnet

import (
	"fmt"
	"math"
	"slices"

	"github.com/palace-chess/palace/nn/model"
)

// The optimizers are written here rather than taken from Gorgonia's
// solvers: those keep their state (velocities, moments, Adam's step) in
// unexported fields, so a checkpoint could not carry it; they have no way
// to change the learning rate between steps; Momentum's WithL2Reg
// regularises the velocity rather than the weights; and Adam clones every
// tensor every step. Here L2 enters through the loss's gradient (2c·w),
// the rate is the schedule's at each step, and the state is plain slices.

// slotNames are the optimizer's per-parameter tensors, named
// "<slot>/<parameter>" in a model.Optimizer.
func slotNames(optimizer string) []string {
	if optimizer == Adam {
		return []string{"m", "v"} // first and second moment estimates
	}
	return []string{"velocity"}
}

// averageSlot names the weight average's tensors in a model.Optimizer: a
// trainer without an average ignores them, one with it starts from them.
const averageSlot = "average"

// loadOptimizer sets the optimizer state from a checkpoint's, or to zero,
// and the weight average from the checkpoint's or the weights.
func (t *Trainer) loadOptimizer(o *model.Optimizer) error {
	t.slots = slotNames(t.o.optimizer)
	t.state = make([][][]float32, len(t.slots))
	for s := range t.slots {
		for _, p := range t.specs {
			t.state[s] = append(t.state[s], make([]float32, sizeOf(p.shape)))
		}
	}
	if t.o.average > 0 {
		// The average starts at the weights unless the checkpoint has one.
		t.avg = make([][]float32, len(t.specs))
		for i := range t.specs {
			t.avg[i] = floatsOf(t.values[i])
		}
	}
	if o == nil {
		t.optStep = 0
		return nil
	}
	if o.Name != t.o.optimizer {
		return fmt.Errorf("gnet: checkpoint has %s state, the trainer is set for %s", o.Name, t.o.optimizer)
	}
	if o.Step < 0 {
		return fmt.Errorf("gnet: checkpoint optimizer at step %d", o.Step)
	}
	want := 0
	for s, slot := range t.slots {
		for i, p := range t.specs {
			name := slot + "/" + p.name
			data, ok := o.Tensors[name]
			if !ok {
				return fmt.Errorf("gnet: checkpoint optimizer state lacks %s", name)
			}
			if len(data) != len(t.state[s][i]) {
				return fmt.Errorf("gnet: checkpoint optimizer tensor %s has %d values, want %d", name, len(data), len(t.state[s][i]))
			}
			for j, v := range data {
				if !finite(float64(v)) {
					return fmt.Errorf("gnet: checkpoint optimizer tensor %s[%d] is %v", name, j, v)
				}
			}
			copy(t.state[s][i], data)
			want++
		}
	}
	averaged := 0
	for i, p := range t.specs {
		data, ok := o.Tensors[averageSlot+"/"+p.name]
		if !ok {
			continue
		}
		averaged++
		if len(data) != sizeOf(p.shape) {
			return fmt.Errorf("gnet: checkpoint weight average %s has %d values, want %d", p.name, len(data), sizeOf(p.shape))
		}
		for j, v := range data {
			if !finite(float64(v)) {
				return fmt.Errorf("gnet: checkpoint weight average %s[%d] is %v", p.name, j, v)
			}
		}
		if t.avg != nil {
			copy(t.avg[i], data)
		}
	}
	if averaged != 0 && averaged != len(t.specs) {
		return fmt.Errorf("gnet: checkpoint weight average has %d of the %d tensors", averaged, len(t.specs))
	}
	if len(o.Tensors) != want+averaged {
		return fmt.Errorf("gnet: checkpoint optimizer has %d tensors, %s needs %d", len(o.Tensors), t.o.optimizer, want+averaged)
	}
	t.optStep = o.Step
	return nil
}

// Optimizer exports the optimizer: its name, hyperparameters ("lr" is
// the rate the next step takes), step and per-parameter state, named
// "velocity/<tensor>" for SGD, "m/<tensor>" and "v/<tensor>" (first and
// second moments) for Adam, over every tensor but the running statistics.
func (t *Trainer) Optimizer() *model.Optimizer {
	o := &model.Optimizer{
		Name:    t.o.optimizer,
		Params:  map[string]float64{"lr": t.Rate(), "l2": t.o.l2, "batch": float64(t.o.batch), "bn_momentum": t.o.bnMomentum},
		Step:    t.optStep,
		Tensors: map[string][]float32{},
	}
	if t.o.optimizer == Adam {
		o.Params["beta1"], o.Params["beta2"], o.Params["epsilon"] = t.o.beta1, t.o.beta2, t.o.epsilon
	} else {
		o.Params["momentum"] = t.o.momentum
	}
	for s, slot := range t.slots {
		for i, p := range t.specs {
			o.Tensors[slot+"/"+p.name] = append([]float32(nil), t.state[s][i]...)
		}
	}
	if t.avg != nil {
		o.Params["average"] = t.o.average
		for i, p := range t.specs {
			o.Tensors[averageSlot+"/"+p.name] = slices.Clone(t.avg[i])
		}
	}
	return o
}

// update applies one step at learning rate lr to every parameter from the
// gradients of the last run, plus L2's 2c·w on the weights it covers. It
// clears each gradient as it reads it (the next run's start from zero),
// and sums the new weights' squares for the next step's L2 term: one
// pass over the parameters where three were, split across the cores.
func (t *Trainer) update(lr float64) error {
	for i, p := range t.specs {
		if g := t.train.grad(i); g == nil || g.Shape().TotalSize() != sizeOf(p.shape) {
			return fmt.Errorf("gnet: no gradient for %s", p.name)
		}
	}
	t.optStep++
	adam := t.o.optimizer == Adam
	var c1, c2 float64
	if adam {
		c1 = 1 - math.Pow(t.o.beta1, float64(t.optStep))
		c2 = 1 - math.Pow(t.o.beta2, float64(t.optStep))
	}
	var squares float64
	for i, p := range t.specs {
		w := floats[float32](t.values[i])
		g := floats[float32](t.train.grad(i))
		var l2 float32
		if p.decay {
			l2 = float32(2 * t.o.l2)
		}
		// The bands of squares (L2), their sums added in order.
		const band = l2Band
		bands := (len(w) + band - 1) / band
		sums := slices.Grow(t.bandSums[:0], bands)[:bands]
		clear(sums)
		t.bandSums = sums
		var avg []float32
		if t.avg != nil {
			avg = t.avg[i]
		}
		u := &t.updateTask
		*u = updateTask{t: t, i: i, adam: adam, decay: p.decay, w: w, g: g, avg: avg, sums: sums, l2: l2, lr: lr, c1: c1, c2: c2}
		parallel(bands, len(w), u)
		*u = updateTask{}
		var tensorSquares float64 // a tensor's own sum first, as L2's squares adds it
		for _, v := range sums {
			tensorSquares += v
		}
		squares += tensorSquares
	}
	t.l2Squares, t.l2Known = squares, true
	return nil
}

// averageUpdate: a ← d·a + (1−d)·w.
func averageUpdate(a, w []float32, d float32) {
	w = w[:len(a)]
	for j, wj := range w {
		a[j] = d*a[j] + (1-d)*wj
	}
}

// sgdUpdate: v ← μv + g + l2·w; w ← w − lr·v.
func sgdUpdate(w, g, v []float32, l2, lr, mu float32) {
	g, v = g[:len(w)], v[:len(w)]
	for j, wj := range w {
		vj := mu*v[j] + g[j] + l2*wj
		v[j] = vj
		w[j] = wj - lr*vj
	}
}

// adamUpdate: m ← β₁m + (1−β₁)g; v ← β₂v + (1−β₂)g²;
// w ← w − (lr/c₁)·m / (√(v/c₂) + ε), with g including l2·w and
// c₁ = 1−β₁ᵗ, c₂ = 1−β₂ᵗ (passed as lrc = lr/c₁ and ic2 = 1/c₂).
func adamUpdate(w, g, m, v []float32, l2, lrc, b1, b2, ic2, eps float32) {
	g, m, v = g[:len(w)], m[:len(w)], v[:len(w)]
	for j, wj := range w {
		gj := g[j] + l2*wj
		mj := b1*m[j] + (1-b1)*gj
		vj := b2*v[j] + (1-b2)*gj*gj
		m[j], v[j] = mj, vj
		w[j] = wj - lrc*mj/(float32(math.Sqrt(float64(vj*ic2)))+eps)
	}
}

func sizeOf(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// updateTask is update's loop over one parameter's bands.
type updateTask struct {
	t           *Trainer
	i           int // the parameter
	adam, decay bool
	w, g, avg   []float32
	sums        []float64
	l2          float32
	lr, c1, c2  float64
}

func (u *updateTask) run(lo, hi int) {
	const band = l2Band
	t, i, w, g := u.t, u.i, u.w, u.g
	for b := lo; b < hi; b++ {
		j0, j1 := b*band, min(len(w), (b+1)*band)
		ws, gs := w[j0:j1], g[j0:j1]
		if u.adam {
			adamUpdate(ws, gs, t.state[0][i][j0:j1], t.state[1][i][j0:j1], u.l2, float32(u.lr/u.c1), float32(t.o.beta1), float32(t.o.beta2), float32(1/u.c2), float32(t.o.epsilon))
		} else {
			sgdUpdate(ws, gs, t.state[0][i][j0:j1], u.l2, float32(u.lr), float32(t.o.momentum))
		}
		if u.avg != nil {
			averageUpdate(u.avg[j0:j1], ws, float32(t.o.average))
		}
		clear(gs)
		if u.decay {
			u.sums[b] = dot4(ws, ws)
		}
	}
}
