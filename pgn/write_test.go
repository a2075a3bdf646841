package pgn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/gib"
	"github.com/palace-chess/palace/internal/ffishtest"
	"github.com/palace-chess/palace/internal/gametest"
	"github.com/palace-chess/palace/rules"
)

// writeTestSet is games to export and the rule set of each.
type writeTestSet struct {
	games []gamerec.Game
	rules map[string]*rules.RuleSet
}

func (s *writeTestSet) rulesOf(g *gamerec.Game) *rules.RuleSet { return s.rules[g.RuleSet] }

// writeTestGames are random games of both games under every kind of rule
// set, from standard starts, every janggi setup and Black-to-move
// positions, plus the .gib sample.
func writeTestGames(t testing.TB, n int) *writeTestSet {
	t.Helper()
	set := &writeTestSet{rules: map[string]*rules.RuleSet{}}
	custom, err := rules.ParseRuleSet([]byte("base: janggimodern\nname: jm150\nmoveLimit: 150\n"), "test")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	results := []string{gamerec.WhiteWins, gamerec.BlackWins, gamerec.Draw, gamerec.Unknown}
	for _, rs := range []*rules.RuleSet{
		rules.MustPreset("xiangqi"), rules.MustPreset("janggi"), rules.MustPreset("janggitraditional"),
		rules.MustPreset("janggimodern"), rules.MustPreset("janggicasual"), rules.MustPreset("janggiclassic"), custom,
	} {
		set.rules[rs.String()] = rs
		var blackFirst []string
		if data, err := os.ReadFile(filepath.Join("..", "testdata", "outcomes", exportVariant(rs)+"-public.tsv")); err == nil {
			for l := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
				if f := strings.Split(l, "\t"); len(f) > 1 && strings.Contains(f[1], " b ") {
					blackFirst = append(blackFirst, f[1])
				}
			}
		}
		for i := 0; i < n; i++ {
			fen, setup := rs.StartFEN(), ""
			if rs.Game == rules.Janggi {
				cho, han := rules.JanggiSetup(i%4), rules.JanggiSetup(i/4%4)
				fen, setup = rules.JanggiSetupFEN(cho, han), cho.String()+","+han.String()
			}
			if i%5 == 4 && len(blackFirst) > 0 {
				fen, setup = blackFirst[rng.IntN(len(blackFirst))], ""
			}
			g, err := rules.NewGame(rs, fen)
			if err != nil {
				t.Fatal(err)
			}
			gametest.Playout(rng, g, 10+rng.IntN(200))
			rec := gamerec.Game{Source: "test", Index: len(set.games) + 1, Setup: setup,
				White: fmt.Sprintf("Red \"%d\"", i), Black: `back\slash`, Date: "2025.01.??",
				Tags: map[string]string{"Event": "palace test", "ECCO": "A00", "대회명": "시험", "Bad Name": "x"}}
			rec.SetMoves(g)
			if rec.Result == "" {
				rec.Result, rec.Reason = results[rng.IntN(len(results))], gamerec.ReasonRecorded
				if rec.Result == gamerec.Unknown {
					rec.Reason = gamerec.ReasonUnfinished
				}
			}
			set.games = append(set.games, rec)
		}
	}
	data, err := os.ReadFile(filepath.Join("..", "gib", "testdata", "donga_ilbo_1937.gib"))
	if err != nil {
		t.Fatal(err)
	}
	imported, errs, _ := gib.Import(data, "donga_ilbo_1937.gib", gamerec.ImportOptions{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set.games = append(set.games, imported...)
	return set
}

// writeSplit cuts Write's output into its games.
func writeSplit(text string) []string {
	var out []string
	for _, part := range strings.Split(text, "\n\n[Event ") {
		if len(out) > 0 {
			part = "[Event " + part
		}
		out = append(out, strings.TrimRight(part, "\n")+"\n")
	}
	return out
}

// TestWriteReadByFfish: ffish's readGamePGN reads every exported game back
// to palace's moves, from the FEN palace wrote, under the variant named.
func TestWriteReadByFfish(t *testing.T) {
	n := 24
	if testing.Short() {
		n = 6
	}
	set := writeTestGames(t, n)
	var out bytes.Buffer
	if err := Write(&out, set.games, set.rulesOf); err != nil {
		t.Fatal(err)
	}
	texts := writeSplit(out.String())
	if len(texts) != len(set.games) {
		t.Fatalf("%d games written, %d read back apart", len(set.games), len(texts))
	}
	lines := make([]string, len(texts))
	for i, s := range texts {
		b, _ := json.Marshal(s)
		lines[i] = string(b)
	}
	answers := writeFfish(t, lines)
	blackFirst := 0
	for i, g := range set.games {
		var got struct{ Variant, FEN, Moves string }
		if err := json.Unmarshal([]byte(answers[i]), &got); err != nil {
			t.Fatal(err)
		}
		rs := set.rulesOf(&g)
		wantFEN := ""
		if start, _ := rules.ParseFEN(g.StartFEN, rs); start.FEN() != exportStartFEN(rs) {
			wantFEN = start.FEN()
		}
		if got.Variant != exportVariant(rs) || got.FEN != wantFEN || got.Moves != g.Moves {
			t.Fatalf("%s (%s): ffish read variant %q FEN %q moves\n%s\nwant %q %q\n%s\nPGN:\n%s",
				g.Where(), rs, got.Variant, got.FEN, got.Moves, exportVariant(rs), wantFEN, g.Moves, texts[i])
		}
		if strings.Contains(g.StartFEN, " b ") {
			blackFirst++
		}
	}
	if blackFirst == 0 {
		t.Error("no game started with Black to move")
	}
	t.Logf("ffish read all %d games back (%d from Black-to-move positions)", len(set.games), blackFirst)
}

// writeFfish runs scripts/ffish-san.js readpgn over JSON-quoted PGN games.
func writeFfish(t *testing.T, lines []string) []string {
	t.Helper()
	return ffishtest.Run(t, "ffish-san.js", []string{"readpgn"}, "PGN ", lines)
}

// TestWriteFormat pins the form: tags (.gib names for Event and Round,
// "?" for 미상, escapes), SetUp and FEN, move numbers, passes (Ke2, Kf3 with
// the general on f3, Han's Kd8), disambiguation, check, wrapping, the
// result; ffish reads the janggi game back to its moves (checked when this
// was written, and in TestWriteReadByFfish for many like it).
func TestWriteFormat(t *testing.T) {
	rs := rules.MustPreset("janggi")
	g, err := rules.NewGame(rs, rules.JanggiSetupFEN(rules.MaSangMaSang, rules.SangMaMaSang))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range strings.Fields("e2e2 e7e6 c4d4 e9d8 e2f3 h8c8 i1i2 g7h7 h3h10 d10e9 f3f3 a10a8 b3h3 e9d9 " +
		"i2b2 a8a10 b2d2 e6f6 h3h8 h7g7 h10f10 g10h8 f10b10 i10h10 d2b2 c8c1 b2b8 c10b8 i4h4 d8d8 f3f3") {
		if _, err := g.PlayText(m, rules.Ranks1); err != nil {
			t.Fatal(m, err)
		}
	}
	rec := gamerec.Game{Setup: "masangmasang,sangmamasang", White: "Cho", Date: "1937.??.??",
		Tags: map[string]string{"대회명": "동아일보", "회전": "미상", "Site": "Seoul", "Annotator": `A "B"`}}
	rec.SetMoves(g) // the double pass ends it: 0-1 on the count
	xq, _ := rules.NewGame(rules.MustPreset("xiangqi"), "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1")
	xq.Play(rules.NewMove(rules.SquareAt(7, 9), rules.SquareAt(6, 7)))
	var xrec gamerec.Game
	xrec.SetMoves(xq)
	xrec.Result, xrec.Reason = gamerec.Unknown, gamerec.ReasonUnfinished
	set := map[string]*rules.RuleSet{rs.String(): rs, xq.Rules().String(): xq.Rules()}
	var out bytes.Buffer
	if err := Write(&out, []gamerec.Game{rec, xrec}, func(g *gamerec.Game) *rules.RuleSet { return set[g.RuleSet] }); err != nil {
		t.Fatal(err)
	}
	want := `[Event "동아일보"]
[Site "Seoul"]
[Date "1937.??.??"]
[Round "?"]
[White "Cho"]
[Black "?"]
[Result "0-1"]
[Variant "janggi"]
[SetUp "1"]
[FEN "rbna1anbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ANBR w - - 0 1"]
[Annotator "A \"B\""]

1. Ke2 Pe6 2. Pcd4 Kd8 3. Kf3 Cc8 4. Ri2 Pgh7 5. Cxh10 Ade9 6. Kf3 Ra8 7. Cbh3
Ad9 8. Rb2 Ra10 9. Rd2 Pf6 10. Ch8 Pg7 11. Cxf10 Hxh8 12. Cxb10 Rh10 13. Rb2
Cxc1 14. Rxb8+ Hxb8 15. Pih4 Kd8 16. Kf3 0-1

[Event "?"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "?"]
[Black "?"]
[Result "*"]
[Variant "xiangqi"]
[SetUp "1"]
[FEN "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"]

1... Hg8 *
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// TestWriteLines: no movetext line passes column 80, over many games.
func TestWriteLines(t *testing.T) {
	set := writeTestGames(t, 6)
	var out bytes.Buffer
	if err := Write(&out, set.games, set.rulesOf); err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(out.String(), "\n") {
		if !strings.HasPrefix(l, "[") && len(l) > 80 {
			t.Fatalf("line %d has %d columns: %s", i+1, len(l), l)
		}
	}
}

// TestWriteImportRoundTrip: this package's reader imports what Write
// wrote, game for game, for the rule sets Fairy-Stockfish names.
func TestWriteImportRoundTrip(t *testing.T) {
	set := writeTestGames(t, 6)
	var keep []gamerec.Game
	for _, g := range set.games {
		if rs := set.rulesOf(&g); exportVariant(rs) == rs.Name {
			keep = append(keep, g)
		}
	}
	var out bytes.Buffer
	if err := Write(&out, keep, set.rulesOf); err != nil {
		t.Fatal(err)
	}
	back, errs, _ := Import(out.Bytes(), "written.pgn", Options{})
	if len(errs) > 0 || len(back) != len(keep) {
		t.Fatalf("%d of %d games imported, errors %v", len(back), len(keep), errs)
	}
	for i := range keep {
		a, b := &keep[i], &back[i]
		if a.Moves != b.Moves || a.StartFEN != b.StartFEN || a.RuleSet != b.RuleSet || a.Result != b.Result || a.White != b.White || a.Black != b.Black {
			t.Fatalf("%s: imported back as\n%+v\nwant\n%+v", a.Where(), *b, *a)
		}
	}
}

func TestWriteErrors(t *testing.T) {
	set := writeTestGames(t, 1)
	if err := Write(&bytes.Buffer{}, set.games, func(*gamerec.Game) *rules.RuleSet { return nil }); err == nil ||
		!strings.HasPrefix(err.Error(), "pgn: write test game 1: no rule set") {
		t.Errorf("no rule set: %v", err)
	}
	bad := set.games[0]
	bad.Moves = "e1e9 " + bad.Moves
	bad.Plies++
	var out bytes.Buffer
	if err := Write(&out, []gamerec.Game{set.games[1], bad}, set.rulesOf); !errors.Is(err, gamerec.ErrGames) || !strings.HasPrefix(err.Error(), "pgn: write: ") {
		t.Errorf("illegal move: %v", err)
	}
	if !strings.HasPrefix(out.String(), "[Event ") {
		t.Errorf("the game before the bad one was not written")
	}
	if err := Write(writeFailing{}, set.games[:1], set.rulesOf); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("failing writer: %v", err)
	}
	if err := Write(&out, nil, set.rulesOf); err != nil {
		t.Errorf("no games: %v", err)
	}
	// A janggiclassic game goes out as janggitraditional (bikjang, no
	// counting), with its rule set named.
	for _, g := range set.games {
		rs := set.rulesOf(&g)
		if rs.Name != "janggiclassic" {
			continue
		}
		out.Reset()
		if err := Write(&out, []gamerec.Game{g}, set.rulesOf); err != nil {
			t.Fatal(err)
		}
		if s := out.String(); !strings.Contains(s, "[Variant \"janggitraditional\"]\n") || !strings.Contains(s, "[PalaceRules \""+rs.String()+"\"]\n") {
			t.Errorf("janggiclassic:\n%s", s)
		}
	}
}

type writeFailing struct{}

func (writeFailing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestExportVariant(t *testing.T) {
	for name, want := range map[string]string{"xiangqi": "xiangqi", "janggi": "janggi", "janggitraditional": "janggitraditional",
		"janggimodern": "janggimodern", "janggicasual": "janggicasual", "janggiclassic": "janggitraditional"} {
		if got := exportVariant(rules.MustPreset(name)); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	for yaml, want := range map[string]string{
		"base: janggimodern\ncounting: false\nhanBonus: 0\n":   "janggicasual",
		"base: janggi\nname: jx\nrepetition: 4\n":              "janggi",
		"base: janggitraditional\nname: jt\n":                  "janggitraditional",
		"base: xiangqi\nname: xq\nchaseRule: false\n":          "xiangqi",
		"base: janggicasual\nname: jc\nfacingKings: bikjang\n": "janggitraditional",
	} {
		rs, err := rules.ParseRuleSet([]byte(yaml), "test")
		if err != nil {
			t.Fatal(err)
		}
		if got := exportVariant(rs); got != want {
			t.Errorf("%q: %s, want %s", yaml, got, want)
		}
	}
}
