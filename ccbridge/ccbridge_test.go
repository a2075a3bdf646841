package ccbridge

import (
	"errors"
	"strings"
	"testing"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// Two games of xqdb_sample15 (ICCS), as real move lists.
const (
	// LIU DianZhong - LIU DaHua, Jiafun Cup National Champion 1997.
	liuGame = `1. h2e2 b9c7 2. h0g2 h7f7 3. g3g4 h9g7 4. b2c2 i9h9 5. b0a2 a9b9 6. a0b0 b7b3 7. c3c4 h9h5 8. i0h0 h5d5 9. c2c6 c9e7 10. e2f2 d5d6 11. c4c5 b3b2 12. h0h8 b2g2 13. b0b9 c7b9 14. h8b8 g2a2 15. c0a2 b9d8 16. c6c9 d9e8 17. c9a9 d6d7 18. b8b9 e8d9 19. b9b8 d9e8 20. f2d2 d7a7 21. b8b9 e8d9 22. b9d9 e9e8 23. c5d5 d8b7 24. a9f9 g6g5 25. d2g2 f7f8 26. g4g5 g7f9 27. d9f9 a7a9 28. f9a9 b7a9 29. g5g6 a9c8 30. g2e2 e8e9 31. e2e6 f8e8 32. e6e8 e9e8 33. i3i4 e7c9 34. g6h6 c8e7 35. d5e5 e7c6 36. e5e6 c6b4 37. a2c4 a6a5 38. h6i6 b4c2`
	// LE Thien Vi - BI BingJian, World Xiangqi Championships 1997.
	leGame = `1. h2e2 b9c7 2. h0g2 c9e7 3. i0h0 h7g7 4. b0c2 h9i7 5. b2a2 c6c5 6. a0b0 b7a7 7. e3e4 d9e8 8. e4e5 a9d9 9. c2e3 a7a3 10. b0b3 a3a5 11. e5e6 c7e6 12. e2e6 c5c4 13. e3c4 a5c5 14. b3b5 d9d6 15. e6i6 d6d2 16. i6i9 d2g2 17. h0h7 g7g3 18. b5b9 c5c9 19. h7e7 g3g0 20. e0e1 g0d0 21. b9c9 d0d9 22. e7e8`
)

var xiangqi = rules.MustPreset("xiangqi")

// palaceMoves is an ICCS move list in a games file's notation (ranks 1 to
// 10), made by rules, not by the reader.
func palaceMoves(t *testing.T, text string) string {
	t.Helper()
	var out []string
	for _, f := range strings.Fields(text) {
		if strings.HasSuffix(f, ".") {
			continue
		}
		m, err := rules.ParseMoveText(f, rules.Ranks0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m.Text(rules.Ranks1))
	}
	return strings.Join(out, " ")
}

// importOK imports data expecting no errors, and checks every game replays.
func importOK(t *testing.T, data []byte, source string, opt gamerec.ImportOptions) ([]gamerec.Game, []gamerec.Notice) {
	t.Helper()
	games, errs, notices := Import(data, source, opt)
	for _, err := range errs {
		t.Errorf("unexpected error: %v", err)
	}
	replayAll(t, games)
	return games, notices
}

func replayAll(t testing.TB, games []gamerec.Game) {
	t.Helper()
	for i := range games {
		if _, err := games[i].Replay(xiangqi); err != nil {
			t.Errorf("imported game does not replay: %v", err)
		}
	}
}

func TestImportRealGames(t *testing.T) {
	for _, tc := range []struct {
		name, moves   string
		result        byte
		wantResult    string
		wantReason    string
		red, black    string
		event, date   string
		wantDate      string
		wantPlies     int
		wantTagsEvent string
	}{
		{"liu", liuGame, 0, gamerec.Unknown, gamerec.ReasonUnfinished, "LIU DianZhong", "LIU DaHua",
			"Jiafun Cup 1997", "1997年", "1997.??.??", 76, "Jiafun Cup 1997"},
		{"le", leGame, 1, gamerec.WhiteWins, "", "LE Thien Vi", "BI BingJian",
			"World Championships 1997", "1997-10-05", "1997.10.05", 43, "World Championships 1997"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := encodeRecord(t, cbrGame{
				tags:   map[string]string{"Red": tc.red, "Black": tc.black, "Event": tc.event, "Date": tc.date, "Title": "对局 " + tc.name, "RedTeam": " "},
				result: tc.result,
				moves:  iccsLine(tc.moves),
			})
			games, notices := importOK(t, data, tc.name+".cbr", gamerec.ImportOptions{})
			if len(games) != 1 {
				t.Fatalf("%d games, want 1", len(games))
			}
			g := games[0]
			if g.Moves != palaceMoves(t, tc.moves) {
				t.Errorf("moves\n%s\nwant\n%s", g.Moves, palaceMoves(t, tc.moves))
			}
			if g.Plies != tc.wantPlies || g.StartFEN != rules.XiangqiStartFEN {
				t.Errorf("plies %d from %q, want %d from the standard start", g.Plies, g.StartFEN, tc.wantPlies)
			}
			if g.Source != tc.name+".cbr" || g.Index != 1 || g.RuleSet != xiangqi.String() {
				t.Errorf("source %q index %d rule set %q", g.Source, g.Index, g.RuleSet)
			}
			if g.White != tc.red || g.Black != tc.black || g.Date != tc.wantDate {
				t.Errorf("players %q - %q date %q", g.White, g.Black, g.Date)
			}
			if g.Tags["Event"] != tc.wantTagsEvent || g.Tags["Title"] != "对局 "+tc.name {
				t.Errorf("tags %v", g.Tags)
			}
			if _, ok := g.Tags["RedTeam"]; ok {
				t.Errorf("a blank field became a tag: %v", g.Tags)
			}
			if _, ok := g.Tags["Date"]; ok {
				t.Errorf("a normalised date kept as a tag: %v", g.Tags)
			}
			if g.Result != tc.wantResult || (tc.wantReason != "" && g.Reason != tc.wantReason) {
				t.Errorf("result %s %s, want %s %s", g.Result, g.Reason, tc.wantResult, tc.wantReason)
			}
			if len(notices) != 0 {
				t.Errorf("notices %v", notices)
			}
		})
	}
}

