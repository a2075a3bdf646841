package rules

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"
)

// fsfPath is Debian's Fairy-Stockfish, the differential-testing oracle.
const fsfPath = "/usr/games/fairy-stockfish"

// fsfEngine talks UCI to a Fairy-Stockfish process.
type fsfEngine struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startFSF(t *testing.T) *fsfEngine {
	t.Helper()
	path := os.Getenv("PALACE_FSF")
	if path == "" {
		path = fsfPath
	}
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("PALACE_REQUIRE_FSF") != "" {
			t.Fatalf("PALACE_REQUIRE_FSF is set but Fairy-Stockfish is missing at %s", path)
		}
		t.Skipf("Fairy-Stockfish not found at %s (apt-get install fairy-stockfish, or set PALACE_FSF): differential test skipped", path)
	}
	cmd := exec.Command(path)
	in, err := cmd.StdinPipe()
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
	e := &fsfEngine{cmd: cmd, in: in, out: bufio.NewScanner(stdout)}
	e.out.Buffer(make([]byte, 1<<16), 1<<20)
	t.Cleanup(func() {
		fmt.Fprintln(in, "quit")
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
		}
	})
	e.send("uci")
	e.until(t, "uciok")
	return e
}

func (e *fsfEngine) send(format string, args ...any) { fmt.Fprintf(e.in, format+"\n", args...) }

// until reads lines up to one starting with prefix and returns those before it and it.
func (e *fsfEngine) until(t *testing.T, prefix string) []string {
	t.Helper()
	var lines []string
	for e.out.Scan() {
		l := e.out.Text()
		lines = append(lines, l)
		if strings.HasPrefix(l, prefix) {
			return lines
		}
	}
	t.Fatalf("fairy-stockfish ended before %q: %v", prefix, e.out.Err())
	return nil
}

// legal returns FSF's sorted legal moves and FEN for a root and moves.
func (e *fsfEngine) legal(t *testing.T, root string, moves []Move) (string, string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "position fen %s", root)
	if len(moves) > 0 {
		b.WriteString(" moves")
		for _, m := range moves {
			b.WriteByte(' ')
			b.WriteString(m.String())
		}
	}
	e.send("%s", b.String())
	e.send("d")
	fen := ""
	for _, l := range e.until(t, "Checkers:") {
		if f, ok := strings.CutPrefix(l, "Fen: "); ok {
			fen = f
		}
	}
	e.send("go perft 1")
	var list []string
	for _, l := range e.until(t, "Nodes searched:") {
		if m, _, ok := strings.Cut(l, ": "); ok && !strings.Contains(m, " ") {
			list = append(list, m)
		}
	}
	sort.Strings(list)
	return strings.Join(list, " "), fen
}

// TestDifferentialFairyStockfish plays random games and compares palace's
// legal moves (history included) and FEN with Fairy-Stockfish's at every ply.
func TestDifferentialFairyStockfish(t *testing.T) {
	e := startFSF(t)
	games, maxPlies := 12, 160
	if testing.Short() {
		games, maxPlies = 3, 80
	}
	for _, name := range []string{"xiangqi", "janggi", "janggitraditional", "janggimodern", "janggicasual"} {
		t.Run(name, func(t *testing.T) {
			rs := MustPreset(name)
			e.send("setoption name UCI_Variant value %s", name)
			rng := rand.New(rand.NewPCG(uint64(len(name)), 2026))
			positions := 0
			for gi := 0; gi < games; gi++ {
				root := rs.StartFEN()
				if rs.Game == Janggi {
					root = JanggiSetupFEN(JanggiSetup(rng.IntN(4)), JanggiSetup(rng.IntN(4)))
				}
				g, err := NewGame(rs, root)
				if err != nil {
					t.Fatal(err)
				}
				buf := make([]Move, 0, MaxMoves)
				for ply := 0; ply <= maxPlies; ply++ {
					buf = g.LegalMoves(buf[:0])
					want, fen := e.legal(t, root, g.Moves(nil))
					if got := SortedMoveText(buf); got != want {
						t.Fatalf("game %d ply %d: %s moves %s\n got  %s\n want %s", gi, ply, root, SortedMoveText(g.Moves(nil)), got, want)
					}
					if got := g.Position().FEN(); got != fen {
						t.Fatalf("game %d ply %d: FEN %s, fairy-stockfish %s", gi, ply, got, fen)
					}
					positions++
					if len(buf) == 0 {
						break
					}
					lastWasPass := g.Ply() > 0 && g.Moves(nil)[g.Ply()-1].IsPass()
					g.Play(pickPlayoutMove(rng, g.Position(), buf, lastWasPass))
				}
			}
			t.Logf("%d positions agree", positions)
		})
	}
}

// pickPlayoutMove prefers captures and passes now and then, so that playouts
// reach sparse boards, checks and janggi's pass and bikjang rules.
func pickPlayoutMove(rng *rand.Rand, pos *Position, moves []Move, lastWasPass bool) Move {
	if rng.IntN(3) == 0 {
		for _, i := range rng.Perm(len(moves)) {
			if m := moves[i]; !m.IsPass() && pos.Board(m.To()) != NoPiece {
				return m
			}
		}
	}
	passOdds := 8
	if lastWasPass {
		passOdds = 40 // a second pass ends the game
	}
	pass := moves[len(moves)-1].IsPass()
	if pass && rng.IntN(passOdds) == 0 {
		return moves[len(moves)-1]
	}
	if pass && len(moves) > 1 {
		return moves[rng.IntN(len(moves)-1)]
	}
	return moves[rng.IntN(len(moves))]
}
