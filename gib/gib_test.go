package gib

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/encoding/korean"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/internal/gametest"
	"github.com/palace-chess/palace/rules"
)

// gibTestReplay checks what every imported game must satisfy.
func gibTestReplay(t *testing.T, games []gamerec.Game) []*rules.Game {
	t.Helper()
	rs := rules.MustPreset(RuleSetName)
	var out []*rules.Game
	for i := range games {
		g, err := games[i].Replay(rs)
		if err != nil {
			t.Fatalf("game %d does not replay: %v", games[i].Index, err)
		}
		out = append(out, g)
	}
	return out
}

// TestImportSample: the 1937 Dong-A Ilbo game, CP949, as the collection
// holds it.
func TestImportSample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "donga_ilbo_1937.gib"))
	if err != nil {
		t.Fatal(err)
	}
	games, errs, _ := Import(data, "donga_ilbo_1937.gib", gamerec.ImportOptions{})
	if len(errs) > 0 || len(games) != 1 {
		t.Fatalf("%d games, errors %v", len(games), errs)
	}
	gibTestReplay(t, games)
	g := games[0]
	for _, c := range []struct{ name, got, want string }{
		{"setup", g.Setup, "sangmasangma,sangmamasang"},
		{"start", g.StartFEN, rules.JanggiSetupFEN(rules.SangMaSangMa, rules.SangMaMaSang)},
		{"result", g.Result, gamerec.Draw},
		{"reason", g.Reason, gamerec.ReasonRecorded},
		{"white", g.White, "金漢英"},
		{"black", g.Black, "崔夏泳"},
		{"date", g.Date, "1937.??.??"},
		{"event", g.Tags["대회명"], "동아일보 주최 고수대국"},
		{"first moves", strings.Join(g.MoveList()[:4], " "), "a4b4 c10d8 c1d3 b8e8"},
		{"source", g.Source, "donga_ilbo_1937.gib"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if g.Plies != 166 || g.Index != 1 {
		t.Errorf("plies %d index %d", g.Plies, g.Index)
	}
	// The same file in UTF-8 reads the same.
	utf, err := korean.EUCKR.NewDecoder().Bytes(data)
	if err != nil {
		t.Fatal(err)
	}
	again, errs, _ := Import(append([]byte("\ufeff"), utf...), "donga_ilbo_1937.gib", gamerec.ImportOptions{})
	if len(errs) > 0 || len(again) != 1 || again[0].Moves != g.Moves || again[0].Tags["대회명"] != g.Tags["대회명"] {
		t.Fatalf("UTF-8 copy: %d games, %v", len(again), errs)
	}
	// Without setup tags, the moves decide the setup.
	stripped := bytes.ReplaceAll(utf, []byte("[초차림 \"상마상마\"]\n[한차림 \"상마마상\"]\n"), nil)
	derived, errs, _ := Import(stripped, "no-setup", gamerec.ImportOptions{})
	if len(errs) > 0 || len(derived) != 1 || derived[0].Setup != g.Setup || derived[0].Moves != g.Moves {
		t.Fatalf("setup from the moves: %d games, %v", len(derived), errs)
	}
}

// TestImportMaeilSinbo: 1937–38 newspaper games as JanggiDosa typed them:
// hanja and Hangul pieces without side marks, comments, Han moving first,
// handicap boards (판), a pass, unknown results, and one game (10) that
// goes on after a repetition the janggi rules would end it at on a claim:
// the players' moves and result stand.
func TestImportMaeilSinbo(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "maeil_sinbo_1937.gib"))
	if err != nil {
		t.Fatal(err)
	}
	games, errs, _ := Import(data, "maeil.gib", gamerec.ImportOptions{})
	if len(games) != 11 || len(errs) != 0 {
		t.Fatalf("%d games (want 11), errors %v", len(games), errs)
	}
	played := gibTestReplay(t, games)
	byIndex := map[int]int{}
	for i, g := range games {
		byIndex[g.Index] = i
	}
	// Game 2: Han moves first from a full board: no setup names, Black to move.
	g2 := games[byIndex[2]]
	if g2.Setup != "" || g2.StartFEN != "rnba1anbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ANBR b - - 0 1" ||
		g2.Result != gamerec.Unknown || g2.Reason != gamerec.ReasonUnfinished {
		t.Errorf("game 2: %+v", g2)
	}
	// Game 6 passes at move 11.
	if m := games[byIndex[6]].MoveList()[10]; m != "e10e10" {
		t.Errorf("game 6 move 11 = %s, want Han's pass e10e10", m)
	}
	// Game 8: Han gives a cannon (b8) away.
	if g8 := games[byIndex[8]]; !strings.HasPrefix(g8.StartFEN, "rnba1anbr/4k4/7c1/") {
		t.Errorf("game 8 start %s", g8.StartFEN)
	}
	// Game 1: Han's 상마상마 read from file a, as for Cho.
	if g1 := games[byIndex[1]]; g1.Setup != "sangmasangma,sangmasangma" || g1.Result != gamerec.BlackWins || g1.Reason != gamerec.ReasonResignation {
		t.Errorf("game 1: %s %s %s", g1.Setup, g1.Result, g1.Reason)
	}
	if len(played) != 11 {
		t.Fatal(len(played))
	}
	// Game 10 goes on past a repetition palace's rules end (move 100 in
	// self-play) and keeps the record's ending.
	g10 := games[byIndex[10]]
	if g10.Plies <= 100 || g10.Reason == "repetition" {
		t.Errorf("game 10: %d plies, %s %s", g10.Plies, g10.Result, g10.Reason)
	}
}

