package model_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/gib"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/pgn"
	"github.com/palace-chess/palace/rules"
)

// recordPositions encodes every position of the games in files (PGN or
// .gib), up to limit, under the preset rs.
func recordPositions(t *testing.T, preset string, limit int, files ...string) []nn.Input {
	t.Helper()
	rs := rules.MustPreset(preset)
	var ins []nn.Input
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var games []gamerec.Game
		opt := gamerec.ImportOptions{RuleSet: rs}
		if filepath.Ext(f) == ".gib" {
			games, _, _ = gib.Import(data, f, opt)
		} else {
			games, _, _ = pgn.Import(data, f, pgn.Options{ImportOptions: opt, Encoding: pgn.AutoEncoding})
		}
		for i := range games {
			end, err := games[i].Replay(rs)
			if err != nil {
				t.Fatal(err)
			}
			g, err := rules.NewGame(rs, end.RootFEN())
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range end.Moves(nil) {
				legal := g.LegalMoves(nil)
				planes := make([]float32, encode.InputSize)
				if err := encode.Encode(g, legal, planes); err != nil {
					t.Fatal(err)
				}
				ins = append(ins, nn.Input{Planes: planes, Legal: encode.LegalIndices(legal, g.Position().SideToMove(), nil), Key: g.Position().Key()})
				if len(ins) == limit {
					return ins
				}
				g.Play(m)
			}
		}
	}
	if len(ins) == 0 {
		t.Fatalf("no positions in %v", files)
	}
	return ins
}

// The bf16 path plays as the float32 one does: on the shipped networks and
// positions of real games (batches of 32), its move probabilities and WDL
// stay within stated tolerances of float32's and it picks the same most
// likely move. The tolerances are what bf16's 8-bit operands allow with
// room to spare (the largest differences seen are logged).
func TestBF16Agreement(t *testing.T) {
	if !model.KernelBF16.Supported() {
		t.Skip("no AVX-512 BF16 on this CPU: the bf16 path does not run")
	}
	ref := model.KernelAVX512
	for _, tc := range []struct {
		net, preset string
		files       []string
	}{
		{"../../nets/xiangqi.palnet", "xiangqi", ccpdSample(t)},
		{"../../nets/janggi.palnet", "janggimodern", []string{"../../gib/testdata/train/kakao_001.gib", "../../gib/testdata/train/hangame_proleague_2010_pro.gib"}},
	} {
		t.Run(tc.preset, func(t *testing.T) {
			ck, err := model.LoadPlayable(tc.net)
			if err != nil {
				t.Fatal(err)
			}
			ins := recordPositions(t, tc.preset, 640, tc.files...)
			fp, err := model.NewEvaluatorKernel(ck.Weights, ref)
			if err != nil {
				t.Fatal(err)
			}
			bf, err := model.NewEvaluatorKernel(ck.Weights, model.KernelBF16)
			if err != nil {
				t.Fatal(err)
			}
			want, got := outputsFor(ins), outputsFor(ins)
			for i := 0; i < len(ins); i += 32 {
				j := min(i+32, len(ins))
				if err := fp.Evaluate(ins[i:j], want[i:j]); err != nil {
					t.Fatal(err)
				}
				if err := bf.Evaluate(ins[i:j], got[i:j]); err != nil {
					t.Fatal(err)
				}
			}
			var worstP, worstW, sumP float64
			var moves, sameTop, closeTop int
			for i := range ins {
				top, topGot := 0, 0
				for k, p := range want[i].Policy {
					d := float64(abs32(got[i].Policy[k] - p))
					worstP = max(worstP, d)
					sumP += d
					moves++
					if p > want[i].Policy[top] {
						top = k
					}
					if got[i].Policy[k] > got[i].Policy[topGot] {
						topGot = k
					}
				}
				if top == topGot {
					sameTop++
				} else if want[i].Policy[top]-want[i].Policy[topGot] < 0.02 {
					closeTop++ // a near tie between the two moves
				}
				for k := range 3 {
					worstW = max(worstW, float64(abs32(got[i].WDL[k]-want[i].WDL[k])))
				}
			}
			t.Logf("%d positions: largest move-probability difference %.4f (mean %.2g), largest WDL difference %.4f; same top move %d, near ties %d",
				len(ins), worstP, sumP/float64(moves), worstW, sameTop, closeTop)
			if worstP > 0.03 || sumP/float64(moves) > 1e-3 {
				t.Errorf("move probabilities differ by up to %.4f (mean %.2g): the tolerance is 0.03 (mean 1e-3)", worstP, sumP/float64(moves))
			}
			if worstW > 0.05 {
				t.Errorf("WDL differs by up to %.4f: the tolerance is 0.05", worstW)
			}
			if sameTop+closeTop != len(ins) {
				t.Errorf("the most likely move differs beyond a near tie in %d of %d positions", len(ins)-sameTop-closeTop, len(ins))
			}
		})
	}
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

func ccpdSample(t *testing.T) []string {
	files, err := filepath.Glob("../../pgn/testdata/ccpd_sample/*.pgn")
	if err != nil || len(files) == 0 {
		t.Fatalf("no CCPD sample games (%v)", err)
	}
	return files
}
