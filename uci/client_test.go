package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// fakeEnv makes the test binary, run as an engine by a client, a fake
// engine (see fakeEngine) instead of the tests.
const fakeEnv = "PALACE_FAKE_ENGINE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeEngine(mode, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// fakeEngine is a tiny engine speaking UCI and UCCI that plays the first
// legal move, or misbehaves as mode says:
//
//	good     the first legal move (ranks 1–10 once UCI_Variant is set)
//	plain    no UCI_Variant option: xiangqi, ranks 0–9
//	pass     a janggi pass when it has one
//	hang     never answers go (nor stop)
//	infinite answers go only after stop
//	crash    exits with status 3 at go, saying so on stderr
//	illegal  answers go with a move from an empty square
//	none     answers go with bestmove (none) (UCCI: nobestmove)
//	mute     never answers uci
//	deaf     ignores quit
//
// The client against palace's own engine is tested in package engine.
func fakeEngine(mode string, in io.Reader, out, errOut io.Writer) int {
	w := bufio.NewWriter(out)
	say := func(format string, args ...any) {
		fmt.Fprintf(w, format+"\n", args...)
		w.Flush()
	}
	ucci, variant := false, ""
	var g *rules.Game
	base := func() rules.RankBase {
		if !ucci && variant != "" {
			return rules.Ranks1
		}
		return rules.Ranks0
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "uci", "ucci":
			if mode == "mute" {
				continue
			}
			ucci = f[0] == "ucci"
			say("id name fake %s", mode)
			name := "name "
			if ucci {
				name = ""
			}
			if mode != "plain" {
				say("option %sUCI_Variant type combo default xiangqi var xiangqi var janggi", name)
			}
			say("option %sHash type spin default 16 min 1 max 1024", name)
			say("option %sSkill Level type spin default 20 min 0 max 20", name)
			say("%sok", f[0])
		case "setoption":
			rest := strings.TrimPrefix(strings.Join(f[1:], " "), "name ")
			if strings.HasPrefix(rest, "UCI_Variant") {
				variant = f[len(f)-1]
				g = nil
			}
		case "isready":
			say("readyok")
		case "position":
			rs := rules.MustPreset("xiangqi")
			if variant != "" {
				rs = rules.MustPreset(variant)
			}
			i := 2
			fen := rs.StartFEN()
			if len(f) > 1 && f[1] == "fen" {
				for i < len(f) && f[i] != "moves" {
					i++
				}
				fen = strings.Join(f[2:i], " ")
			}
			var err error
			if g, err = rules.NewGame(rs, fen); err != nil {
				say("info string bad fen: %v", err)
				g = nil
				continue
			}
			for _, m := range f[min(i+1, len(f)):] {
				if _, err := g.PlayText(m, base()); err != nil {
					say("info string bad move %s: %v", m, err)
					g = nil
					break
				}
			}
		case "go":
			switch mode {
			case "hang":
				continue
			case "infinite":
				for sc.Scan() && sc.Text() != "stop" {
				}
			case "crash":
				fmt.Fprintln(errOut, "fake engine: crashing on purpose")
				return 3
			}
			none := "bestmove (none)"
			if ucci {
				none = "nobestmove"
			}
			if g == nil || mode == "none" {
				say("%s", none)
				continue
			}
			legal := g.LegalMoves(nil)
			if len(legal) == 0 {
				say("%s", none)
				continue
			}
			m := legal[0]
			if mode == "pass" {
				k := g.Position().KingSquare(g.Position().SideToMove())
				if g.IsLegal(rules.PassMove(k)) {
					m = rules.PassMove(k)
				}
			}
			if mode == "illegal" {
				for s := rules.Square(0); s < rules.Squares; s++ {
					if g.Position().Board(s) == rules.NoPiece {
						m = rules.NewMove(s, s+1)
						break
					}
				}
			}
			// The score the client keeps is the last exact one of the
			// first line: 7 centipawns a ply played (UCCI: a plain number).
			say("info depth 1 score cp 0 nodes 1 pv %s", m.Text(base()))
			if ucci {
				say("info depth 2 score %d nodes 2 pv %s", 7*g.Ply(), m.Text(base()))
			} else {
				say("info depth 2 multipv 1 score cp %d nodes 2 pv %s", 7*g.Ply(), m.Text(base()))
				say("info depth 2 multipv 2 score mate 3 nodes 2 pv %s", m.Text(base()))
				say("info depth 3 multipv 1 score cp 999 lowerbound nodes 3 pv %s", m.Text(base()))
			}
			say("info hashfull 3 string score cp 555")
			say("bestmove %s", m.Text(base()))
		case "quit":
			if mode == "deaf" {
				continue
			}
			if ucci {
				say("bye")
			}
			return 0
		}
	}
	if mode == "deaf" {
		time.Sleep(time.Hour)
	}
	return 0
}

