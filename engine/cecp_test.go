package engine

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/palace-chess/palace/rules"
)

// cecpVolatile is the time field of CECP's thinking output ("ply score
// time nodes pv").
var cecpVolatile = regexp.MustCompile(`(?m)^(< -?\d+ -?\d+ )\d+( \d+)`)

func cecpMask(s string) string { return cecpVolatile.ReplaceAllString(s, "${1}X${2}") }

// Golden CECP transcripts: testdata/cecp/*.txt, as testdata/*.txt are for
// UCI (the commands read from the file, -update rewrites the answers), with
// the thinking output's time masked.
func TestCECPGoldenSessions(t *testing.T) {
	goldenSessions(t, filepath.Join("testdata", "cecp", "*.txt"), cecpMask, "CECPGolden")
}

// startCECP starts an engine over a pipe and shakes hands in CECP.
func startCECP(t *testing.T, opts Options) *live {
	t.Helper()
	l := startLive(t, opts)
	l.send("xboard")
	l.send("protover 2")
	l.expect("feature done=1", 5*time.Second)
	return l
}

// noLine fails when the engine writes a line starting with prefix within d.
func (l *live) noLine(prefix string, d time.Duration) {
	l.t.Helper()
	timeout := time.After(d)
	for {
		select {
		case line := <-l.tr.lines:
			if strings.HasPrefix(line, prefix) {
				l.t.Fatalf("unexpected %q; transcript:\n%s", line, l.tr)
			}
		case <-timeout:
			return
		}
	}
}

// ? ends a long search at once, with its move.
func TestCECPMoveNow(t *testing.T) {
	l := startCECP(t, testOptions)
	l.send("new")
	l.send("variant xiangqi")
	l.send("option Nodes=16777216")
	l.send("go")
	time.Sleep(100 * time.Millisecond)
	begin := time.Now()
	l.send("?")
	mv := l.expect("move ", 2*time.Second)
	if d := time.Since(begin); d > time.Second {
		t.Errorf("? took %v", d)
	}
	// The move is played: the engine answers the reply to it.
	g, _ := rules.NewGame(rules.MustPreset("xiangqi"), rules.MustPreset("xiangqi").StartFEN())
	if _, err := g.PlayText(strings.TrimPrefix(mv, "move "), rules.Ranks0); err != nil {
		t.Fatalf("%s: %v", mv, err)
	}
	l.send("option Nodes=16")
	reply := g.LegalMoves(nil)[0].Text(rules.Ranks0)
	l.send("usermove " + reply)
	l.expect("move ", 5*time.Second)
	l.quit()
}

// force, new and undo while the engine thinks drop its search: no move
// comes, and the position is the GUI's.
func TestCECPForceDropsSearch(t *testing.T) {
	for _, cmd := range []string{"force", "new", "undo", "setboard rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"} {
		l := startCECP(t, testOptions)
		l.send("new")
		l.send("variant xiangqi")
		l.send("option Nodes=16777216")
		l.send("force")
		l.send("h2e2")
		l.send("go")
		time.Sleep(100 * time.Millisecond)
		l.send(cmd)
		l.send("ping 9")
		l.expect("pong 9", 2*time.Second)
		l.noLine("move ", 300*time.Millisecond)
		l.send("d")
		fen := l.expect("# Fen: ", 2*time.Second)
		want := map[string]string{
			"force": "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b",
		}[cmd]
		if want == "" {
			want = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"
		}
		if !strings.HasPrefix(fen, "# Fen: "+want) {
			t.Errorf("%s: %s, want %s", cmd, fen, want)
		}
		l.quit()
	}
}

