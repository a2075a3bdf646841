package engine

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/")

// transcript collects a session's lines: "> " the commands, "< " the
// answers, signalling each answer line to whoever waits for one.
type transcript struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	part  []byte
	lines chan string
}

func newTranscript() *transcript { return &transcript{lines: make(chan string, 1<<16)} }

func (t *transcript) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part = append(t.part, p...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		line := string(t.part[:i])
		t.part = t.part[i+1:]
		t.buf.WriteString("< " + line + "\n")
		select {
		case t.lines <- line:
		default:
		}
	}
	return len(p), nil
}

func (t *transcript) command(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.WriteString("> " + line + "\n")
}

func (t *transcript) comment(lines []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, l := range lines {
		t.buf.WriteString(l + "\n")
	}
}

func (t *transcript) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

// session runs commands through an engine in serial mode (each finite
// search finished before the next command) and returns the transcript;
// comments[i], when there is one, goes before command i.
func session(t *testing.T, opts Options, commands []string, comments [][]string) string {
	t.Helper()
	e := New(opts)
	e.serial = true
	tr := newTranscript()
	k := 0
	e.trace = func(line string) {
		if k < len(comments) {
			tr.comment(comments[k])
		}
		k++
		tr.command(line)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	in := strings.Join(commands, "\n") + "\n"
	if err := e.Run(ctx, strings.NewReader(in), tr); err != nil {
		t.Fatalf("Run: %v\n%s", err, tr)
	}
	return tr.String()
}

// volatile are the fields that depend on timing.
var volatile = regexp.MustCompile(`\b(nps|time) \d+`)

func mask(s string) string { return volatile.ReplaceAllString(s, "$1 X") }

var testOptions = Options{Nodes: 64, Version: "test"}

// Golden transcripts: testdata/*.txt hold whole sessions, "> " lines the
// commands and "< " lines the answers (nps and time masked). The commands
// are read from the file itself; -update rewrites the answers.
func TestGoldenSessions(t *testing.T) {
	goldenSessions(t, filepath.Join("testdata", "*.txt"), mask, "Golden")
}

// goldenSessions replays every transcript pattern matches, its answers
// masked with maskFn; run names the test for the -update hint.
func goldenSessions(t *testing.T, pattern string, maskFn func(string) string, run string) {
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts %s: %v", pattern, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var commands []string
			var comments [][]string
			var pending []string
			for _, line := range strings.Split(string(data), "\n") {
				switch {
				case strings.HasPrefix(line, "> "):
					commands = append(commands, line[2:])
					comments = append(comments, pending)
					pending = nil
				case strings.HasPrefix(line, "#"):
					pending = append(pending, line)
				}
			}
			got := maskFn(session(t, testOptions, commands, comments))
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != string(data) {
				t.Errorf("transcript differs (go test ./engine -run %s -update to accept):\n%s", run, diff(string(data), got))
			}
		})
	}
}

// diff shows the first differing lines.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, a, b)
		}
	}
	return "(no line differs)"
}

// live runs an engine over a pipe, for tests that talk to it while it
// searches.
type live struct {
	t    *testing.T
	in   *io.PipeWriter
	tr   *transcript
	done chan error
}

func startLive(t *testing.T, opts Options) *live {
	t.Helper()
	pr, pw := io.Pipe()
	l := &live{t: t, in: pw, tr: newTranscript(), done: make(chan error, 1)}
	e := New(opts)
	go func() { l.done <- e.Run(context.Background(), pr, l.tr) }()
	return l
}

func (l *live) send(line string) {
	l.t.Helper()
	if _, err := io.WriteString(l.in, line+"\n"); err != nil {
		l.t.Fatalf("send %q: %v", line, err)
	}
}

// expect waits for an answer line starting with prefix, returning it.
func (l *live) expect(prefix string, within time.Duration) string {
	l.t.Helper()
	timeout := time.After(within)
	for {
		select {
		case line := <-l.tr.lines:
			if strings.HasPrefix(line, prefix) {
				return line
			}
		case <-timeout:
			l.t.Fatalf("no %q within %v; transcript:\n%s", prefix, within, l.tr)
			return ""
		}
	}
}