// logLines collects a client's transcript.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(line string) {
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// fake starts a client over the fake engine in mode.
func fake(t *testing.T, mode string, cfg ClientConfig) (*Client, *logLines, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Path = exe
	cfg.Env = append(cfg.Env, fakeEnv+"="+mode)
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 10 * time.Second
	}
	log := &logLines{}
	cfg.Log = log.add
	c, err := StartClient(context.Background(), cfg)
	if c != nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, log, err
}

func mustFake(t *testing.T, mode string, cfg ClientConfig) (*Client, *logLines) {
	t.Helper()
	c, log, err := fake(t, mode, cfg)
	if err != nil {
		t.Fatalf("start %s: %v\n%s", mode, err, log)
	}
	return c, log
}

// playOut plays plies moves of a game between the client and itself,
// checking each is legal.
func playOut(t *testing.T, c *Client, rs *rules.RuleSet, plies int, lim Limits) *rules.Game {
	t.Helper()
	g, err := rules.NewGame(rs, rs.StartFEN())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.NewGame(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range plies {
		if g.Result().Over() {
			break
		}
		bm, err := c.Go(context.Background(), g, lim)
		if err != nil {
			t.Fatalf("ply %d (%s): %v", g.Ply(), g.Position().FEN(), err)
		}
		if !g.IsLegal(bm.Move) {
			t.Fatalf("ply %d: illegal %s", g.Ply(), bm.Text)
		}
		g.Play(bm.Move)
	}
	return g
}

func TestClientFakeUCIVariant(t *testing.T) {
	for _, name := range []string{"xiangqi", "janggi"} {
		t.Run(name, func(t *testing.T) {
			rs := rules.MustPreset(name)
			c, log := mustFake(t, "good", ClientConfig{Rules: rs, Options: []OptionValue{{"hash", "32"}}})
			if c.ID() != "fake good" || c.Variant() != name || c.Notation() != NotationRanks1 {
				t.Errorf("id %q variant %q notation %s; want fake good, %s, ranks1", c.ID(), c.Variant(), c.Notation(), name)
			}
			g := playOut(t, c, rs, 6, Limits{Nodes: 1})
			if g.Ply() != 6 {
				t.Errorf("%d plies, want 6", g.Ply())
			}
			tr := log.String()
			for _, want := range []string{"> uci\n", "setoption name UCI_Variant value " + name,
				"> setoption name Hash value 32", "> isready", "> ucinewgame", "> go nodes 1", "< bestmove ", "position fen " + rs.StartFEN() + " moves "} {
				if !strings.Contains(tr, want) {
					t.Errorf("transcript lacks %q:\n%s", want, tr)
				}
			}
			if strings.Contains(tr, "info string") {
				t.Errorf("the fake engine complained:\n%s", tr)
			}
		})
	}
}

// TestBestmoveScore: Go keeps the principal line's last exact score, in
// UCI and UCCI.
func TestBestmoveScore(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	for _, p := range []string{ProtocolUCI, ProtocolUCCI} {
		c, _ := mustFake(t, "good", ClientConfig{Protocol: p, Rules: rs})
		g, _ := rules.NewGame(rs, rs.StartFEN())
		for ply := range 3 {
			bm, err := c.Go(context.Background(), g, Limits{Nodes: 1})
			if err != nil {
				t.Fatal(err)
			}
			if want := (gamerec.Score{Kind: gamerec.Centipawns, Value: 7 * ply}); bm.Score != want {
				t.Errorf("%s, ply %d: score %v, want %v", p, ply, bm.Score, want)
			}
			g.Play(bm.Move)
		}
	}
}

func TestInfoScore(t *testing.T) {
	for _, c := range []struct {
		line string
		want gamerec.Score
		ok   bool
	}{
		{"info depth 5 seldepth 7 multipv 1 score cp -34 nodes 100 nps 1000 pv h3e3 h8e8", gamerec.Score{Kind: gamerec.Centipawns, Value: -34}, true},
		{"info depth 5 score mate -3 pv h3e3", gamerec.Score{Kind: gamerec.MateIn, Value: -3}, true},
		{"info depth 5 score mate 2", gamerec.Score{Kind: gamerec.MateIn, Value: 2}, true},
		{"info depth 4 score 120 pv h2e2", gamerec.Score{Kind: gamerec.Centipawns, Value: 120}, true}, // UCCI
		{"info depth 5 multipv 2 score cp 10 pv h3e3", gamerec.Score{}, false},
		{"info depth 5 score cp 10 lowerbound nodes 5", gamerec.Score{}, false},
		{"info depth 5 score cp 10 upperbound", gamerec.Score{}, false},
		{"info depth 5 nodes 100 pv h3e3", gamerec.Score{}, false},
		{"info string score cp 5", gamerec.Score{}, false},
		{"info depth 5 score cp x", gamerec.Score{}, false},
		{"info depth 5 score mate 0", gamerec.Score{}, false},
		{"info depth 5 score", gamerec.Score{}, false},
		{"info currmove h3e3 score cp 8", gamerec.Score{Kind: gamerec.Centipawns, Value: 8}, true},
	} {
		got, ok := infoScore(strings.Fields(c.line))
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %v %t, want %v %t", c.line, got, ok, c.want, c.ok)
		}
	}
}

