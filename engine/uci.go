package engine

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/rules"
)

// The UCI family: UCI (plain, as Pikafish speaks it, or with
// Fairy-Stockfish's UCI_Variant) and UCCI share their commands and go's
// arguments (uciCommand, parseGo); they differ in the handshake, option
// lines, the default notation, go's time unit and the search's lines.

// uciProtocol is UCI: ranks 0–9, or 1–10 once the client has set
// UCI_Variant; times in milliseconds; scores as "cp" or "mate".
type uciProtocol struct{}

func (uciProtocol) hello(e *Engine)        { identify(e, "option name ", "uciok") }
func (uciProtocol) offers(o *option) bool  { return o.only == "" || o.only == "uci" }
func (uciProtocol) note(msg string) string { return uciNote(msg) }

func (uciProtocol) command(e *Engine, c command) bool {
	return uciCommand(e, c, time.Millisecond)
}

func (uciProtocol) moveBase(e *Engine) rules.RankBase {
	if e.variantSet {
		return rules.Ranks1
	}
	return rules.Ranks0
}

func (uciProtocol) reporter(e *Engine) reporter {
	return uciReport{base: e.base(), wdl: e.showWDL, none: "bestmove (none)"}
}

// ucciProtocol is UCCI: ranks 0–9; times in seconds unless usemillisec;
// scores as bare centipawns, mates at ±(10000 − plies); "nobestmove" and
// "bye".
type ucciProtocol struct{}

func (ucciProtocol) hello(e *Engine)                 { identify(e, "option ", "ucciok") }
func (ucciProtocol) offers(o *option) bool           { return o.only == "" || o.only == "ucci" }
func (ucciProtocol) note(msg string) string          { return uciNote(msg) }
func (ucciProtocol) moveBase(*Engine) rules.RankBase { return rules.Ranks0 }

func (ucciProtocol) reporter(e *Engine) reporter {
	return ucciReport{uciReport{base: e.base(), none: "nobestmove"}}
}

func (ucciProtocol) command(e *Engine, c command) bool {
	unit := time.Second
	if e.milli {
		unit = time.Millisecond
	}
	quit := uciCommand(e, c, unit)
	if quit {
		e.out.line("bye")
	}
	return quit
}

// uciCommand carries out a command of the UCI family, unit the unit of
// go's times relative to the side to move (UCCI's time, increment, opptime,
// oppincrement); it reports whether to quit.
func uciCommand(e *Engine, c command, unit time.Duration) bool {
	switch c.name {
	case "isready":
		e.ready()
		e.out.line("readyok")
	case "setoption":
		name, value, err := parseSetOption(c.rest)
		if err == nil {
			err = e.setOption(name, value)
		}
		if err != nil {
			e.note(err)
		}
	case "ucinewgame":
		e.newGame()
	case "position":
		if err := position(e, c.args); err != nil {
			e.note(err)
		}
	case "go":
		// A search still running is stopped (a client should have waited
		// for its bestmove); a perft is finished, for scripts.
		if j := e.job; j != nil && j.perft == 0 {
			e.stopSearch()
		}
		e.wait()
		goCmd(e, c.args, unit)
	case "stop", "ponderhit":
		e.stopSearch()
	case "d":
		g, err := e.current()
		if err != nil {
			e.note(err)
			break
		}
		e.out.line("Fen: " + g.Position().FEN())
	case "quit":
		e.stopSearch()
		e.wait()
		return true
	case "debug", "register":
	default:
		e.note(fmt.Errorf("uci: unknown command %q", c.word))
	}
	return false
}

// identify answers uci or ucci: the engine's name, the options the
// protocol offers, each line starting with prefix, then ok, the line that
// ends the handshake.
func identify(e *Engine, prefix, ok string) {
	e.out.line("id name palace " + e.opts.Version)
	e.out.line("id author the palace authors")
	for i := range options {
		o := &options[i]
		if e.proto.offers(o) {
			e.out.line(declareOption(prefix, o, o.def(e)))
		}
	}
	e.out.line(ok)
}

// uciNote is both protocols' note: "info string MSG".
func uciNote(msg string) string { return "info string " + msg }

// declareOption is o's handshake line: prefix (UCI's "option name ",
// UCCI's "option "), the name, the type, the default and the range or
// values.
func declareOption(prefix string, o *option, def string) string {
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteString(o.name)
	b.WriteString(" type " + o.kind)
	b.WriteString(" default " + def)
	if o.kind == "spin" {
		fmt.Fprintf(&b, " min %d max %d", o.min, o.max)
	}
	if o.vars != nil {
		for _, v := range o.vars() {
			b.WriteString(" var " + v)
		}
	}
	return b.String()
}