// gibStyle is how a synthetic record writes its moves.
type gibStyle struct {
	hanja, sideMarks bool
	ta               bool // 타 before a captured piece (09차49타졸)
	markers          bool // <0> after every move, as Hangame's league records
	pojin            bool // setups under 초포진/한포진 instead of 초차림/한차림
}

var gibHanja = map[rules.PieceType][2]string{
	rules.King: {"將", "將"}, rules.Advisor: {"士", "士"}, rules.Elephant: {"象", "象"}, rules.Horse: {"馬", "馬"},
	rules.Chariot: {"車", "車"}, rules.Cannon: {"包", "包"}, rules.Soldier: {"卒", "兵"},
}
var gibHangul = map[rules.PieceType][2]string{
	rules.King: {"장", "장"}, rules.Advisor: {"사", "사"}, rules.Elephant: {"상", "상"}, rules.Horse: {"마", "마"},
	rules.Chariot: {"차", "차"}, rules.Cannon: {"포", "포"}, rules.Soldier: {"졸", "병"},
}
var gibSetupWords = map[rules.JanggiSetup]string{
	rules.MaSangSangMa: "마상상마", rules.MaSangMaSang: "마상마상", rules.SangMaSangMa: "상마상마", rules.SangMaMaSang: "상마마상",
}

func gibTestSquare(s rules.Square) string {
	row := 0
	if s.Rank() > 0 {
		row = 10 - s.Rank()
	}
	return fmt.Sprintf("%d%d", row, s.File()+1)
}

