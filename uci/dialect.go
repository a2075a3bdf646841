package uci

import (
	"fmt"
	"strings"
	"time"

	"github.com/palace-chess/palace/rules"
)

// dialect is what differs between the protocols a Client speaks (UCI with
// or without UCI_Variant, and UCCI): the handshake's words, how an option
// is set, the dialect's own setup, the default move notation, whether a
// new game is announced, and go's arguments. The rest (the position as
// "position fen F moves M...", isready, bestmove, stop, quit) is common.
type dialect interface {
	// hello is the command that starts the handshake and ok the answer
	// that ends it.
	hello() (cmd, ok string)
	// setOption is the line that sets option name to value ("": a button).
	setOption(name, value string) string
	// configure is the dialect's setup once the options are set.
	configure(c *Client) error
	// base is the move notation when ClientConfig.Notation is empty,
	// variant the UCI_Variant set ("" for none).
	base(variant string) rules.RankBase
	// newGame announces a new game; "" for a dialect without such a line.
	newGame() string
	// goCommand is the go line for lim with side to move.
	goCommand(lim Limits, side rules.Color) string
}

// dialectFor is the dialect of ClientConfig.Protocol (checked already).
func dialectFor(protocol string) dialect {
	if protocol == ProtocolUCCI {
		return &ucciDialect{}
	}
	return uciDialect{}
}

// uciDialect is UCI: ranks 1–10 once UCI_Variant is set, else 0–9; times
// in milliseconds, by colour.
type uciDialect struct{}

func (uciDialect) hello() (string, string) { return "uci", "uciok" }
func (uciDialect) configure(*Client) error { return nil }
func (uciDialect) newGame() string         { return "ucinewgame" }

func (uciDialect) setOption(name, value string) string {
	if value == "" { // a button
		return "setoption name " + name
	}
	return "setoption name " + name + " value " + value
}

func (uciDialect) base(variant string) rules.RankBase {
	if variant != "" {
		return rules.Ranks1
	}
	return rules.Ranks0
}

func (uciDialect) goCommand(lim Limits, side rules.Color) string {
	b := goLimits(lim)
	if lim.MoveTime > 0 {
		fmt.Fprintf(b, " movetime %d", ms(lim.MoveTime))
	}
	if lim.WTime > 0 || lim.BTime > 0 {
		fmt.Fprintf(b, " wtime %d btime %d winc %d binc %d", ms(lim.WTime), ms(lim.BTime), ms(lim.WInc), ms(lim.BInc))
		if lim.MovesToGo > 0 {
			fmt.Fprintf(b, " movestogo %d", lim.MovesToGo)
		}
	}
	return b.String()
}

// ucciDialect is UCCI: ranks 0–9; options without "name"; no ucinewgame;
// times in seconds, the side to move's first, unless the engine offers
// usemillisec (set unless the caller's options turn it off).
type ucciDialect struct {
	millisec bool // times in ms (usemillisec set)
}

func (*ucciDialect) hello() (string, string)    { return "ucci", "ucciok" }
func (*ucciDialect) base(string) rules.RankBase { return rules.Ranks0 }
func (*ucciDialect) newGame() string            { return "" }

func (*ucciDialect) setOption(name, value string) string {
	return strings.TrimSpace("setoption " + name + " " + value)
}

func (d *ucciDialect) configure(c *Client) error {
	if c.Option("usemillisec") == nil {
		return nil
	}
	// UCCI's times are in seconds unless the engine is told otherwise.
	d.millisec = true
	for _, o := range c.cfg.Options {
		if strings.EqualFold(o.Name, "usemillisec") {
			d.millisec = strings.EqualFold(o.Value, "true") || strings.EqualFold(o.Value, "on")
		}
	}
	if !d.millisec {
		return nil
	}
	return c.setOption("usemillisec", "true")
}

func (d *ucciDialect) goCommand(lim Limits, side rules.Color) string {
	b := goLimits(lim)
	// The side to move's time, then the opponent's.
	unit := func(t time.Duration) int64 {
		switch {
		case d.millisec:
			return ms(t)
		case t <= 0:
			return 0
		}
		return max(int64(t/time.Second), 1)
	}
	switch {
	case lim.WTime > 0 || lim.BTime > 0:
		own, inc, opp, oppInc := lim.WTime, lim.WInc, lim.BTime, lim.BInc
		if side == rules.Black {
			own, inc, opp, oppInc = opp, oppInc, own, inc
		}
		fmt.Fprintf(b, " time %d increment %d opptime %d oppincrement %d", unit(own), unit(inc), unit(opp), unit(oppInc))
		if lim.MovesToGo > 0 {
			fmt.Fprintf(b, " movestogo %d", lim.MovesToGo)
		}
	case lim.MoveTime > 0:
		// UCCI has no move time: all the time for one move.
		fmt.Fprintf(b, " time %d movestogo 1", unit(lim.MoveTime))
	}
	return b.String()
}

// goLimits starts a go line with the limits both dialects write alike.
func goLimits(lim Limits) *strings.Builder {
	b := &strings.Builder{}
	b.WriteString("go")
	if lim.Depth > 0 {
		fmt.Fprintf(b, " depth %d", lim.Depth)
	}
	if lim.Nodes > 0 {
		fmt.Fprintf(b, " nodes %d", lim.Nodes)
	}
	return b
}
