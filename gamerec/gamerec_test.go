package gamerec

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/palace-chess/palace/rules"
)

// Four opening moves of xiangqi: only their legality is checked; the
// result is the record's.
const xqMoves = "h3e3 h10g8 h1g3 i10h10"

func sampleGames(t *testing.T) ([]Game, map[string]*rules.RuleSet) {
	t.Helper()
	xq, jg := rules.MustPreset("xiangqi"), rules.MustPreset("janggi")
	g1 := Game{Source: "a.pgn", Index: 1, RuleSet: xq.String(), Line: Line{StartFEN: xq.StartFEN(), Moves: xqMoves}, Plies: 4,
		End: End{Result: WhiteWins, Reason: ReasonResignation}, Date: "1990.05.??", White: "Red", Black: "Black",
		Tags: map[string]string{"Event": "Cup"}}
	cho, _ := rules.ParseJanggiSetup("masangsangma")
	han, _ := rules.ParseJanggiSetup("sangmamasang")
	g2 := Game{Source: "b.gib", Index: 3, RuleSet: jg.String(), Setup: "masangsangma,sangmamasang",
		Line: Line{StartFEN: rules.JanggiSetupFEN(cho, han)}, End: End{Result: Unknown, Reason: ReasonUnfinished}}
	return []Game{g1, g2}, map[string]*rules.RuleSet{xq.String(): xq, jg.String(): jg}
}

func TestWriteReadReplay(t *testing.T) {
	games, sets := sampleGames(t)
	hdr, err := NewHeader(games, sets)
	if err != nil {
		t.Fatal(err)
	}
	hdr.Source = "test"
	path := filepath.Join(t.TempDir(), "g.jsonl")
	if err := Write(path, hdr, games); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Games) != 2 || f.Header.Games != 2 || len(f.Header.Rules) != 2 {
		t.Fatalf("read %d games, header %+v", len(f.Games), f.Header)
	}
	if f.Games[0].Tags["Event"] != "Cup" || f.Games[1].Setup != games[1].Setup {
		t.Errorf("fields lost: %+v", f.Games)
	}
	for i := range f.Games {
		g, err := f.Games[i].Replay(f.RuleSet(&f.Games[i]))
		if err != nil {
			t.Fatal(err)
		}
		if g.Ply() != f.Games[i].Plies {
			t.Errorf("%s: replayed %d plies", f.Games[i].Where(), g.Ply())
		}
	}
}

func TestReplayErrors(t *testing.T) {
	games, sets := sampleGames(t)
	xq := sets[games[0].RuleSet]
	for _, c := range []struct {
		name, want string
		edit       func(g *Game)
	}{
		{"illegal move", "ply 2", func(g *Game) { g.Moves = "h3e3 a1a2 h1g3 i10h10" }},
		{"bad text", "ply 1", func(g *Game) { g.Moves = "zz " + g.Moves[5:] }},
		{"plies", "3 plies", func(g *Game) { g.Plies = 3 }},
		{"result", "result", func(g *Game) { g.Result = "2-0" }},
		{"rule set", "replayed under", func(g *Game) { g.RuleSet = "janggi@x" }},
	} {
		g := games[0]
		c.edit(&g)
		_, err := g.Replay(xq)
		if !errors.Is(err, ErrGames) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "a.pgn game 1") {
			t.Errorf("%s: %v, want ErrGames naming a.pgn game 1 and %q", c.name, err, c.want)
		}
	}
	// A result the rules contradict: a position where Black is mated
	// after Red's move, recorded as a Black win.
	mate := Game{RuleSet: xq.String(), Line: Line{StartFEN: "4k4/R8/9/9/9/9/9/9/9/3K3R1 w - - 0 1", Moves: "h1h10"}, Plies: 1}
	mateGame, err := rules.NewGame(xq, mate.StartFEN)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mateGame.PlayText("h1h10", rules.Ranks1); err != nil {
		t.Fatal(err)
	}
	r := mateGame.Result()
	if !r.Over() {
		t.Fatalf("test position not over after h1h10: %s", mateGame.Position().FEN())
	}
	mate.Result, mate.Reason = BlackWins, ReasonResignation
	if _, err := mate.Replay(xq); err == nil || !strings.Contains(err.Error(), "the rules end it") {
		t.Errorf("contradicted result: %v", err)
	}
	mate.Result, mate.Reason = r.Score(), r.Reason.String()
	if _, err := mate.Replay(xq); err != nil {
		t.Error(err)
	}
	mate.Moves, mate.Plies = "h1h10 e10e9", 2
	if _, err := mate.Replay(xq); err == nil || !strings.Contains(err.Error(), "after the game ended") {
		t.Errorf("move after the end: %v", err)
	}
}

