package datasets

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/rules"
)

func TestWindowSize(t *testing.T) {
	for _, tc := range []struct {
		total, min  int
		exp, expand float64
		want        int
	}{
		{0, 250000, 0.65, 0.4, 250000},
		{100, 250000, 0.65, 0.4, 250000},
		{250000, 250000, 0.65, 0.4, 250000},
		{250001, 250000, 0.65, 0.4, 250000},
		{1_000_000, 250000, 0.65, 0.4, 474967},
		{10_000_000, 250000, 0.65, 0.4, 1788252},
		{100_000_000, 250000, 0.65, 0.4, 7654480},
		{1_000_000_000, 250000, 0.65, 0.4, 33857957},
		{900, 100, 0.65, 0.4, 295},
		{5000, 1000, 1, 1, 5000}, // exponent 1, expansion 1: everything
		{5000, 1000, 1, 0.5, 3000},
		{10, 0, 0.65, 0.4, 3}, // minimum 0 counts as 1: 1 + 0.4·(10^0.65 − 1)/0.65
	} {
		if got := WindowSize(tc.total, tc.min, tc.exp, tc.expand); got != tc.want {
			t.Errorf("WindowSize(%d, %d, %v, %v) = %d, want %d", tc.total, tc.min, tc.exp, tc.expand, got, tc.want)
		}
	}
	// The window grows, never faster than the data at expansion ≤ 1, and
	// slower and slower.
	prev := 0
	for n := 250000; n < 1e9; n = n * 3 / 2 {
		w := WindowSize(n, 250000, 0.65, 0.4)
		if w < prev || w > n {
			t.Fatalf("window %d at %d positions, %d before", w, n, prev)
		}
		prev = w
	}
}

// sampleDir writes shards of records whose game ids are their global
// positions, listed in dir's manifest, and returns how many.
func sampleDir(t testing.TB, dirs []string, sizes []int, rs *rules.RuleSet) int {
	t.Helper()
	recs := makeRecords(rs, 31, sumInts(sizes))
	for i := range recs {
		recs[i].GameID = uint64(i)
	}
	at := 0
	for i, n := range sizes {
		dir := dirs[i%len(dirs)]
		writeShard(t, filepath.Join(dir, fmt.Sprintf("%03d.shard", i)), rs, recs[at:at+n], WithManifest(), WithBlockRecords(20))
		at += n
	}
	return at
}

