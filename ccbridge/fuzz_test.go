package ccbridge

import (
	"testing"

	"github.com/palace-chess/palace/gamerec"
)

// FuzzImport feeds Import arbitrary bytes, seeded with records and a
// library: it must not panic, and whatever it imports must replay.
func FuzzImport(f *testing.F) {
	main := line("h2e2", "h9g7", "h0g2")
	main[0].comment = "注"
	main = append(main, line("c3c4", "g6g5")...)
	for _, g := range []cbrGame{
		{moves: iccsLine(leGame), result: 1},
		{moves: main, startComment: "开局", result: 3},
		{fen: "3k5/R8/9/9/9/9/9/9/1R7/4K4 w - - 0 1", result: 2, moves: line("b1b9")},
		{fen: "4k4/9/9/9/9/9/9/9/R8/3K5 b - - 0 1", moves: line("e9f9", "a1a9")},
	} {
		f.Add(encodeRecord(f, g))
	}
	f.Add(encodeLibrary(f, "库", 0,
		encodeRecord(f, cbrGame{moves: line("h2e2", "h9g7")}),
		encodeRecord(f, cbrGame{moves: line("c3c4", "g6g5", "h0g2")})))
	f.Fuzz(func(t *testing.T, data []byte) {
		games, errs, _ := Import(data, "fuzz", gamerec.ImportOptions{})
		for _, err := range errs {
			if err == nil {
				t.Fatal("nil error")
			}
		}
		replayAll(t, games)
	})
}

// BenchmarkImport imports a library of 60 games: real games, a game with
// variations and comments, and an endgame.
func BenchmarkImport(b *testing.B) {
	main := iccsLine(liuGame)
	main[0].comment = "当头炮"
	main = append(main, line("c3c4", "g6g5")...)
	kinds := [][]byte{
		encodeRecord(b, cbrGame{moves: iccsLine(liuGame)}),
		encodeRecord(b, cbrGame{moves: iccsLine(leGame), result: 1}),
		encodeRecord(b, cbrGame{moves: main, startComment: "开局", result: 3}),
		encodeRecord(b, cbrGame{fen: "4k4/9/9/9/9/9/9/9/R8/3K5 b - - 0 1", moves: line("e9f9", "a1a9", "f9f8", "a9a8")}),
	}
	var recs [][]byte
	for i := range 60 {
		recs = append(recs, kinds[i%len(kinds)])
	}
	data := encodeLibrary(b, "bench", 128, recs...)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		games, errs, _ := Import(data, "bench.cbl", gamerec.ImportOptions{})
		if len(games) != 60 || len(errs) != 0 {
			b.Fatalf("%d games, errors %v", len(games), errs)
		}
	}
	b.ReportMetric(60*float64(b.N)/b.Elapsed().Seconds(), "games/s")
}
