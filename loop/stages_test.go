package loop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/store"
)

// The gate decides from the match's record file in the store, whoever
// wrote it: here one written by hand as the distributed gatekeeper wrote
// them before loop.Stages (its header, then the games in pair order, by
// json.Encoder). An unfinished match decides nothing, a record whose
// moves say another result is refused, a promotion already made (killed
// before the state moved on) is not made again, and with gating off every
// candidate is promoted.
func TestGateFromRecords(t *testing.T) {
	c := tinyConfig(t)
	st, _ := store.NewDir(t.TempDir())
	s, err := loop.NewStages(st, c, "test")
	if err != nil {
		t.Fatal(err)
	}
	best, err := s.WriteInitialNetwork()
	if err != nil {
		t.Fatal(err)
	}
	other := c
	other.NetworkSeed = 9
	cand, err := loop.InitialNetwork(other, s.Rules, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := loop.SaveNet(st, loop.NetKey(1), cand); err != nil {
		t.Fatal(err)
	}
	h, err := s.GateHeader(1, best)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GateMatch(1, best)
	if err != nil {
		t.Fatal(err)
	}
	lh := m.Header()
	lh.Started = h.Started
	if lh.A != h.A || lh.B != h.B || lh.OpeningsKey != h.OpeningsKey || lh.Seed != h.Seed || *lh.SPRT != *h.SPRT || lh.RuleSet != h.RuleSet {
		t.Errorf("GateHeader %+v, the local match's %+v", h, lh)
	}

	// The games themselves, played as a worker plays them: the gate
	// replays every record.
	played, err := arena.PlayPairs(context.Background(), *m, []int{0, 1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	write := func(games int) {
		t.Helper()
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		if err := enc.Encode(h); err != nil {
			t.Fatal(err)
		}
		for i := range games {
			if err := enc.Encode(&played[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Write(loop.ArenaKey(1), buf.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	write(3)
	if _, _, err := s.Gate(1, best); err == nil || !strings.Contains(err.Error(), "not over") {
		t.Errorf("the gate of an unfinished match: %v", err)
	}
	edited := played[3]
	played[3].Result, played[3].Score = "1-0", 1-float64(played[3].Game)
	if edited.Result == "1-0" {
		played[3].Result, played[3].Score = "0-1", float64(played[3].Game)
	}
	write(2 * c.Gate.Pairs)
	if _, _, err := s.Gate(1, best); err == nil || !strings.Contains(err.Error(), loop.ArenaKey(1)) || !strings.Contains(err.Error(), "pair 1 game 1") {
		t.Errorf("the gate of a match with an edited result: %v", err)
	}
	played[3] = edited
	write(2 * c.Gate.Pairs)
	met, promoted, err := s.Gate(1, best)
	if err != nil {
		t.Fatal(err)
	}
	if promoted == nil || promoted.Key != loop.NetKey(1) || promoted.NetworkID != cand.Weights.ID() || !met.Promoted ||
		met.Match == nil || met.Match.Games != 2*c.Gate.Pairs || met.Best != best.Key || !strings.Contains(met.Reason, "undecided") {
		t.Fatalf("the gate: %+v, promoted %+v", met, promoted)
	}
	again, promoted, err := s.Gate(1, *promoted)
	if err != nil || promoted != nil || !again.Promoted || again.Best != h.B {
		t.Errorf("the gate redone after promoting: %+v, promoted %+v, %v", again, promoted, err)
	}

	c.Gating = false
	ungated, err := loop.NewStages(st, c, "test")
	if err != nil {
		t.Fatal(err)
	}
	met, promoted, err = ungated.Gate(1, best)
	if err != nil || promoted == nil || met.Reason != "gating off" || met.Match != nil {
		t.Errorf("the gate with gating off: %+v, promoted %+v, %v", met, promoted, err)
	}
}

// A self-play plan's blocks are each round's game indices, numbered on
// from the previous round's, in blocks of games_per_shard; another round
// is played while the run holds fewer positions than training's minimum.
func TestSelfplayPlan(t *testing.T) {
	c := tinyConfig(t)
	c.Selfplay.Games, c.Selfplay.GamesPerShard, c.Train.MinRows = 5, 2, 100
	st, _ := store.NewDir(t.TempDir())
	s, err := loop.NewStages(st, c, "test")
	if err != nil {
		t.Fatal(err)
	}
	p := s.SelfplayPlan(3, loop.Best{Key: loop.NetKey(2)}, 1)
	if p.Seed != loop.SelfplaySeed(c, 3) || p.Games() != 5 {
		t.Errorf("plan %+v: %d games", p, p.Games())
	}
	next, why, more := s.MoreSelfplay(p, 99)
	if !more || next.Rounds != 2 || next.Games() != 10 || why != (loop.SelfplayRound{Generation: 3, Positions: 99, MinRows: 100, Games: 5}) {
		t.Errorf("after 99 of 100 positions: %+v, %+v, %v", next, why, more)
	}
	want := []loop.SelfplayBlock{{0, 0, 2}, {1, 2, 2}, {2, 4, 1}, {3, 5, 2}, {4, 7, 2}, {5, 9, 1}}
	if got := next.Blocks(); !slices.Equal(got, want) {
		t.Errorf("blocks %v, want %v", got, want)
	}
	if same, _, more := s.MoreSelfplay(next, 100); more || same.Rounds != 2 {
		t.Errorf("after 100 of 100 positions: %+v, %v", same, more)
	}
	job := s.SelfplayJob(p.Seed, p.Games(), "out", "net")
	if job.Seed != p.Seed || job.Games != 5 || job.Output != "out" || job.Network != "net" || job.Rules != s.Rules {
		t.Errorf("self-play job %+v", job)
	}
}

// The stages follow each other in one order for both drivers; with gating
// off a candidate goes from training straight to the gate.
func TestNext(t *testing.T) {
	c := tinyConfig(t)
	st, _ := store.NewDir(t.TempDir())
	for _, gating := range []bool{true, false} {
		c.Gating = gating
		s, err := loop.NewStages(st, c, "test")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for at := (loop.State{Generation: 3, Stage: loop.StageSelfplay}); at.Generation == 3; at = s.Next(at) {
			got = append(got, at.Stage)
		}
		want := []string{loop.StageSelfplay, loop.StageTrain, loop.StageArena, loop.StageGate}
		if !gating {
			want = []string{loop.StageSelfplay, loop.StageTrain, loop.StageGate}
		}
		if !slices.Equal(got, want) {
			t.Errorf("gating %v: stages %v, want %v", gating, got, want)
		}
	}
}