// Analysis: thinking output for the position, a move changes it, exit
// ends it without a move; the engine plays none of its own.
func TestCECPAnalysis(t *testing.T) {
	l := startCECP(t, testOptions)
	l.send("new")
	l.send("variant janggi")
	l.send("post")
	l.send("analyze")
	l.expectThinking(5 * time.Second)
	l.send("usermove b0c2")
	l.expectThinking(5 * time.Second)
	l.send(".")
	time.Sleep(50 * time.Millisecond)
	l.send("undo")
	l.send("exit")
	l.send("ping 3")
	l.expect("pong 3", 2*time.Second)
	l.noLine("move ", 200*time.Millisecond)
	l.send("d")
	l.expect("# Fen: rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w", 2*time.Second)
	tr := l.tr.String()
	for _, line := range strings.Split(tr, "\n") {
		if f := strings.Fields(strings.TrimPrefix(line, "< ")); strings.HasPrefix(line, "< ") && len(f) >= 5 && !strings.HasPrefix(line, "< feature") && !strings.HasPrefix(line, "< piece") && !strings.HasPrefix(line, "< setup") && !strings.HasPrefix(line, "< #") && !strings.HasPrefix(line, "< pong") {
			if !cecpThinking.MatchString(strings.TrimPrefix(line, "< ")) {
				t.Errorf("not a thinking line: %q", line)
			}
		}
	}
	l.quit()
}

// expectThinking waits for a line of thinking output.
func (l *live) expectThinking(within time.Duration) {
	l.t.Helper()
	timeout := time.After(within)
	for {
		select {
		case line := <-l.tr.lines:
			if cecpThinking.MatchString(line) {
				return
			}
		case <-timeout:
			l.t.Fatalf("no thinking output within %v; transcript:\n%s", within, l.tr)
		}
	}
}

// cecpThinking is a line of thinking output: ply, score, time, nodes, pv.
var cecpThinking = regexp.MustCompile(`^\d+ -?\d+ \d+ \d+( (@@@@|[a-i]\d[a-i]\d))*$`)

// A clock: the engine answers within its share of it.
func TestCECPTimeControl(t *testing.T) {
	l := startCECP(t, testOptions)
	l.send("new")
	l.send("variant xiangqi")
	l.send("level 40 0:10 0")
	l.send("time 300")
	l.send("otim 300")
	begin := time.Now()
	l.send("go")
	l.expect("move ", 5*time.Second)
	// 3 s for 40 moves: about 75 ms.
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("took %v on a 3 s clock", d)
	}
	l.quit()
}

// fsfPath is Debian's Fairy-Stockfish, which speaks CECP after "xboard".
const fsfPath = "/usr/games/fairy-stockfish"

// cecpPeer is one side of a CECP game: its lines, and how to send it a
// line.
type cecpPeer struct {
	name  string
	lines <-chan string
	send  func(string)
	pass  func(rules.Move) string // a pass as this peer reads it
}

// nextMove waits for the peer's "move M", failing on an error or illegal
// move report.
func (p cecpPeer) nextMove(t *testing.T, log *strings.Builder) string {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("%s ended; log:\n%s", p.name, log)
			}
			log.WriteString(p.name + " < " + line + "\n")
			switch {
			case strings.HasPrefix(line, "move "):
				return strings.TrimPrefix(line, "move ")
			case strings.HasPrefix(line, "Illegal move"), strings.HasPrefix(line, "Error"):
				t.Fatalf("%s: %s; log:\n%s", p.name, line, log)
			}
		case <-timeout:
			t.Fatalf("%s: no move; log:\n%s", p.name, log)
		}
	}
}

