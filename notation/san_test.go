package notation

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/gib"
	"github.com/palace-chess/palace/internal/ffishtest"
	"github.com/palace-chess/palace/internal/gametest"
	"github.com/palace-chess/palace/rules"
)

// The SAN golden file holds Fairy-Stockfish's SAN (through ffish) for every
// move of many games, and for every legal move of many of their positions.
// It was generated once, and is regenerated only when the games change, by
//
//	go test ./notation -run TestSANGolden -update-san-golden
//
// with node and ffish installed (npm install --prefix ~/.cache/palace-ffish
// ffish@0.7.10, or PALACE_FFISH_DIR naming a folder whose node_modules holds
// ffish). The games are palace's, from fixed seeds: the reference corpus's
// sequences (testdata/outcomes), the xqdb ICCS sample games, the .gib sample,
// and random playouts of every Fairy-Stockfish janggi variant and xiangqi
// leaning towards captures, checks and passes, janggi from all sixteen
// setups. The test itself needs no node.
var sanUpdateGolden = flag.Bool("update-san-golden", false, "regenerate notation/testdata/san_golden.tsv through node and ffish")

const sanGoldenPath = "testdata/san_golden.tsv"

// sanGame is one golden game: moves from a FEN under a Fairy-Stockfish
// variant (a palace preset of the same name), the SAN of each move, and
// the SAN of every legal move after some numbers of plies.
type sanGame struct {
	variant, fen string
	uci, san     []string
	legal        map[int][][2]string // ply -> (uci, san) pairs
	dump         []int               // generation only: plies to list
}

func TestSANGolden(t *testing.T) {
	if *sanUpdateGolden {
		sanWriteGolden(t)
	}
	games := sanReadGolden(t)
	moves, listed, checks, mates, passes, ambiguous := 0, 0, 0, 0, 0, 0
	for i, gm := range games {
		where := fmt.Sprintf("%s line %d (%s %s)", sanGoldenPath, i+1, gm.variant, gm.fen)
		g, err := rules.NewGame(rules.MustPreset(gm.variant), gm.fen)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		for ply := 0; ply <= len(gm.uci); ply++ {
			if pairs, ok := gm.legal[ply]; ok {
				listed += len(pairs)
				sanCheckLegal(t, where, ply, g, pairs)
			}
			if ply == len(gm.uci) {
				break
			}
			m, err := rules.ParseMoveText(gm.uci[ply], rules.Ranks1)
			if err != nil {
				t.Fatalf("%s ply %d: %v", where, ply+1, err)
			}
			want := gm.san[ply]
			if got := string(AppendSAN(nil, g, m)); got != want {
				t.Fatalf("%s ply %d: AppendSAN(%s) = %s, ffish %s (position %s)", where, ply+1, m, got, want, g.Position().FEN())
			}
			sanCheckParse(t, where, ply, g, m, want)
			moves++
			switch {
			case strings.HasSuffix(want, "#"):
				mates++
			case strings.HasSuffix(want, "+"):
				checks++
			}
			if m.IsPass() {
				passes++
			}
			if sanDisambiguated(want) {
				ambiguous++
			}
			g.Play(m)
		}
	}
	t.Logf("%d games, %d moves played (%d checks, %d mates, %d passes, %d disambiguated), %d listed legal moves agree with ffish",
		len(games), moves, checks, mates, passes, ambiguous, listed)
	if mates == 0 || passes == 0 || ambiguous == 0 {
		t.Errorf("the golden file lacks mates, passes or disambiguations")
	}
}

// sanDisambiguated reports whether a SAN move carries a disambiguation.
func sanDisambiguated(san string) bool {
	s := strings.TrimRight(san, "+#")
	s = strings.Replace(s[1:], "x", "", 1)
	_, rest, _ := sanCutLastSquare(s)
	return rest != ""
}

// sanCheckParse checks that the SAN resolves to m, with and without its
// check mark.
func sanCheckParse(t *testing.T, where string, ply int, g *rules.Game, m rules.Move, san string) {
	t.Helper()
	for _, text := range []string{san, strings.TrimRight(san, "+#")} {
		got, err := ParseSAN(g, text)
		if err != nil || got != m {
			t.Fatalf("%s ply %d: ParseSAN(%q) = %s, %v; want %s (position %s)", where, ply+1, text, got, err, m, g.Position().FEN())
		}
	}
}