func sumInts(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

// Samples come only from the window, uniformly, the same for the same
// seed; about half are mirrored, each correctly.
func TestSampler(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	rs := rules.MustPreset("janggi")
	total := sampleDir(t, dirs, []int{300, 250, 350}, rs)
	s, err := NewSampler(dirs, WithWindow(100, 0.65, 0.4), WithSeed(7), WithBlockCache(4))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Total() != int64(total) || s.Window() != 295 {
		t.Fatalf("total %d window %d, want %d and 295", s.Total(), s.Window(), total)
	}
	lo := uint64(total) - 295
	n := 6000
	if testing.Short() {
		n = 2000
	}
	batch := make([]Sample, 100)
	var seq []uint64
	mirrored := 0
	var buckets [5]int
	readers := map[string]*Reader{}
	var orig Record
	a := make([]float32, encode.InputSize)
	b := make([]float32, encode.InputSize)
	for len(seq) < n {
		if err := s.Fill(batch); err != nil {
			t.Fatal(err)
		}
		for i := range batch {
			x := &batch[i]
			r := readers[x.Shard]
			if r == nil {
				if r, err = Open(x.Shard); err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				readers[x.Shard] = r
			}
			if err := r.Record(x.Index, &orig); err != nil {
				t.Fatal(err)
			}
			if orig.GameID < lo {
				t.Fatalf("sample %d is outside the window [%d, %d)", orig.GameID, lo, total)
			}
			if x.GameID != orig.GameID || x.RuleSet != rs.String() {
				t.Fatalf("sample says game %d of %s, its record is %d", x.GameID, x.RuleSet, orig.GameID)
			}
			buckets[(orig.GameID-lo)*5/295]++
			if x.Mirrored {
				mirrored++
				if err := EncodeRecord(&orig, rs, a); err != nil {
					t.Fatal(err)
				}
				if err := EncodeRecord(&x.Record, rs, b); err != nil {
					t.Fatal(err)
				}
				encode.MirrorPlanes(a, a)
				if k := planeDiff(a, b); k >= 0 {
					t.Fatalf("mirrored sample's planes differ from the mirrored planes at %d", k)
				}
				orig.Mirror()
			}
			if d := sameRecord(&orig, &x.Record); d != "" {
				t.Fatalf("sample (mirrored %v) differs from its record: %s", x.Mirrored, d)
			}
			seq = append(seq, x.GameID<<1|uint64(boolInt(x.Mirrored)))
		}
	}
	if sd := math.Sqrt(float64(n) / 4); math.Abs(float64(mirrored)-float64(n)/2) > 5*sd {
		t.Errorf("%d of %d samples mirrored", mirrored, n)
	}
	for i, c := range buckets {
		if want := float64(n) / 5; math.Abs(float64(c)-want) > 5*math.Sqrt(want) {
			t.Errorf("window fifth %d drew %d of %d samples", i, c, n)
		}
	}
	// The same seed draws the same samples, one at a time or in batches.
	s2, err := NewSampler(dirs, WithWindow(100, 0.65, 0.4), WithSeed(7))
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	var one Sample
	for i := range 200 {
		if err := s2.Next(&one); err != nil {
			t.Fatal(err)
		}
		// Fill draws each slot's numbers in slot order, as Next does.
		if got := one.GameID<<1 | uint64(boolInt(one.Mirrored)); got != seq[i] {
			t.Fatalf("sample %d one at a time differs from the batched one", i)
		}
	}
	s3, _ := NewSampler(dirs, WithWindow(100, 0.65, 0.4), WithSeed(7))
	defer s3.Close()
	s4, _ := NewSampler(dirs, WithWindow(100, 0.65, 0.4), WithSeed(8))
	defer s4.Close()
	same, differ := true, false
	for k := 0; k < 500; k += len(batch) {
		b3, b4 := make([]Sample, len(batch)), make([]Sample, len(batch))
		if err := s3.Fill(b3); err != nil {
			t.Fatal(err)
		}
		if err := s4.Fill(b4); err != nil {
			t.Fatal(err)
		}
		for i := range b3 {
			got := b3[i].GameID<<1 | uint64(boolInt(b3[i].Mirrored))
			same = same && got == seq[k+i]
			differ = differ || b3[i].GameID != b4[i].GameID
		}
	}
	if !same || !differ {
		t.Errorf("seeded sampling: same seed repeats %v, another seed differs %v", same, differ)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Next with a seed is Fill of one.
func TestSamplerNext(t *testing.T) {
	dir := t.TempDir()
	sampleDir(t, []string{dir}, []int{120}, rules.MustPreset("xiangqi"))
	s1, err := NewSampler([]string{dir}, WithWindow(50, 0.65, 0.4), WithSeed(3))
	if err != nil {
		t.Fatal(err)
	}
	defer s1.Close()
	s2, _ := NewSampler([]string{dir}, WithWindow(50, 0.65, 0.4), WithSeed(3))
	defer s2.Close()
	var a Sample
	b := make([]Sample, 1)
	for range 100 {
		if err := s1.Next(&a); err != nil {
			t.Fatal(err)
		}
		if err := s2.Fill(b); err != nil {
			t.Fatal(err)
		}
		if d := sameRecord(&a.Record, &b[0].Record); d != "" || a.Mirrored != b[0].Mirrored {
			t.Fatalf("Next and Fill differ: %s", d)
		}
	}
}

// A sampler waits for the window's minimum, and Refresh brings in new
// shards and moves the window.
func TestSamplerRefresh(t *testing.T) {
	dir := t.TempDir()
	rs := rules.MustPreset("xiangqi")
	recs := makeRecords(rs, 12, 400)
	for i := range recs {
		recs[i].GameID = uint64(i)
	}
	writeShard(t, filepath.Join(dir, "0.shard"), rs, recs[:100], WithManifest())
	s, err := NewSampler([]string{dir}, WithWindow(150, 1, 0.5), WithSeed(1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var x Sample
	if err := s.Next(&x); !errors.Is(err, ErrNotEnough) {
		t.Fatalf("100 of 150 positions: %v", err)
	}
	writeShard(t, filepath.Join(dir, "1.shard"), rs, recs[100:400], WithManifest())
	if err := s.Refresh(); err != nil {
		t.Fatal(err)
	}
	// WindowSize(400, 150, 1, 0.5) = 150 + 0.5·250 = 275.
	if s.Total() != 400 || s.Window() != 275 {
		t.Fatalf("after Refresh: total %d window %d", s.Total(), s.Window())
	}
	for range 300 {
		if err := s.Next(&x); err != nil {
			t.Fatal(err)
		}
		if x.GameID < 125 {
			t.Fatalf("sample %d outside the window", x.GameID)
		}
	}
	s2, err := NewSampler([]string{dir}, WithWindow(150, 1, 0.5), WithMaxWindow(50), WithMirror(0))
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for range 200 {
		if err := s2.Next(&x); err != nil {
			t.Fatal(err)
		}
		if x.GameID < 350 || x.Mirrored {
			t.Fatalf("capped window, no mirroring: sample %d mirrored %v", x.GameID, x.Mirrored)
		}
	}
	for _, bad := range []SamplerOption{WithWindow(0, 0.65, 0.4), WithWindow(10, 0, 0.4), WithWindow(10, 1.5, 0.4), WithMirror(2), WithBlockCache(0), WithMaxWindow(-1)} {
		if _, err := NewSampler([]string{dir}, bad); err == nil {
			t.Error("bad option accepted")
		}
	}
}