func (l *live) quit() {
	l.t.Helper()
	l.send("quit")
	select {
	case err := <-l.done:
		if err != nil {
			l.t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		l.t.Fatalf("quit did not return; transcript:\n%s", l.tr)
	}
}

func TestStopEndsInfiniteSearch(t *testing.T) {
	for _, dialect := range []string{"uci", "ucci"} {
		l := startLive(t, testOptions)
		l.send(dialect)
		l.expect(dialect+"ok", 5*time.Second)
		l.send("position startpos moves h2e2")
		l.send("go infinite")
		time.Sleep(100 * time.Millisecond)
		l.send("isready")
		l.expect("readyok", 2*time.Second)
		select {
		case line := <-l.tr.lines:
			if strings.HasPrefix(line, "bestmove") {
				t.Fatalf("%s: bestmove before stop: %s", dialect, l.tr)
			}
		default:
		}
		begin := time.Now()
		l.send("stop")
		best := l.expect("bestmove", 2*time.Second)
		if d := time.Since(begin); d > time.Second {
			t.Errorf("%s: stop took %v", dialect, d)
		}
		if best == "bestmove (none)" || len(strings.Fields(best)) != 2 {
			t.Errorf("%s: %q after stop", dialect, best)
		}
		l.quit()
		if dialect == "ucci" && !strings.HasSuffix(l.tr.String(), "< bye\n") {
			t.Errorf("ucci quit: no bye:\n%s", l.tr)
		}
	}
}

// A search that proves its result early still waits for stop in infinite
// mode, and quit during a search returns promptly.
func TestInfiniteWaitsForStopAndQuitDuringSearch(t *testing.T) {
	l := startLive(t, testOptions)
	l.send("uci")
	l.expect("uciok", 5*time.Second)
	l.send("setoption name UCI_Variant value janggi")
	// Mate in 1 along the palace diagonal: proven at once.
	l.send("position fen 4k4/9/3P2N2/9/9/9/9/9/9/3K5 w - - 0 1")
	l.send("go infinite")
	l.expect("info depth", 5*time.Second)
	time.Sleep(50 * time.Millisecond)
	select {
	case line := <-l.tr.lines:
		t.Fatalf("answered %q before stop", line)
	default:
	}
	l.send("stop")
	if best := l.expect("bestmove", 2*time.Second); best != "bestmove d8e9" {
		t.Errorf("got %q, want bestmove d8e9", best)
	}
	l.send("position startpos")
	l.send("go nodes 10000000")
	time.Sleep(50 * time.Millisecond)
	begin := time.Now()
	l.quit()
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("quit during a search took %v", d)
	}
}

func TestIsReadyDuringSearch(t *testing.T) {
	l := startLive(t, testOptions)
	l.send("uci")
	l.expect("uciok", 5*time.Second)
	l.send("go movetime 1500")
	time.Sleep(50 * time.Millisecond)
	begin := time.Now()
	l.send("isready")
	l.expect("readyok", time.Second)
	if d := time.Since(begin); d > 500*time.Millisecond {
		t.Errorf("readyok took %v during a search", d)
	}
	// readyok came before the bestmove (expect reads in order); the search
	// may end before its 1.5 s when the tree fills, which a fast machine
	// does with the uniform evaluator.
	l.expect("bestmove", 5*time.Second)
	l.quit()
}

func TestTimeControlAnswersInTime(t *testing.T) {
	for _, tc := range []struct{ dialect, setup, cmd string }{
		{"uci", "", "go wtime 3000 btime 3000 winc 0 binc 0"},
		{"uci", "", "go movetime 200 nodes 100000"},
		{"ucci", "", "go time 3 increment 0"},
		{"ucci", "setoption usemillisec true", "go time 3000 increment 0 opptime 1000 oppincrement 0 movestogo 10"},
	} {
		l := startLive(t, testOptions)
		l.send(tc.dialect)
		l.expect(tc.dialect+"ok", 5*time.Second)
		if tc.setup != "" {
			l.send(tc.setup)
		}
		begin := time.Now()
		l.send(tc.cmd)
		best := l.expect("bestmove", 5*time.Second)
		// About 100 ms; the bound leaves room for a loaded CI machine.
		if d := time.Since(begin); d > 2*time.Second {
			t.Errorf("%s %q: %v to answer %q (want about 100 ms)", tc.dialect, tc.cmd, d, best)
		}
		l.quit()
	}
}

// TestDrawScoreReachesSearch: the DrawScore option, in hundredths, becomes
// the search's draw score.
func TestDrawScoreReachesSearch(t *testing.T) {
	e := New(Options{})
	if err := e.setOption("DrawScore", "-20"); err != nil {
		t.Fatal(err)
	}
	if got := e.machinery().Params().DrawScore; got != -0.2 {
		t.Errorf("DrawScore -20: the search's draw score is %v, want -0.2", got)
	}
}

// go ponder searches until ponderhit, however long, and its time limits
// count from ponderhit: pondering longer than movetime, the answer still
// takes about movetime after ponderhit (a clock started at go would be
// spent already). stop while pondering answers at once.
func TestPonderhitStartsTheClock(t *testing.T) {
	l := startLive(t, testOptions)
	l.send("uci")
	l.expect("uciok", 5*time.Second)
	l.send("setoption name Ponder value true")
	// Few moves a position, so the tree does not fill meanwhile.
	l.send("position fen 2bakab2/9/9/9/2r6/6R2/9/9/9/2BAKAB2 w - - 0 1")
	l.send("go ponder movetime 300")
	time.Sleep(400 * time.Millisecond)
	l.send("isready")
	l.expect("readyok", 2*time.Second)
	select {
	case line := <-l.tr.lines:
		if strings.HasPrefix(line, "bestmove") {
			t.Fatalf("bestmove before ponderhit:\n%s", l.tr)
		}
	default:
	}
	hit := time.Now()
	l.send("ponderhit")
	best := l.expect("bestmove", 5*time.Second)
	if d := time.Since(hit); d < 150*time.Millisecond || d > 3*time.Second {
		t.Errorf("bestmove %v after ponderhit, want about 270 ms:\n%s", d, l.tr)
	}
	if f := strings.Fields(best); len(f) != 4 || f[2] != "ponder" {
		t.Errorf("%q: want bestmove M ponder P", best)
	}

	l.send("go ponder wtime 100000 btime 100000")
	time.Sleep(100 * time.Millisecond)
	begin := time.Now()
	l.send("stop")
	l.expect("bestmove", 2*time.Second)
	if d := time.Since(begin); d > time.Second {
		t.Errorf("stop while pondering took %v", d)
	}
	l.quit()
}