// sanCheckLegal compares every legal move's SAN with ffish's, and the legal
// moves themselves.
func sanCheckLegal(t *testing.T, where string, ply int, g *rules.Game, pairs [][2]string) {
	t.Helper()
	var want []string
	for _, p := range pairs {
		m, err := rules.ParseMoveText(p[0], rules.Ranks1)
		if err != nil {
			t.Fatalf("%s after %d plies: %v", where, ply, err)
		}
		if got := string(AppendSAN(nil, g, m)); got != p[1] {
			t.Fatalf("%s after %d plies: AppendSAN(%s) = %s, ffish %s (position %s)", where, ply, m, got, p[1], g.Position().FEN())
		}
		sanCheckParse(t, where, ply-1, g, m, p[1])
		want = append(want, p[0])
	}
	sort.Strings(want)
	if got := rules.SortedMoveText(g.LegalMoves(nil)); got != strings.Join(want, " ") {
		t.Fatalf("%s after %d plies: palace's legal moves\n%s\nffish's\n%s", where, ply, got, strings.Join(want, " "))
	}
}

// Golden file format, one game per "game" line, its legal-move lists on
// "legal" lines after it:
//
//	game <TAB> variant <TAB> FEN <TAB> UCI moves <TAB> SAN moves
//	legal <TAB> plies <TAB> uci=san uci=san ...
func sanReadGolden(t *testing.T) []sanGame {
	t.Helper()
	data, err := os.ReadFile(sanGoldenPath)
	if err != nil {
		t.Fatal(err)
	}
	var games []sanGame
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Split(text, "\t")
		switch {
		case f[0] == "game" && len(f) == 5:
			gm := sanGame{variant: f[1], fen: f[2], uci: strings.Fields(f[3]), san: strings.Fields(f[4]), legal: map[int][][2]string{}}
			if len(gm.uci) != len(gm.san) {
				t.Fatalf("%s line %d: %d moves, %d SAN", sanGoldenPath, line, len(gm.uci), len(gm.san))
			}
			games = append(games, gm)
		case f[0] == "legal" && len(f) == 3 && len(games) > 0:
			ply, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatalf("%s line %d: %v", sanGoldenPath, line, err)
			}
			var pairs [][2]string
			for p := range strings.FieldsSeq(f[2]) {
				u, s, ok := strings.Cut(p, "=")
				if !ok {
					t.Fatalf("%s line %d: %q is not uci=san", sanGoldenPath, line, p)
				}
				pairs = append(pairs, [2]string{u, s})
			}
			games[len(games)-1].legal[ply] = pairs
		default:
			t.Fatalf("%s line %d: unknown record %q", sanGoldenPath, line, f[0])
		}
	}
	if len(games) == 0 {
		t.Fatalf("%s: no games", sanGoldenPath)
	}
	return games
}