func TestBlackToMove(t *testing.T) {
	const fen = "4k4/9/9/9/9/9/9/9/R8/3K5 b - - 0 1"
	moves := "e9f9 a1a9 f9f8 a9a8 f8f7 a8a7 f7f8"
	for _, side := range []byte{2, 1} { // the record's side, and a wrong one the first move corrects
		data := encodeRecord(t, cbrGame{fen: fen, side: side, moves: line(strings.Fields(moves)...)})
		games, _ := importOK(t, data, "endgame.cbr", gamerec.ImportOptions{})
		if len(games) != 1 {
			t.Fatalf("side %d: %d games", side, len(games))
		}
		if g := games[0]; g.StartFEN != fen || g.Moves != palaceMoves(t, moves) {
			t.Errorf("side %d: start %q moves %q", side, g.StartFEN, g.Moves)
		}
	}
}

func TestVariationsAndComments(t *testing.T) {
	// 1. h2e2 (1. c3c4 g6g5 (1... b9c7)) h9g7 {comment} 2. h0g2 (2. b0c2) i9h9
	main := line("h2e2", "h9g7", "h0g2", "i9h9")
	main[0].next[0].comment = "屏风马"
	alt1 := line("c3c4", "g6g5")
	alt1[0].next = append(alt1[0].next, &node{move: "b9c7", comment: "起马"})
	main = append(main, alt1...)
	second := main[0].next[0].next
	main[0].next[0].next = append(second, &node{move: "b0c2"})
	data := encodeRecord(t, cbrGame{startComment: "中炮", moves: main, result: 3})
	games, notices := importOK(t, data, "var.cbr", gamerec.ImportOptions{})
	if len(games) != 1 {
		t.Fatalf("%d games", len(games))
	}
	if want := palaceMoves(t, "h2e2 h9g7 h0g2 i9h9"); games[0].Moves != want {
		t.Errorf("main line %q, want %q", games[0].Moves, want)
	}
	if games[0].Result != gamerec.Draw || games[0].Reason != gamerec.ReasonRecorded {
		t.Errorf("result %s %s", games[0].Result, games[0].Reason)
	}
	got := map[string]string{}
	for _, n := range notices {
		if n.Source != "var.cbr" || n.Game != 1 {
			t.Errorf("notice %v: wrong place", n)
		}
		got[n.Kind] = n.Msg
	}
	if got[gamerec.NoticeVariations] != "3 variations" || got[gamerec.NoticeComments] != "3 comments" {
		t.Errorf("notices %v, want 3 variations and 3 comments", notices)
	}
}

