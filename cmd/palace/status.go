package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/palace-chess/palace/ladder"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/stats"
	"github.com/palace-chess/palace/train"
	"golang.org/x/term"
)

// The libraries report through typed callbacks (selfplay.Event,
// loop.Event, cluster.Event, arena.Summary, experiment.Status,
// train.Progress) and draw nothing; this file (and status_cluster.go, a
// distributed run's lines) is where palace's commands draw them.

// status draws a command's progress on w: as a status line redrawn in
// place, cut to the terminal's width so that it never wraps, with log
// lines above it; or as log lines only (structured, through log/slog);
// or not at all. Its methods are safe for concurrent use.
type status struct {
	mu    sync.Mutex
	w     io.Writer
	show  bool       // anything at all (--progress none: false)
	lines bool       // the status line; else log lines only
	width func() int // the terminal's columns; 0 when unknown: no cut
	shown bool       // a status line is on screen, not yet ended
	log   *slog.Logger
}

// newStatus draws on w: nothing unless show, the status line when lines
// (see progressFlag), else log lines.
func newStatus(w io.Writer, show, lines bool) *status {
	s := &status{w: w, show: show, lines: show && lines, width: terminalWidth(w)}
	s.log = slog.New(&lineHandler{out: s.writeLine})
	return s
}

// draw redraws the status line with text (status line mode only).
func (s *status) draw(text string) {
	if !s.lines {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, "\r%s\x1b[K", cut(text, s.width()))
	s.shown = true
}

// logLine writes a line that stays: msg, then attrs as key=value (see
// lineHandler). A status line on screen is cleared first.
func (s *status) logLine(msg string, attrs ...slog.Attr) {
	if !s.show {
		return
	}
	s.log.LogAttrs(context.Background(), slog.LevelInfo, msg, attrs...)
}

// update shows text: on the status line, or as a log line.
func (s *status) update(text string) {
	if s.lines {
		s.draw(text)
		return
	}
	s.logLine(text)
}

// end ends the status line, leaving its last text on screen, so that what
// the command prints next starts on a line of its own.
func (s *status) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown {
		fmt.Fprintln(s.w)
		s.shown = false
	}
}

// output is a writer for a command's results, which go out whether or not
// progress is shown: the status line on screen, if any, is cleared first.
func (s *status) output() io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		s.writeLine(b)
		return len(b), nil
	})
}

// writeLine writes a finished log line, clearing the status line first.
func (s *status) writeLine(line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown {
		fmt.Fprint(s.w, "\r\x1b[K")
		s.shown = false
	}
	s.w.Write(line)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// cut shortens text to fit in width columns less one (a line filling
// the last column would wrap on some terminals); width 0 leaves it whole.
// It counts runes: palace's status lines hold no double-width characters.
func cut(text string, width int) string {
	if width <= 0 {
		return text
	}
	max := width - 1
	if utf8.RuneCountInString(text) <= max {
		return text
	}
	n := 0
	for i := range text {
		if n == max {
			return text[:i]
		}
		n++
	}
	return text
}

// isTerminal reports whether w is a terminal (w an *os.File, or a
// writer over one that gives its Fd).
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && f.Fd() != ^uintptr(0) && term.IsTerminal(int(f.Fd()))
}

// terminalWidth reads w's width on every call (the window may be
// resized); 0 when w is not a terminal.
func terminalWidth(w io.Writer) func() int {
	if !isTerminal(w) {
		return func() int { return 0 }
	}
	fd := int(w.(interface{ Fd() uintptr }).Fd())
	return func() int {
		cols, _, err := term.GetSize(fd)
		if err != nil {
			return 0
		}
		return cols
	}
}

// lineHandler is the slog.Handler of palace's log lines: a record is one
// line, its message, then each attribute as key=value, or as its bare
// value when its key is empty (the free text some lines end with). There
// is no time or level, and nothing is quoted but what a value's String
// quotes: these are the lines palace has always printed, read by people
// and grepped by tests and scripts.
type lineHandler struct {
	out    func([]byte)
	attrs  []slog.Attr
	prefix string // the groups' names, each followed by "."
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	attrs := slices.Clone(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		attrs = append(attrs, h.qualified(a))
		return true
	})
	h.out([]byte(logText(r.Message, attrs) + "\n"))
	return nil
}