// sanWriteGolden regenerates the golden file: palace's games, ffish's SAN.
func sanWriteGolden(t *testing.T) {
	games := sanGoldenGames(t)
	lines := make([]string, len(games))
	for i, gm := range games {
		dump := make([]string, len(gm.dump))
		for j, p := range gm.dump {
			dump[j] = strconv.Itoa(p)
		}
		lines[i] = gm.variant + "\t" + gm.fen + "\t" + strings.Join(gm.uci, " ") + "\t" + strings.Join(dump, ",")
	}
	answers := sanFfish(t, "san", "SAN ", lines)
	var b strings.Builder
	b.WriteString("# Fairy-Stockfish's SAN through ffish 0.7.10 for palace's games: see notation/san_test.go.\n")
	b.WriteString("# game<TAB>variant<TAB>FEN<TAB>UCI moves<TAB>SAN moves, then legal<TAB>plies<TAB>uci=san ... lines.\n")
	for i, gm := range games {
		var ans struct {
			San   []string               `json:"san"`
			Legal map[string][][2]string `json:"legal"`
		}
		if err := json.Unmarshal([]byte(answers[i]), &ans); err != nil {
			t.Fatalf("ffish answer %d: %v", i, err)
		}
		for j, s := range ans.San {
			if strings.HasPrefix(s, "illegal:") {
				t.Fatalf("ffish finds ply %d of %s %s illegal: %s", j+1, gm.variant, gm.fen, strings.Join(gm.uci, " "))
			}
		}
		if len(ans.San) != len(gm.uci) {
			t.Fatalf("ffish answered %d SAN moves for %d", len(ans.San), len(gm.uci))
		}
		fmt.Fprintf(&b, "game\t%s\t%s\t%s\t%s\n", gm.variant, gm.fen, strings.Join(gm.uci, " "), strings.Join(ans.San, " "))
		for _, p := range gm.dump {
			pairs := ans.Legal[strconv.Itoa(p)]
			texts := make([]string, len(pairs))
			for j, pr := range pairs {
				texts[j] = pr[0] + "=" + pr[1]
			}
			fmt.Fprintf(&b, "legal\t%d\t%s\n", p, strings.Join(texts, " "))
		}
	}
	if err := os.WriteFile(sanGoldenPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d games, %d bytes", sanGoldenPath, len(games), b.Len())
}

// sanFfish runs scripts/ffish-san.js in the given mode over lines and
// returns its answers, one per line, without their prefix.
func sanFfish(t *testing.T, mode, prefix string, lines []string) []string {
	t.Helper()
	return ffishtest.Run(t, "ffish-san.js", []string{mode}, prefix, lines)
}

// sanGoldenGames are the golden file's games, the same in every run.
func sanGoldenGames(t *testing.T) []sanGame {
	var games []sanGame
	rng := rand.New(rand.NewPCG(2024, 9))
	add := func(variant string, g *rules.Game) {
		gm := sanGame{variant: variant, fen: g.RootFEN()}
		for _, m := range g.Moves(nil) {
			gm.uci = append(gm.uci, m.String())
		}
		gm.dump = sanDumpPlies(rng, variant, g)
		games = append(games, gm)
	}
	// The reference corpus: every janggi setup, passes, mates, sparse
	// endgames.
	for _, variant := range []string{"xiangqi", "janggi", "janggitraditional", "janggimodern", "janggicasual"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "outcomes", variant+"-public.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		for l := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
			f := strings.Split(l, "\t")
			g := sanReplay(t, variant, f[1], strings.Fields(f[2]), rules.Ranks1)
			add(variant, g)
			// Play on from the corpus's final positions that are still open.
			if !g.Result().Over() {
				gametest.PlayoutChecks(rng, g, 40)
				add(variant, g)
			}
		}
	}
	// Real xiangqi games (ICCS, ranks 0-9).
	data, err := os.ReadFile(filepath.Join("..", "..", "shared", "data", "games", "xiangqi", "xqdb_sample15", "xqdb_sample15_iccs.pgn"))
	if err != nil {
		t.Fatal(err)
	}
	iccs := regexp.MustCompile(`^[a-i][0-9][a-i][0-9]$`)
	for _, part := range strings.Split(string(data), "[Event")[1:] {
		var moves []string
		for w := range strings.FieldsSeq(part) {
			if iccs.MatchString(w) {
				moves = append(moves, w)
			}
		}
		add("xiangqi", sanReplay(t, "xiangqi", rules.XiangqiStartFEN, moves, rules.Ranks0))
	}
	// The .gib sample.
	gibData, err := os.ReadFile(filepath.Join("..", "gib", "testdata", "donga_ilbo_1937.gib"))
	if err != nil {
		t.Fatal(err)
	}
	imported, errs, _ := gib.Import(gibData, "donga_ilbo_1937.gib", gamerec.ImportOptions{})
	if len(errs) > 0 || len(imported) == 0 {
		t.Fatalf("gib sample: %v", errors.Join(errs...))
	}
	for _, gm := range imported {
		add("janggi", sanReplay(t, "janggi", gm.StartFEN, gm.MoveList(), rules.Ranks1))
	}
	// Random playouts.
	for _, v := range []struct {
		variant string
		n       int
	}{{"xiangqi", 40}, {"janggi", 40}, {"janggimodern", 20}, {"janggitraditional", 10}, {"janggicasual", 10}} {
		rs := rules.MustPreset(v.variant)
		for i := 0; i < v.n; i++ {
			fen := rs.StartFEN()
			if rs.Game == rules.Janggi {
				fen = rules.JanggiSetupFEN(rules.JanggiSetup(i%4), rules.JanggiSetup(i/4%4))
			}
			g, err := rules.NewGame(rs, fen)
			if err != nil {
				t.Fatal(err)
			}
			gametest.PlayoutChecks(rng, g, 40+rng.IntN(160))
			add(v.variant, g)
		}
	}
	return games
}

