package openings_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/openings"
	"github.com/palace-chess/palace/rules"
)

// Three xiangqi games: the tree of their first two plies, each move with
// the mover's W/D/L and score. (openings.Build reads games files,
// self-play and run directories the same way.)
func ExampleBuilder() {
	xq := rules.MustPreset("xiangqi")
	b, err := openings.NewBuilder(openings.Filter{Depth: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, g := range []struct{ moves, result string }{
		{"h3e3 h10g8 h1g3", "1-0"},
		{"h3e3 b10c8", "1/2-1/2"},
		{"c4c5 g7g6", "0-1"},
	} {
		game := gamerec.Game{Index: i + 1, RuleSet: xq.String(), Line: gamerec.Line{StartFEN: rules.XiangqiStartFEN, Moves: g.moves}, Plies: len(strings.Fields(g.moves)), End: gamerec.End{Result: g.result}}
		if err := b.Add(&game, xq); err != nil {
			fmt.Println(err)
			return
		}
	}
	v, err := b.Tree().View()
	if err != nil {
		fmt.Println(err)
		return
	}
	v.WriteTable(os.Stdout, 0)
	// Output:
	// 3 games (xiangqi@28da3d27164cf76e), first 2 plies
	//
	// xiangqi@28da3d27164cf76e, ply 0: rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1
	// 3 games, Red to move: Red wins 1, draws 1, Black wins 1 (Red's score 0.500 [0.125, 0.875]), 0 unscored
	//
	// move          games   share  W  D  L  unscored  score    95% interval
	// 1. h3e3           2   66.7%  1  1  0         0  0.750  [0.198, 0.973]
	//   1... b10c8      1   50.0%  0  1  0         0  0.500  [0.055, 0.945]
	//   1... h10g8      1   50.0%  0  0  1         0  0.000  [0.000, 0.793]
	// 1. c4c5           1   33.3%  0  0  1         0  0.000  [0.000, 0.793]
	//   1... g7g6       1  100.0%  1  0  0         0  1.000  [0.207, 1.000]
	//
	// W, D, L and score are the mover's: score = (W + D/2)/(W + D + L), with its 95% Wilson interval;
	// games with an unknown result (*) count in games and share only (unscored).
}
