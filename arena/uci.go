package arena

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/uci"
)

// An external engine as a player: one engine process per game being played
// (a match plays many at once), kept between games in a pool and started
// again when it died.

const uciHelp = `  uci:PATH[,nodes=N][,depth=N][,movetime=MS][,tc=SEC[+INC]][,option.NAME=VALUE]...[,protocol=uci|ucci]
      [,notation=ranks1|ranks0][,timeout=DUR][,args=A B C][,arg=A]...[,dir=DIR][,log=FILE]
                                         an external engine (Fairy-Stockfish, Pikafish, UCCI, palace uci), one
                                         process per game in play; limits (at least one): nodes, depth,
                                         movetime (ms), or tc, its own clock (out of time loses; each game
                                         records the clock's end, the summary its use); options go
                                         out by setoption; UCI_Variant is set when the engine has it, and
                                         then notation defaults to ranks 1–10, else 0–9; a move taking
                                         longer than timeout (default 60s; with movetime, twice it plus 5s;
                                         with tc, the time left plus 5s) loses the game and the engine is
                                         restarted (timeout, when given, also bounds the start-up handshake,
                                         else 30s); args, or one arg= each, are the program's arguments
                                         (palace: arg=uci); log appends every line exchanged to FILE`

// UCISpec is an external engine player: a uci:PATH[,...] spec parsed,
// or one built in code (a ladder's rungs).
type UCISpec struct {
	// Path is the engine program; Args its arguments, Dir its working
	// directory ("": this process's).
	Path string
	Args []string
	Dir  string
	// Protocol is uci.ProtocolUCI or uci.ProtocolUCCI ("": UCI);
	// Notation uci.NotationRanks1 or uci.NotationRanks0 ("": the
	// client's choice).
	Protocol, Notation string
	// Options go out by setoption.
	Options []uci.OptionValue
	// Limits bound every move's search; the clock (tc) is apart.
	Limits uci.Limits
	// ClockBase and ClockIncrement are the engine's own clock (tc):
	// running out of time loses the game. Zero: no clock.
	ClockBase, ClockIncrement time.Duration
	// Timeout is the longest a move may take (0: the client's default).
	Timeout time.Duration
	// Log, when set, is a file that every line exchanged is appended to.
	Log string
}

// parseUCISpec reads the options of uci:PATH (fields[0] is "uci:PATH").
func parseUCISpec(spec string, fields []string) (*UCISpec, error) {
	e := &UCISpec{Path: strings.TrimPrefix(fields[0], "uci:")}
	bad := func(format string, args ...any) error { return &SpecError{spec, fmt.Sprintf(format, args...)} }
	if e.Path == "" {
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
			for _, o := range e.Options {
				if strings.EqualFold(o.Name, name) {
					return nil, bad("option %s given twice", name)
				}
			}
			e.Options = append(e.Options, uci.OptionValue{Name: name, Value: val})
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
			e.Limits.Nodes, err = positive()
		case "depth":
			e.Limits.Depth, err = positive()
		case "movetime":
			var n int
			// At most tc's longest base, 10^6 s: a larger count of
			// milliseconds would overflow a time.Duration.
			if n, err = positive(); err == nil && n > 1e9 {
				err = bad("movetime=%s: want at most 1000000000 ms", val)
			}
			e.Limits.MoveTime = time.Duration(n) * time.Millisecond
		case "tc":
			e.ClockBase, e.ClockIncrement, err = parseTC(val)
			if err != nil {
				err = bad("tc=%s: %v", val, err)
			}
		case "timeout":
			e.Timeout, err = time.ParseDuration(val)
			if err != nil || e.Timeout <= 0 {
				err = bad("timeout=%s: want a positive duration (30s, 2m)", val)
			}
		case "protocol":
			if val != uci.ProtocolUCI && val != uci.ProtocolUCCI {
				err = bad("protocol=%s: want uci or ucci", val)
			}
			e.Protocol = val
		case "notation":
			if val != uci.NotationRanks1 && val != uci.NotationRanks0 {
				err = bad("notation=%s: want ranks1 or ranks0", val)
			}
			e.Notation = val
		case "args":
			e.Args = append(e.Args, strings.Fields(val)...)
		case "arg":
			e.Args = append(e.Args, val)
		case "dir":
			e.Dir = val
		case "log":
			e.Log = val
		default:
			return nil, bad("uci has no option %q", key)
		}
		if err != nil {
			return nil, err
		}
	}
	if problem := e.limitsProblem(); problem != "" {
		return nil, bad("%s", problem)
	}
	return e, nil
}

