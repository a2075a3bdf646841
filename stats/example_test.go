package stats_test

import (
	"fmt"

	"github.com/palace-chess/palace/stats"
)

// A gate plays game pairs (each opening with both colours) and stops as
// soon as the SPRT decides whether the candidate is at least Elo1 stronger.
func ExampleSPRT_Decide() {
	gate := stats.SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}
	if err := gate.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	// The candidate's scores in the two games of each pair, repeating.
	results := [][2]float64{{1, 0.5}, {0.5, 0.5}, {1, 0}, {1, 1}, {0, 0.5}, {1, 0.5}}

	var pairs stats.Pentanomial
	for i := 0; ; i++ {
		r := results[i%len(results)]
		if err := pairs.AddPair(r[0], r[1]); err != nil {
			fmt.Println(err)
			return
		}
		llr := gate.LLRPentanomial(pairs)
		if d := gate.Decide(llr); d != stats.Continue {
			e := pairs.Elo()
			fmt.Printf("after %d pairs: LLR %.2f, %v\n", pairs.Pairs(), llr, d)
			fmt.Printf("Elo %.0f [%.0f, %.0f], LOS %.3f\n", e.Elo, e.CI.Lo, e.CI.Hi, e.LOS)
			return
		}
	}
	// Output:
	// after 26 pairs: LLR 2.96, accept H1
	// Elo 89 [25, 159], LOS 0.997
}
