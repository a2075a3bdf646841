package train_test

import (
	"math"
	"strings"
	"testing"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/train"
)

// A uniform evaluator's losses are known exactly: its policy is uniform
// over the legal moves and its WDL a certain draw, whose cross-entropy on
// a decided game is that of the floor probability, 1e-12.
// Xiangqi games capped at 40 plies are draws, janggi's are decided by
// counting: together, both kinds of result.
func TestEvalUniform(t *testing.T) {
	xq, xrs := shards(t, 8)
	jg, jrs := train.PlayTiny(t, train.TinyGames{Rules: "janggi", Games: 4, MaxPlies: 40, GamesPerShard: 2, ConcurrentGames: 4, Seed: 3, EvaluatorSeed: 5})
	dirs, sets := []string{xq, jg}, []*rules.RuleSet{xrs, jrs}
	rep, err := train.Eval(nn.NewUniform(encode.InputSize, encode.PolicySize()), dirs, sets, train.EvalOptions{Batch: 7})
	if err != nil {
		t.Fatal(err)
	}

	// What the shards hold, counted independently.
	var n, full int64
	var results [3]int64
	var wantPolicy float64
	for _, dir := range dirs {
		m, err := datasets.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range m.Shards {
			r, err := datasets.Open(dir + "/" + s.Name)
			if err != nil {
				t.Fatal(err)
			}
			for rec, err := range r.Records() {
				if err != nil {
					t.Fatal(err)
				}
				n++
				results[1-int(rec.Result)]++
				if rec.Full {
					full++
					wantPolicy += math.Log(float64(len(rec.Policy)))
				}
			}
			r.Close()
		}
	}
	if rep.Positions != n || rep.Results != results || rep.PolicyPositions != full || full == 0 {
		t.Fatalf("counted %d positions %v, %d full; Eval says %d %v, %d", n, results, full, rep.Positions, rep.Results, rep.PolicyPositions)
	}
	if results[0]+results[2] == 0 || results[1] == 0 {
		t.Fatalf("results %v: the test needs decided and drawn games", results)
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("%s = %.9f, want %.9f", name, got, want)
		}
	}
	near("WDLCE", rep.WDLCE, float64(results[0]+results[2])/float64(n)*-math.Log(1e-12))
	near("PolicyCE", rep.PolicyCE, wantPolicy/float64(full))
	var constCE, mean float64
	for j, c := range results {
		if f := float64(c) / float64(n); f > 0 {
			constCE -= f * math.Log(f)
			mean += f * float64(1-j)
		}
	}
	near("ConstWDLCE", rep.ConstWDLCE, constCE)
	// The uniform value is 0: its MSE is the results' mean square.
	near("ValueMSE", rep.ValueMSE, float64(results[0]+results[2])/float64(n))
	near("ConstValueMSE", rep.ConstValueMSE, float64(results[0]+results[2])/float64(n)-mean*mean)
	if !(rep.TargetEntropy > 0 && rep.TargetEntropy <= rep.PolicyCE+1e-9) {
		t.Errorf("target entropy %v, policy CE %v: the entropy is the least the CE can be", rep.TargetEntropy, rep.PolicyCE)
	}

	// One record in three, in file order.
	third, err := train.Eval(nn.NewUniform(encode.InputSize, encode.PolicySize()), dirs, sets, train.EvalOptions{Every: 3})
	if err != nil {
		t.Fatal(err)
	}
	if third.Positions >= n || third.Positions < n/3 {
		t.Errorf("every 3rd of %d records: %d", n, third.Positions)
	}
}

func TestEvalErrors(t *testing.T) {
	dir, rs := shards(t, 4)
	ev := nn.NewUniform(encode.InputSize, encode.PolicySize())
	uncapped, _ := rules.Preset("xiangqi")
	for _, tc := range []struct {
		name string
		dirs []string
		sets []*rules.RuleSet
		want string
	}{
		{"another rule set", []string{dir}, []*rules.RuleSet{uncapped}, "is under rule set " + rs.String()},
		{"no shards", []string{t.TempDir()}, []*rules.RuleSet{rs}, "lists no shards"},
	} {
		_, err := train.Eval(ev, tc.dirs, tc.sets, train.EvalOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := train.Eval(nn.NewUniform(10, 20), []string{dir}, []*rules.RuleSet{rs}, train.EvalOptions{}); err == nil {
		t.Error("an evaluator of another size was accepted")
	}
}
