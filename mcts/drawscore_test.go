package mcts

import (
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
)

// blackToMovePlane is the first feature plane after the piece planes
// (7 piece types for each side, HistorySteps boards): 1 when black moves.
const blackToMovePlane = encode.HistorySteps * 14

// redAhead is an evaluator with uniform priors that sees every position as
// red's by 0.3 (WDL 0.55, 0.2, 0.25 to red): black reads every ordinary
// move as worth −0.3 and a draw, at 0, as better than any of them.
type redAhead struct{}

func (redAhead) InputSize() int  { return encode.InputSize }
func (redAhead) PolicySize() int { return encode.PolicySize() }

func (redAhead) Evaluate(in []nn.Input, out []nn.Output) error {
	for i := range out {
		for j := range out[i].Policy {
			out[i].Policy[j] = 1 / float32(len(out[i].Policy))
		}
		out[i].WDL = [3]float32{0.55, 0.2, 0.25}
		if blackToMove(in[i].Planes) {
			out[i].WDL = [3]float32{0.25, 0.2, 0.55}
		}
	}
	return nil
}

func blackToMove(planes []float32) bool { return planes[blackToMovePlane*rules.Squares] == 1 }

// TestDrawScoreAvoidsRepetition: black to move can repeat the start
// position a third time (a draw). With draws worth 0 the search takes it;
// with DrawScore −0.5 (a draw −0.5, any other move −0.3 − 0.5×0.2) both
// searches play on.
func TestDrawScoreAvoidsRepetition(t *testing.T) {
	g := newGame(t, rules.MustPreset("xiangqi"), rules.XiangqiStartFEN)
	for _, mv := range []string{"a0a1", "a9a8", "a1a0", "a8a9", "a0a1", "a9a8", "a1a0"} {
		if _, err := g.PlayText(mv, rules.Ranks0); err != nil {
			t.Fatal(err)
		}
	}
	drawing, err := g.Position().ParseMove("a8a9", rules.Ranks0)
	if err != nil {
		t.Fatal(err)
	}
	g.Play(drawing)
	if r := g.Result(); r.Outcome != rules.Draw {
		t.Fatalf("a8a9 should draw by repetition, result %v", r)
	}
	g.Undo()
	planes := make([]float32, encode.InputSize)
	moves := g.LegalMoves(nil)
	if err := encode.Encode(g, moves, planes); err != nil || !blackToMove(planes) {
		t.Fatalf("the black-to-move plane is not where the test reads it (err %v)", err)
	}

	for _, mode := range []Mode{PUCT, Gumbel} {
		for _, tc := range []struct {
			drawScore float64
			wantDraw  bool
		}{{0, true}, {-0.5, false}} {
			p := DefaultParams()
			p.Mode, p.Simulations, p.CheapSimulations = mode, 400, 0
			p.NoiseFraction, p.GumbelScale, p.Temperature = 0, 0, 0
			p.GumbelK = 64
			p.DrawScore = tc.drawScore
			s := newSearch(t, p, redAhead{})
			r, err := s.Run(g)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Best == drawing; got != tc.wantDraw {
				t.Errorf("%s, DrawScore %v: played %s; want the drawing move: %v", mode, tc.drawScore, r.Best.Text(rules.Ranks0), tc.wantDraw)
			}
		}
	}
}
