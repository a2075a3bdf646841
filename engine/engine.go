package engine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
)

// Options configure an Engine. The client changes them with setoption
// (WeightsFile, Nodes, Threads); the rest are fixed.
type Options struct {
	// Network is a checkpoint file (palace net init, or a run's nets/),
	// loaded at the first isready or go. "" searches with the uniform
	// evaluator (equal priors, value 0): plain MCTS.
	Network string
	// Nodes is the simulation budget of a go without limits (0: 800).
	Nodes int
	// Threads is how many copies of the network evaluate each batch in
	// parallel; the search gathers 8 leaves per thread for each batch
	// (0: 1).
	Threads int
	// Version is the code version "id name palace VERSION" names ("" :
	// "dev").
	Version string
	// TreeMB is Tree Memory's starting value, in MB (0: 1024).
	TreeMB int
}

const (
	defaultNodes    = 800
	defaultOverhead = 30 // ms
	defaultHashMB   = 16
	// cacheEntryBytes is what an nn.Cache entry takes: its 40 bytes and
	// its share of the policy ring, 64 floats.
	cacheEntryBytes = 40 + 64*4
	maxHashMB       = nn.MaxCacheEntries * cacheEntryBytes >> 20
	maxMultiPV      = 500
	leavesPerThread = 8
	maxThreads      = 256
	maxNodes        = 1 << 24 // mcts's largest simulation budget
	maxLine         = 1 << 20 // bytes; a longer line is dropped

	// The search tree's memory (Tree Memory): a node takes 48 bytes and
	// as many again in the pool that tree reuse compacts into. The tree
	// grows as it is used, to the cap; 1 GB holds 11 million nodes, a few
	// minutes of analysis at the built-in network's speed.
	treeNodeBytes = 2 * 48
	defaultTreeMB = 1024
	maxTreeMB     = 64 << 10

	// eofGrace is how long a search or perft under way at the end of the
	// input may go on before it is stopped.
	eofGrace = 2 * time.Second
)

// Engine answers one client at a time in one of its protocols. Its settings
// (the protocol, the options the client set, the position, the search
// tree) last from one Run to the next.
type Engine struct {
	opts  Options
	out   *output
	proto protocol // the protocol in force; UCI until a line names another

	// What the client set.
	variant    string
	variantSet bool   // the client set UCI_Variant: Fairy-Stockfish's notation
	notation   string // MoveNotation: auto, ranks1, ranks0
	showWDL    bool
	analyse    bool // UCI_AnalyseMode: the scores are the position's, no draw score
	milli      bool // UCCI's usemillisec
	network    string
	threads    int // the network's copies (the search's leaves follow them)
	overhead   int // ms
	ponder     bool
	multiPV    int
	hashMB     int // the evaluation cache's size; 0: none
	treeMB     int // Tree Memory: the search tree's cap, in MB
	// Strength levels (strength.go): Skill Level, UCI_LimitStrength and
	// UCI_Elo, and the last limit an info string described.
	skill         int
	limitStrength bool
	elo           int
	strengthSaid  string
	// params are the search's parameters as the options set them: a
	// search option changes them here, and the next search is built on
	// them (Nodes, the budget of a go without limits, needs no rebuild).
	params mcts.Params

	rulesets map[string]*rules.RuleSet // one pointer per variant, so mcts can reuse its tree
	game     *rules.Game               // the position; nil: the variant's start
	// refused is why the last position command did not apply: until a
	// position command that does (or ucinewgame), go answers with it and
	// no move rather than search a stale position.
	refused error
	// banned are UCCI's banmoves for the position, until the next position
	// command.
	banned []rules.Move
	// detected is the move notation read from the client's moves (with
	// MoveNotation auto), kept for the engine's own moves until
	// ucinewgame, UCI_Variant or MoveNotation.
	detected    rules.RankBase
	hasDetected bool

	// The search machinery, built at the first go or isready after a
	// change: the evaluator (reloaded when reload says: the network, its
	// threads or the variant changed), the evaluation cache in front of it
	// (Hash), and the search (stale: its parameters changed, or the cache
	// and tree were cleared).
	backend nn.Evaluator
	cache   *nn.Cache
	search  *mcts.Search
	stale   bool
	reload  bool

	job *job // the search or perft running, or the last one

	// Tests: serial waits for a finite search to finish before the next
	// command, so a session's output does not depend on timing; trace sees
	// each line before it is handled.
	serial bool
	trace  func(line string)
}

