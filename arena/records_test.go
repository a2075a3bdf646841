package arena_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// A game's record line as palace wrote it before its game part was
// gamerec's (End and Line): it reads back and is written byte for byte.
func TestGameRecordJSON(t *testing.T) {
	line := `{"pair":3,"game":1,"opening":"xiangqi h3e3","score":0,"result":"1-0","reason":"forfeit","plies":7,` +
		`"start_fen":"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1","moves":"h3e3 h10g8",` +
		`"forfeit":"b: illegal move"}`
	var r arena.GameRecord
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	if r.Pair != 3 || r.Result != "1-0" || r.Reason != "forfeit" || r.Plies != 7 || r.Moves != "h3e3 h10g8" || r.Forfeit == "" {
		t.Errorf("read %+v", r)
	}
	out, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != line {
		t.Errorf("written as\n%s\nwant\n%s", out, line)
	}
}

// A record file kept elsewhere (the cluster's store) is written and read
// without a file of its own, as Play's reader reads one.
func TestWriteParseRecords(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	ops, err := arena.RandomOpenings(rs, 2, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	h := arena.NewHeader(rs, "a", "b", ops, 2, nil, 5, "test")
	var recs []arena.GameRecord
	for _, pg := range [][2]int{{1, 1}, {0, 0}, {1, 0}, {0, 1}} {
		recs = append(recs, arena.GameRecord{Pair: pg[0], Game: pg[1], Opening: ops[pg[0]].Name, Score: 0.5,
			Record: gamerec.Record{End: gamerec.End{Result: gamerec.Draw, Reason: "repetition"}, Line: gamerec.Line{StartFEN: ops[pg[0]].FEN}}})
	}
	var buf bytes.Buffer
	if err := arena.WriteRecords(&buf, h, recs); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fh, frecs, err := arena.ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	ph, precs, err := arena.ParseRecords("m.jsonl", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fh, ph) || !reflect.DeepEqual(frecs, precs) || len(precs) != 4 || precs[1].Pair != 0 || precs[1].Game != 1 {
		t.Errorf("parsed %+v %+v, read %+v %+v", ph, precs, fh, frecs)
	}
	if !fh.Started.Equal(h.Started) || fh.OpeningsKey != h.OpeningsKey {
		t.Errorf("header %+v, wrote %+v", fh, h)
	}
	if _, _, err := arena.ParseRecords("m.jsonl", []byte(`{"format":"other"}`+"\n")); err == nil || !strings.Contains(err.Error(), "m.jsonl") {
		t.Errorf("another file: %v", err)
	}
}

// A record file read back to resume is replayed: a line whose result (or
// score, or moves) an editor changed is an error naming the file, the pair
// and the game, not a different W-D-L; the file as played resumes.
func TestResumeReplaysRecords(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	c := *rs
	c.MaxPlies = 40
	ops, err := arena.RandomOpenings(&c, 3, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.jsonl")
	m := arena.Match{RuleSet: &c, Openings: ops, A: arena.Random{}, B: arena.Random{}, Pairs: 3, Concurrency: 2, Records: path, Seed: 8}
	sum, err := arena.Play(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	again, err := arena.Play(context.Background(), m)
	if err != nil || again.WDL != sum.WDL {
		t.Fatalf("resumed as played: %v, W-D-L %v, want %v", err, again.WDL, sum.WDL)
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(orig), "\n")
	// edit rewrites record line 1 (pair 0's first game to finish) with
	// change applied to its fields.
	edit := func(change func(r map[string]any)) {
		t.Helper()
		var r map[string]any
		if err := json.Unmarshal([]byte(lines[1]), &r); err != nil {
			t.Fatal(err)
		}
		change(r)
		b, _ := json.Marshal(r)
		out := slices.Clone(lines)
		out[1] = string(b) + "\n"
		if err := os.WriteFile(path, []byte(strings.Join(out, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var first arena.GameRecord
	json.Unmarshal([]byte(lines[1]), &first)
	flipped := map[string]string{"1-0": "0-1", "0-1": "1-0", "1/2-1/2": "1-0"}[first.Result]
	for _, tc := range []struct {
		what   string
		change func(r map[string]any)
		want   string
	}{
		{"result and score", func(r map[string]any) {
			r["result"] = flipped
			if s := r["score"].(float64); s == 0.5 {
				r["score"] = float64(1 - first.Game)
			} else {
				r["score"] = 1 - s
			}
		}, "the moves end it " + first.Result},
		{"score", func(r map[string]any) {
			r["score"] = map[float64]float64{0: 1, 1: 0, 0.5: 1}[r["score"].(float64)]
		}, "A's score"},
		{"moves", func(r map[string]any) {
			ms := strings.Fields(r["moves"].(string))
			r["moves"] = strings.Join(ms[:len(ms)-1], " ")
		}, "plies"},
		{"forfeit", func(r map[string]any) { r["reason"], r["forfeit"] = "forfeit", "b: engine died" }, "forfeit"},
	} {
		edit(tc.change)
		_, err := arena.Play(context.Background(), m)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), fmt.Sprintf("pair %d game %d", first.Pair, first.Game)) ||
			!strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "remove its line") {
			t.Errorf("edited %s: %v, want an error naming the file, the game and %q", tc.what, err, tc.want)
		}
	}
	// Removing the line has the game played again, as it was.
	if err := os.WriteFile(path, []byte(lines[0]+strings.Join(lines[2:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := arena.Play(context.Background(), m); err != nil || again.WDL != sum.WDL {
		t.Errorf("the line removed: %v, W-D-L %v, want %v", err, again.WDL, sum.WDL)
	}
}

// oldRecords is a match record file as palace wrote it when a record's
// game part was its own fields (a ladder calibration rung of 2026-12-04,
// engine scores included).
const oldRecords = "../ladder/calibration/xiangqi/check-10/rung-1.jsonl"

// An old match record file reads back, its every line written again byte
// for byte, and reads as games (ReadGames, rundir.Collect's reader): each
// replays under the match's rule set, its scores one a move (none for the
// opening's), its players by colour.
func TestOldRecordFileGames(t *testing.T) {
	data, err := os.ReadFile(oldRecords)
	if err != nil {
		t.Fatal(err)
	}
	h, recs, err := arena.ReadRecords(oldRecords)
	if err != nil || len(recs) != 2*h.Pairs {
		t.Fatalf("%d records of %d pairs: %v", len(recs), h.Pairs, err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")[1:]
	for i, line := range lines {
		var r arena.GameRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if out, _ := json.Marshal(&r); string(out) != line {
			t.Fatalf("line %d written as\n%s\nwant\n%s", i+2, out, line)
		}
	}
	rs := rules.MustPreset("xiangqi")
	n := 0
	err = arena.ReadGames(oldRecords, func(g *gamerec.Game, grs *rules.RuleSet) error {
		r := &recs[n]
		n++
		if grs != rs && grs.String() != rs.String() {
			t.Errorf("%s: rule set %s", g.Where(), grs)
		}
		if _, err := g.Replay(grs); err != nil {
			t.Error(err)
		}
		white, black := h.A, h.B
		if r.Game == 1 {
			white, black = h.B, h.A
		}
		if g.Where() != fmt.Sprintf("%s game %d", oldRecords, n) || g.White != white || g.Black != black ||
			g.Tags["Pair"] != strconv.Itoa(r.Pair) || g.Date != "2026.12.04" || g.End != r.End {
			t.Errorf("%s: %s vs %s, tags %v, date %s, end %v", g.Where(), g.White, g.Black, g.Tags, g.Date, g.End)
		}
		opening := g.Plies - r.Plies
		if len(g.Scores) != g.Plies || slices.ContainsFunc(g.Scores[:opening], gamerec.Score.Given) ||
			!slices.Equal(g.Scores[opening:], r.Scores) {
			t.Errorf("%s: %d scores for %d plies, %d after the opening", g.Where(), len(g.Scores), g.Plies, r.Plies)
		}
		return nil
	})
	if err != nil || n != len(recs) {
		t.Errorf("%d games: %v", n, err)
	}
}

// A forfeited game is read with its moves and no result: the board did
// not end it.
func TestReadGamesForfeit(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	ops := []arena.Opening{{Name: "xiangqi", FEN: rs.StartFEN()}}
	h := arena.NewHeader(rs, "a", "b", ops, 1, nil, 5, "test")
	recs := []arena.GameRecord{{Pair: 0, Game: 1, Opening: "xiangqi", Score: 1, Forfeit: "b: illegal move",
		Record: gamerec.Record{End: gamerec.End{Result: gamerec.WhiteWins, Reason: "forfeit"}, Plies: 1,
			Line: gamerec.Line{StartFEN: rs.StartFEN(), Moves: "h3e3"}}}}
	path := filepath.Join(t.TempDir(), "m.jsonl")
	var buf bytes.Buffer
	if err := arena.WriteRecords(&buf, h, recs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []gamerec.Game
	if err := arena.ReadGames(path, func(g *gamerec.Game, _ *rules.RuleSet) error {
		got = append(got, *g)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Result != gamerec.Unknown || got[0].Reason != "forfeit" || got[0].Tags["Forfeit"] != "b: illegal move" ||
		got[0].White != "b" || got[0].Moves != "h3e3" {
		t.Errorf("read %+v", got)
	}
	// A match under a rule set this build lacks names the file.
	h.RuleSet = "xiangqi@0000000000000000"
	buf.Reset()
	if err := arena.WriteRecords(&buf, h, recs); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, buf.Bytes(), 0o644)
	if err := arena.ReadGames(path, func(*gamerec.Game, *rules.RuleSet) error { return nil }); err == nil ||
		!strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a preset") {
		t.Errorf("unknown rule set: %v", err)
	}
}

// Clocks recorded with the games are summed up per player, and a clock
// that cannot be (more left than given) makes the file an error naming the
// game, not a figure.
func TestRecordClocks(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	ops, err := arena.RandomOpenings(rs, 1, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	h := arena.NewHeader(rs, "a", "b", ops, 1, nil, 5, "test")
	rec := func(game int, c *arena.ClockUse) arena.GameRecord {
		return arena.GameRecord{Pair: 0, Game: game, Opening: ops[0].Name, Score: 0.5, ClockB: c,
			Record: gamerec.Record{End: gamerec.End{Result: gamerec.Draw, Reason: "repetition"}, Line: gamerec.Line{StartFEN: ops[0].FEN}}}
	}
	recs := []arena.GameRecord{rec(0, &arena.ClockUse{LeftMS: 3000, GivenMS: 100000}), rec(1, &arena.ClockUse{LeftMS: 0, GivenMS: 50000, Flagged: true})}
	s := arena.Summarize(h, recs)
	c := s.Clocks[1]
	if s.Clocks[0].Games != 0 || c.Games != 2 || c.Flagged != 1 || c.MeanLeft != 1500*time.Millisecond || c.MaxLeft != 3*time.Second ||
		math.Abs(c.MeanLeftShare-0.015) > 1e-12 || math.Abs(c.MaxLeftShare-0.03) > 1e-12 {
		t.Errorf("clocks %+v", s.Clocks)
	}
	var buf bytes.Buffer
	if err := arena.WriteRecords(&buf, h, recs); err != nil {
		t.Fatal(err)
	}
	if _, got, err := arena.ParseRecords("m.jsonl", buf.Bytes()); err != nil || !reflect.DeepEqual(got, recs) {
		t.Fatalf("read back %+v, %v", got, err)
	}
	bad := strings.Replace(buf.String(), `"left_ms":3000`, `"left_ms":300000`, 1)
	if _, _, err := arena.ParseRecords("m.jsonl", []byte(bad)); err == nil || !strings.Contains(err.Error(), "pair 0 game 0") || !strings.Contains(err.Error(), "B's clock") {
		t.Errorf("more left than given: %v", err)
	}
}
