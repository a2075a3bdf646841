package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// The client side: palace driving another engine program (Fairy-Stockfish,
// Pikafish, a UCCI engine, or palace uci itself) over its standard input
// and output.

// Errors a Client returns; each comes wrapped with what happened.
var (
	// ErrNoMove: the engine answered "bestmove (none)", "bestmove 0000" or
	// "nobestmove".
	ErrNoMove = errors.New("uci: the engine has no move")
	// ErrTimeout: the engine did not answer in time; it has been killed.
	ErrTimeout = errors.New("uci: the engine did not answer in time")
	// ErrExited: the engine's process ended (or closed its output).
	ErrExited = errors.New("uci: the engine exited")
	// ErrIllegal: the engine's bestmove is not legal in the position.
	ErrIllegal = errors.New("uci: the engine's move is illegal")
	// ErrClosed: the client was closed.
	ErrClosed = errors.New("uci: the client is closed")
)

// Client protocols.
const (
	ProtocolUCI  = "uci"
	ProtocolUCCI = "ucci"
)

// Client move notations (ClientConfig.Notation).
const (
	NotationRanks1 = "ranks1" // ranks 1–10: Fairy-Stockfish's UCI_Variant mode
	NotationRanks0 = "ranks0" // ranks 0–9: plain UCI xiangqi (Pikafish), UCCI
)

const (
	defaultStartTimeout = 30 * time.Second
	defaultNodesTimeout = 60 * time.Second // a search limited by nodes or depth
	timeoutMargin       = 5 * time.Second  // beyond a time limit
	stopWait            = time.Second      // for the bestmove after stop
	quitWait            = time.Second      // for the process to end after quit
	clientMaxLine       = 1 << 20
	stderrKeep          = 2048 // bytes of the engine's stderr kept for errors
)

// ClientConfig says which engine program to run and how to talk to it.
type ClientConfig struct {
	// Path is the program; a name without a slash is looked up in PATH.
	Path string
	Args []string
	// Dir is the working directory ("": the caller's).
	Dir string
	// Env is added to the caller's environment.
	Env []string
	// Protocol is ProtocolUCI ("" too) or ProtocolUCCI.
	Protocol string
	// Notation is the move notation: NotationRanks1, NotationRanks0, or ""
	// to choose by dialect: ranks 1–10 once UCI_Variant is set (UCI only),
	// else ranks 0–9.
	Notation string
	// Rules is what will be played (nil: xiangqi). An engine that
	// advertises UCI_Variant gets the rule set's name when it lists it,
	// else the game's ("xiangqi", "janggi"); one that does not can only
	// play xiangqi.
	Rules *rules.RuleSet
	// Options are set in order after the handshake; each must be one the
	// engine advertises. A UCI_Variant here replaces the automatic one.
	Options []OptionValue
	// StartTimeout bounds the handshake and each isready (0: 30 s).
	StartTimeout time.Duration
	// Log, when set, sees every line: "> " sent, "< " received (from
	// another goroutine than the sent ones), "! " the client's notes.
	Log func(line string)
	// Stderr, when set, receives the engine's standard error; its last
	// lines are kept for error messages either way.
	Stderr io.Writer
}

// OptionValue is a setting for setoption.
type OptionValue struct{ Name, Value string }

// Option is an option the other program advertised (its "option" lines).
type Option struct {
	Name, Type, Default string
	Vars                []string // a combo's values
}

// Limits bound one search. Nodes, Depth and MoveTime may be combined;
// the clock (WTime/BTime with increments) is the engine's to manage.
// Without any limit the engine searches its own default, which for some
// engines is forever: Timeout then ends it.
type Limits struct {
	Nodes    int
	Depth    int
	MoveTime time.Duration
	// The clock: remaining times and increments, White's and Black's.
	WTime, BTime, WInc, BInc time.Duration
	MovesToGo                int
	// Timeout is how long to wait for the bestmove before the engine is
	// taken for hung and killed. 0: twice MoveTime plus 5 s with a move
	// time, the side to move's remaining time and increment plus 5 s with a
	// clock, else 60 s.
	Timeout time.Duration
}

// Bestmove is an engine's answer to go.
type Bestmove struct {
	Move    rules.Move
	Text    string        // as the engine wrote it
	Elapsed time.Duration // from go to bestmove
	// Score is the last exact score the engine gave its principal line
	// (info ... score, multipv 1) before the bestmove; the zero Score when
	// it gave none.
	Score gamerec.Score
}