// New makes an engine with opts; nothing is loaded yet.
func New(opts Options) *Engine {
	if opts.Nodes <= 0 {
		opts.Nodes = defaultNodes
	}
	opts.Nodes = min(opts.Nodes, maxNodes)
	if opts.Threads <= 0 {
		opts.Threads = 1
	}
	opts.Threads = min(opts.Threads, maxThreads)
	if opts.Version == "" {
		opts.Version = "dev"
	}
	return &Engine{
		opts:     opts,
		proto:    uciProtocol{},
		variant:  "xiangqi",
		notation: "auto",
		network:  opts.Network,
		threads:  opts.Threads,
		overhead: defaultOverhead,
		multiPV:  1,
		hashMB:   defaultHashMB,
		treeMB:   treeMB(opts.TreeMB),
		skill:    maxSkill,
		elo:      defaultElo(),
		params:   playParams(opts.Nodes, opts.Threads),
		rulesets: map[string]*rules.RuleSet{},
		stale:    true,
		reload:   true,
	}
}

// Run reads commands from in and writes answers to out until quit, the end
// of in, or ctx's end. At the end of in a search with limits may go on for
// eofGrace, so a piped script gets its answers; then it is stopped (a
// search answers with what it has, a perft says it stopped), since the end
// of in usually means the GUI died and nobody waits for the answer. It
// returns nil after quit or the end of in, ctx's error when ctx ends, and
// the error of reading in or writing out. One Run at a time; after quit or
// ctx's end a read of in already under way is left to finish (at in's next
// line or its close), its line unused.
func (e *Engine) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	var log *os.File
	if e.out != nil {
		log = e.out.log // Debug Log File lasts from one Run to the next
	}
	e.out = &output{w: out, log: log}
	lines := make(chan inputLine)
	readErr := make(chan error, 1)
	done := make(chan struct{})
	defer close(done)
	go readLines(in, lines, readErr, done)
	for {
		select {
		case <-ctx.Done():
			e.stopSearch()
			e.wait()
			return ctx.Err()
		case l, ok := <-lines:
			if !ok {
				if j := e.job; j != nil && !j.waitStop {
					grace := time.NewTimer(eofGrace)
					select {
					case <-j.done:
					case <-grace.C:
					case <-ctx.Done():
					}
					grace.Stop()
				}
				e.stopSearch()
				e.wait()
				if err := <-readErr; err != nil {
					return fmt.Errorf("engine: reading commands: %w", err)
				}
				return e.out.Err()
			}
			if j := e.job; e.serial && j != nil {
				switch {
				case !j.waitStop:
					e.wait()
				case j.idle != nil && !j.paused:
					select { // a capped pondering: until it has spent its budget
					case <-j.idle:
					case <-j.done:
					}
				}
			}
			if e.trace != nil {
				e.trace(l.text)
			}
			if !l.tooLong {
				e.out.logLine("> ", l.text)
			}
			if l.tooLong {
				e.note(fmt.Errorf("uci: a line longer than %d bytes, ignored", maxLine))
				continue
			}
			if e.handle(l.text) {
				return e.out.Err()
			}
			if err := e.out.Err(); err != nil {
				e.stopSearch()
				e.wait()
				return err
			}
		}
	}
}

type inputLine struct {
	text    string
	tooLong bool
}

