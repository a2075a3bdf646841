package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/uci"
)

// An external engine as an arena player: one engine process per game being
// played (the arena plays many at once), kept between games in a pool and
// started again when it died.

const arenaUCIHelp = `  uci:PATH[,nodes=N][,depth=N][,movetime=MS][,tc=SEC[+INC]][,option.NAME=VALUE]...[,protocol=uci|ucci]
      [,notation=ranks1|ranks0][,timeout=DUR][,args=A B C][,arg=A]...[,dir=DIR][,log=FILE]
                                         an external engine (Fairy-Stockfish, Pikafish, UCCI, palace uci), one
                                         process per game in play; limits (at least one): nodes, depth,
                                         movetime (ms), or tc, its own clock (out of time loses); options go
                                         out by setoption; UCI_Variant is set when the engine has it, and
                                         then notation defaults to ranks 1–10, else 0–9; a move taking
                                         longer than timeout (default 60s; with movetime, twice it plus 5s;
                                         with tc, the time left plus 5s) loses the game and the engine is
                                         restarted; args, or one arg= each, are the program's arguments
                                         (palace: arg=uci); log appends every line exchanged to FILE`

// uciSpec is a parsed uci:PATH[,...] player.
type uciSpec struct {
	path     string
	args     []string
	dir      string
	protocol string
	notation string
	options  []uci.OptionValue
	limits   uci.Limits // without the clock
	tcBase   time.Duration
	tcInc    time.Duration
	timeout  time.Duration
	log      string
}

// parseUCISpec reads the options of uci:PATH (fields[0] is "uci:PATH").
func parseUCISpec(spec string, fields []string) (*uciSpec, error) {
	u := &uciSpec{path: strings.TrimPrefix(fields[0], "uci:")}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("--player %q: %s", spec, fmt.Sprintf(format, args...))
	}
	if u.path == "" {
		return nil, bad("uci: needs the engine program (uci:PATH)")
	}
	seen := map[string]bool{}
	for _, opt := range fields[1:] {
		key, val, ok := strings.Cut(opt, "=")
		if !ok || key == "" {
			return nil, bad("option %q: want KEY=VALUE", opt)
		}
		if name, isOption := strings.CutPrefix(key, "option."); isOption {
			if name == "" {
				return nil, bad("%q: want option.NAME=VALUE", opt)
			}
			for _, o := range u.options {
				if strings.EqualFold(o.Name, name) {
					return nil, bad("option %s given twice", name)
				}
			}
			u.options = append(u.options, uci.OptionValue{Name: name, Value: val})
			continue
		}
		if key != "arg" {
			if seen[key] {
				return nil, bad("%s given twice", key)
			}
			seen[key] = true
		}
		positive := func() (int, error) {
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				return 0, bad("%s=%s: want an integer of at least 1", key, val)
			}
			return n, nil
		}
		var err error
		switch key {
		case "nodes":
			u.limits.Nodes, err = positive()
		case "depth":
			u.limits.Depth, err = positive()
		case "movetime":
			var n int
			n, err = positive()
			u.limits.MoveTime = time.Duration(n) * time.Millisecond
		case "tc":
			u.tcBase, u.tcInc, err = parseTC(val)
			if err != nil {
				err = bad("tc=%s: %v", val, err)
			}
		case "timeout":
			u.timeout, err = time.ParseDuration(val)
			if err != nil || u.timeout <= 0 {
				err = bad("timeout=%s: want a positive duration (30s, 2m)", val)
			}
		case "protocol":
			if val != uci.ProtocolUCI && val != uci.ProtocolUCCI {
				err = bad("protocol=%s: want uci or ucci", val)
			}
			u.protocol = val
		case "notation":
			if val != uci.NotationRanks1 && val != uci.NotationRanks0 {
				err = bad("notation=%s: want ranks1 or ranks0", val)
			}
			u.notation = val
		case "args":
			u.args = append(u.args, strings.Fields(val)...)
		case "arg":
			u.args = append(u.args, val)
		case "dir":
			u.dir = val
		case "log":
			u.log = val
		default:
			return nil, bad("uci has no option %q", key)
		}
		if err != nil {
			return nil, err
		}
	}
	l := u.limits
	switch {
	case l.Nodes == 0 && l.Depth == 0 && l.MoveTime == 0 && u.tcBase == 0:
		return nil, bad("give the engine a limit: nodes=N, depth=N, movetime=MS or tc=SEC[+INC]")
	case l.MoveTime > 0 && u.tcBase > 0:
		return nil, bad("movetime and tc do not go together")
	}
	return u, nil
}

// parseTC reads SEC[+INC], seconds.
func parseTC(s string) (base, inc time.Duration, err error) {
	b, i, hasInc := strings.Cut(s, "+")
	bs, err := strconv.ParseFloat(b, 64)
	if err != nil || bs <= 0 || bs > 1e6 {
		return 0, 0, fmt.Errorf("want SEC[+INC], seconds (10+0.1)")
	}
	var is float64
	if hasInc {
		is, err = strconv.ParseFloat(i, 64)
		if err != nil || is < 0 || is > 1e6 {
			return 0, 0, fmt.Errorf("want SEC[+INC], seconds (10+0.1)")
		}
	}
	return time.Duration(bs * float64(time.Second)), time.Duration(is * float64(time.Second)), nil
}

