package arena_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/palace-chess/palace/arena"
)

// A match's header and record file as bytes (for a record file in a
// store): the header Play writes, and a file written from bytes reads back
// as the one Play wrote.
func TestRecordBytes(t *testing.T) {
	rs := capped(t, "xiangqi", 40)
	ops, err := arena.RandomOpenings(rs, 3, 2, 7)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.jsonl")
	m := arena.Match{RuleSet: rs, Openings: ops, A: arena.Random{}, B: arena.Random{}, Pairs: 3, Concurrency: 2,
		Records: path, Seed: 11}
	if _, err := arena.Play(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	h, recs, err := arena.ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Header(); got.A != h.A || got.OpeningsKey != h.OpeningsKey || got.Seed != h.Seed || got.Pairs != h.Pairs {
		t.Errorf("Header %+v, the file's %+v", got, h)
	}
	data, err := arena.EncodeRecords(h, recs)
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Play appends games as they finish; read back, both are in pair order.
	h2, recs2, err := arena.ParseRecords("m.jsonl", append(data, `{"pair":0,"ga`...)) // a torn last line is ignored
	if err != nil {
		t.Fatal(err)
	}
	if h2 != h || len(recs2) != len(recs) {
		t.Fatalf("read back: %+v with %d games, want %+v with %d", h2, len(recs2), h, len(recs))
	}
	for i := range recs {
		if recs2[i] != recs[i] {
			t.Errorf("game %d read back as %+v, want %+v", i, recs2[i], recs[i])
		}
	}
	if first := bytes.SplitN(file, []byte("\n"), 2)[0]; !bytes.HasPrefix(data, append(first, '\n')) {
		t.Errorf("the header line %s, Play wrote %s", bytes.SplitN(data, []byte("\n"), 2)[0], first)
	}
	if _, _, err := arena.ParseRecords("x", []byte("{\"format\":\"other\"}\n")); err == nil {
		t.Error("a file of another format was read")
	}
}
