package loop

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/palace-chess/palace/selfplay"
)

// progress is the run's display: on a terminal one status line redrawn in
// place (generation, stage, the stage's own figures, the last gate), else
// key=value log lines.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	gen      int
	stageN   string
	about    string
	lastGate string
	lastLog  time.Time
	dirty    bool
}

func newProgress(w io.Writer, terminal bool) *progress {
	return &progress{w: w, terminal: terminal}
}

func (p *progress) head() string {
	s := fmt.Sprintf("gen %d %s", p.gen, p.stageN)
	if p.about != "" {
		s += " (" + p.about + ")"
	}
	if p.lastGate != "" {
		s += " | last gate: " + p.lastGate
	}
	return s
}

// stage announces a stage.
func (p *progress) stage(gen int, name, about string) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gen, p.stageN, p.about = gen, name, about
	p.line(fmt.Sprintf("start %s", about), true)
}

// status shows the current stage's figures (log lines at most every 10 s).
func (p *progress) status(s string) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line(s, false)
}

func (p *progress) line(s string, force bool) {
	if p.terminal {
		fmt.Fprintf(p.w, "\r%s | %s\x1b[K", p.head(), s)
		p.dirty = true
		return
	}
	if !force && time.Since(p.lastLog) < 10*time.Second {
		return
	}
	p.lastLog = time.Now()
	fmt.Fprintf(p.w, "loop gen=%d stage=%s %s\n", p.gen, p.stageN, s)
}

// log writes a line that stays.
func (p *progress) log(s string) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal && p.dirty {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.dirty = false
	}
	fmt.Fprintf(p.w, "loop %s\n", s)
}

func (p *progress) gate(s string) {
	p.mu.Lock()
	p.lastGate = s
	p.mu.Unlock()
}

func (p *progress) done() {
	if p.w != nil && p.terminal && p.dirty {
		fmt.Fprintln(p.w)
	}
}

func (p *progress) display() selfplay.Display {
	if p.terminal {
		return selfplay.DisplayTerminal
	}
	return selfplay.DisplayLog
}

// writer passes self-play's display through, with the run's head in front
// of each line.
func (p *progress) writer() io.Writer {
	if p.w == nil {
		return nil
	}
	return writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		n := len(b)
		if p.terminal {
			b = bytes.TrimPrefix(b, []byte("\r"))
			b = bytes.TrimSuffix(b, []byte("\n"))
			b = bytes.TrimSuffix(b, []byte("\x1b[K"))
			fmt.Fprintf(p.w, "\r%s | %s\x1b[K", p.head(), b)
			p.dirty = true
			return n, nil
		}
		fmt.Fprintf(p.w, "loop gen=%d %s", p.gen, b)
		return n, nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