func TestResults(t *testing.T) {
	short := line("h2e2", "h9g7")
	for code, want := range map[byte]gamerec.End{
		0: {Result: gamerec.Unknown, Reason: gamerec.ReasonUnfinished},
		1: {Result: gamerec.WhiteWins, Reason: gamerec.ReasonRecorded},
		2: {Result: gamerec.BlackWins, Reason: gamerec.ReasonRecorded},
		3: {Result: gamerec.Draw, Reason: gamerec.ReasonRecorded},
		4: {Result: gamerec.Unknown, Reason: gamerec.ReasonUnfinished},
	} {
		games, _ := importOK(t, encodeRecord(t, cbrGame{result: code, moves: short}), "r.cbr", gamerec.ImportOptions{})
		if len(games) != 1 || games[0].End != want {
			t.Errorf("result code %d: %v, want %v", code, games, want)
		}
	}
	_, errs, _ := Import(encodeRecord(t, cbrGame{result: 9, moves: short}), "r.cbr", gamerec.ImportOptions{})
	if len(errs) != 1 || !errors.Is(errs[0], gamerec.ErrRecordResult) {
		t.Errorf("result code 9: %v, want a result error", errs)
	}
}

func TestMateRecordedAsLoss(t *testing.T) {
	// Red mates at once; the record gives the game to Black.
	data := encodeRecord(t, cbrGame{fen: "3k5/R8/9/9/9/9/9/9/1R7/4K4 w - - 0 1", result: 2, moves: line("b1b9")})
	games, notices := importOK(t, data, "mate.cbr", gamerec.ImportOptions{})
	if len(games) != 1 || games[0].Result != gamerec.WhiteWins || games[0].Reason != rules.Checkmate.String() {
		t.Fatalf("games %v, want a Red win by mate", games)
	}
	if len(notices) != 1 || notices[0].Kind != gamerec.NoticeResultCorrected || notices[0].Game != 1 {
		t.Errorf("notices %v, want one result correction", notices)
	}
	games, errs, _ := Import(data, "mate.cbr", gamerec.ImportOptions{Strict: true})
	if len(games) != 0 || len(errs) != 1 || !errors.Is(errs[0], gamerec.ErrRecordResult) {
		t.Errorf("strict: %d games, errors %v; want a result error", len(games), errs)
	}
}

func TestIllegalMove(t *testing.T) {
	data := encodeRecord(t, cbrGame{moves: line("h2e2", "h9g7", "h0g2", "a0a5")})
	games, errs, _ := Import(data, "bad.cbr", gamerec.ImportOptions{})
	if len(games) != 0 || len(errs) != 1 {
		t.Fatalf("%d games, errors %v", len(games), errs)
	}
	game, err := rules.NewGame(xiangqi, rules.XiangqiStartFEN)
	if err != nil {
		t.Fatal(err)
	}
	for _, mv := range []string{"h2e2", "h9g7", "h0g2"} {
		if _, err := game.PlayText(mv, rules.Ranks0); err != nil {
			t.Fatal(err)
		}
	}
	want := "ccbridge: bad.cbr game 1: move 4 a0a5 is illegal in " + game.Position().FEN()
	if errs[0].Error() != want || !errors.Is(errs[0], gamerec.ErrRecordMove) {
		t.Errorf("error %q\nwant  %q (a move error)", errs[0], want)
	}
	var e *Error
	if !errors.As(errs[0], &e) || e.Game != 1 || e.Source != "bad.cbr" {
		t.Errorf("error %#v", errs[0])
	}
}