// limitsProblem says what is wrong with the engine's limits ("" when
// nothing is).
func (e *UCISpec) limitsProblem() string {
	l := e.Limits
	switch {
	case l.Nodes == 0 && l.Depth == 0 && l.MoveTime == 0 && e.ClockBase == 0:
		return "give the engine a limit: nodes=N, depth=N, movetime=MS or tc=SEC[+INC]"
	case l.MoveTime > 0 && e.ClockBase > 0:
		return "movetime and tc do not go together"
	}
	return ""
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

// Name is the player's name for records: the program and its arguments,
// the limits and the options, each of which can change its strength.
func (e *UCISpec) Name() string {
	var b strings.Builder
	b.WriteString("uci:" + filepath.Base(e.Path))
	for _, a := range e.Args {
		b.WriteString(" " + a)
	}
	l := e.Limits
	if l.Nodes > 0 {
		fmt.Fprintf(&b, "/nodes=%d", l.Nodes)
	}
	if l.Depth > 0 {
		fmt.Fprintf(&b, "/depth=%d", l.Depth)
	}
	if l.MoveTime > 0 {
		fmt.Fprintf(&b, "/movetime=%d", l.MoveTime.Milliseconds())
	}
	if e.ClockBase > 0 {
		fmt.Fprintf(&b, "/tc=%g+%g", e.ClockBase.Seconds(), e.ClockIncrement.Seconds())
	}
	for _, o := range e.Options {
		fmt.Fprintf(&b, "/%s=%s", o.Name, o.Value)
	}
	return b.String()
}

// UCIPlayer is a Player over engine processes. Close it when its
// matches are over.
type UCIPlayer struct {
	spec   UCISpec
	name   string
	cfg    uci.ClientConfig
	logf   *os.File
	logMu  sync.Mutex
	mu     sync.Mutex
	idle   []*uci.Client
	n      int    // processes started
	engine string // the first process's id, variant and notation
	id     string // the first process's id name
}

// NewUCIPlayer starts one engine to check that it works with the rule
// set; it becomes the first game's.
func NewUCIPlayer(spec UCISpec, rs *rules.RuleSet) (*UCIPlayer, error) {
	return StartUCIPlayer(context.Background(), spec, rs)
}

// StartUCIPlayer is NewUCIPlayer whose first engine's start ends with ctx:
// a job stopped while a hung engine is in its handshake stops at once,
// not after the handshake's timeout.
func StartUCIPlayer(ctx context.Context, spec UCISpec, rs *rules.RuleSet) (*UCIPlayer, error) {
	if spec.Path == "" {
		return nil, fmt.Errorf("arena: an engine player without a program")
	}
	if problem := spec.limitsProblem(); problem != "" {
		return nil, fmt.Errorf("arena: %s: %s", spec.Name(), problem)
	}
	p := &UCIPlayer{spec: spec, name: spec.Name(), cfg: uci.ClientConfig{
		Path: spec.Path, Args: spec.Args, Dir: spec.Dir, Protocol: spec.Protocol, Notation: spec.Notation,
		Rules: rs, Options: spec.Options,
		// A timeout the user gave bounds every answer: an engine that
		// never says uciok is not waited on longer than a move would be.
		StartTimeout: spec.Timeout,
	}}
	if spec.Log != "" {
		f, err := os.OpenFile(spec.Log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("arena: %w", err)
		}
		p.logf = f
	}
	c, err := p.start(ctx)
	if err != nil {
		p.Close()
		return nil, err
	}
	p.id = c.ID()
	p.engine = fmt.Sprintf("%q, %s", c.ID(), c.Notation())
	if c.Variant() != "" {
		p.engine = fmt.Sprintf("%q, UCI_Variant %s, %s", c.ID(), c.Variant(), c.Notation())
	}
	p.idle = append(p.idle, c)
	return p, nil
}

// start starts another engine process, its handshake ending with ctx.
func (p *UCIPlayer) start(ctx context.Context) (*uci.Client, error) {
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
	return uci.StartClient(ctx, cfg)
}

// Name is the spec's name.
func (p *UCIPlayer) Name() string { return p.name }

// NewGame takes an idle engine (or starts one) and tells it a game starts;
// an engine that fails to is replaced once.
func (p *UCIPlayer) NewGame(uint64) (Mover, error) {
	p.mu.Lock()
	var c *uci.Client
	if n := len(p.idle); n > 0 {
		c, p.idle = p.idle[n-1], p.idle[:n-1]
	}
	p.mu.Unlock()
	for tries := 0; ; tries++ {
		var err error
		if c == nil {
			if c, err = p.start(context.Background()); err != nil {
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
	return &uciMover{p: p, c: c, left: p.spec.ClockBase, given: p.spec.ClockBase}, nil
}

// Close ends the idle engines (the ones still playing end with their
// game).
func (p *UCIPlayer) Close() {
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

// EngineID is the engine's own name for itself (UCI's id name), as its
// first process gave it: a ladder checks it against its scale's.
func (p *UCIPlayer) EngineID() string { return p.id }

// Describe says what the player is beyond its name: the program, and the
// engine's id, variant and notation.
func (p *UCIPlayer) Describe() string {
	var b strings.Builder
	b.WriteString(p.spec.Path)
	for _, a := range p.spec.Args {
		b.WriteString(" " + a)
	}
	fmt.Fprintf(&b, ": %s", p.engine)
	if p.spec.Protocol == uci.ProtocolUCCI {
		b.WriteString(", UCCI")
	}
	return b.String()
}

// uciMover plays one game through one engine process.
type uciMover struct {
	p     *UCIPlayer
	c     *uci.Client
	left  time.Duration // on the engine's clock (tc)
	given time.Duration // the clock's base and the increments of its moves
	flag  bool          // lost on time
	score gamerec.Score // of the last move
}

// Clock is the engine's own clock (tc), false when it plays without one.
func (m *uciMover) Clock() (ClockUse, bool) {
	if m.p.spec.ClockBase <= 0 {
		return ClockUse{}, false
	}
	return ClockUse{LeftMS: m.left.Milliseconds(), GivenMS: m.given.Milliseconds(), Flagged: m.flag}, true
}

func (m *uciMover) LastScore() gamerec.Score { return m.score }

func (m *uciMover) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	e := &m.p.spec
	lim := e.Limits
	lim.Timeout = e.Timeout
	if e.ClockBase > 0 {
		// The engine's own clock, shown as both sides'.
		lim.WTime, lim.BTime, lim.WInc, lim.BInc = m.left, m.left, e.ClockIncrement, e.ClockIncrement
	}
	bm, err := m.c.Go(ctx, g, lim)
	m.score = bm.Score
	if err != nil {
		return rules.NoMove, err
	}
	if e.ClockBase > 0 {
		if bm.Elapsed >= m.left {
			err := fmt.Errorf("out of time: the move took %v with %v left", bm.Elapsed.Round(time.Millisecond), m.left.Round(time.Millisecond))
			m.left, m.flag = 0, true
			return rules.NoMove, err
		}
		m.left += e.ClockIncrement - bm.Elapsed
		m.given += e.ClockIncrement
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