func (h *lineHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = slices.Clip(c.attrs)
	for _, a := range attrs {
		c.attrs = append(c.attrs, h.qualified(a))
	}
	return &c
}

func (h *lineHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.prefix += name + "."
	return &c
}

func (h *lineHandler) qualified(a slog.Attr) slog.Attr {
	if a.Key != "" {
		a.Key = h.prefix + a.Key
	}
	return a
}

// logText is a log line's text without its newline (see lineHandler).
func logText(msg string, attrs []slog.Attr) string {
	var b strings.Builder
	b.WriteString(msg)
	for _, a := range attrs {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if a.Key != "" {
			b.WriteString(a.Key)
			b.WriteByte('=')
		}
		if v := a.Value.Resolve(); v.Kind() == slog.KindAny {
			fmt.Fprint(&b, v.Any())
		} else {
			b.WriteString(v.String())
		}
	}
	return b.String()
}

// freeText is free text at the end of a log line.
func freeText(s string) slog.Attr { return slog.String("", s) }

// fixed is x with places decimals.
func fixed(key string, x float64, places int) slog.Attr {
	return slog.String(key, strconv.FormatFloat(x, 'f', places, 64))
}

// quoted is a value written in Go's quotes (a path, a library's name).
type quoted string

func (q quoted) String() string { return strconv.Quote(string(q)) }

// drawSelfplay draws self-play's reports on s: the start as a log line,
// then the status line, or every report as a log line with the counters.
func drawSelfplay(s *status) func(selfplay.Event) {
	return func(e selfplay.Event) {
		if e.Kind == selfplay.EventStart || !s.lines {
			s.logLine("selfplay", selfplayAttrs(e)...)
			return
		}
		s.draw(selfplayStatusLine(e.Stats))
	}
}

// selfplayStatusLine is the one-line summary of a self-play run.
func selfplayStatusLine(s selfplay.Stats) string {
	return fmt.Sprintf("games %d/%d (%d saved)  %.0f games/h  %.1f positions/s  %.0f evals/s  batch %.1f  cache %.0f%%  shards %d  %s",
		s.Before+s.Finished, s.Target, s.Before+s.Played, s.GamesPerHour(), s.PositionsPerSecond(), s.EvaluationsPerSecond(),
		s.Network.MeanBatch(), 100*s.Cache.HitRate(), s.Shards, s.Elapsed.Truncate(time.Second))
}

// selfplayAttrs are a self-play report's log fields: the event, what the
// run is about to do (start) or the shard written, and the run's
// counters: evals_per_s counts network evaluations, search_evals_per_s
// the searches' (cache hits included).
func selfplayAttrs(e selfplay.Event) []slog.Attr {
	s := e.Stats
	attrs := []slog.Attr{slog.String("event", e.Kind.String())}
	switch e.Kind {
	case selfplay.EventStart:
		st := e.Start
		return append(attrs, slog.Any("dir", quoted(st.Dir)), slog.String("rule_set", s.RuleSet), slog.String("network", s.NetworkID),
			slog.Int("target", s.Target), slog.Int("complete", s.Before), slog.Int("to_play", st.ToPlay),
			slog.Int("concurrent_games", st.ConcurrentGames), slog.Int("evaluators", st.Evaluators), slog.Int("batch_size", st.BatchSize),
			slog.Any("kernel", quoted(st.Kernel)))
	case selfplay.EventShard:
		sh := e.Shard
		attrs = append(attrs, slog.String("name", sh.Name), slog.Int("games", sh.Games), slog.Int64("records", sh.Records),
			slog.Uint64("first_game", sh.FirstGame), slog.Uint64("last_game", sh.LastGame))
	}
	return append(attrs, fixed("elapsed_s", s.Elapsed.Seconds(), 1), slog.Int("target", s.Target), slog.Int("complete", s.Before+s.Played),
		slog.Int("finished", s.Finished), slog.Int("saved", s.Played), slog.Int("shards", s.Shards), slog.Int64("plies", s.Plies),
		slog.Int64("positions", s.Positions), fixed("games_per_hour", s.GamesPerHour(), 1), fixed("mean_plies", s.MeanPlies(), 1),
		fixed("positions_per_s", s.PositionsPerSecond(), 1), fixed("evals_per_s", s.EvaluationsPerSecond(), 1),
		fixed("search_evals_per_s", s.SearchEvaluationsPerSecond(), 1), fixed("mean_batch", s.Network.MeanBatch(), 2),
		fixed("cache_hit_rate", s.Cache.HitRate(), 3), slog.Int64("resigned", s.Resigns.Resigned), slog.Int64("would_resign", s.Resigns.Would),
		slog.Int64("false_resignations", s.Resigns.False))
}

