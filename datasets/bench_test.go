package datasets

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/rules"
)

const benchPositions = 20000

var benchRecs = map[string][]Record{}
var benchMu sync.Mutex

// benchRecords are positions of random games without shuttling, with
// search-like policy targets over every legal move (softmax of random
// logits), random values and the games' results: a stand-in for
// self-play records until self-play writes real ones.
func benchRecords(name string) []Record {
	benchMu.Lock()
	defer benchMu.Unlock()
	if r, ok := benchRecs[name]; ok {
		return r
	}
	r := makeGameRecords(rules.MustPreset(name), 99, benchPositions, false)
	benchRecs[name] = r
	return r
}

// Compressed shard bytes per position (the goal is under 200), by game
// and block size, and the writer's speed.
func BenchmarkShardBytesPerPosition(b *testing.B) {
	for _, name := range []string{"xiangqi", "janggi"} {
		for _, block := range []int{64, 256, 1024} {
			b.Run(fmt.Sprintf("%s/block=%d", name, block), func(b *testing.B) {
				recs := benchRecords(name)
				rs := rules.MustPreset(name)
				dir := b.TempDir()
				b.ReportAllocs()
				var size int64
				for i := 0; b.Loop(); i++ {
					info := writeShard(b, filepath.Join(dir, fmt.Sprintf("%d.shard", i)), rs, recs, WithBlockRecords(block))
					size = info.Bytes
				}
				b.ReportMetric(float64(size)/float64(len(recs)), "bytes/pos")
				b.ReportMetric(float64(len(recs)*b.N)/b.Elapsed().Seconds(), "pos/s")
			})
		}
	}
}

// Reading a shard start to end on one core: decompressing, checking and
// decoding every record (the goal is at least 1M positions/s).
func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"xiangqi", "janggi"} {
		for _, block := range []int{64, 256, 1024} {
			b.Run(fmt.Sprintf("%s/block=%d", name, block), func(b *testing.B) {
				benchDecode(b, name, block)
			})
		}
	}
}

func benchDecode(b *testing.B, name string, block int) {
	recs := benchRecords(name)
	path := filepath.Join(b.TempDir(), "d.shard")
	writeShard(b, path, rules.MustPreset(name), recs, WithBlockRecords(block))
	r, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, err := range r.Records() {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != len(recs) {
			b.Fatalf("%d records", n)
		}
	}
	b.ReportMetric(float64(len(recs)*b.N)/b.Elapsed().Seconds(), "pos/s")
}

// Drawing batches of 256 uniform samples from a window of 160,000
// positions, far more than the block cache holds, so that nearly every
// sample decompresses a block, by block size.
func BenchmarkSampler(b *testing.B) {
	for _, block := range []int{64, 256, 1024} {
		b.Run(fmt.Sprintf("block=%d", block), func(b *testing.B) {
			dir := b.TempDir()
			rs := rules.MustPreset("janggi")
			recs := slices.Clone(benchRecords("janggi"))
			for i := range 8 {
				for k := range recs {
					recs[k].GameID += 1 << 32
				}
				writeShard(b, filepath.Join(dir, fmt.Sprintf("%d.shard", i)), rs, recs, WithBlockRecords(block), WithManifest())
			}
			s, err := NewSampler([]string{dir}, WithWindow(1000, 1, 1), WithSeed(1))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if s.Window() != int64(8*len(recs)) {
				b.Fatalf("window %d", s.Window())
			}
			batch := make([]Sample, 256)
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Fill(batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(batch)*b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

// Building one record's input planes.
func BenchmarkEncodeRecord(b *testing.B) {
	recs := benchRecords("janggi")
	rs := rules.MustPreset("janggi")
	planes := make([]float32, encode.InputSize)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := EncodeRecord(&recs[i%len(recs)], rs, planes); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// SetPolicy on a fresh record, as self-play makes one a ply: the xiangqi
// middlegame's 40-odd moves with equal probabilities. One op is one record.
func BenchmarkSetPolicy(b *testing.B) {
	g, err := rules.NewGame(rules.MustPreset("xiangqi"), "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1")
	if err != nil {
		b.Fatal(err)
	}
	moves := g.LegalMoves(nil)
	probs := make([]float32, len(moves))
	for i := range probs {
		probs[i] = 1 / float32(len(moves))
	}
	b.ReportAllocs()
	for b.Loop() {
		rec := Record{Side: rules.White}
		if err := rec.SetPolicy(moves, probs); err != nil {
			b.Fatal(err)
		}
	}
}

// SetPosition along a long random game, as self-play fills a record a ply
// (its games run to 400 plies). One op is one record.
func BenchmarkSetPosition(b *testing.B) {
	rs := rules.MustPreset("xiangqi")
	g, err := rules.NewGame(rs, rs.StartFEN())
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for ply := 0; ply < 300 && !g.Result().Over(); ply++ {
		moves := g.LegalMoves(nil)
		g.Play(moves[rng.IntN(len(moves))])
	}
	legal := g.LegalMoves(nil)
	var rec Record
	b.ReportAllocs()
	for b.Loop() {
		rec.SetPosition(g, legal)
	}
	b.ReportMetric(float64(g.Ply()), "plies")
}