// infoScore reads the score of an info line's fields: ok is false for a
// line without one, a bound (lowerbound, upperbound) or another line of
// a multi-PV search than the first.
func infoScore(f []string) (gamerec.Score, bool) {
	var sc gamerec.Score
	for i := 1; i < len(f); i++ {
		switch f[i] {
		case "multipv":
			if i+1 < len(f) && f[i+1] != "1" {
				return gamerec.Score{}, false
			}
		case "lowerbound", "upperbound":
			return gamerec.Score{}, false
		case "pv", "string":
			// What follows is moves or text.
			return sc, sc.Given()
		case "score":
			if i+1 >= len(f) {
				return gamerec.Score{}, false
			}
			kind, value := gamerec.Centipawns, f[i+1] // UCCI: score N
			if (f[i+1] == "cp" || f[i+1] == "mate") && i+2 < len(f) {
				if f[i+1] == "mate" {
					kind = gamerec.MateIn
				}
				value = f[i+2]
				i++
			}
			v, err := strconv.Atoi(value)
			if err != nil || (kind == gamerec.MateIn && v == 0) {
				return gamerec.Score{}, false
			}
			sc = gamerec.Score{Kind: kind, Value: v}
			i++
		}
	}
	return sc, sc.Given()
}

// Client runs one engine process and plays moves through it. A client is
// for one goroutine at a time. After a timeout, the process's end or an
// I/O error it is broken (Err says why) and every call fails; start
// another.
type Client struct {
	cfg   ClientConfig
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// stdout is the read end of the engine's output pipe (see start).
	stdout *os.File
	lines  chan string   // the engine's output; closed at its end
	done   chan struct{} // closed once the process has been waited for
	werr   error         // the process's exit, after done
	tail   *tailBuffer

	dialect dialect
	id      string
	options []Option
	variant string // the UCI_Variant set, or ""
	base    rules.RankBase

	broken error
	closed bool
	buf    []byte
}

// StartClient starts the engine, does the handshake, sets the variant and
// the options and waits until the engine is ready.
func StartClient(ctx context.Context, cfg ClientConfig) (*Client, error) {
	switch cfg.Protocol {
	case "", ProtocolUCI, ProtocolUCCI:
	default:
		return nil, fmt.Errorf("uci: protocol %q: want uci or ucci", cfg.Protocol)
	}
	switch cfg.Notation {
	case "", NotationRanks1, NotationRanks0:
	default:
		return nil, fmt.Errorf("uci: notation %q: want ranks1 or ranks0", cfg.Notation)
	}
	if cfg.Path == "" {
		return nil, errors.New("uci: no engine program")
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = defaultStartTimeout
	}
	if cfg.Rules == nil {
		cfg.Rules = rules.MustPreset("xiangqi")
	}
	cmd := exec.Command(cfg.Path, cfg.Args...)
	cmd.Dir = cfg.Dir
	if len(cfg.Env) > 0 {
		cmd.Env = append(cmd.Environ(), cfg.Env...)
	}
	c := &Client{cfg: cfg, cmd: cmd, lines: make(chan string, 256), done: make(chan struct{}),
		tail: &tailBuffer{}, dialect: dialectFor(cfg.Protocol)}
	cmd.Stderr = c.tail
	if cfg.Stderr != nil {
		cmd.Stderr = io.MultiWriter(c.tail, cfg.Stderr)
	}
	// A child of the engine holding its stderr must not hold up Wait.
	cmd.WaitDelay = time.Second
	ownGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("uci: %w", err)
	}
	// Our own pipe, not cmd.StdoutPipe: Wait closes that one as soon as
	// the engine exits, and the reader could lose the engine's last lines
	// (its "bye") still in the pipe. This one ends when every writer has
	// closed it, or when Close gives up waiting.
	stdout, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("uci: %w", err)
	}
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		stdout.Close()
		return nil, fmt.Errorf("uci: starting the engine: %w", err)
	}
	c.stdin, c.stdout = stdin, stdout
	go c.read(stdout)
	go func() {
		c.werr = cmd.Wait()
		close(c.done)
	}()
	if err := c.handshake(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// read passes the engine's lines on until its output ends.
func (c *Client) read(r *os.File) {
	defer close(c.lines)
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), clientMaxLine)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if c.cfg.Log != nil {
			c.cfg.Log("< " + line)
		}
		c.lines <- line
	}
}