// loopView draws a run's reports. On the status line: the generation, the
// stage and what it does, its figures, and the last gate's verdict. As
// log lines: each stage's start, its figures at most every 10 s,
// self-play's reports, and the run's own lines.
type loopView struct {
	s                      *status
	gen                    int
	stage, about, lastGate string
	lastLog                time.Time
}

// event draws e; loop.Run calls it one report at a time.
func (v *loopView) event(e loop.Event) {
	switch e.Kind {
	case loop.EventStage:
		v.gen, v.stage, v.about = e.Generation, e.Stage, stageAbout(e)
		v.figures("start "+v.about, true)
	case loop.EventTrain:
		v.figures(trainFigures(e.Train), false)
	case loop.EventArena:
		s := e.Arena
		v.figures(fmt.Sprintf("%d games W/D/L %d/%d/%d Elo %s LLR %.2f [%.2f, %.2f]",
			s.Games, s.WDL.Wins, s.WDL.Draws, s.WDL.Losses, s.Elo, s.LLR, s.Lower, s.Upper), false)
	case loop.EventLadder:
		if l := e.Ladder; !l.Started {
			s := l.Summary
			v.figures(fmt.Sprintf("%s: %d games W/D/L %d/%d/%d", l.Match, s.Games, s.WDL.Wins, s.WDL.Draws, s.WDL.Losses), false)
		}
	case loop.EventSelfplay:
		if v.s.lines {
			line := selfplayStatusLine(e.Selfplay.Stats)
			if e.Selfplay.Kind == selfplay.EventStart {
				line = logText("selfplay", selfplayAttrs(e.Selfplay))
			}
			v.s.draw(v.statusLine(line))
			return
		}
		v.s.logLine("loop", append([]slog.Attr{slog.Int("gen", v.gen), freeText("selfplay")}, selfplayAttrs(e.Selfplay)...)...)
	case loop.EventStageDone:
	default:
		if line := loopNotice(e); line != "" {
			v.s.logLine("loop", freeText(line))
		}
		if e.Kind == loop.EventGate {
			v.lastGate = fmt.Sprintf("gen %d %s", e.Generation+1, verdict(e.Metric.Promoted))
		}
	}
}

// stageAbout is what a stage does, as its start says.
func stageAbout(e loop.Event) string {
	switch e.Stage {
	case loop.StageSelfplay:
		return fmt.Sprintf("best gen %d", e.Best)
	case loop.StageReanalyse:
		if len(e.Sources) == 0 {
			return "nothing to search again yet"
		}
		return fmt.Sprintf("best gen %d, games of gens %d-%d", e.Best, e.Sources[len(e.Sources)-1], e.Sources[0])
	case loop.StageTrain:
		return fmt.Sprintf("to step %d", e.Target)
	case loop.StageArena:
		return fmt.Sprintf("%s vs %s", e.Players[0], e.Players[1])
	case loop.StageLadder:
		return fmt.Sprintf("rating gen %d", e.Best)
	}
	return ""
}

