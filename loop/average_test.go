package loop_test

import (
	"strings"
	"testing"

	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/store"
)

// TestWeightAverageCandidates runs the tiny run with train.weight_average,
// stopped after generation 0 and resumed (the resume's check of the
// trainer's state compares it with the last candidate, its average): the
// last candidate is the trainer's weight average, which its state
// carries, not the last step's weights.
func TestWeightAverageCandidates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the loop")
	}
	c, err := loop.ParseConfig([]byte(looptest.Merge(t, looptest.TinyYAML, "train: {weight_average: 0.9}")), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, _ := store.NewDir(dir)
	runStoppedOnce(t, st, c, loop.Options{CodeVersion: "test"}, func(s loop.State) bool {
		return s.Generation == 1 && s.Stage == loop.StageSelfplay
	})
	looptest.CheckRun(t, dir, c)
	state, err := model.Load(st.Local(loop.TrainKey))
	if err != nil {
		t.Fatal(err)
	}
	cand, err := model.Load(st.Local(loop.NetKey(2)))
	if err != nil {
		t.Fatal(err)
	}
	if state.Optimizer == nil || state.Optimizer.Params["average"] != 0.9 {
		t.Fatalf("the trainer's state keeps no weight average: %+v", state.Optimizer)
	}
	averaged, differs := 0, false
	for name, avg := range state.Optimizer.Tensors {
		w, ok := strings.CutPrefix(name, "average/")
		if !ok {
			continue
		}
		averaged++
		for j, v := range avg {
			if cand.Weights.Tensors[w][j] != v {
				t.Fatalf("candidate 2's %s[%d] is %v, the average %v", w, j, cand.Weights.Tensors[w][j], v)
			}
			differs = differs || state.Weights.Tensors[w][j] != v
		}
	}
	if !strings.Contains(cand.Provenance.Note, "moving average") {
		t.Errorf("candidate 2's note %q does not say it is the average", cand.Provenance.Note)
	}
	if averaged == 0 || !differs {
		t.Errorf("%d averaged tensors; differ from the weights: %v", averaged, differs)
	}
}
