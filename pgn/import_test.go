package pgn

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/notation"
	"github.com/palace-chess/palace/rules"
)

type sample struct {
	path string
	data []byte
}

func samples(t testing.TB) []sample {
	t.Helper()
	files, err := filepath.Glob("testdata/*/*.pgn")
	if err != nil || len(files) != 43 {
		t.Fatalf("want the 43 sample files in testdata, have %d (%v)", len(files), err)
	}
	var out []sample
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sample{f, data})
	}
	return out
}

// replay checks that an imported game replays under its rule set.
func replay(t *testing.T, g *gamerec.Game) {
	t.Helper()
	name, _, _ := strings.Cut(g.RuleSet, "@")
	rs, err := rules.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Replay(rs); err != nil {
		t.Error(err)
	}
}

// rulesEnded are the sample games that go on after palace's rules end
// them on a claim (a repetition, a perpetual chase: a referee's matter in
// real play): the file, the game and the ply after the end.
var rulesEnded = map[string]int{
	"ccpd_sample/00000010.pgn game 1 ply 65":                             1,
	"ccpd_sample/00000011.pgn game 1 ply 57":                             1,
	"xqdb_sample15/xqdb_sample15_iccs.pgn game 12 ply 116":               1,
	"xqdb_sample15/xqdb_sample15_wxf_fullwidth.pgn game 12 ply 116":      1,
	"xqdb_sample15/xqdb_sample15_chinese_simplified.pgn game 12 ply 116": 1,
}

// TestImportSamples imports every sample game, and every one replays. Five
// go on after an end the rules give on a claim; they import whole with the
// record's result, and cut at that end with CutAtRulesEnd.
func TestImportSamples(t *testing.T) {
	total, cut := 0, 0
	for _, s := range samples(t) {
		games, errs, _ := Import(s.data, s.path, Options{})
		for _, err := range errs {
			t.Errorf("%v", err)
		}
		for i := range games {
			replay(t, &games[i])
		}
		total += len(games)

		all, allErrs, _ := Import(s.data, s.path, Options{CutAtRulesEnd: true})
		if len(allErrs) != 0 || len(all) != len(games) {
			t.Errorf("%s with CutAtRulesEnd: %d games, %v", s.path, len(all), allErrs)
		}
		for i := range all {
			replay(t, &all[i])
			note := all[i].Tags["PalaceCut"]
			if note == "" {
				if all[i].Moves != games[i].Moves || all[i].Result != games[i].Result {
					t.Errorf("%s: CutAtRulesEnd changed an uncut game", all[i].Where())
				}
				continue
			}
			t.Logf("%s game %d: %s", s.path, all[i].Index, note)
			cut++
			key := fmt.Sprintf("%s game %d ply %d", strings.TrimPrefix(s.path, "testdata/"), all[i].Index, all[i].Plies+1)
			if rulesEnded[key] == 0 {
				t.Errorf("unexpected cut: %s", key)
			}
			if !strings.HasPrefix(games[i].Moves, all[i].Moves+" ") || games[i].Plies <= all[i].Plies {
				t.Errorf("%s: the whole game does not extend the cut one", games[i].Where())
			}
		}
	}
	if total != 85 || cut != len(rulesEnded) {
		t.Errorf("%d games imported, %d cut; want 85 and %d", total, cut, len(rulesEnded))
	}
}

// resolveAll plays every move of a game read from a file, past any end
// the rules see, and returns them in palace's text.
func resolveAll(t *testing.T, g *Game, source string) []string {
	t.Helper()
	fen := g.Tag("FEN")
	if fen == "" {
		fen = rules.XiangqiStartFEN
	}
	game, err := rules.NewGame(rules.MustPreset("xiangqi"), fen)
	if err != nil {
		t.Fatalf("%s game %d: %v", source, g.Index, err)
	}
	var out []string
	for k, mv := range g.Moves {
		m, err := notation.Parse(game, mv.Text)
		if err != nil {
			t.Fatalf("%s game %d ply %d (line %d): %v", source, g.Index, k+1, mv.Line, err)
		}
		game.Play(m)
		out = append(out, m.String())
	}
	return out
}