// gibWrite writes a game as a .gib record (UTF-8), for the tests.
func gibWrite(b *strings.Builder, g *rules.Game, cho, han rules.JanggiSetup, result string, style gibStyle) {
	fmt.Fprintf(b, "[대회명 \"시험\"]\n[초대국자 \"초\"]\n[한대국자 \"한\"]\n[대국일자 \"2024-03-09\"]\n")
	tags := [2]string{"초차림", "한차림"}
	if style.pojin {
		tags = [2]string{"초포진", "한포진"}
	}
	fmt.Fprintf(b, "[%s \"%s\"]\n[%s \"%s\"]\n[총수 \"%d\"]\n[대국결과 \"%s\"]\n\n", tags[0], gibSetupWords[cho], tags[1], gibSetupWords[han], g.Ply(), result)
	moves := g.Moves(nil)
	r, _ := rules.NewGame(g.Rules(), g.RootFEN())
	names := gibHangul
	if style.hanja {
		names = gibHanja
	}
	for i, m := range moves {
		if i > 0 {
			if i%6 == 0 {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		fmt.Fprintf(b, "%d. ", i+1)
		pos := r.Position()
		if m.IsPass() {
			b.WriteString("한수쉼")
			r.Play(m)
			continue
		}
		pc := pos.Board(m.From())
		b.WriteString(gibTestSquare(m.From()))
		if style.sideMarks {
			b.WriteString([2]string{"楚", "漢"}[pc.Color()])
		}
		b.WriteString(names[pc.Type()][pc.Color()])
		b.WriteString(gibTestSquare(m.To()))
		if cap := pos.Board(m.To()); cap != rules.NoPiece {
			if style.ta {
				b.WriteString("타")
			}
			b.WriteString(names[cap.Type()][cap.Color()])
		}
		r.Play(m)
		if r.InCheck() {
			b.WriteString("장군")
		}
		if style.markers {
			b.WriteString(" <0>")
		}
	}
	b.WriteString("\n{끝}\n\n")
}

// gibPlayout plays a random janggi game from the given setups
// (gametest.Playout).
func gibPlayout(rng *rand.Rand, cho, han rules.JanggiSetup, plies int) *rules.Game {
	g, _ := rules.NewGame(rules.MustPreset(RuleSetName), rules.JanggiSetupFEN(cho, han))
	gametest.Playout(rng, g, plies)
	return g
}

var gibTagResults = []struct{ tag, result, reason string }{
	{"초 완승", gamerec.WhiteWins, gamerec.ReasonResignation},
	{"한 기권승", gamerec.BlackWins, gamerec.ReasonResignation},
	{"초 시간승", gamerec.WhiteWins, gamerec.ReasonTime},
	{"한 점수승", gamerec.BlackWins, gamerec.ReasonRecorded},
	{"무승부", gamerec.Draw, gamerec.ReasonRecorded},
	{"미상", gamerec.Unknown, gamerec.ReasonUnfinished},
	{"120수 한 완승", gamerec.BlackWins, gamerec.ReasonResignation},
	{"초 패", gamerec.BlackWins, gamerec.ReasonRecorded},
	{"초 승리", gamerec.WhiteWins, gamerec.ReasonRecorded},
	{"한 0.5점 승", gamerec.BlackWins, gamerec.ReasonRecorded},
	{"한 불계승", gamerec.BlackWins, gamerec.ReasonResignation},
	{"초 반칙승", gamerec.WhiteWins, gamerec.ReasonRecorded},
	{"漢 勝", gamerec.BlackWins, gamerec.ReasonRecorded},
	{"초 패배", gamerec.BlackWins, gamerec.ReasonRecorded},
}

// gibSynthetic writes n random games in one file and returns it with the
// games and the result each record claims.
func gibSynthetic(seed uint64, n int) (string, []*rules.Game, []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	var games []*rules.Game
	var tags []int
	for i := 0; i < n; i++ {
		cho, han := rules.JanggiSetup(i%4), rules.JanggiSetup(i/4%4)
		g := gibPlayout(rng, cho, han, 20+rng.IntN(250))
		tag := rng.IntN(len(gibTagResults))
		result := gibTagResults[tag].tag
		if r := g.Result(); r.Over() {
			switch r.Outcome { // a record agrees with the rules' end
			case rules.WhiteWins:
				result, tag = "초 완승", 0
			case rules.BlackWins:
				result, tag = "한 완승", 6
			default:
				result, tag = "무승부", 4
			}
		}
		gibWrite(&b, g, cho, han, result, gibStyle{hanja: i%3 != 0, sideMarks: i%2 == 0, ta: i%5 == 1, markers: i%7 == 3, pojin: i%3 == 2})
		games = append(games, g)
		tags = append(tags, tag)
	}
	return b.String(), games, tags
}

// TestImportRoundTrip: random games of every setup, written in each style,
// in CP949 and UTF-8, read back move for move.
func TestImportRoundTrip(t *testing.T) {
	text, want, tags := gibSynthetic(1, 64)
	cp949, err := korean.EUCKR.NewEncoder().String(text)
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{text, cp949} {
		games, errs, _ := Import([]byte(data), "synthetic.gib", gamerec.ImportOptions{})
		if len(errs) > 0 || len(games) != len(want) {
			t.Fatalf("%d games of %d, errors %v", len(games), len(want), errs)
		}
		gibTestReplay(t, games)
		for i, g := range games {
			var moves []string
			for _, m := range want[i].Moves(nil) {
				moves = append(moves, m.String())
			}
			if g.Moves != strings.Join(moves, " ") || g.StartFEN != want[i].RootFEN() || g.Index != i+1 {
				t.Fatalf("game %d: moves or start differ", i+1)
			}
			if r := want[i].Result(); r.Over() {
				if g.Result != r.Score() || g.Reason != r.Reason.String() {
					t.Errorf("game %d: %s %s, the rules say %s", i+1, g.Result, g.Reason, r)
				}
			} else if tr := gibTagResults[tags[i]]; g.Result != tr.result || g.Reason != tr.reason {
				t.Errorf("game %d: tag %q read as %s %s, want %s %s", i+1, tr.tag, g.Result, g.Reason, tr.result, tr.reason)
			}
			if g.Date != "2024.03.09" || g.White != "초" || g.Black != "한" {
				t.Errorf("game %d: date %q players %q %q", i+1, g.Date, g.White, g.Black)
			}
		}
	}
}

// TestImportErrors: each kind of bad game is reported with its index and
// line, and the games around it still import.
func TestImportErrors(t *testing.T) {
	good := "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n[대국결과 \"미상\"]\n\n1. 79졸78 2. 41병42\n"
	for _, c := range []struct {
		name, game string
		line       int // within the bad game, 1-based
		msg        string
	}{
		{"stray bytes", "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n\n1. 79졸78 2. 41@@42\n", 4, "stray bytes"},
		{"no moves", "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n[대국결과 \"초 완승\"]\n{기권}\n", 1, "no moves"},
		{"illegal move", "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n\n1. 79졸78\n2. 41병31\n", 5, "not legal"},
		{"wrong piece", "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n\n1. 79차78\n", 4, "names a chariot"},
		{"wrong side", "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n\n1. 79楚卒78 2. 49楚兵48\n", 4, "marked for Cho"},
		{"wrong capture", "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n\n1. 79졸78마\n", 4, "says it captures a horse"},
		{"unmarked capture", "[초차림 \"상마상마\"]\n[한차림 \"상마상마\"]\n\n1. 71졸61 2. 41병51\n3. 61졸51\n", 5, "without saying so"},
		{"unknown piece", "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n\n1. 79王78\n", 4, "unknown piece name"},
		{"unknown captured piece", "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n\n1. 79졸78X\n", 4, "unknown captured piece"},
		{"bad number", "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n\n1. 79졸78 3. 41병42\n", 4, "numbered 3, want 2"},
		{"bad square", "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n\n1. 70졸78\n", 4, "no from-square"},
		{"bad result", "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n[대국결과 \"어쩌면\"]\n\n1. 79졸78\n", 3, "result"},
		{"bad tag", "[초차림 \"마상상마\"]\n[한차림 마상상마]\n\n1. 79졸78\n", 2, "bad tag line"},
		{"open comment", "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n\n1. 79졸78 {아직\n", 4, "comment not closed"},
		{"bad board", "[판 \"차마상사1사마상차/4장\"]\n\n1. 79졸78\n", 1, "판 tag"},
		{"pass in check", "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n\n1. 79졸78 2. 한수쉼 3. 한수쉼 4. 41병42\n", 4, "over after move 3"},
		{"ambiguous setup", "[대국결과 \"미상\"]\n\n1. 79졸78 2. 41병42\n", 1, "fit 16 setups"},
		{"no setup fits", "[초차림 \"마상상마\"]\n[한차림 \"몰라\"]\n\n1. 79졸78 2. 12상34\n", 4, "fit no setup"},
		{"check mark apart", "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n\n1. 79졸78 장군 2. 41병42 3. 70졸78\n", 4, "move 3 \"70졸78\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := good + "\n" + c.game + "\n" + good
			// In CP949, as the files are; @@ is a byte CP949 does not know.
			enc, err := korean.EUCKR.NewEncoder().String(data)
			if err != nil {
				t.Fatal(err)
			}
			games, errs, _ := Import([]byte(strings.ReplaceAll(enc, "@@", "\xff")), "bad.gib", gamerec.ImportOptions{})
			if len(games) != 2 || games[0].Index != 1 || games[1].Index != 3 {
				t.Fatalf("%d games around the bad one (%v)", len(games), errs)
			}
			gibTestReplay(t, games)
			if len(errs) != 1 {
				t.Fatalf("errors %v", errs)
			}
			var ge *Error
			line := strings.Count(good, "\n") + 1 + c.line
			if !errors.As(errs[0], &ge) || !errors.Is(errs[0], ErrGame) || ge.Game != 2 || ge.Line != line || ge.Source != "bad.gib" ||
				!strings.Contains(ge.Msg, c.msg) {
				t.Errorf("got %v; want game 2, line %d, %q", errs[0], line, c.msg)
			}
		})
	}
	// Moves before the first tags are a game without tags; moves after a
	// game's moves, with no tags between, are more moves of that game.
	games, errs, _ := Import([]byte("1. 79졸78\n\n"+good+"\n1. 79졸78\n"), "x", gamerec.ImportOptions{})
	if len(games) != 0 || len(errs) != 2 || !strings.Contains(errs[0].Error(), "game 1, line 1: no tags") ||
		!strings.Contains(errs[1].Error(), "game 2, line 9: move \"79졸78\" numbered 1, want 3") {
		t.Errorf("moves without tags: %d games, %v", len(games), errs)
	}
	// A stray byte in a UTF-8 file spoils only its game.
	games, errs, _ = Import([]byte(good+"\n"+strings.Replace(good, "41병42", "41병\xff42", 1)+"\n"+good), "x", gamerec.ImportOptions{})
	if len(games) != 2 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "game 2, line 11: stray bytes") {
		t.Errorf("UTF-8 with a stray byte: %d games, %v", len(games), errs)
	}
	// A record whose result the rules contradict.
	g := gibPlayout(rand.New(rand.NewPCG(3, 3)), rules.MaSangSangMa, rules.MaSangSangMa, 2000)
	for !g.Result().Over() || g.Result().Outcome == rules.Draw {
		g = gibPlayout(rand.New(rand.NewPCG(uint64(g.Ply()), 4)), rules.MaSangSangMa, rules.MaSangSangMa, 2000)
	}
	var b strings.Builder
	wrong := "초 완승"
	if g.Result().Outcome == rules.WhiteWins {
		wrong = "한 완승"
	}
	gibWrite(&b, g, rules.MaSangSangMa, rules.MaSangSangMa, wrong, gibStyle{})
	if games, errs, _ := Import([]byte(b.String()), "x", gamerec.ImportOptions{Strict: true}); len(games) != 0 || len(errs) != 1 ||
		!strings.Contains(errs[0].Error(), "the rules end the game") || !errors.Is(errs[0], gamerec.ErrRecordResult) {
		t.Errorf("contradicted result, strict: %d games, %v", len(games), errs)
	}
	// Without --strict the game is imported with the rules' result, and
	// the correction is reported.
	games, errs, notices := Import([]byte(b.String()), "x", gamerec.ImportOptions{})
	if len(games) != 1 || len(errs) != 0 || len(notices) != 1 || notices[0].Kind != gamerec.NoticeResultCorrected ||
		games[0].Result != g.Result().Score() || games[0].Reason != g.Result().Reason.String() ||
		!strings.Contains(notices[0].String(), "x game 1, line ") || !strings.Contains(notices[0].Msg, "the record says") {
		t.Errorf("contradicted result: %d games, %v, %v", len(games), errs, notices)
	}
	gibTestReplay(t, games)
	// Garbage that is not a .gib file at all.
	if games, errs, _ := Import([]byte("\x00\x01 hello"), "x", gamerec.ImportOptions{}); len(games) != 0 || len(errs) != 1 {
		t.Errorf("garbage: %d games, %v", len(games), errs)
	}
	if games, errs, _ := Import(nil, "x", gamerec.ImportOptions{}); len(games) != 0 || len(errs) != 0 {
		t.Errorf("empty: %d games, %v", len(games), errs)
	}
}

