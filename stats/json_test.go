package stats

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// A perfect score's estimate (Elo and bounds infinite) survives a JSON
// round trip; encoding/json alone refuses it, which once stopped a run
// when a gate's candidate won every pair.
func TestEloEstimateJSON(t *testing.T) {
	perfect := WDL{Wins: 10}.Elo()
	if !math.IsInf(perfect.CI.Hi, 1) {
		t.Fatalf("a perfect score's upper bound is %v; the test needs +Inf", perfect.CI.Hi)
	}
	for _, e := range []EloEstimate{perfect, WDL{Losses: 10}.Elo(), WDL{Wins: 7, Draws: 3, Losses: 5}.Elo(), {Elo: math.NaN()}} {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("%+v: %v", e, err)
		}
		var got EloEstimate
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		same := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
		if !same(got.Elo, e.Elo) || !same(got.CI.Lo, e.CI.Lo) || !same(got.CI.Hi, e.CI.Hi) || !same(got.LOS, e.LOS) {
			t.Errorf("%s read back as %+v, want %+v", b, got, e)
		}
	}
	// The plain struct's form, as files written before hold it, still reads.
	var old EloEstimate
	if err := json.Unmarshal([]byte(`{"Elo":35.5,"CI":{"Lo":-7,"Hi":78},"LOS":0.9}`), &old); err != nil || old.Elo != 35.5 || old.CI.Hi != 78 {
		t.Errorf("old form: %+v, %v", old, err)
	}
	if err := json.Unmarshal([]byte(`{"Elo":"lots"}`), &old); err == nil || !strings.Contains(err.Error(), "lots") {
		t.Errorf("a bad string: %v", err)
	}
}