// TestSamplesEveryMoveLegal: every move of every sample game names
// exactly one legal move, the five games the rules end early included.
func TestSamplesEveryMoveLegal(t *testing.T) {
	games, plies := 0, 0
	for _, s := range samples(t) {
		read, errs := Read(s.data, s.path, Options{})
		if len(errs) != 0 {
			t.Fatalf("%s: %v", s.path, errs)
		}
		for i := range read {
			plies += len(resolveAll(t, &read[i], s.path))
			games++
		}
	}
	if games != 85 {
		t.Errorf("%d games, want 85", games)
	}
	t.Logf("%d games, %d plies", games, plies)
}

// TestSampleNotationsAgree: the xqdb sample's three notations give the
// same moves, game by game, but for one ply where the files disagree: in
// game 2 Red has pawns on e3 and e5 (ICCS) and plays 36. －Ｐ＋１ (WXF),
// 后兵进一 (Chinese), the rear pawn, e3e4; the ICCS file has e5e6, the
// front one. WXF's and Chinese notation's front is the piece nearer the
// opponent, for Red the higher rank, so palace reads the rear pawn.
func TestSampleNotationsAgree(t *testing.T) {
	var moves [3][]string    // imported games' Moves
	var played [3][][]string // every move, past the rules' end
	for i, n := range []string{"iccs", "wxf_fullwidth", "chinese_simplified"} {
		path := "testdata/xqdb_sample15/xqdb_sample15_" + n + ".pgn"
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		games, _, _ := Import(data, path, Options{})
		for _, g := range games {
			moves[i] = append(moves[i], fmt.Sprintf("%d: %s", g.Index, g.Moves))
		}
		read, _ := Read(data, path, Options{})
		for j := range read {
			played[i] = append(played[i], resolveAll(t, &read[j], path))
		}
	}
	if len(moves[0]) != 15 || len(played[0]) != 15 {
		t.Fatalf("%d games imported, %d read; want 15 and 15", len(moves[0]), len(played[0]))
	}
	const game, ply = 2, 71
	for i := 1; i < 3; i++ {
		for j := range played[0] {
			a, b := played[0][j], played[i][j]
			if len(a) != len(b) {
				t.Errorf("notation %d, game %d: %d plies, ICCS %d", i, j+1, len(b), len(a))
				continue
			}
			for k := range a {
				known := j+1 == game && k+1 == ply && a[k] == "e6e7" && b[k] == "e4e5" // ranks 1–10
				if (a[k] != b[k]) != known {
					t.Errorf("notation %d, game %d, ply %d: %s, ICCS %s", i, j+1, k+1, b[k], a[k])
				}
			}
		}
		for j := range moves[0] {
			if moves[0][j] != moves[i][j] && !strings.HasPrefix(moves[0][j], fmt.Sprintf("%d: ", game)) {
				t.Errorf("notation %d's imported game %s differs from ICCS's", i, moves[i][j])
			}
		}
	}
}

// TestImportFields checks what Import makes of a record's tags.
func TestImportFields(t *testing.T) {
	data, err := os.ReadFile("testdata/ccpd_sample/00000001.pgn")
	if err != nil {
		t.Fatal(err)
	}
	games, errs, _ := Import(data, "c1.pgn", Options{})
	if len(errs) != 0 || len(games) != 1 {
		t.Fatal(errs)
	}
	g := games[0]
	want := gamerec.Game{Source: "c1.pgn", Index: 1, RuleSet: rules.MustPreset("xiangqi").String(),
		Line: gamerec.Line{StartFEN: rules.XiangqiStartFEN}, Plies: 69, End: gamerec.End{Result: "1-0", Reason: gamerec.ReasonRecorded},
		Date: "2007.01.??", White: "呂欽", Black: "柳大華"}
	got := g
	got.Moves, got.Tags = "", nil
	if !strings.HasPrefix(g.Moves, "h3e3 h10g8 h1g3 i10h10 ") || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %+v\nwant %+v", g, want)
	}
	wantTags := map[string]string{"Game": "Chinese Chess", "Event": "第27屆五羊杯象棋冠軍賽 01呂欽先勝柳大華",
		"Site": "廣州", "ECCO": "C85"}
	if fmt.Sprint(g.Tags) != fmt.Sprint(wantTags) {
		t.Errorf("tags %v, want %v", g.Tags, wantTags)
	}

	// xqdb game 7 ends in checkmate; the record gives no result.
	data, err = os.ReadFile("testdata/xqdb_sample15/xqdb_sample15_iccs.pgn")
	if err != nil {
		t.Fatal(err)
	}
	games, _, _ = Import(data, "x.pgn", Options{})
	if g := games[6]; g.Index != 7 || g.Result != "1-0" || g.Reason != "checkmate" || g.White != "LE Thien Vi" {
		t.Errorf("game 7: %+v", g)
	}
	if g := games[0]; g.Result != "*" || g.Reason != gamerec.ReasonUnfinished || g.Date != "" {
		t.Errorf("game 1: %+v", g)
	}
}

