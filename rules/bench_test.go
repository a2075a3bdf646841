package rules

import "testing"

func benchPerft(b *testing.B, rules, fen string, depth int) {
	g, err := NewGame(MustPreset(rules), fen)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		nodes += g.Perft(depth)
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "leaves/s")
}

// The yardstick: Fairy-Stockfish counts about 10–12 M leaves/s per
// core here; scripts/perft-vs-fsf.sh measures both in one run.
func BenchmarkPerftXiangqiStart4(b *testing.B) { benchPerft(b, "xiangqi", XiangqiStartFEN, 4) }
func BenchmarkPerftJanggiStart4(b *testing.B)  { benchPerft(b, "janggi", JanggiStartFEN, 4) }

func BenchmarkPerftXiangqiMiddlegame(b *testing.B) {
	benchPerft(b, "xiangqi", "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1", 3)
}

func BenchmarkLegalMovesXiangqiStart(b *testing.B) {
	pos, _ := ParseFEN(XiangqiStartFEN, MustPreset("xiangqi"))
	buf := make([]Move, 0, MaxMoves)
	b.ReportAllocs()
	for b.Loop() {
		buf = pos.LegalMoves(buf[:0])
	}
}

func BenchmarkMakeUnmake(b *testing.B) {
	pos, _ := ParseFEN(XiangqiStartFEN, MustPreset("xiangqi"))
	moves := pos.LegalMoves(nil)
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range moves {
			u := pos.MakeMove(m)
			pos.UnmakeMove(m, u)
		}
	}
}