func TestReadErrors(t *testing.T) {
	games, sets := sampleGames(t)
	hdr, _ := NewHeader(games, sets)
	path := filepath.Join(t.TempDir(), "g.jsonl")
	if err := Write(path, hdr, games); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	for _, c := range []struct{ name, data, want string }{
		{"empty", "", "empty"},
		{"format", `{"format":"x","version":1}` + "\n", "format"},
		{"version", strings.Replace(lines[0], `"version":2`, `"version":9`, 1), "version 9"},
		{"truncated", lines[0] + lines[1], "1 games, the header says 2"},
		{"unknown field", lines[0] + lines[1] + strings.Replace(lines[2], `{`, `{"x":1,`, 1), "line 3"},
		{"unknown rule set", lines[0] + lines[1] + strings.Replace(lines[2], `"rule_set":"janggi@`, `"rule_set":"janggi2@`, 1), "not in the header"},
		{"renamed rule set", strings.NewReplacer(`"id":"xiangqi@`, `"id":"xiangqi2@`, `"name":"xiangqi"`, `"name":"xiangqi2"`).Replace(lines[0]) + lines[1] + lines[2], "line 2"},
	} {
		_, err := ReadFrom(strings.NewReader(c.data), "g.jsonl")
		if !errors.Is(err, ErrGames) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "g.jsonl") {
			t.Errorf("%s: %v, want ErrGames naming g.jsonl and %q", c.name, err, c.want)
		}
	}
	if err := Write(path, Header{}, games); err == nil || !strings.Contains(err.Error(), "not in the header") {
		t.Errorf("write without rule sets: %v", err)
	}
}

func TestScoreText(t *testing.T) {
	for _, s := range []Score{{}, {Centipawns, 0}, {Centipawns, -250}, {MateIn, 4}, {MateIn, -1}} {
		text, _ := s.MarshalText()
		var back Score
		if err := back.UnmarshalText(text); err != nil || back != s {
			t.Errorf("%v: %q read back as %v, %v", s, text, back, err)
		}
		if s.Given() != (len(text) > 0) {
			t.Errorf("%v: Given() is %v, its text %q", s, s.Given(), text)
		}
	}
	for _, bad := range []string{"cp", "cp x", "mate 0", "pawns 3", "cp 1 2", " cp 1"} {
		if _, err := ParseScore(bad); err == nil || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("ParseScore(%q): %v, want an error naming it", bad, err)
		}
	}
}

// A record line's game counts every move, and its scores, for the moves
// after an opening, are padded to one a move.
func TestRecordAsGame(t *testing.T) {
	cp := Score{Centipawns, 20}
	r := Record{End: End{Result: Draw, Reason: "repetition"}, Plies: 1, Line: Line{StartFEN: "fen", Moves: "h3e3 h10g8 b1c3"},
		Scores: []Score{cp}}
	g := r.AsGame("xiangqi@1")
	if g.RuleSet != "xiangqi@1" || g.Plies != 3 || g.Line != r.Line || g.End != r.End ||
		!slices.Equal(g.Scores, []Score{{}, {}, cp}) {
		t.Errorf("game %+v", g)
	}
	r.Scores = nil
	if g := r.AsGame("x"); g.Scores != nil {
		t.Errorf("scores %v, want none", g.Scores)
	}
}