func (c *Client) handshake(ctx context.Context) error {
	hello, ok := c.dialect.hello()
	if err := c.send(hello); err != nil {
		return err
	}
	deadline := time.Now().Add(c.cfg.StartTimeout)
	for {
		line, err := c.next(ctx, deadline, c.cfg.StartTimeout, hello)
		if err != nil {
			return err
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case f[0] == ok:
			return c.configure(ctx)
		case f[0] == "id" && len(f) > 2 && f[1] == "name":
			c.id = strings.Join(f[2:], " ")
		case f[0] == "option":
			if o, ok := parseOptionLine(line); ok {
				c.options = append(c.options, o)
			}
		}
	}
}

// parseOptionLine reads "option name N type T [default D] [min M] [max M]
// [var V]..." (UCCI: "option N type T ...").
func parseOptionLine(line string) (Option, bool) {
	rest := " " + strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "option")) + " "
	rest = strings.TrimPrefix(rest, " name") // UCI; UCCI has no "name"
	// Cut rest at the keywords, in order of appearance.
	var o Option
	key, pos := "name", 0
	for {
		next, at := "", -1
		for _, k := range []string{" type ", " default ", " min ", " max ", " var "} {
			if i := strings.Index(rest[pos:], k); i >= 0 && (at < 0 || pos+i < at) {
				next, at = k, pos+i
			}
		}
		end := len(rest)
		if at >= 0 {
			end = at
		}
		val := strings.TrimSpace(rest[pos:end])
		switch key {
		case "name":
			o.Name = val
		case "type":
			o.Type = val
		case "default":
			if val == "<empty>" {
				val = ""
			}
			o.Default = val
		case "var":
			o.Vars = append(o.Vars, val)
		}
		if at < 0 {
			break
		}
		key, pos = strings.TrimSpace(next), at+len(next)-1
	}
	return o, o.Name != ""
}

// configure sets the variant and the options, then waits for readyok.
func (c *Client) configure(ctx context.Context) error {
	rs := c.cfg.Rules
	userVariant := ""
	for _, o := range c.cfg.Options {
		if strings.EqualFold(o.Name, "UCI_Variant") {
			userVariant = o.Value
		}
	}
	if vo := c.Option("UCI_Variant"); vo != nil && userVariant == "" {
		want := ""
		for _, name := range []string{rs.Name, rs.Game.String()} {
			if len(vo.Vars) == 0 {
				want = name
				break
			}
			for _, v := range vo.Vars {
				if strings.EqualFold(v, name) {
					want = v
					break
				}
			}
			if want != "" {
				break
			}
		}
		if want == "" {
			return fmt.Errorf("uci: %s: its UCI_Variant lists neither %s nor %s", c.who(), rs.Name, rs.Game)
		}
		// Set even when it is the engine's default: palace writes ranks
		// 1–10 only once UCI_Variant has been set.
		if err := c.setOption("UCI_Variant", want); err != nil {
			return err
		}
		c.variant = want
	} else if userVariant == "" && rs.Game != rules.Xiangqi {
		return fmt.Errorf("uci: %s does not advertise UCI_Variant: it can play xiangqi only, not %s", c.who(), rs.Name)
	}
	for _, o := range c.cfg.Options {
		if c.Option(o.Name) == nil {
			names := make([]string, len(c.options))
			for i, eo := range c.options {
				names[i] = eo.Name
			}
			return fmt.Errorf("uci: %s has no option %q (it has %s)", c.who(), o.Name, strings.Join(names, ", "))
		}
		if err := c.setOption(c.Option(o.Name).Name, o.Value); err != nil {
			return err
		}
		if strings.EqualFold(o.Name, "UCI_Variant") {
			c.variant = o.Value
		}
	}
	if err := c.dialect.configure(c); err != nil {
		return err
	}
	switch c.cfg.Notation {
	case NotationRanks1:
		c.base = rules.Ranks1
	case NotationRanks0:
		c.base = rules.Ranks0
	default:
		c.base = c.dialect.base(c.variant)
	}
	if c.cfg.Log != nil {
		c.cfg.Log(fmt.Sprintf("! engine %q, variant %q, notation %s", c.id, c.variant, c.Notation()))
	}
	return c.sync(ctx)
}

func (c *Client) setOption(name, value string) error {
	return c.send(c.dialect.setOption(name, value))
}