// readLines sends in's lines (without "\r\n") until its end, then closes
// lines; a line longer than maxLine is sent as tooLong, without its text.
func readLines(in io.Reader, lines chan<- inputLine, readErr chan<- error, done <-chan struct{}) {
	defer close(lines)
	r := bufio.NewReaderSize(in, 64*1024)
	var buf []byte
	long := false
	for {
		frag, err := r.ReadSlice('\n')
		if !long {
			if len(buf)+len(frag) > maxLine {
				long, buf = true, buf[:0]
			} else {
				buf = append(buf, frag...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(frag) > 0 || long || len(buf) > 0 {
			l := inputLine{text: string(bytes.TrimRight(buf, "\r\n")), tooLong: long}
			select {
			case lines <- l:
			case <-done:
				readErr <- nil
				return
			}
		}
		buf, long = buf[:0], false
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			readErr <- err
			return
		}
	}
}

// handle carries out one command line; it reports whether to quit. A line
// that names a protocol switches to it; every other line is the protocol's.
func (e *Engine) handle(line string) bool {
	line = strings.TrimSpace(line)
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return false
	}
	c := command{word: fields[0], name: strings.ToLower(fields[0]), args: fields[1:], rest: strings.TrimSpace(line[len(fields[0]):])}
	if p := protocolNamed(c.name); p != nil {
		e.proto = p
		p.hello(e)
		return false
	}
	return e.proto.command(e, c)
}

// base is the move notation in force: MoveNotation's, or when it is auto
// the one read from the client's moves, else the protocol's.
func (e *Engine) base() rules.RankBase {
	switch e.notation {
	case "ranks1":
		return rules.Ranks1
	case "ranks0":
		return rules.Ranks0
	}
	if e.hasDetected {
		return e.detected
	}
	return e.proto.moveBase(e)
}

// ruleSet is the variant's rule set, one pointer per name.
func (e *Engine) ruleSet() (*rules.RuleSet, error) {
	if rs, ok := e.rulesets[e.variant]; ok {
		return rs, nil
	}
	rs, err := rules.Preset(e.variant)
	if err != nil {
		return nil, fmt.Errorf("uci: %w", err)
	}
	e.rulesets[e.variant] = rs
	return rs, nil
}

// current is the position, the variant's start when none was set.
func (e *Engine) current() (*rules.Game, error) {
	if e.game != nil {
		return e.game, nil
	}
	rs, err := e.ruleSet()
	if err != nil {
		return nil, err
	}
	g, err := rules.NewGame(rs, rs.StartFEN())
	if err != nil {
		return nil, fmt.Errorf("uci: %w", err)
	}
	e.game = g
	return g, nil
}

// machinery builds the search over the evaluator the options ask for; a
// network that fails to load, or was made for another game than the
// variant's, is reported and the uniform evaluator stands in.
func (e *Engine) machinery() *mcts.Search {
	if !e.stale && e.search != nil {
		return e.search
	}
	if e.reload || e.backend == nil {
		rs, err := e.ruleSet()
		if err == nil {
			e.backend, err = newEvaluator(e.network, rs, e.threads)
		}
		if err != nil {
			e.note(fmt.Errorf("%w; searching with the uniform evaluator", err))
			e.backend = uniform()
		}
		e.reload, e.cache = false, nil // the old evaluator's answers are not the new one's
	}
	entries := e.hashMB << 20 / cacheEntryBytes
	switch {
	case entries == 0:
		e.cache = nil
	case e.cache == nil || e.cache.Stats().Entries != entries:
		// Checked again here, with the network's copies loaded (Threads).
		if err := nn.CheckCacheMemory(entries); err != nil {
			e.note(fmt.Errorf("%w; searching without the cache", err))
			e.cache = nil
			break
		}
		e.cache = nn.NewCache(nil, entries)
	}
	ev := e.backend
	if e.cache != nil {
		ev = e.cache.WithBackend(e.backend)
	}
	p := e.params
	if l := e.strength(); l.nodes > 0 {
		p.GumbelScale = l.temperature
	}
	if e.analyse {
		// Analysis wants the position's worth, not the engine's taste
		// for draws (lc0's contempt is for play only).
		p.DrawScore = 0
	}
	s, err := mcts.New(p, ev)
	if err != nil { // the parameters are ours: cannot happen
		e.note(fmt.Errorf("uci: %w", err))
		return e.search
	}
	e.search, e.stale = s, false
	return s
}

// ready loads what the options ask for, unless a search is using the
// machinery: isready's work.
func (e *Engine) ready() {
	if e.idle() && e.stale {
		e.machinery()
	}
}

// newGame ends the search, forgets its tree and goes back to the start
// position.
func (e *Engine) newGame() {
	e.stopSearch()
	e.wait()
	if e.search != nil {
		e.search.Reset()
	}
	e.game, e.refused, e.banned, e.hasDetected = nil, nil, nil, false
}

func (e *Engine) idle() bool {
	if e.job == nil {
		return true
	}
	select {
	case <-e.job.done:
		return true
	default:
		return false
	}
}

// stopSearch asks the running search to end; its bestmove follows.
func (e *Engine) stopSearch() {
	if j := e.job; j != nil && !j.stopped {
		j.stopped, j.waitStop = true, false
		j.halt.Store(true)
		close(j.stop)
		if j.ponder && !j.paused {
			j.paused = true
			close(j.pause)
		}
	}
}

// ponderHit turns a pondering search into a normal one, its time limits
// counted from now; without one it does nothing.
func (e *Engine) ponderHit() {
	if j := e.job; j != nil && j.ponder && !j.paused {
		j.paused = true
		j.hitAt = time.Now()
		close(j.pause)
		j.waitStop = j.infinite
	}
}

// clearHash empties the evaluation cache and drops the search tree: the
// next search starts on a fresh cache and tree.
func (e *Engine) clearHash() {
	e.cache, e.stale = nil, true
}

// wait blocks until the running search has written its answer.
func (e *Engine) wait() {
	if e.job != nil {
		<-e.job.done
	}
}

// output writes whole lines, from the command loop and the search alike.
type output struct {
	mu  sync.Mutex
	w   io.Writer
	err error
	// log, when set (Debug Log File), gets every line exchanged: "> " the
	// client's, "< " the engine's, each written at once, so a killed
	// engine's log holds every line up to the kill. Its write errors are
	// not the client's problem and are dropped.
	log *os.File
}

// logLine writes one line to the debug log, if any.
func (o *output) logLine(prefix, s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.log != nil {
		o.log.WriteString(prefix + s + "\n")
	}
}

// setLog makes path the debug log ("": none), appending to what it holds.
func (o *output) setLog(path string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.log != nil {
		o.log.Close()
		o.log = nil
	}
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	o.log = f
	return nil
}

// silent is the line a reporter returns to write nothing (CECP's thinking
// output after nopost, its answer to a search it abandoned).
const silent = "\x00"

func (o *output) line(s string) {
	if s == silent {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		_, o.err = io.WriteString(o.w, s+"\n")
	}
	if o.log != nil {
		for _, l := range strings.Split(s, "\n") { // CECP's move and result come as one
			o.log.WriteString("< " + l + "\n")
		}
	}
}

// note reports err to the client in the protocol's form.
func (e *Engine) note(err error) { e.out.line(e.proto.note(oneLine(err))) }

// oneLine is err's text as one line of valid UTF-8.
func oneLine(err error) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(err.Error(), "\uFFFD"))
}

func (o *output) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return fmt.Errorf("engine: writing answers: %w", o.err)
	}
	return nil
}

// treeMB is Tree Memory's starting value for Options.TreeMB.
func treeMB(mb int) int {
	if mb <= 0 {
		return defaultTreeMB
	}
	return min(mb, maxTreeMB)
}