func TestClientPlainXiangqi(t *testing.T) {
	c, log := mustFake(t, "plain", ClientConfig{})
	if c.Variant() != "" || c.Notation() != NotationRanks0 {
		t.Fatalf("variant %q notation %s; want none and ranks0", c.Variant(), c.Notation())
	}
	g := playOut(t, c, rules.MustPreset("xiangqi"), 4, Limits{MoveTime: 50 * time.Millisecond})
	// The moves went out with ranks 0–9.
	want := "moves"
	for _, m := range g.Moves(nil)[:3] {
		want += " " + m.Text(rules.Ranks0)
	}
	if tr := log.String(); !strings.Contains(tr, want) || !strings.Contains(tr, "> go movetime 50") || strings.Contains(tr, "UCI_Variant") {
		t.Errorf("transcript lacks %q or go movetime 50, or sets UCI_Variant:\n%s", want, tr)
	}
	// Without UCI_Variant there is no janggi.
	if _, _, err := fake(t, "plain", ClientConfig{Rules: rules.MustPreset("janggi")}); err == nil || !strings.Contains(err.Error(), "xiangqi only") {
		t.Errorf("janggi on an engine without UCI_Variant: err %v", err)
	}
	// The wrong notation: the moves are illegal, and the error says why.
	c, _ = mustFake(t, "plain", ClientConfig{Notation: NotationRanks1})
	g, _ = rules.NewGame(rules.MustPreset("xiangqi"), rules.XiangqiStartFEN)
	if _, err := c.Go(context.Background(), g, Limits{Nodes: 1}); err == nil || !strings.Contains(err.Error(), "read as ranks0 it is legal") {
		t.Errorf("ranks1 against a ranks0 engine: err %v, want an illegal move with a notation hint", err)
	}
}

func TestClientJanggiPass(t *testing.T) {
	rs := rules.MustPreset("janggi")
	c, log := mustFake(t, "pass", ClientConfig{Rules: rs})
	g, _ := rules.NewGame(rs, rs.StartFEN())
	bm, err := c.Go(context.Background(), g, Limits{Nodes: 1})
	if err != nil || bm.Text != "e2e2" || bm.Move != rules.PassMove(g.Position().KingSquare(rules.White)) {
		t.Fatalf("bestmove %q (%v), err %v; want the pass e2e2", bm.Text, bm.Move, err)
	}
	g.Play(bm.Move)
	if _, err := c.Go(context.Background(), g, Limits{Nodes: 1}); err != nil {
		t.Fatal(err)
	}
	if tr := log.String(); !strings.Contains(tr, " moves e2e2\n") {
		t.Errorf("the pass was not sent as e2e2:\n%s", tr)
	}
}