func TestGibResultAndDate(t *testing.T) {
	for _, c := range []struct{ tag, result, reason string }{
		{"초 완승", "1-0", "resignation"}, {"한 완승", "0-1", "resignation"}, {"漢 完勝", "0-1", "resignation"},
		{"楚 時間勝", "1-0", "time"}, {"無勝負", "1/2-1/2", "recorded"}, {"어쩌면", "", ""},
		{"한기권승", "0-1", "resignation"}, {"초 시간승", "1-0", "time"}, {"초 점수승", "1-0", "recorded"},
		{"무승부", "1/2-1/2", "recorded"}, {"166수 무승부", "1/2-1/2", "recorded"}, {"", "*", "unfinished"},
		{"미상", "*", "unfinished"}, {"한 패", "1-0", "recorded"}, {"승", "", ""}, {"초 한 승", "1-0", "recorded"},
	} {
		result, reason, err := gibResult(c.tag)
		if (err != nil) != (c.result == "") || result != c.result || reason != c.reason {
			t.Errorf("gibResult(%q) = %q %q %v", c.tag, result, reason, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"2008-07-27", "2008.07.27"}, {"1937년", "1937.??.??"}, {"1937년 10월 8일", "1937.10.08"},
		{"미상", ""}, {"2014.7", "2014.07.??"}, {"99-1-1", ""}, {"2014-13-40", "2014.??.??"},
	} {
		if got := gamerec.RecordDate(c.in); got != c.want {
			t.Errorf("RecordDate(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzImport: no input makes Import panic, every game it returns replays,
// and every error names a game and a line.
func FuzzImport(f *testing.F) {
	// Small seeds: the mutator does little with big ones, and minimizing
	// an interesting big input eats the fuzzing time.
	data, err := os.ReadFile(filepath.Join("testdata", "donga_ilbo_1937.gib"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	text, _, _ := gibSynthetic(7, 1)
	f.Add([]byte(text[:min(len(text), 600)]))
	f.Add([]byte("[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n[대국결과 \"한 점수승\"]\n{해설}\n1. 79졸78 2. 한수쉼 3. 71楚卒72\n[대국결과 \"미상\"]\n1.41병42"))
	f.Add([]byte("[판 \"차마상사1사마상차/4장/1포5포/졸1졸1졸1졸1졸///兵1兵1兵1兵1兵/7包/4將/車馬象士1士馬象車\"]\n1. 49兵48 2. 한수쉼"))
	rs := rules.MustPreset(RuleSetName)
	f.Fuzz(func(t *testing.T, data []byte) {
		games, errs, _ := Import(data, "fuzz", gamerec.ImportOptions{})
		for i := range games {
			if _, err := games[i].Replay(rs); err != nil {
				t.Fatalf("imported game does not replay: %v", err)
			}
		}
		for _, err := range errs {
			var ge *Error
			if errors.As(err, &ge) && (ge.Game < 1 || ge.Line < 1) {
				t.Fatalf("error without game or line: %v", err)
			}
		}
	})
}

// BenchmarkImport reads a CP949 file of 200 real games: the 1937 sample
// (166 plies) over and over.
func BenchmarkImport(b *testing.B) {
	one, err := os.ReadFile(filepath.Join("testdata", "donga_ilbo_1937.gib"))
	if err != nil {
		b.Fatal(err)
	}
	const n = 200
	data := bytes.Repeat(append(one, '\n'), n)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	cpu := gibCPUSeconds()
	for b.Loop() {
		games, errs, _ := Import(data, "bench", gamerec.ImportOptions{})
		if len(errs) > 0 || len(games) != n {
			b.Fatalf("%d games, %v", len(games), errs)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "games/s")
	if cpu := gibCPUSeconds() - cpu; cpu > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/cpu, "games/cpu-s")
	}
}

// TestImportWild: what real collections hold beside clean records: bytes
// that are no text between games, the bikjang obligation that Kakao and
// Hangame do not play, result wordings palace does not know.
func TestImportWild(t *testing.T) {
	good := "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n[대국결과 \"한 승리\"]\n\n1. 79졸78 2. 41병42\n"
	// 0xFF runs between games (and before a tag line): skipped with a
	// notice, every game kept.
	data := []byte(good + "\xff\xff\xff\n" + good + "\xff\xff" + good + "\n\xff\n")
	games, errs, notices := Import(data, "ff.gib", gamerec.ImportOptions{})
	if len(games) != 3 || len(errs) != 0 {
		t.Fatalf("%d games, errors %v", len(games), errs)
	}
	gibTestReplay(t, games)
	if len(notices) != 3 {
		t.Fatalf("notices %v", notices)
	}
	for i, want := range []string{"ff.gib game 1, line 6: stray bytes skipped", "ff.gib game 2, line 12: stray bytes skipped", "ff.gib game 3, line 18: stray bytes skipped"} {
		if got := notices[i].String(); !strings.HasPrefix(got, want) {
			t.Errorf("notice %d: %q, want %q…", i, got, want)
		}
	}
	if games[0].Result != gamerec.BlackWins {
		t.Errorf("한 승리 read as %s", games[0].Result)
	}

	// Bikjang: Cho's e4 and Han's e7 soldiers step aside, the generals
	// face each other, and Cho moves a chariot instead of breaking it.
	bikjang := "[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n[대국결과 \"미상\"]\n\n1. 75졸74 2. 45병44 3. 01차91\n"
	games, errs, _ = Import([]byte(bikjang), "kakao.gib", gamerec.ImportOptions{})
	if len(games) != 0 || len(errs) != 1 || !errors.Is(errs[0], gamerec.ErrRecordMove) ||
		!strings.Contains(errs[0].Error(), "move 3 \"01차91\": a1a2 is not legal") ||
		!strings.Contains(errs[0].Error(), "illegal under janggi only because of bikjang") ||
		!strings.Contains(errs[0].Error(), "--rules janggimodern") {
		t.Fatalf("bikjang under janggi: %d games, %v", len(games), errs)
	}
	modern := rules.MustPreset("janggimodern")
	games, errs, _ = Import([]byte(bikjang), "kakao.gib", gamerec.ImportOptions{RuleSet: modern})
	if len(games) != 1 || len(errs) != 0 || games[0].RuleSet != modern.String() {
		t.Fatalf("bikjang under janggimodern: %d games, %v", len(games), errs)
	}
	if _, err := games[0].Replay(modern); err != nil {
		t.Fatal(err)
	}
	// A move illegal under every rule set gets no hint.
	games, errs, _ = Import([]byte(strings.Replace(bikjang, "01차91", "01차51", 1)), "x.gib", gamerec.ImportOptions{})
	if len(games) != 0 || len(errs) != 1 || strings.Contains(errs[0].Error(), "bikjang") {
		t.Errorf("illegal move: %v", errs)
	}
	// The xiangqi rule set is refused for the whole file.
	games, errs, _ = Import([]byte(good), "x.gib", gamerec.ImportOptions{RuleSet: rules.MustPreset("xiangqi")})
	if len(games) != 0 || len(errs) != 1 || !errors.Is(errs[0], gamerec.ErrRecordSetup) ||
		errs[0].Error() != "gib: x.gib: rule set xiangqi is for xiangqi; .gib records are janggi" {
		t.Errorf("xiangqi rule set: %v", errs)
	}
	// A result wording palace does not know is an error, never a guess.
	games, errs, _ = Import([]byte(strings.Replace(good, "한 승리", "한 대승리함", 1)), "x.gib", gamerec.ImportOptions{})
	if len(games) != 0 || len(errs) != 1 || !errors.Is(errs[0], gamerec.ErrRecordResult) || !strings.Contains(errs[0].Error(), "does not know") {
		t.Errorf("unknown wording: %v", errs)
	}
	// 타 before the captured piece, <0> tokens after moves.
	ta := "[초차림 \"상마상마\"]\n[한차림 \"상마상마\"]\n\n1. 71졸61 <0> 2. 41병51 <0>\n3. 61졸51타병 <0>\n"
	games, errs, notices = Import([]byte(ta), "x.gib", gamerec.ImportOptions{})
	if len(games) != 1 || len(errs) != 0 || games[0].Plies != 3 || len(notices) != 1 || notices[0].Kind != gamerec.NoticeTokens {
		t.Errorf("타 and <0>: %d games, %v, %v", len(games), errs, notices)
	}
}

// TestImportTrainCollections: the Kakao and Hangame collections import
// whole under the rule set those sites play (janggimodern); under janggi
// the only records refused are those in which a side ignored bikjang, each
// refused saying so.
func TestImportTrainCollections(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "train", "*.gib"))
	if err != nil || len(files) != 4 {
		t.Fatalf("%d files, %v", len(files), err)
	}
	modern := rules.MustPreset("janggimodern")
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		games, errs, _ := Import(data, path, gamerec.ImportOptions{RuleSet: modern})
		if len(errs) != 0 {
			t.Errorf("%s under janggimodern: %v", path, errors.Join(errs...))
		}
		for i := range games {
			if _, err := games[i].Replay(modern); err != nil {
				t.Fatal(err)
			}
		}
		all := len(games)
		games, errs, _ = Import(data, path, gamerec.ImportOptions{})
		if len(games)+len(errs) != all {
			t.Errorf("%s: %d games and %d errors under janggi, %d games under janggimodern", path, len(games), len(errs), all)
		}
		for _, err := range errs {
			if !strings.Contains(err.Error(), "only because of bikjang") || !errors.Is(err, gamerec.ErrRecordMove) {
				t.Errorf("%s under janggi: %v", path, err)
			}
		}
		t.Logf("%s: %d games; %d refused under janggi for bikjang", filepath.Base(path), all, len(errs))
	}
}