func TestRefusals(t *testing.T) {
	good := encodeRecord(t, cbrGame{moves: line("h2e2")})
	badBoard := append([]byte(nil), good...)
	badBoard[2120+40] = 0x18
	extraRook := encodeRecord(t, cbrGame{fen: "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/R8/RNBAKABNR w - - 0 1", moves: line("h2e2")})
	noKing := encodeRecord(t, cbrGame{fen: "rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1", moves: line("h2e2")})
	for _, tc := range []struct {
		name   string
		data   []byte
		opt    gamerec.ImportOptions
		kind   error
		substr string
	}{
		{"empty", nil, gamerec.ImportOptions{}, gamerec.ErrRecordSyntax, "ccbridge: f: not a CCBridge file"},
		{"signature", []byte("CCBridge Recxrd\x00 and more"), gamerec.ImportOptions{}, gamerec.ErrRecordSyntax, "ccbridge: f: not a CCBridge file"},
		{"janggi", good, gamerec.ImportOptions{RuleSet: rules.MustPreset("janggi")}, gamerec.ErrRecordSetup, "ccbridge: f: rule set janggi is for janggi"},
		{"no moves", encodeRecord(t, cbrGame{}), gamerec.ImportOptions{}, gamerec.ErrRecordNoMoves, "game 1: no moves"},
		{"version 1", encodeRecord(t, cbrGame{version: 1, moves: line("h2e2")}), gamerec.ImportOptions{}, gamerec.ErrRecordSyntax, "version 1"},
		{"piece code", badBoard, gamerec.ImportOptions{}, gamerec.ErrRecordSetup, "piece code 0x18"},
		{"third rook", extraRook, gamerec.ImportOptions{}, gamerec.ErrRecordSetup, "more than 2 Red chariot pieces"},
		{"no general", noKing, gamerec.ImportOptions{}, gamerec.ErrRecordSetup, "no black general"},
		{"header cut", good[:100], gamerec.ImportOptions{}, gamerec.ErrRecordSyntax, "game 1: truncated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			games, errs, _ := Import(tc.data, "f", tc.opt)
			if len(games) != 0 || len(errs) != 1 {
				t.Fatalf("%d games, errors %v", len(games), errs)
			}
			if !errors.Is(errs[0], tc.kind) || !strings.Contains(errs[0].Error(), tc.substr) {
				t.Errorf("error %q, want %v containing %q", errs[0], tc.kind, tc.substr)
			}
		})
	}
}

// TestTruncatedRecord cuts a record with comments and variations at every
// byte: never a panic, never a game, always a syntax (or no-moves) error.
func TestTruncatedRecord(t *testing.T) {
	main := iccsLine(leGame)
	main[0].comment = "当头炮"
	main = append(main, line("c3c4", "g6g5")...)
	data := encodeRecord(t, cbrGame{startComment: "开局", moves: main})
	if games, _ := importOK(t, data, "full.cbr", gamerec.ImportOptions{}); len(games) != 1 {
		t.Fatalf("whole record: %d games", len(games))
	}
	for n := range len(data) {
		games, errs, _ := Import(data[:n], "cut.cbr", gamerec.ImportOptions{})
		if len(games) != 0 || len(errs) != 1 {
			t.Fatalf("cut at %d: %d games, %d errors", n, len(games), len(errs))
		}
		if !errors.Is(errs[0], gamerec.ErrRecordSyntax) && !errors.Is(errs[0], gamerec.ErrRecordNoMoves) {
			t.Fatalf("cut at %d: %v", n, errs[0])
		}
	}
}