func TestClientUCCI(t *testing.T) {
	rs := rules.MustPreset("janggi")
	c, log := mustFake(t, "good", ClientConfig{Protocol: ProtocolUCCI, Rules: rs, Options: []OptionValue{{"Hash", "8"}}})
	if c.Notation() != NotationRanks0 || c.Variant() != "janggi" {
		t.Errorf("notation %s variant %q; want ranks0 and janggi", c.Notation(), c.Variant())
	}
	playOut(t, c, rs, 4, Limits{Depth: 2})
	tr := log.String()
	for _, want := range []string{"> ucci", "< ucciok", "> setoption UCI_Variant janggi", "> setoption Hash 8", "> go depth 2"} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript lacks %q:\n%s", want, tr)
		}
	}
	if strings.Contains(tr, "ucinewgame") {
		t.Errorf("ucinewgame sent to a UCCI engine:\n%s", tr)
	}
	if err := c.Close(); err != nil || !strings.Contains(log.String(), "< bye") {
		t.Errorf("close: %v; transcript:\n%s", err, log)
	}

	c, _ = mustFake(t, "none", ClientConfig{Protocol: ProtocolUCCI})
	g, _ := rules.NewGame(rules.MustPreset("xiangqi"), rules.XiangqiStartFEN)
	if _, err := c.Go(context.Background(), g, Limits{Nodes: 1}); !errors.Is(err, ErrNoMove) || !strings.Contains(err.Error(), "nobestmove") {
		t.Errorf("nobestmove: err %v, want ErrNoMove", err)
	}
}

func TestClientFaults(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	for _, tc := range []struct {
		mode   string
		want   error
		usable bool
		text   []string
	}{
		{"hang", ErrTimeout, false, []string{"no answer to go within 200ms"}},
		{"crash", ErrExited, false, []string{"exit status 3", "crashing on purpose"}},
		{"illegal", ErrIllegal, true, []string{"bestmove a2b2"}},
		{"none", ErrNoMove, true, []string{"bestmove (none)"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			c, log := mustFake(t, tc.mode, ClientConfig{Rules: rs})
			g, _ := rules.NewGame(rs, rs.StartFEN())
			g.Play(mustParse(t, g, "a4a5"))
			start := time.Now()
			_, err := c.Go(context.Background(), g, Limits{Nodes: 1, Timeout: 200 * time.Millisecond})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v\n%s", err, tc.want, log)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the error took %v", d)
			}
			for _, w := range tc.text {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if usable := c.Err() == nil; usable != tc.usable {
				t.Errorf("usable after the fault: %v (%v), want %v", usable, c.Err(), tc.usable)
			}
			if tc.usable {
				if err := c.NewGame(context.Background()); err != nil {
					t.Errorf("new game after the fault: %v", err)
				}
			} else if err := c.NewGame(context.Background()); !errors.Is(err, tc.want) {
				t.Errorf("new game on a broken client: %v, want %v", err, tc.want)
			}
			start = time.Now()
			c.Close()
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("close took %v", d)
			}
			if c.cmd.ProcessState == nil {
				t.Errorf("the process was not waited for")
			}
		})
	}
}