func TestNormDate(t *testing.T) {
	cases := map[string]string{
		"2005.01.14": "2005.01.14", "2007年1月": "2007.01.??", "2007年1月5日": "2007.01.05", "2005-1-4": "2005.01.04",
		"2005/01/14": "2005.01.14", "20050114": "2005.01.14", "2005": "2005.??.??", "2005.??.??": "2005.??.??",
		"????.??.??": "", "": "", "２００７年１月": "2007.01.??", "????.05.??": "????.05.??",
	}
	for in, want := range cases {
		if got, ok := normDate(in); !ok || got != want {
			t.Errorf("normDate(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"2005.13.01", "yesterday", "2005.1.1.1", "05.01.14", "2007年春"} {
		if got, ok := normDate(in); ok {
			t.Errorf("normDate(%q) = %q, want failure", in, got)
		}
	}
}

// TestImportMalformed builds a file of broken records between sound ones:
// each broken one is reported with the file, its index, line and reason,
// and the others import.
func TestImportMalformed(t *testing.T) {
	xq, err := os.ReadFile("testdata/xqdb_sample15/xqdb_sample15_iccs.pgn")
	if err != nil {
		t.Fatal(err)
	}
	read, _ := Read(xq, "", Options{})
	var mate []string // xqdb game 7: Red mates on ply 43
	for _, m := range read[6].Moves {
		mate = append(mate, m.Text)
	}
	records := []struct {
		text string
		kind error  // nil: imports
		msg  string // in the error
		line int    // the error's line, counted from the record's first
	}{
		{"[Event \"good\"]\n1. h2e2 h9g7 *", nil, "", 0},
		{"[Event \"stray byte\"]\n1. h2e2 h9\xffg7 *", ErrSyntax, "move \"h9\uFFFDg7\": bytes the file's encoding cannot read", 1},
		{"[Event \"setup without FEN\"]\n[SetUp \"1\"]\n1. h2e2 *", ErrSetup, "tag SetUp 1 without a FEN tag", 0},
		{"1. h2e2 h9g7 2. h0g2 1/2-1/2", nil, "", 0}, // no tags at all
		{"[Event \"no moves\"]\n[Result \"1-0\"]\n1-0", ErrNoMoves, "the record has no moves", 0},
		{"[Event \"illegal\"]\n1. h2e2 h9g7\n2. h2h5 *", ErrMove, `ply 3: notation: ICCS "h2h5": no legal move matches`, 2},
		{"[Event \"ambiguous\"]\n[FEN \"3k5/9/9/9/9/9/R8/9/R8/4K4 w - - 0 1\"]\n1. R9+1 *", ErrMove,
			`ply 1: notation: WXF "R9+1": ambiguous move: matches a1a2, a3a4 (ICCS)`, 2},
		{"[Event \"bad FEN\"]\n[FEN \"rnbakabnr/9/1c5c1 w\"]\n1. h2e2 *", ErrSetup, `tag FEN: rules: bad FEN`, 0},
		// Imported with the rules' result and a notice (refused under
		// Strict: below).
		{"[Event \"mated\"]\n[Result \"0-1\"]\n" + strings.Join(mate, " "), nil, "", 0},
		{"[Event \"after mate\"]\n" + strings.Join(mate, " ") + " e9e8", ErrMove,
			`ply 44 "e9e8": the game was over before it (1-0 checkmate after ply 43)`, 1},
		{"[Event \"results differ\"]\n[Result \"1-0\"]\n1. h2e2 0-1", ErrResult, "tag Result 1-0, the movetext ends 0-1", 0},
		{"[Event \"unknown variant\"]\n[Variant \"shogi\"]\n1. h2e2 *", ErrSetup, `tag Variant: rules: unknown rule set "shogi"`, 0},
		{"[Event \"black to move\"]\n[FEN \"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1\"]\n1... h9g7 2. h0g2 *", nil, "", 0},
		{"[Event \"SAN\"]\n1. Che3 Hg8 *", nil, "", 0},
		{"[Event \"good WXF\"]\n[Date \"2005-1-4\"]\n[Red \"A\"]\n[Black \"B\"]\n1. C2.5 H8+7 2. H2+3 1-0", nil, "", 0},
		{"[Event \"truncated\"]\n1. h2e2 h9g7 2. h0", ErrMove, `ply 3: notation: `, 1},
	}
	var file strings.Builder
	line := 1
	starts := make([]int, len(records))
	for i, r := range records {
		starts[i] = line
		file.WriteString(r.text + "\n\n")
		line += strings.Count(r.text, "\n") + 2
	}
	games, errs, notices := Import([]byte(file.String()), "bad.pgn", Options{})
	if len(notices) != 1 || notices[0].Game != 9 || notices[0].Kind != gamerec.NoticeResultCorrected ||
		notices[0].Msg != "the record says 0-1, the rules end the game 1-0 checkmate" {
		t.Errorf("notices %v", notices)
	}
	strict, strictErrs, _ := Import([]byte(records[8].text), "mated.pgn", Options{ImportOptions: gamerec.ImportOptions{Strict: true}})
	if len(strict) != 0 || len(strictErrs) != 1 || !errors.Is(strictErrs[0], ErrResult) || !errors.Is(strictErrs[0], gamerec.ErrRecordResult) ||
		!strings.Contains(strictErrs[0].Error(), "the rules end the game 1-0 checkmate, the record says 0-1") {
		t.Errorf("strict: %d games, %v", len(strict), strictErrs)
	}
	var imported []int
	for i := range games {
		imported = append(imported, games[i].Index)
		replay(t, &games[i])
	}
	var wantImported []int
	k := 0
	for i, r := range records {
		if r.kind == nil {
			wantImported = append(wantImported, i+1)
			continue
		}
		if k >= len(errs) {
			t.Errorf("record %d (%s): no error", i+1, r.msg)
			continue
		}
		err := errs[k]
		k++
		var e *Error
		want := fmt.Sprintf("pgn: bad.pgn: game %d (line %d): ", i+1, starts[i]+r.line)
		if !errors.As(err, &e) || !errors.Is(err, r.kind) || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), r.msg) {
			t.Errorf("record %d: %v\nwant %s…%s (%v)", i+1, err, want, r.msg, r.kind)
		}
	}
	if k != len(errs) {
		t.Errorf("extra errors: %v", errs[k:])
	}
	if !slices.Equal(imported, wantImported) {
		t.Errorf("imported games %v, want %v", imported, wantImported)
	}
	if g := games[slices.Index(imported, 9)]; g.Result != gamerec.WhiteWins || g.Reason != "checkmate" {
		t.Errorf("corrected game: %s %s", g.Result, g.Reason)
	}
	if g := games[len(games)-1]; g.Date != "2005.01.04" || g.White != "A" || g.Black != "B" || g.Result != "1-0" || g.Reason != gamerec.ReasonRecorded {
		t.Errorf("WXF game: %+v", g)
	}
	var fe *rules.FENError
	if !errors.As(errs[5], &fe) {
		t.Errorf("bad FEN error %v does not wrap *rules.FENError", errs[5])
	}
	var ne *notation.Error
	if !errors.As(errs[4], &ne) || !errors.Is(errs[4], notation.ErrAmbiguous) {
		t.Errorf("ambiguous move error %v does not wrap notation's", errs[4])
	}
}

