package arena_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// A match's record file imports as games: one per record, the players by
// colour, each game replaying to its recorded end under the match's rule
// set (which a non-preset must be given); an edited result and a forfeit
// are refused by reason, the other games still import.
func TestImportRecords(t *testing.T) {
	c := *rules.MustPreset("xiangqi")
	c.MaxPlies = 40 // short games; and a rule set that is no preset
	ops, err := arena.RandomOpenings(&c, 2, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.jsonl")
	m := arena.Match{RuleSet: &c, Openings: ops, A: arena.Random{}, B: arena.Random{}, Pairs: 2, Concurrency: 2, Records: path, Seed: 3}
	if _, err := arena.Play(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !arena.IsRecordFile(data) || arena.IsRecordFile([]byte(`{"format":"palace-games"}`+"\n")) || arena.IsRecordFile([]byte("[Event \"x\"]\n")) {
		t.Fatal("IsRecordFile does not tell a match record file")
	}
	if games, errs, _ := arena.Import(data, path, gamerec.ImportOptions{}); len(games) != 0 || len(errs) != 1 || !errors.Is(errs[0], gamerec.ErrRecordSetup) || !strings.Contains(errs[0].Error(), "--rules") {
		t.Fatalf("a non-preset rule set without --rules: %d games, %v", len(games), errs)
	}
	other := rules.MustPreset("xiangqi")
	if _, errs, _ := arena.Import(data, path, gamerec.ImportOptions{RuleSet: other}); len(errs) != 1 || !errors.Is(errs[0], gamerec.ErrRecordSetup) {
		t.Fatalf("another rule set given: %v", errs)
	}
	h, recs, err := arena.ParseRecords(path, data)
	if err != nil {
		t.Fatal(err)
	}
	games, errs, _ := arena.Import(data, path, gamerec.ImportOptions{RuleSet: &c})
	if len(errs) != 0 || len(games) != len(recs) || len(games) != 4 {
		t.Fatalf("%d games of %d records, errors %v", len(games), len(recs), errs)
	}
	for i, g := range games {
		r := recs[i]
		white, black := h.A, h.B
		if r.Game == 1 {
			white, black = h.B, h.A
		}
		if g.White != white || g.Black != black || g.End != r.End || g.Line != r.Line || g.RuleSet != c.String() || g.Index != i+1 {
			t.Errorf("game %d: %+v from record %+v", i, g, r)
		}
		if _, err := g.Replay(&c); err != nil { // as a games file's reader replays it
			t.Errorf("game %d does not replay: %v", i, err)
		}
	}

	// Record 1's result flipped, record 2 a forfeit: both refused, by
	// reason, and the other two import.
	lines := strings.SplitAfter(string(data), "\n")
	edit := func(i int, change func(r map[string]any)) {
		var r map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &r); err != nil {
			t.Fatal(err)
		}
		change(r)
		b, _ := json.Marshal(r)
		lines[i] = string(b) + "\n"
	}
	edit(1, func(r map[string]any) {
		r["result"] = map[string]string{"1-0": "0-1", "0-1": "1-0", "1/2-1/2": "1-0"}[r["result"].(string)]
	})
	edit(2, func(r map[string]any) {
		moves := strings.Fields(r["moves"].(string))
		r["moves"] = strings.Join(moves[:len(moves)-1], " ")
		r["result"], r["reason"], r["forfeit"], r["plies"] = "1-0", "forfeit", "b: illegal move", r["plies"].(float64)-1
		if (len(moves)-1)%2 == 0 { // White to move after the cut: White lost
			r["result"] = "0-1"
		}
		r["score"] = 0.0
		if (r["result"] == "1-0") == (r["game"].(float64) == 0) {
			r["score"] = 1.0
		}
	})
	games, errs, _ = arena.Import([]byte(strings.Join(lines, "")), path, gamerec.ImportOptions{RuleSet: &c})
	forfeits := 0
	for _, err := range errs {
		if !errors.Is(err, gamerec.ErrRecordResult) {
			t.Errorf("refused for another reason: %v", err)
		}
		if strings.Contains(err.Error(), "forfeited by b") {
			forfeits++
		}
	}
	if len(games) != 2 || len(errs) != 2 || forfeits != 1 {
		t.Fatalf("edited records: %d games, errors %v", len(games), errs)
	}
}

// scoringPlayer's movers play the first legal move and score each
// position they move from with its ply, as an engine's mover gives its
// engine's score.
type scoringPlayer struct{}

func (scoringPlayer) Name() string { return "scoring" }
func (scoringPlayer) NewGame(uint64) (arena.Mover, error) {
	return &scoringMover{}, nil
}

type scoringMover struct{ score gamerec.Score }

func (m *scoringMover) Move(_ context.Context, g *rules.Game) (rules.Move, error) {
	m.score = gamerec.Score{Kind: gamerec.Centipawns, Value: g.Ply()}
	return g.LegalMoves(nil)[0], nil
}
func (m *scoringMover) LastScore() gamerec.Score { return m.score }
func (m *scoringMover) Close()                   {}

// A Scorer's scores are recorded beside its moves, a zero Score beside
// the other player's, and carried into imported games aligned with every
// move (the opening's none); a match of players that give no scores
// records none, and a record whose scores do not fit its plies is refused.
func TestRecordScores(t *testing.T) {
	c := *rules.MustPreset("xiangqi")
	c.MaxPlies = 30
	ops, err := arena.RandomOpenings(&c, 2, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "m.jsonl")
	m := arena.Match{RuleSet: &c, Openings: ops, A: scoringPlayer{}, B: arena.Random{}, Pairs: 2, Concurrency: 2, Records: path, Seed: 3}
	if _, err := arena.Play(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, recs, err := arena.ParseRecords(path, data)
	if err != nil {
		t.Fatal(err)
	}
	games, errs, _ := arena.Import(data, path, gamerec.ImportOptions{RuleSet: &c})
	if len(errs) != 0 || len(games) != 4 {
		t.Fatalf("%d games, errors %v", len(games), errs)
	}
	for i, r := range recs {
		if len(r.Scores) != r.Plies {
			t.Fatalf("record %d: %d scores for %d plies", i, len(r.Scores), r.Plies)
		}
		opening := games[i].Plies - r.Plies
		if len(games[i].Scores) != games[i].Plies {
			t.Fatalf("game %d: %d scores for %d moves", i, len(games[i].Scores), games[i].Plies)
		}
		for k, sc := range games[i].Scores {
			// A moves White's moves in game 0, Black's in game 1.
			var want gamerec.Score
			if k >= opening && k%2 == r.Game {
				want = gamerec.Score{Kind: gamerec.Centipawns, Value: k}
			}
			if sc != want || (k >= opening && r.Scores[k-opening] != sc) {
				t.Errorf("game %d ply %d: score %v, want %v", i, k, sc, want)
			}
		}
		if _, err := games[i].Replay(&c); err != nil {
			t.Errorf("game %d does not replay: %v", i, err)
		}
	}
	// Through a games file and back.
	gpath := filepath.Join(dir, "g.jsonl")
	hdr, err := gamerec.NewHeader(games, map[string]*rules.RuleSet{c.String(): &c})
	if err != nil {
		t.Fatal(err)
	}
	if err := gamerec.Write(gpath, hdr, games); err != nil {
		t.Fatal(err)
	}
	back, err := gamerec.Read(gpath)
	if err != nil || !slices.Equal(back.Games[1].Scores, games[1].Scores) {
		t.Fatalf("read back: %v, scores %v, want %v", err, back.Games[1].Scores, games[1].Scores)
	}

	// One score too many, and more scores than moves: refused, naming
	// the count.
	for _, extra := range []int{1, 100} {
		lines := strings.SplitAfter(string(data), "\n")
		var r map[string]any
		if err := json.Unmarshal([]byte(lines[1]), &r); err != nil {
			t.Fatal(err)
		}
		for range extra {
			r["scores"] = append(r["scores"].([]any), "cp 1")
		}
		b, _ := json.Marshal(r)
		lines[1] = string(b) + "\n"
		if _, errs, _ := arena.Import([]byte(strings.Join(lines, "")), path, gamerec.ImportOptions{RuleSet: &c}); len(errs) != 1 || !strings.Contains(errs[0].Error(), "scores for") {
			t.Errorf("%d scores too many: %v", extra, errs)
		}
	}

	// Players that give no scores: none recorded.
	path2 := filepath.Join(dir, "m2.jsonl")
	m.A, m.Records = arena.Random{}, path2
	if _, err := arena.Play(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path2); strings.Contains(string(data), "scores") {
		t.Errorf("random players' records hold scores:\n%s", data)
	}
}
