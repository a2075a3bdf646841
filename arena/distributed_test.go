package arena_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/palace-chess/palace/arena"
)

// A match's Header is the one Play writes in its record file (for a
// record file kept by a driver that plays the games elsewhere).
func TestMatchHeader(t *testing.T) {
	rs := capped(t, "xiangqi", 20)
	ops, err := arena.RandomOpenings(rs, 2, 2, 7)
	if err != nil {
		t.Fatal(err)
	}
	m := arena.Match{RuleSet: rs, Openings: ops, A: arena.Random{}, B: arena.Random{}, Pairs: 2, Concurrency: 2,
		Records: filepath.Join(t.TempDir(), "m.jsonl"), Seed: 11, CodeVersion: "test"}
	if _, err := arena.Play(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	h, _, err := arena.ReadRecords(m.Records)
	if err != nil {
		t.Fatal(err)
	}
	got := m.Header()
	got.Started = h.Started
	if got != h {
		t.Errorf("Header %+v, the file's %+v", got, h)
	}
}