// testLibrary is five games, the third with an illegal move and the fourth
// long enough (a long comment) to run over three slots.
func testLibrary(t testing.TB) (data []byte, recs [][]byte) {
	long := line("h2e2", "h9g7")
	long[0].comment = strings.Repeat("长评", 2500)
	recs = [][]byte{
		encodeRecord(t, cbrGame{tags: map[string]string{"Red": "甲"}, moves: iccsLine(liuGame)}),
		encodeRecord(t, cbrGame{tags: map[string]string{"Red": "乙"}, moves: iccsLine(leGame), result: 1}),
		encodeRecord(t, cbrGame{tags: map[string]string{"Red": "丙"}, moves: line("h2e2", "h9g7", "a0a5")}),
		encodeRecord(t, cbrGame{tags: map[string]string{"Red": "丁"}, moves: long}),
		encodeRecord(t, cbrGame{tags: map[string]string{"Red": "戊"}, fen: "4k4/9/9/9/9/9/9/9/R8/3K5 b - - 0 1", moves: line("e9f9", "a1a9")}),
	}
	return encodeLibrary(t, "测试库", 128, recs...), recs
}

func TestLibrary(t *testing.T) {
	data, _ := testLibrary(t)
	games, errs, notices := Import(data, "lib.cbl", gamerec.ImportOptions{})
	replayAll(t, games)
	var reds []string
	var index []int
	for _, g := range games {
		reds, index = append(reds, g.White), append(index, g.Index)
		if g.Source != "lib.cbl" {
			t.Errorf("source %q", g.Source)
		}
	}
	if strings.Join(reds, " ") != "甲 乙 丁 戊" || len(index) != 4 || index[0] != 1 || index[1] != 2 || index[2] != 4 || index[3] != 5 {
		t.Errorf("games %v at %v, want 甲 乙 丁 戊 at 1 2 4 5", reds, index)
	}
	if len(errs) != 1 || !errors.Is(errs[0], gamerec.ErrRecordMove) ||
		!strings.HasPrefix(errs[0].Error(), "ccbridge: lib.cbl game 3: move 3 a0a5 is illegal") {
		t.Errorf("errors %v, want game 3's illegal move", errs)
	}
	if len(notices) != 1 || notices[0].Game != 4 || notices[0].Kind != gamerec.NoticeComments {
		t.Errorf("notices %v, want game 4's comment", notices)
	}
	// An index of another size moves where the records start.
	_, recs := testLibrary(t)
	small := encodeLibrary(t, "小库", 0, recs[0], recs[1])
	if games, _ := importOK(t, small, "small.cbl", gamerec.ImportOptions{}); len(games) != 2 {
		t.Errorf("library without index entries: %d games", len(games))
	}
}

func TestLibraryTruncated(t *testing.T) {
	data, recs := testLibrary(t)
	start := 66624 + 128*276
	third := start + 2*4096
	for _, tc := range []struct {
		name   string
		cut    int
		games  int
		errs   []int // the games reported
		kind   error
		substr string
	}{
		{"inside game 4", third + 4096 + 5000, 2, []int{3, 4}, gamerec.ErrRecordSyntax, "runs past the end of the record"},
		{"inside game 2's moves", start + 4096 + len(recs[1]) - 10, 1, []int{2}, gamerec.ErrRecordSyntax, "truncated"},
		{"at a slot boundary", third, 2, nil, nil, ""},
		{"inside the index", 70000, 0, []int{0}, gamerec.ErrRecordSyntax, "runs past the end of the file"},
		{"inside the header", 1000, 0, []int{0}, gamerec.ErrRecordSyntax, "library header truncated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			games, errs, _ := Import(data[:tc.cut], "cut.cbl", gamerec.ImportOptions{})
			replayAll(t, games)
			if len(games) != tc.games || len(errs) != len(tc.errs) {
				t.Fatalf("%d games, errors %v; want %d games, errors for %v", len(games), errs, tc.games, tc.errs)
			}
			for i, err := range errs {
				var e *Error
				if !errors.As(err, &e) || e.Game != tc.errs[i] {
					t.Errorf("error %v, want one for game %d", err, tc.errs[i])
				}
			}
			if len(errs) > 0 {
				last := errs[len(errs)-1]
				if !errors.Is(last, tc.kind) || !strings.Contains(last.Error(), tc.substr) {
					t.Errorf("error %q, want %v containing %q", last, tc.kind, tc.substr)
				}
			}
		})
	}
}
