package loop_test

import (
	"testing"

	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/store"
)

// A run with reply targets, stopped and resumed: generation 0 is the
// config's network without the reply head, the trainer adds it, every
// candidate has it and plays self-play as the best, and the metrics carry
// the reply loss.
func TestReplyPolicyRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the loop")
	}
	c, err := loop.ParseConfig([]byte(looptest.Merge(t, looptest.TinyYAML, "gating: false\ntrain: {reply_policy_weight: 0.15}")), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, _ := store.NewDir(dir)
	runStoppedOnce(t, st, c, loop.Options{CodeVersion: "test"}, func(s loop.State) bool {
		return s.Generation == 1 && s.Stage == loop.StageSelfplay
	})
	looptest.CheckRun(t, dir, c)
	for gen, head := range []bool{false, true, true} {
		ck, err := model.Load(st.Local(loop.NetKey(gen)))
		if err != nil {
			t.Fatal(err)
		}
		if ck.Weights.Config.ReplyPolicy != head {
			t.Errorf("generation %d: reply head %v, want %v", gen, ck.Weights.Config.ReplyPolicy, head)
		}
	}
	ms, err := loop.ReadMetrics(st)
	if err != nil {
		t.Fatal(err)
	}
	trained := 0
	for _, m := range ms {
		if m.Stage != loop.StageTrain || m.Loss == nil {
			continue
		}
		trained++
		if !(m.Loss.Reply > 0) || m.Loss.Total <= m.Loss.Policy+m.Loss.WDL {
			t.Errorf("generation %d: losses %+v, want a reply loss in the total", m.Generation, *m.Loss)
		}
	}
	if trained != 2 {
		t.Errorf("%d training metrics with losses, want 2", trained)
	}
}
