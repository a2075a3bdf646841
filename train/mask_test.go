package train

import (
	"testing"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
)

// markIllegal keeps every listed move's target, a zero one included (a
// legal move the search did not like is still legal), marks every other
// slot −1, and leaves its scratch clean for the next position.
func TestMarkIllegal(t *testing.T) {
	b := newBatch(1, false)
	target := make([]float32, encode.PolicySize())
	for _, policy := range [][]datasets.PolicyEntry{
		{{Index: 3, P: 0.25}, {Index: 7, P: 0.75}, {Index: 9, P: 0}},
		{{Index: 4, P: 1}},
	} {
		rec := datasets.Record{Policy: policy}
		if err := rec.PolicyTarget(target); err != nil {
			t.Fatal(err)
		}
		b.markIllegal(policy, target)
		listed := map[int]float32{}
		for _, e := range policy {
			listed[int(e.Index)] = e.P
		}
		for i, v := range target {
			want, ok := listed[i]
			if !ok {
				want = -1
			}
			if v != want {
				t.Fatalf("policy %v: slot %d target %v, want %v", policy, i, v, want)
			}
		}
	}
	if !DefaultConfig().MaskIllegal {
		t.Error("DefaultConfig does not mask illegal moves")
	}
}