func mustParse(t *testing.T, g *rules.Game, text string) rules.Move {
	t.Helper()
	m, err := g.Position().ParseMove(text, rules.Ranks1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestClientStartFaults(t *testing.T) {
	if _, log, err := fake(t, "mute", ClientConfig{StartTimeout: 200 * time.Millisecond}); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "no answer to uci") {
		t.Errorf("a mute engine: %v\n%s", err, log)
	}
	if _, _, err := fake(t, "crash", ClientConfig{Options: []OptionValue{{"Threads", "2"}}}); err == nil || !strings.Contains(err.Error(), `no option "Threads"`) ||
		!strings.Contains(err.Error(), "Hash, Skill Level") {
		t.Errorf("an unknown option: %v", err)
	}
	if _, err := StartClient(context.Background(), ClientConfig{Path: "/nonexistent/engine"}); err == nil || !strings.Contains(err.Error(), "/nonexistent/engine") {
		t.Errorf("a missing program: %v", err)
	}
	for _, cfg := range []ClientConfig{{Path: "x", Protocol: "xboard"}, {Path: "x", Notation: "ranks2"}, {}} {
		if _, err := StartClient(context.Background(), cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
	// An engine that ignores quit is killed.
	c, _ := mustFake(t, "deaf", ClientConfig{})
	start := time.Now()
	c.Close()
	if d := time.Since(start); d < quitWait/2 || d > 5*time.Second {
		t.Errorf("closing a deaf engine took %v, want about %v", d, quitWait)
	}
}

func TestClientCancel(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	for _, tc := range []struct {
		mode   string
		usable bool
	}{{"infinite", true}, {"hang", false}} {
		c, log := mustFake(t, tc.mode, ClientConfig{})
		g, _ := rules.NewGame(rs, rs.StartFEN())
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		_, err := c.Go(ctx, g, Limits{})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err %v, want the context's", tc.mode, err)
		}
		if usable := c.Err() == nil; usable != tc.usable {
			t.Errorf("%s: usable %v (%v), want %v\n%s", tc.mode, usable, c.Err(), tc.usable, log)
		}
		if !strings.Contains(log.String(), "> stop") {
			t.Errorf("%s: no stop sent:\n%s", tc.mode, log)
		}
	}
}

const fairyStockfish = "/usr/games/fairy-stockfish"

// The client against Fairy-Stockfish, when it is installed.
func TestClientFairyStockfish(t *testing.T) {
	if _, err := os.Stat(fairyStockfish); err != nil {
		if os.Getenv("PALACE_REQUIRE_FSF") == "1" {
			t.Fatalf("PALACE_REQUIRE_FSF=1: %v", err)
		}
		t.Skipf("no Fairy-Stockfish: %v", err)
	}
	for _, name := range []string{"xiangqi", "janggi"} {
		t.Run(name, func(t *testing.T) {
			rs := rules.MustPreset(name)
			log := &logLines{}
			c, err := StartClient(context.Background(), ClientConfig{Path: fairyStockfish, Rules: rs, Log: log.add})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.Notation() != NotationRanks1 || c.Variant() != name || !strings.Contains(c.ID(), "Fairy-Stockfish") {
				t.Errorf("id %q notation %s variant %q", c.ID(), c.Notation(), c.Variant())
			}
			playOut(t, c, rs, 12, Limits{Nodes: 100})
			if tr := log.String(); strings.Contains(tr, "No such option") || strings.Contains(tr, "Unknown command") {
				t.Errorf("Fairy-Stockfish complained:\n%s", tr)
			}
		})
	}
}

func TestParseOptionLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Option
	}{
		{"option name Hash type spin default 16 min 1 max 131072", Option{Name: "Hash", Type: "spin", Default: "16"}},
		{"option name Skill Level type spin default 20 min -20 max 20", Option{Name: "Skill Level", Type: "spin", Default: "20"}},
		{"option name Debug Log File type string default ", Option{Name: "Debug Log File", Type: "string"}},
		{"option name Clear Hash type button", Option{Name: "Clear Hash", Type: "button"}},
		{"option name UCI_Variant type combo default chess var 3check var janggi var xiangqi", Option{Name: "UCI_Variant", Type: "combo", Default: "chess", Vars: []string{"3check", "janggi", "xiangqi"}}},
		{"option WeightsFile type string default <empty>", Option{Name: "WeightsFile", Type: "string"}},
		{"option usemillisec type check default false", Option{Name: "usemillisec", Type: "check", Default: "false"}},
	} {
		got, ok := parseOptionLine(tc.line)
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, want %+v", tc.line, got, tc.want)
		}
	}
	if _, ok := parseOptionLine("option"); ok {
		t.Errorf("an empty option line parsed")
	}
}

func TestGoCommand(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		ucci, milli bool
		lim         Limits
		side        rules.Color
		want        string
		timeout     time.Duration
	}{
		{false, false, Limits{Nodes: 1000}, rules.White, "go nodes 1000", 60 * s},
		{false, false, Limits{Depth: 3, MoveTime: 200 * time.Millisecond}, rules.White, "go depth 3 movetime 200", 5400 * time.Millisecond},
		{false, false, Limits{WTime: 10 * s, BTime: 9 * s, WInc: s, BInc: 2 * s, MovesToGo: 5}, rules.Black, "go wtime 10000 btime 9000 winc 1000 binc 2000 movestogo 5", 16 * s},
		{true, true, Limits{WTime: 10 * s, BTime: 9 * s, WInc: s, BInc: 2 * s}, rules.Black, "go time 9000 increment 2000 opptime 10000 oppincrement 1000", 16 * s},
		{true, false, Limits{WTime: 10 * s, BTime: 9 * s}, rules.White, "go time 10 increment 0 opptime 9 oppincrement 0", 15 * s},
		{true, false, Limits{MoveTime: 1500 * time.Millisecond, Nodes: 5, Timeout: s}, rules.White, "go nodes 5 time 1 movestogo 1", s},
	} {
		var d dialect = uciDialect{}
		if tc.ucci {
			d = &ucciDialect{millisec: tc.milli}
		}
		if got := d.goCommand(tc.lim, tc.side); got != tc.want {
			t.Errorf("%+v (ucci %v): %q, want %q", tc.lim, tc.ucci, got, tc.want)
		}
		if got := tc.lim.timeout(tc.side); got != tc.timeout {
			t.Errorf("%+v: timeout %v, want %v", tc.lim, got, tc.timeout)
		}
	}
}