// sync sends isready and waits for readyok.
func (c *Client) sync(ctx context.Context) error {
	if err := c.send("isready"); err != nil {
		return err
	}
	deadline := time.Now().Add(c.cfg.StartTimeout)
	for {
		line, err := c.next(ctx, deadline, c.cfg.StartTimeout, "isready")
		if err != nil {
			return err
		}
		if strings.TrimSpace(line) == "readyok" {
			return nil
		}
	}
}

// ID is the engine's "id name".
func (c *Client) ID() string { return c.id }

// Options are the options the engine advertised.
func (c *Client) Options() []Option { return c.options }

// Option is the advertised option named name (any case), or nil.
func (c *Client) Option(name string) *Option {
	for i := range c.options {
		if strings.EqualFold(c.options[i].Name, name) {
			return &c.options[i]
		}
	}
	return nil
}

// Variant is the UCI_Variant set ("" when none was).
func (c *Client) Variant() string { return c.variant }

// Notation is the move notation in use: NotationRanks1 or NotationRanks0.
func (c *Client) Notation() string {
	if c.base == rules.Ranks1 {
		return NotationRanks1
	}
	return NotationRanks0
}

// Err is nil while the client can be used, else why not.
func (c *Client) Err() error {
	if c.closed {
		return ErrClosed
	}
	return c.broken
}

// NewGame tells the engine a new game starts (ucinewgame; UCCI has no such
// command) and waits until it is ready.
func (c *Client) NewGame(ctx context.Context) error {
	if err := c.Err(); err != nil {
		return err
	}
	if line := c.dialect.newGame(); line != "" {
		if err := c.send(line); err != nil {
			return err
		}
	}
	return c.sync(ctx)
}

// Go sends g's game (its root FEN and moves) and a search with lim, and
// returns the engine's move, checked legal in g. g is not changed. A
// timeout kills the engine; a cancelled ctx stops the search (and kills an
// engine that does not answer stop) and returns ctx's error.
func (c *Client) Go(ctx context.Context, g *rules.Game, lim Limits) (Bestmove, error) {
	if err := c.Err(); err != nil {
		return Bestmove{}, err
	}
	b := append(c.buf[:0], "position fen "...)
	b = append(b, g.RootFEN()...)
	for i, m := range g.Moves(nil) {
		if i == 0 {
			b = append(b, " moves"...)
		}
		b = append(b, ' ')
		b = m.AppendText(b, c.base)
	}
	c.buf = b
	if err := c.send(string(b)); err != nil {
		return Bestmove{}, err
	}
	side := g.Position().SideToMove()
	if err := c.send(c.dialect.goCommand(lim, side)); err != nil {
		return Bestmove{}, err
	}
	start := time.Now()
	limit := lim.timeout(side)
	deadline := start.Add(limit)
	var score gamerec.Score
	for {
		line, err := c.next(ctx, deadline, limit, "go")
		if err != nil {
			if ctx.Err() != nil && c.broken == nil {
				c.stop()
			}
			return Bestmove{}, err
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] == "nobestmove" {
			return Bestmove{Elapsed: time.Since(start)}, fmt.Errorf("%w: %s: nobestmove in %s", ErrNoMove, c.who(), g.Position().FEN())
		}
		if f[0] == "info" {
			if sc, ok := infoScore(f); ok {
				score = sc
			}
			continue
		}
		if f[0] != "bestmove" {
			continue
		}
		bm := Bestmove{Elapsed: time.Since(start), Score: score}
		if len(f) < 2 {
			return bm, fmt.Errorf("uci: %s: a bestmove without a move", c.who())
		}
		bm.Text = f[1]
		if bm.Text == "(none)" || bm.Text == "0000" || bm.Text == "none" {
			return bm, fmt.Errorf("%w: %s: bestmove %s in %s", ErrNoMove, c.who(), bm.Text, g.Position().FEN())
		}
		m, err := rules.ParseMoveText(bm.Text, c.base)
		if err == nil && g.IsLegal(m) {
			bm.Move = m
			return bm, nil
		}
		if err != nil {
			err = fmt.Errorf("uci: %s: bestmove %q (%s): %w", c.who(), bm.Text, c.Notation(), err)
		} else {
			bm.Move = m
			err = fmt.Errorf("%w: %s: bestmove %s (%s) in %s", ErrIllegal, c.who(), bm.Text, c.Notation(), g.Position().FEN())
		}
		other, name := rules.Ranks0, NotationRanks0
		if c.base == rules.Ranks0 {
			other, name = rules.Ranks1, NotationRanks1
		}
		if om, perr := rules.ParseMoveText(bm.Text, other); perr == nil && g.IsLegal(om) {
			err = fmt.Errorf("%w; read as %s it is legal: the engine writes the other notation", err, name)
		}
		return bm, err
	}
}

