package pgn

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func moveTexts(g Game) string {
	var b []string
	for _, m := range g.Moves {
		b = append(b, m.Text)
	}
	return strings.Join(b, " ")
}

func TestParse(t *testing.T) {
	const text = `% an escape line [Event "not a tag"]
[Event "The \"Five Rams\" cup \\ 2007"] [Site "Guangzhou"]
[Red "Lü Qin"]

1. h2e2 {a comment (with a paren} h9g7 2.h0g2 $1 i9h9!? 3...c3c4
; to the end of the line 1-0
(3. b0c2 (3. b2b1 {nested }) b9c7) g6g5 1/2-1/2

[Event "second"]
[Black "the "quoted" name"]
１．炮二平五　马８进７ ２．马二进三！ *
1. h2e2 0-1
[Event "header only"]

[Event "after a blank line"]
1. C2.5 H8+7 2. 33.4 ++.4 红胜
[Event "x"]
[Event "the same tag again: a new game"]
1. h2e2
`
	games, errs := Parse(text, "t.pgn")
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	want := []struct {
		index, line int
		tags        []Tag
		moves       string
		result      string
	}{
		{1, 2, []Tag{{"Event", `The "Five Rams" cup \ 2007`}, {"Site", "Guangzhou"}, {"Red", "Lü Qin"}},
			"h2e2 h9g7 h0g2 i9h9 c3c4 g6g5", "1/2-1/2"},
		{2, 9, []Tag{{"Event", "second"}, {"Black", `the "quoted" name`}}, "炮二平五 马８进７ 马二进三", "*"},
		{3, 12, nil, "h2e2", "0-1"},
		{4, 13, []Tag{{"Event", "header only"}}, "", ""},
		{5, 15, []Tag{{"Event", "after a blank line"}}, "C2.5 H8+7 33.4 ++.4", "1-0"},
		{6, 17, []Tag{{"Event", "x"}}, "", ""},
		{7, 18, []Tag{{"Event", "the same tag again: a new game"}}, "h2e2", ""},
	}
	if len(games) != len(want) {
		t.Fatalf("%d games, want %d: %+v", len(games), len(want), games)
	}
	for i, w := range want {
		g := games[i]
		if g.Index != w.index || g.Line != w.line || !reflect.DeepEqual(g.Tags, w.tags) || moveTexts(g) != w.moves || g.Result != w.result {
			t.Errorf("game %d: got index %d line %d tags %q moves %q result %q\nwant %+v",
				i+1, g.Index, g.Line, g.Tags, moveTexts(g), g.Result, w)
		}
	}
	if l := games[0].Moves[4].Line; l != 5 {
		t.Errorf("c3c4 on line %d, want 5", l)
	}
	if l := games[0].Moves[5].Line; l != 7 {
		t.Errorf("g6g5 on line %d, want 7", l)
	}
}

// TestParseErrors: each broken game is reported with its index and line,
// and the games around it still come back.
func TestParseErrors(t *testing.T) {
	const text = `[Event "good 1"]
1. h2e2 *

[Event "bad tag" 
1. h2e2 *

[Event "good 2"]
1. h2e2 ) h9g7 *

[Event "stray` + "\xff" + `byte"]
1. h2e2 *

[Event "good 3"]
1. h2e2 *

[Event "open variation"]
1. h2e2 (1. h0g2 *
`
	games, errs := Parse(strings.ToValidUTF8(text, "\uFFFD"), "t.pgn")
	var got []string
	for _, g := range games {
		got = append(got, g.Tag("Event"))
	}
	if want := []string{"good 1", "good 3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("games %q, want %q", got, want)
	}
	want := []struct {
		game, line int
		msg        string
	}{
		{2, 4, `pgn: t.pgn: game 2 (line 4): malformed record: tag Event: no closing ]`},
		{3, 8, `pgn: t.pgn: game 3 (line 8): malformed record: unmatched ')'`},
		{4, 10, `pgn: t.pgn: game 4 (line 10): malformed record: tag Event: bytes the file's encoding cannot read`},
		{6, 17, `pgn: t.pgn: game 6 (line 17): malformed record: variation opened on line 17 is not closed`},
	}
	if len(errs) != len(want) {
		t.Fatalf("errors %v, want %d", errs, len(want))
	}
	for i, w := range want {
		var e *Error
		if !errors.As(errs[i], &e) || !errors.Is(errs[i], ErrSyntax) || e.Game != w.game || e.Line != w.line || e.Error() != w.msg {
			t.Errorf("error %d: %v, want %s", i, errs[i], w.msg)
		}
	}

	// A comment left open by a truncated file, between games.
	_, errs = Parse("[Event \"a\"]\n1. h2e2 *\n{ truncated", "t.pgn")
	if len(errs) != 1 || errs[0].Error() != "pgn: t.pgn: line 3: malformed record: comment opened on line 3 is not closed" {
		t.Errorf("open comment: %v", errs)
	}
}

func TestStripMoveNumber(t *testing.T) {
	cases := map[string]string{
		"1.": "", "12...": "", "1.h2e2": "h2e2", "１．": "", "１２．炮二平五": "炮二平五", "3…": "",
		"33.4": "33.4", "3+.4": "3+.4", "12": "", "h2e2": "h2e2", "1-0": "1-0", "12.++.4": "++.4",
	}
	for in, want := range cases {
		if got := stripMoveNumber(in); got != want {
			t.Errorf("stripMoveNumber(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResultToken(t *testing.T) {
	cases := map[string]string{
		"1-0": "1-0", "0-1": "0-1", "1/2-1/2": "1/2-1/2", "*": "*", "½-½": "1/2-1/2",
		"１－０": "1-0", "０－１": "0-1", "１／２－１／２": "1/2-1/2", "紅勝": "1-0", "黑胜": "0-1", "和棋": "1/2-1/2",
		"1-1": "", "h2e2": "", "－": "",
	}
	for in, want := range cases {
		got, ok := resultToken(in)
		if got != want || ok != (want != "") {
			t.Errorf("resultToken(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