// name is the player's name for records: the program and its arguments,
// the limits and the options, each of which can change its strength.
func (u *uciSpec) name() string {
	var b strings.Builder
	b.WriteString("uci:" + filepath.Base(u.path))
	for _, a := range u.args {
		b.WriteString(" " + a)
	}
	l := u.limits
	if l.Nodes > 0 {
		fmt.Fprintf(&b, "/nodes=%d", l.Nodes)
	}
	if l.Depth > 0 {
		fmt.Fprintf(&b, "/depth=%d", l.Depth)
	}
	if l.MoveTime > 0 {
		fmt.Fprintf(&b, "/movetime=%d", l.MoveTime.Milliseconds())
	}
	if u.tcBase > 0 {
		fmt.Fprintf(&b, "/tc=%g+%g", u.tcBase.Seconds(), u.tcInc.Seconds())
	}
	for _, o := range u.options {
		fmt.Fprintf(&b, "/%s=%s", o.Name, o.Value)
	}
	return b.String()
}

// uciPlayer is an arena.Player over engine processes.
type uciPlayer struct {
	spec   *uciSpec
	name   string
	cfg    uci.ClientConfig
	logf   *os.File
	logMu  sync.Mutex
	mu     sync.Mutex
	idle   []*uci.Client
	n      int    // processes started
	engine string // the first process's id, variant and notation
}

// newUCIPlayer starts one engine to check that it works with the rule
// set; it becomes the first game's.
func newUCIPlayer(u *uciSpec, rs *rules.RuleSet) (*uciPlayer, error) {
	p := &uciPlayer{spec: u, name: u.name(), cfg: uci.ClientConfig{
		Path: u.path, Args: u.args, Dir: u.dir, Protocol: u.protocol, Notation: u.notation,
		Rules: rs, Options: u.options,
	}}
	if u.log != "" {
		f, err := os.OpenFile(u.log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		p.logf = f
	}
	c, err := p.start()
	if err != nil {
		p.Close()
		return nil, err
	}
	p.engine = fmt.Sprintf("%q, %s", c.ID(), c.Notation())
	if c.Variant() != "" {
		p.engine = fmt.Sprintf("%q, UCI_Variant %s, %s", c.ID(), c.Variant(), c.Notation())
	}
	p.idle = append(p.idle, c)
	return p, nil
}

// start starts another engine process.
func (p *uciPlayer) start() (*uci.Client, error) {
	cfg := p.cfg
	if p.logf != nil {
		p.mu.Lock()
		p.n++
		tag := fmt.Sprintf("[%d] ", p.n)
		p.mu.Unlock()
		cfg.Log = func(line string) {
			p.logMu.Lock()
			defer p.logMu.Unlock()
			fmt.Fprintf(p.logf, "%s %s%s\n", time.Now().UTC().Format("15:04:05.000"), tag, line)
		}
	}
	return uci.StartClient(context.Background(), cfg)
}

func (p *uciPlayer) Name() string { return p.name }

// NewGame takes an idle engine (or starts one) and tells it a game starts;
// an engine that fails to is replaced once.
func (p *uciPlayer) NewGame(uint64) (arena.Mover, error) {
	p.mu.Lock()
	var c *uci.Client
	if n := len(p.idle); n > 0 {
		c, p.idle = p.idle[n-1], p.idle[:n-1]
	}
	p.mu.Unlock()
	for tries := 0; ; tries++ {
		var err error
		if c == nil {
			if c, err = p.start(); err != nil {
				return nil, err
			}
		}
		if err = c.NewGame(context.Background()); err == nil {
			break
		}
		c.Close()
		c = nil
		if tries > 0 {
			return nil, err
		}
	}
	return &uciMover{p: p, c: c, left: p.spec.tcBase}, nil
}

// Close ends the idle engines (the ones still playing end with their
// game).
func (p *uciPlayer) Close() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range idle {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Close()
		}()
	}
	wg.Wait()
	if p.logf != nil {
		p.logf.Close()
	}
}

// describe says what the player is beyond its name.
func (p *uciPlayer) describe() string {
	var b strings.Builder
	b.WriteString(p.spec.path)
	for _, a := range p.spec.args {
		b.WriteString(" " + a)
	}
	fmt.Fprintf(&b, ": %s", p.engine)
	if p.spec.protocol == uci.ProtocolUCCI {
		b.WriteString(", UCCI")
	}
	return b.String()
}

// uciMover plays one game through one engine process.
type uciMover struct {
	p    *uciPlayer
	c    *uci.Client
	left time.Duration // on the engine's clock (tc)
}

func (m *uciMover) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	u := m.p.spec
	lim := u.limits
	lim.Timeout = u.timeout
	if u.tcBase > 0 {
		// The engine's own clock, shown as both sides'.
		lim.WTime, lim.BTime, lim.WInc, lim.BInc = m.left, m.left, u.tcInc, u.tcInc
	}
	bm, err := m.c.Go(ctx, g, lim)
	if err != nil {
		return rules.NoMove, err
	}
	if u.tcBase > 0 {
		if bm.Elapsed >= m.left {
			return rules.NoMove, fmt.Errorf("out of time: the move took %v with %v left", bm.Elapsed.Round(time.Millisecond), m.left.Round(time.Millisecond))
		}
		m.left += u.tcInc - bm.Elapsed
	}
	return bm.Move, nil
}

// Close returns a working engine to the pool and ends a broken one.
func (m *uciMover) Close() {
	if m.c.Err() != nil {
		m.c.Close()
		return
	}
	m.p.mu.Lock()
	m.p.idle = append(m.p.idle, m.c)
	m.p.mu.Unlock()
}