// parseSetOption reads setoption's "name N [value V]" (UCI) or "N [V]"
// (UCCI); either form is accepted in either protocol.
func parseSetOption(rest string) (name, value string, err error) {
	if f := strings.Fields(rest); len(f) > 0 && strings.EqualFold(f[0], "name") {
		rest = strings.TrimSpace(rest[len(f[0]):])
		low := strings.ToLower(rest)
		switch i := strings.Index(low, " value"); {
		case strings.HasPrefix(low, "value ") || low == "value":
			return "", "", fmt.Errorf("uci: setoption: no option name")
		case i >= 0 && (len(low) == i+6 || low[i+6] == ' '):
			name, value = strings.TrimSpace(rest[:i]), strings.TrimSpace(rest[i+6:])
		default:
			name = rest
		}
	} else {
		name, value, _ = strings.Cut(strings.TrimSpace(rest), " ")
		value = strings.TrimSpace(value)
	}
	if name == "" {
		return "", "", fmt.Errorf("uci: setoption: no option name")
	}
	return name, value, nil
}

// position sets the position from "startpos|fen FEN [moves M...]". A bad
// FEN keeps the previous one; a bad move keeps the position just before it.
func position(e *Engine, args []string) error {
	rs, err := e.ruleSet()
	if err != nil {
		return err
	}
	var fen string
	i := 0
	switch {
	case len(args) == 0:
		return errors.New("uci: position: want startpos or fen FEN")
	case args[0] == "startpos":
		fen, i = rs.StartFEN(), 1
	case args[0] == "fen":
		i = 1
		for i < len(args) && args[i] != "moves" {
			i++
		}
		f := args[1:i]
		if len(f) > 1 && f[1] == "r" {
			f = append(append([]string{}, f[0], "w"), f[2:]...)
		}
		fen = strings.Join(f, " ")
	default:
		return fmt.Errorf("uci: position: %q: want startpos or fen FEN", args[0])
	}
	g, err := rules.NewGame(rs, fen)
	if err != nil {
		return fmt.Errorf("uci: position: %w", err)
	}
	e.game = g
	switch {
	case i == len(args):
		return nil
	case args[i] != "moves":
		return fmt.Errorf("uci: position: %q after the position: want moves", args[i])
	}
	base := e.base()
	for k, text := range args[i+1:] {
		if _, err := g.PlayText(text, base); err != nil {
			return fmt.Errorf("uci: position: move %d (%s): %w; the position is the one before it", k+1, text, err)
		}
	}
	return nil
}

// goCmd reads go's arguments for the position's side to move and starts
// the search (or perft); bad arguments are reported and the rest used.
func goCmd(e *Engine, args []string, unit time.Duration) {
	cur, err := e.current()
	if err != nil {
		e.note(err)
		cur = nil
	}
	side := rules.White
	if cur != nil {
		side = cur.Position().SideToMove()
	}
	l, errs := parseGo(args, side, unit)
	for _, err := range errs {
		e.note(err)
	}
	e.start(cur, l)
}

// parseGo reads go's arguments for the side to move, unit the unit of the
// side-relative times; errors are reported and the rest is used.
func parseGo(args []string, side rules.Color, unit time.Duration) (limits, []error) {
	var l limits
	var errs []error
	for i := 0; i < len(args); i++ {
		key := strings.ToLower(args[i])
		val, ok := "", false
		if takesValue(key) {
			if ok = i+1 < len(args) && (!isGoKey(args[i+1]) || key == "depth" && args[i+1] == "infinite"); ok {
				i++
				val = args[i]
			} else {
				errs = append(errs, fmt.Errorf("uci: go %s: missing value", key))
				continue
			}
		}
		num := func() int {
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				errs = append(errs, fmt.Errorf("uci: go %s %q: want a count", key, val))
				return 0
			}
			return n
		}
		dur := func(u time.Duration) (time.Duration, bool) {
			x, err := strconv.ParseFloat(val, 64)
			if err != nil || math.IsNaN(x) {
				errs = append(errs, fmt.Errorf("uci: go %s %q: want a time", key, val))
				return 0, false
			}
			// A clock may be negative (its flag fell); a day is plenty.
			return time.Duration(max(0, min(x*float64(u), float64(24*time.Hour)))), true
		}
		switch key {
		case "nodes":
			l.nodes = num()
		case "depth":
			if val == "infinite" { // UCCI
				l.infinite = true
			} else {
				l.depth = num()
			}
		case "perft":
			l.perft, l.isPerft = num(), true
		case "movestogo":
			l.movestogo = num()
		case "movetime":
			l.movetime, _ = dur(time.Millisecond)
		case "wtime", "btime", "winc", "binc", "time", "opptime", "increment", "oppincrement":
			c, u := rules.White, time.Millisecond
			switch {
			case key[0] == 'b':
				c = rules.Black
			case key[0] != 'w': // UCCI: the side to move's clock, and the other's
				c, u = side, unit
				if strings.HasPrefix(key, "opp") {
					c = side ^ 1
				}
			}
			d, ok := dur(u)
			if strings.HasSuffix(key, "time") {
				l.clock[c] = d
				l.hasClock[c] = l.hasClock[c] || ok
			} else {
				l.inc[c] = d
			}
		case "infinite":
			l.infinite = true
		case "ponder":
			l.ponder = true
		case "draw": // UCCI: the opponent offers a draw; palace plays on
		case "mate":
			errs = append(errs, errors.New("uci: go mate: unsupported, searching without it"))
		case "searchmoves":
			errs = append(errs, errors.New("uci: go searchmoves: unsupported, searching every move"))
			for i+1 < len(args) && !isGoKey(args[i+1]) {
				i++
			}
		default:
			errs = append(errs, fmt.Errorf("uci: go: unknown argument %q", args[i]))
		}
	}
	return l, errs
}