// stop ends a search whose caller gave up: stop, then its bestmove, so
// that the engine can be used again; an engine that does not answer is
// killed.
func (c *Client) stop() {
	if c.send("stop") != nil {
		return
	}
	deadline := time.Now().Add(stopWait)
	for {
		line, err := c.next(context.Background(), deadline, stopWait, "stop")
		if err != nil {
			return
		}
		if f := strings.Fields(line); len(f) > 0 && (f[0] == "bestmove" || f[0] == "nobestmove") {
			return
		}
	}
}

func ms(d time.Duration) int64 { return max(d.Milliseconds(), 0) }

func (l Limits) timeout(side rules.Color) time.Duration {
	switch {
	case l.Timeout > 0:
		return l.Timeout
	case l.WTime > 0 || l.BTime > 0:
		own, inc := l.WTime, l.WInc
		if side == rules.Black {
			own, inc = l.BTime, l.BInc
		}
		return own + inc + timeoutMargin
	case l.MoveTime > 0:
		return 2*l.MoveTime + timeoutMargin
	}
	return defaultNodesTimeout
}

// next is the engine's next line, waiting until deadline; limit and
// waiting (the command answered) are for the message of a timeout.
func (c *Client) next(ctx context.Context, deadline time.Time, limit time.Duration, waiting string) (string, error) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case line, ok := <-c.lines:
		if !ok {
			return "", c.exited()
		}
		return line, nil
	case <-timer.C:
		c.fail(fmt.Errorf("%w: %s: no answer to %s within %v", ErrTimeout, c.who(), waiting, limit))
		c.kill()
		return "", c.broken
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// exited marks the client broken by the end of the engine's output.
func (c *Client) exited() error {
	select {
	case <-c.done:
	case <-time.After(quitWait):
		c.kill()
		<-c.done
	}
	status := "closed its output"
	if c.werr != nil {
		status = c.werr.Error()
	} else if c.cmd.ProcessState != nil {
		status = c.cmd.ProcessState.String()
	}
	msg := fmt.Errorf("%w: %s: %s", ErrExited, c.who(), status)
	if t := c.tail.String(); t != "" {
		msg = fmt.Errorf("%w; its stderr ends %q", msg, t)
	}
	c.fail(msg)
	return c.broken
}

func (c *Client) send(line string) error {
	if err := c.Err(); err != nil {
		return err
	}
	if c.cfg.Log != nil {
		c.cfg.Log("> " + line)
	}
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		// A dead engine: say how it ended when it has.
		select {
		case <-c.done:
			return c.exited()
		case <-time.After(100 * time.Millisecond):
		}
		c.fail(fmt.Errorf("uci: %s: writing %q: %w", c.who(), line, err))
		c.kill()
		return c.broken
	}
	return nil
}

func (c *Client) fail(err error) {
	if c.broken == nil {
		c.broken = err
		if c.cfg.Log != nil {
			c.cfg.Log("! " + err.Error())
		}
	}
}

func (c *Client) kill() { killGroup(c.cmd) }

// who names the engine in messages.
func (c *Client) who() string {
	if c.id != "" {
		return c.id
	}
	return filepath.Base(c.cfg.Path)
}

// Close ends the engine: quit, a moment to exit, then kill. It waits for
// the process to end.
func (c *Client) Close() error {
	if c.closed {
		return nil
	}
	if c.broken == nil {
		c.send("quit")
	}
	c.closed = true
	c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(quitWait):
		c.kill()
		<-c.done
	}
	// Drain what is left so the reader ends; a child of the engine still
	// holding its output gets quitWait, then the group is killed and the
	// pipe closed under it.
	giveUp := time.After(quitWait)
	for {
		select {
		case _, ok := <-c.lines:
			if !ok {
				return nil
			}
		case <-giveUp:
			c.kill()
			c.stdout.Close()
			for range c.lines {
			}
			return nil
		}
	}
}

// tailBuffer keeps the last bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > stderrKeep {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-stderrKeep:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