// BenchmarkImport imports the 85 sample games (7,723 plies as written):
// decoding, parsing, every move resolved and played, results checked.
// "files" imports the 43 sample files one by one, as palace import reads
// a folder of them; "collection" one UTF-8 file holding all 85 games, as
// a large collection comes, whose games Import shares out among the CPUs.
func BenchmarkImport(b *testing.B) {
	files := samples(b)
	var all []byte
	for _, s := range files {
		text, _ := Decode(s.data, AutoEncoding)
		all = append(append(all, text...), '\n')
	}
	run := func(b *testing.B, files []sample) {
		b.ReportAllocs()
		games := 0
		cpu := cpuSeconds()
		for b.Loop() {
			for _, s := range files {
				g, _, _ := Import(s.data, s.path, Options{CutAtRulesEnd: true})
				games += len(g)
			}
		}
		b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
		if cpu := cpuSeconds() - cpu; cpu > 0 {
			b.ReportMetric(float64(games)/cpu, "games/cpu-s")
		}
		if games != 85*b.N {
			b.Fatalf("%d games imported, want 85 a round", games/b.N)
		}
	}
	b.Run("files", func(b *testing.B) { run(b, files) })
	b.Run("collection", func(b *testing.B) { run(b, []sample{{"all.pgn", all}}) })
}