// sanReplay plays moves from fen, stopping at the first one palace refuses
// or after the rules end the game.
func sanReplay(t *testing.T, variant, fen string, moves []string, base rules.RankBase) *rules.Game {
	t.Helper()
	g, err := rules.NewGame(rules.MustPreset(variant), fen)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range moves {
		if g.Result().Over() {
			break
		}
		if _, err := g.PlayText(text, base); err != nil {
			break
		}
	}
	return g
}

// sanDumpPlies picks the positions of g whose every legal move goes into
// the golden file: a few at random, and those where two pieces of a kind
// reach one square or a move mates, when the game is not over there.
func sanDumpPlies(rng *rand.Rand, variant string, g *rules.Game) []int {
	moves := g.Moves(nil)
	r, err := rules.NewGame(rules.MustPreset(variant), g.RootFEN())
	if err != nil {
		return nil
	}
	var plies []int
	for ply := 0; ply <= len(moves); ply++ {
		legal := r.LegalMoves(nil)
		if len(legal) > 0 && !r.Result().Over() {
			interesting := false
			pos := r.Position()
			for i, a := range legal {
				for _, b := range legal[i+1:] {
					if a.To() == b.To() && a.From() != b.From() && pos.Board(a.From()) == pos.Board(b.From()) {
						interesting = true
					}
				}
			}
			if !interesting {
				for _, m := range legal {
					r.Play(m)
					mate := r.InCheck() && len(r.LegalMoves(nil)) == 0
					r.Undo()
					if mate {
						interesting = true
						break
					}
				}
			}
			if rng.IntN(300) == 0 || (interesting && rng.IntN(50) == 0) {
				plies = append(plies, ply)
			}
		}
		if ply < len(moves) {
			r.Play(moves[ply])
		}
	}
	return plies
}