// loopNotice is a run's line that stays: a decision, a rating, what it
// did on its own, why it stopped.
func loopNotice(e loop.Event) string {
	switch e.Kind {
	case loop.EventEngineMissing:
		return fmt.Sprintf("warning: the ladder's engine %s is not there, and the first rating (after %d promotions) will fail: install it (Debian: apt-get install fairy-stockfish), set ladder.engine, or set ladder.every to 0",
			e.Program, e.Every)
	case loop.EventDebris:
		return fmt.Sprintf("removed %d temporary files that killed writes left in %s", e.Removed, e.Dir)
	case loop.EventConfigRecorded:
		return fmt.Sprintf("recorded the digest of %s in %s: from now on a changed config is refused", loop.ConfigKey, loop.StateKey)
	case loop.EventMoreSelfplay:
		return moreSelfplay(e.Round)
	case loop.EventMatchNotOver:
		return fmt.Sprintf("gen %d gate: the match in %s is not over; playing its missing games", e.Generation+1, loop.ArenaKey(e.Generation+1))
	case loop.EventGate:
		m := e.Metric
		line := fmt.Sprintf("gen %d gate: %s (%s)", e.Generation+1, verdict(m.Promoted), m.Reason)
		if s := m.Match; s != nil {
			line += fmt.Sprintf(": %d games W/D/L %d/%d/%d Elo %s", s.Games, s.WDL.Wins, s.WDL.Draws, s.WDL.Losses, s.Elo)
		}
		return line
	case loop.EventRated:
		rt := e.Metric.Rating
		return fmt.Sprintf("gen %d ladder: %s on %s (%d games, %.0f s)", e.Generation, rated(rt), rt.Scale, rt.Games, e.Metric.Seconds)
	case loop.EventReanalysed:
		m := e.Metric
		if len(m.SourceGenerations) == 0 {
			return ""
		}
		return fmt.Sprintf("gen %d reanalysis: %d positions of gens %d-%d searched again (%.0f evals/s, %.0f s)", e.Generation, m.Positions,
			m.SourceGenerations[len(m.SourceGenerations)-1], m.SourceGenerations[0], m.EvalsPerSecond, m.Seconds)
	case loop.EventComplete:
		return runComplete(e.Generation)
	case loop.EventStopped:
		return fmt.Sprintf("stopped in generation %d, stage %s; run again to resume", e.Generation, e.Stage)
	}
	return ""
}

// The words a local run's lines and a distributed run's share.

// trainFigures are training's figures after a save.
func trainFigures(p train.Progress) string {
	reply := ""
	if p.Losses.Reply != 0 {
		reply = fmt.Sprintf(" reply %.3f", p.Losses.Reply)
	}
	return fmt.Sprintf("step %d/%d loss %.3f (policy %.3f wdl %.3f%s) lr %.4g %.0f samples/s window %d",
		p.Step, p.Target, p.Losses.Total, p.Losses.Policy, p.Losses.WDL, reply, p.Rate, p.SamplesPerS, p.Window)
}

// moreSelfplay says why self-play plays another round.
func moreSelfplay(r loop.SelfplayRound) string {
	return fmt.Sprintf("gen %d: %d positions, training starts at %d: another %d games", r.Generation, r.Positions, r.MinRows, r.Games)
}

// verdict is a gate's decision.
func verdict(promoted bool) string {
	if promoted {
		return "promoted"
	}
	return "kept the best"
}

// rated is a ladder's rating of its player, with its interval.
func rated(r *ladder.Rating) string {
	return fmt.Sprintf("%s rated %s [%s, %s]", r.Player, stats.FormatElo(float64(r.Elo)), stats.FormatElo(float64(r.Lo)), stats.FormatElo(float64(r.Hi)))
}

// runComplete says the run has played its generations.
func runComplete(generations int) string {
	return fmt.Sprintf("run complete: %d generations", generations)
}

// statusLine is the status line with the stage's figures: the figures
// first, then the generation and stage, the last gate's verdict, and what
// the stage does last, since that (the gate's two player names) can fill
// a terminal's width by itself and the line is cut at the width.
func (v *loopView) statusLine(figures string) string {
	h := fmt.Sprintf("%s | gen %d %s", figures, v.gen, v.stage)
	if v.lastGate != "" {
		h += " | gate " + v.lastGate
	}
	if v.about != "" {
		h += " | " + v.about
	}
	return h
}

// figures shows the stage's figures; as log lines, at most every 10 s
// unless force.
func (v *loopView) figures(line string, force bool) {
	if v.s.lines {
		v.s.draw(v.statusLine(line))
		return
	}
	if !force && time.Since(v.lastLog) < 10*time.Second {
		return
	}
	v.lastLog = time.Now()
	v.s.logLine("loop", slog.Int("gen", v.gen), slog.String("stage", v.stage), freeText(line))
}
