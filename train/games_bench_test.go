package train_test

import (
	"testing"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/train"
)

// BenchmarkGamePositions is the cost of turning a recorded game into
// training positions (BuildGameSet's and EvalGames' inner loop): a
// 120-ply xiangqi game, replayed and checked, then one position a ply.
func BenchmarkGamePositions(b *testing.B) {
	rs := ruleSet(b, "xiangqi")
	g := randomGames(b, rs, 1, 120, 11)[0]
	var recs []datasets.Record
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var err error
		if recs, err = train.GamePositions(recs[:0], &g, rs, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(recs))/b.Elapsed().Seconds(), "positions/s")
}
