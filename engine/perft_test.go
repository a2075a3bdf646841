package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/palace-chess/palace/rules"
)

// go perft reproduces Fairy-Stockfish's reference counts (a sample of the
// small ones, and the start positions to depth 3), and its per-move lines
// are rules.Game.PerftDivide's.
func TestPerftMatchesReference(t *testing.T) {
	for _, variant := range []string{"xiangqi", "janggi", "janggimodern"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "perft", variant+"-public.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		rs := rules.MustPreset(variant)
		commands := []string{"uci", "setoption name UCI_Variant value " + variant}
		var want []string
		for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			cols := strings.Split(line, "\t")
			nodes, err := strconv.ParseUint(cols[2], 10, 64)
			if err != nil {
				t.Fatalf("%s line %d: %v", variant, i+1, err)
			}
			start := cols[0] == rs.StartFEN()
			if nodes > 100000 || (!start && i%20 != 0) {
				continue
			}
			commands = append(commands, "position fen "+cols[0], "go perft "+cols[1])
			want = append(want, cols[0]+" depth "+cols[1]+": "+cols[2])
		}
		if len(want) < 10 {
			t.Fatalf("%s: only %d reference lines", variant, len(want))
		}
		out := session(t, testOptions, commands, nil)
		var got []string
		fen := ""
		for _, line := range strings.Split(out, "\n") {
			switch {
			case strings.HasPrefix(line, "> position fen "):
				fen = strings.TrimPrefix(line, "> position fen ")
			case strings.HasPrefix(line, "> go perft "):
				fen += " depth " + strings.TrimPrefix(line, "> go perft ")
			case strings.HasPrefix(line, "< Nodes searched: "):
				got = append(got, fen+": "+strings.TrimPrefix(line, "< Nodes searched: "))
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: perft counts differ:\n%s", variant, diff(strings.Join(want, "\n"), strings.Join(got, "\n")))
		}
	}
}

func TestPerftDivideLines(t *testing.T) {
	rs := rules.MustPreset("janggi")
	g, err := rules.NewGame(rs, rs.StartFEN())
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	var total uint64
	for _, mc := range g.PerftDivide(3) {
		fmt.Fprintf(&want, "< %s: %d\n", mc.Move, mc.Nodes)
		total += mc.Nodes
	}
	fmt.Fprintf(&want, "< \n< Nodes searched: %d\n< \n", total)
	out := session(t, testOptions, []string{"uci", "setoption name UCI_Variant value janggi", "go perft 3"}, nil)
	_, got, _ := strings.Cut(out, "> go perft 3\n")
	if got != want.String() {
		t.Errorf("go perft 3 from janggi's start:\n%s", diff(want.String(), got))
	}
}

// The end of the input stops a perft of any depth within eofGrace: an
// engine whose GUI died must not run on for ever (issue 25: go perft 20,
// then the end of input, never exited). A search with a budget it cannot
// spend in time is stopped too, and answers with what it has.
func TestEndOfInputStopsLongWork(t *testing.T) {
	for _, work := range []struct{ cmd, want string }{
		{"go perft 20", "info string uci: perft 20 stopped after"},
		{"go nodes 16777216", "bestmove "},
	} {
		pr, pw := io.Pipe()
		tr := newTranscript()
		done := make(chan error, 1)
		go func() { done <- New(testOptions).Run(context.Background(), pr, tr) }()
		io.WriteString(pw, "uci\nposition startpos\n"+work.cmd+"\n")
		time.Sleep(200 * time.Millisecond)
		pw.Close()
		start := time.Now()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: Run: %v", work.cmd, err)
			}
		case <-time.After(eofGrace + 3*time.Second):
			t.Fatalf("%s: still running %v after the end of input", work.cmd, time.Since(start))
		}
		if !strings.Contains(tr.String(), "< "+work.want) {
			t.Errorf("%s: no %q line:\n%s", work.cmd, work.want, tr)
		}
	}
}