func TestImportOptions(t *testing.T) {
	if games, errs, _ := Import([]byte("1. h2e2 *"), "o.pgn", Options{Variant: "shogi"}); len(games) != 0 || len(errs) != 1 ||
		!strings.HasPrefix(errs[0].Error(), "pgn: Options.Variant: ") {
		t.Errorf("bad Options.Variant: %v, %v", games, errs)
	}
	// Janggi by option: the first move is legal in janggi, not xiangqi (a
	// pass). ICCS writes the pass as the general's square twice.
	games, errs, _ := Import([]byte("1. e1e1 *"), "o.pgn", Options{Variant: "Janggi"})
	if len(errs) != 0 || len(games) != 1 || !strings.HasPrefix(games[0].RuleSet, "janggi@") || games[0].Moves != "e2e2" {
		t.Errorf("janggi by option: %+v, %v", games, errs)
	}
}

// TestImportWild: PGN as XQWizard and online servers write it: a FEN with
// "r" for Red to move, a comment before the moves, a variation, and notes
// after a separator line that follows the result.
func TestImportWild(t *testing.T) {
	const xqwizard = "[Game \"Chinese Chess\"]\n[Event \"让九子\"]\n[Result \"1-0\"]\n" +
		"[FEN \"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/9/1C5C1/9/RN2K2NR r - - 0 1\"]\n" +
		"{　　评注：许银川}\n1. 炮八平五 炮８平５\n{　　红方首着}\n2. 炮五进五 象７进５ (2... 士４进５) 3. 炮二平五 1-0\n" +
		"============================\n 欢迎访问《象棋百科全书网》\n 推荐用《象棋巫师》观赏棋谱\n\n" +
		"[Game \"Chinese Chess\"]\n[Result \"*\"]\n1. h2e2 h9g7\n=====\n notes without a result\n\n[Event \"last\"]\n1. h2e2 *\n"
	games, errs, notices := Import([]byte(xqwizard), "xqw.pgn", Options{})
	if len(errs) != 0 || len(games) != 3 {
		t.Fatalf("%d games, errors %v", len(games), errs)
	}
	for i := range games {
		replay(t, &games[i])
	}
	if g := games[0]; g.Plies != 5 || !strings.Contains(g.StartFEN, " w ") || g.Result != gamerec.WhiteWins {
		t.Errorf("game 1: %d plies from %s, %s", g.Plies, g.StartFEN, g.Result)
	}
	want := []string{
		"xqw.pgn game 1, line 1: comments dropped: 2 comments, 2 lines of notes after the moves",
		"xqw.pgn game 1, line 1: variations dropped: 1 variation",
		"xqw.pgn game 2, line 13: comments dropped: 1 line of notes after the moves",
	}
	if len(notices) != len(want) {
		t.Fatalf("notices %v", notices)
	}
	for i := range want {
		if notices[i].String() != want[i] {
			t.Errorf("notice %d: %q, want %q", i, notices[i], want[i])
		}
	}
	// A collection's rule set replaces the Variant tag's preset of the
	// same game, and refuses a game of the other.
	janggi := "[Variant \"janggi\"]\n1. e1e1 *\n"
	modern := rules.MustPreset("janggimodern")
	games, errs, _ = Import([]byte(janggi), "j.pgn", Options{ImportOptions: gamerec.ImportOptions{RuleSet: modern}})
	if len(errs) != 0 || len(games) != 1 || games[0].RuleSet != modern.String() {
		t.Errorf("--rules janggimodern: %d games, %v", len(games), errs)
	}
	games, errs, _ = Import([]byte(janggi), "j.pgn", Options{ImportOptions: gamerec.ImportOptions{RuleSet: rules.MustPreset("xiangqi")}})
	if len(games) != 0 || len(errs) != 1 || !errors.Is(errs[0], gamerec.ErrRecordSetup) ||
		!strings.Contains(errs[0].Error(), "the game is janggi (variant janggi), the rule set xiangqi is for xiangqi") {
		t.Errorf("--rules xiangqi on a janggi game: %d games, %v", len(games), errs)
	}
}