// TestSANExamples pins the forms ParseSAN accepts and the errors it gives.
func TestSANExamples(t *testing.T) {
	xq, _ := rules.NewGame(rules.MustPreset("xiangqi"), rules.XiangqiStartFEN)
	jg, _ := rules.NewGame(rules.MustPreset("janggi"), rules.JanggiStartFEN)
	// Chariots on a1, a5 and i1: a1 and a5 share the a-file, a1 and i1
	// the first rank.
	amb, err := rules.NewGame(rules.MustPreset("xiangqi"), "3k5/9/9/9/9/R8/9/9/4K4/R7R w - - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		g          *rules.Game
		text, want string // want "" means an error
	}{
		{xq, "Che3", "h3e3"},
		{xq, "Che3+", "h3e3"},
		{xq, "Che3!?", "h3e3"},
		{xq, "Ch3e3", "h3e3"},
		{xq, "Ch3-e3", "h3e3"},
		{xq, "Ce3", ""},  // ambiguous: both cannons
		{xq, "Cxe3", ""}, // e3 is empty
		{xq, "Cxb10", "b3b10"},
		{xq, "Cb10", "b3b10"}, // the capture mark may be missing
		{xq, "Hc3", "b1c3"},
		{xq, "Nc3", "b1c3"}, // FEN letters for horse and elephant
		{xq, "Bce3", "c1e3"},
		{xq, "e5", "e4e5"}, // a soldier without its letter
		{xq, "Pe5", "e4e5"},
		{xq, "Ke2", "e1e2"},
		{xq, "Ke1", ""}, // no pass in xiangqi
		{xq, "pass", ""},
		{xq, "Rb1", ""},
		{xq, "", ""},
		{xq, "+", ""},
		{xq, "Q", ""},
		{xq, "Rj1", ""},
		{xq, "Ra11", ""},
		{xq, "Ra0", ""},
		{jg, "Ke2", "e2e2"}, // the pass, as Fairy-Stockfish writes it
		{jg, "pass", "e2e2"},
		{jg, "PASS", "e2e2"},
		{jg, "@@@@", "e2e2"},
		{jg, "0000", "e2e2"},
		{jg, "--", "e2e2"},
		{jg, "Pab4", "a4b4"},
		{jg, "Pb4", ""}, // ambiguous
		{amb, "R1a3", "a1a3"},
		{amb, "R5a3", "a5a3"},
		{amb, "Ra3", ""},  // ambiguous
		{amb, "R6a3", ""}, // no chariot on rank 6
		{amb, "Rc1", ""},  // both first-rank chariots
		{amb, "Rac1", "a1c1"},
		{amb, "Ric1", "i1c1"},
		{amb, "Rxa6", ""},
	} {
		m, err := ParseSAN(c.g, c.text)
		got := ""
		if err == nil {
			got = m.String()
		} else if !errors.Is(err, ErrSAN) || !strings.HasPrefix(err.Error(), "notation: ") {
			t.Errorf("ParseSAN(%q): error %v does not wrap ErrSAN", c.text, err)
		}
		if got != c.want {
			t.Errorf("ParseSAN(%q) = %q (%v), want %q", c.text, got, err, c.want)
		}
	}
	// Writing: file, rank, or the whole square when others share both.
	// Horses on b1, d1 and b5 all reach c3; chariots on a1 and a3.
	sq, err := rules.NewGame(rules.MustPreset("xiangqi"), "3k5/9/9/9/9/1H7/9/R8/4K4/RH1H5 w - - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ uci, want string }{
		{"b1c3", "Hb1c3"}, {"d1c3", "Hdc3"}, {"b5c3", "H5c3"}, {"a1a2", "R1a2"}, {"a3a2", "R3a2"}, {"a3b3", "Rb3"},
	} {
		m, _ := rules.ParseMoveText(c.uci, rules.Ranks1)
		if got := string(AppendSAN(nil, sq, m)); got != c.want {
			t.Errorf("AppendSAN(%s) = %s, want %s", c.uci, got, c.want)
		}
		if back, err := ParseSAN(sq, c.want); err != nil || back != m {
			t.Errorf("ParseSAN(%s) = %s, %v; want %s", c.want, back, err, c.uci)
		}
	}
	// An illegal move is written in UCI form, not refused.
	if got := string(AppendSAN(nil, xq, rules.NewMove(rules.SquareAt(4, 4), rules.SquareAt(4, 5)))); got != "e5e6" {
		t.Errorf("AppendSAN of an illegal move = %s", got)
	}
	if got := string(AppendSAN([]byte("x "), xq, rules.NoMove)); got != "x 0000" {
		t.Errorf("AppendSAN(NoMove) = %s", got)
	}
}

// FuzzParseSAN: no input makes ParseSAN panic, and what it accepts is a
// legal move that AppendSAN writes and ParseSAN reads back.
func FuzzParseSAN(f *testing.F) {
	for _, s := range []string{"Che3", "Ke2", "Rxa10+", "R1a3", "pass", "Ch3-e3#", "a10", "Pab4"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	xq, _ := rules.NewGame(rules.MustPreset("xiangqi"), rules.XiangqiStartFEN)
	jg, _ := rules.NewGame(rules.MustPreset("janggi"), rules.JanggiStartFEN)
	f.Fuzz(func(t *testing.T, text string, janggi bool) {
		g := xq
		if janggi {
			g = jg
		}
		m, err := ParseSAN(g, text)
		if err != nil {
			return
		}
		if !g.IsLegal(m) {
			t.Fatalf("ParseSAN(%q) = %s, not legal", text, m)
		}
		san := string(AppendSAN(nil, g, m))
		if back, err := ParseSAN(g, san); err != nil || back != m {
			t.Fatalf("ParseSAN(%q) = %s, written %s, read back %s, %v", text, m, san, back, err)
		}
	})
}