func takesValue(key string) bool {
	switch key {
	case "infinite", "ponder", "draw", "searchmoves":
		return false
	}
	return isGoKey(key)
}

func isGoKey(s string) bool {
	switch strings.ToLower(s) {
	case "nodes", "depth", "perft", "movestogo", "movetime", "wtime", "btime", "winc", "binc",
		"time", "opptime", "increment", "oppincrement", "infinite", "ponder", "draw", "mate", "searchmoves":
		return true
	}
	return false
}

// uciReport writes UCI's lines: "info depth D score cp C|mate M [wdl W D
// L] nodes N nps X time MS pv M...", "bestmove M" or "bestmove (none)".
type uciReport struct {
	base rules.RankBase
	wdl  bool   // UCI_ShowWDL
	none string // the answer when there is no move
}

func (u uciReport) info(r *mcts.Result, nodes int, elapsed time.Duration) string {
	ms := elapsed.Milliseconds()
	b := fmt.Appendf(make([]byte, 0, 256), "info depth %d score %s", max(len(r.PV), 1), uciScore(r))
	if u.wdl {
		w, d, l := wdlPermille(r)
		b = fmt.Appendf(b, " wdl %d %d %d", w, d, l)
	}
	b = fmt.Appendf(b, " nodes %d nps %d time %d", nodes, nodes*1000/max(int(ms), 1), ms)
	return string(appendPV(b, r.PV, u.base))
}

func (uciReport) over(lost, won bool) string {
	return "info depth 0 score " + ending(lost, won, "mate 0", "cp 9900", "cp 0")
}

func (u uciReport) best(m rules.Move) string {
	if m == rules.NoMove {
		return u.none
	}
	return "bestmove " + string(m.AppendText(nil, u.base))
}

func (u uciReport) move(b []byte, m rules.Move) []byte { return m.AppendText(b, u.base) }
func (uciReport) note(msg string) string               { return uciNote(msg) }

// uciScore is the root's value as "cp C", or "mate M" for a proven result:
// M moves to the win, −M to the loss (M = ⌈plies/2⌉).
func uciScore(r *mcts.Result) string {
	plies := max(r.ProofPlies, 0)
	switch r.Proof {
	case mcts.ProvenWin:
		return "mate " + strconv.Itoa((plies+1)/2)
	case mcts.ProvenLoss:
		return "mate -" + strconv.Itoa((plies+1)/2)
	case mcts.ProvenDraw:
		return "cp 0"
	}
	return "cp " + strconv.Itoa(ValueToCentipawns(float64(r.Value)))
}

// ucciReport writes UCCI's lines: "info depth D score S nodes N time MS pv
// M...", "bestmove M" or "nobestmove" (none); its moves and notes are
// UCI's.
type ucciReport struct {
	uciReport
}

func (u ucciReport) info(r *mcts.Result, nodes int, elapsed time.Duration) string {
	b := fmt.Appendf(make([]byte, 0, 256), "info depth %d score %s nodes %d time %d",
		max(len(r.PV), 1), ucciScore(r), nodes, elapsed.Milliseconds())
	return string(appendPV(b, r.PV, u.base))
}

func (ucciReport) over(lost, won bool) string {
	return "info depth 0 score " + ending(lost, won, "-10000", "10000", "0")
}

// ucciScore is the root's value in centipawns, a proven result at
// ±(10000 − plies) (ElephantEye's convention: above 9900 is a mate).
func ucciScore(r *mcts.Result) string {
	plies := max(r.ProofPlies, 0)
	switch r.Proof {
	case mcts.ProvenWin:
		return strconv.Itoa(10000 - min(plies, 99))
	case mcts.ProvenLoss:
		return strconv.Itoa(-10000 + min(plies, 99))
	case mcts.ProvenDraw:
		return "0"
	}
	return strconv.Itoa(ValueToCentipawns(float64(r.Value)))
}

// ending picks the score of a finished game for the side to move.
func ending(lost, won bool, loss, win, draw string) string {
	switch {
	case lost:
		return loss
	case won:
		return win
	}
	return draw
}

// appendPV appends " pv M..." when there is a principal variation.
func appendPV(b []byte, pv []rules.Move, base rules.RankBase) []byte {
	if len(pv) > 0 {
		b = append(b, " pv"...)
		for _, m := range pv {
			b = append(b, ' ')
			b = m.AppendText(b, base)
		}
	}
	return b
}