// Palace plays Fairy-Stockfish over CECP: a driver relays the moves
// between FSF (a process) and palace's engine (in process), checking each
// with the rules package, in xiangqi (palace red) and janggi (palace Han).
func TestCECPPlaysFairyStockfish(t *testing.T) {
	if _, err := os.Stat(fsfPath); err != nil {
		if os.Getenv("PALACE_REQUIRE_FSF") == "1" {
			t.Fatalf("PALACE_REQUIRE_FSF=1: %v", err)
		}
		t.Skipf("no Fairy-Stockfish: %v", err)
	}
	for _, tc := range []struct {
		variant    string
		palaceSide rules.Color
	}{{"xiangqi", rules.White}, {"janggi", rules.Black}} {
		t.Run(tc.variant, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var log strings.Builder

			cmd := exec.CommandContext(ctx, fsfPath)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Wait() }()
			defer stdin.Close()
			fsfLines := make(chan string, 1024)
			go func() {
				defer close(fsfLines)
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					fsfLines <- sc.Text()
				}
			}()
			fsf := cecpPeer{name: "fsf", lines: fsfLines,
				send: func(s string) { log.WriteString("fsf > " + s + "\n"); _, _ = io.WriteString(stdin, s+"\n") },
				// Debian's Fairy-Stockfish (11.1) reads a pass as the
				// general's square twice.
				pass: func(m rules.Move) string { return m.Text(rules.Ranks0) }}

			l := startLive(t, Options{Nodes: 32, Version: "test"})
			pal := cecpPeer{name: "palace", lines: l.tr.lines,
				send: func(s string) { log.WriteString("palace > " + s + "\n"); l.send(s) },
				pass: func(rules.Move) string { return "@@@@" }}

			for _, p := range []cecpPeer{fsf, pal} {
				p.send("xboard")
				p.send("protover 2")
			}
			waitFor := func(p cecpPeer, prefix string) {
				timeout := time.After(10 * time.Second)
				for {
					select {
					case line := <-p.lines:
						log.WriteString(p.name + " < " + line + "\n")
						if strings.HasPrefix(line, prefix) {
							return
						}
					case <-timeout:
						t.Fatalf("%s: no %q; log:\n%s", p.name, prefix, &log)
					}
				}
			}
			waitFor(fsf, "feature done=1")
			waitFor(pal, "feature done=1")
			for _, p := range []cecpPeer{fsf, pal} {
				p.send("new")
				p.send("variant " + tc.variant)
				p.send("ping 1")
				waitFor(p, "pong 1")
			}
			fsf.send("sd 3")
			peers := [2]cecpPeer{fsf, fsf}
			peers[tc.palaceSide] = pal
			peers[rules.White].send("go")

			rs := rules.MustPreset(tc.variant)
			g, err := rules.NewGame(rs, rs.StartFEN())
			if err != nil {
				t.Fatal(err)
			}
			const plies = 24
			for ply := 0; ply < plies; ply++ {
				side := g.Position().SideToMove()
				text := peers[side].nextMove(t, &log)
				m, reason := cecpParseMove(g, text)
				if m == rules.NoMove {
					t.Fatalf("ply %d: %s played %s (%s) in %s; log:\n%s", ply, peers[side].name, text, reason, g.Position().FEN(), &log)
				}
				g.Play(m)
				if g.Result().Over() {
					break
				}
				other := peers[side.Other()]
				if ply == plies-1 {
					// The last move, in force mode: no answer.
					other.send("force")
				}
				out := m.Text(rules.Ranks0)
				if m.IsPass() {
					out = other.pass(m)
				}
				other.send("usermove " + out)
			}
			pal.send("ping 2")
			waitFor(pal, "pong 2")
			pal.send("d")
			if fen := pal.nextLine(t, "# Fen: ", &log); fen != "# Fen: "+g.Position().FEN() {
				t.Errorf("palace's position %q, the game's %q", fen, g.Position().FEN())
			}
			fsf.send("quit")
			l.quit()
			tr := strings.ReplaceAll(l.tr.String(), "< # Fen:", "")
			tr = strings.ReplaceAll(tr, "< # uci: no network:", "")
			if strings.Contains(tr, "< #") {
				t.Errorf("palace complained:\n%s", tr)
			}
			var moves []string
			for _, m := range g.Moves(nil) {
				moves = append(moves, m.Text(rules.Ranks0))
			}
			t.Logf("%s: %s", g.Result(), strings.Join(moves, " "))
		})
	}
}

// nextLine waits for a line starting with prefix.
func (p cecpPeer) nextLine(t *testing.T, prefix string, log *strings.Builder) string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case line := <-p.lines:
			log.WriteString(p.name + " < " + line + "\n")
			if strings.HasPrefix(line, prefix) {
				return line
			}
		case <-timeout:
			t.Fatalf("%s: no %q; log:\n%s", p.name, prefix, log)
			return ""
		}
	}
}
