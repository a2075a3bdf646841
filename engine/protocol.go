package engine

import (
	"time"

	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/rules"
)

// protocol is one text protocol the engine speaks. The line that names one
// (protocolNamed: "uci", "ucci", "xboard") makes it the protocol in force, and from
// then on every line is its command. A protocol owns its words: the
// handshake and how options are declared, its commands and their
// arguments (a search's limits), which options it offers, the move
// notation it defaults to, and the search's lines. The Engine keeps what
// every protocol shares and offers it as methods: the options' values
// (setOption), the position (current, ruleSet, base), ready, newGame,
// start (a search or perft under limits), stopSearch, wait and note.
// The interface holds only what the Engine itself calls.
//
// A new protocol is a type implementing protocol plus a case in
// protocolNamed. One with its own state (CECP/xboard: force mode, whose
// turn the engine plays, the clocks given by level/time/otim, undo) keeps
// it in its value, a pointer made fresh by protocolNamed, and reads the
// move a search played from the engine's job (job.best) once it is done.
type protocol interface {
	// hello answers the line that chose the protocol.
	hello(e *Engine)
	// command carries out one line; it reports whether to quit.
	command(e *Engine, c command) (quit bool)
	// offers reports whether the protocol has option o (setOption refuses
	// the others).
	offers(o *option) bool
	// moveBase is the move notation when MoveNotation is auto.
	moveBase(e *Engine) rules.RankBase
	// reporter writes the lines of a search started now.
	reporter(e *Engine) reporter
	// note is the line that tells the client about a problem (msg is one
	// line): a malformed command, a network that did not load.
	note(msg string) string
}

// command is one input line: its first word as written and lower-cased,
// the words after it, and the text after the first word.
type command struct {
	word, name string
	args       []string
	rest       string
}

// protocolNamed is the protocol a line starting with name chooses, or nil.
func protocolNamed(name string) protocol {
	switch name {
	case "uci":
		return uciProtocol{}
	case "ucci":
		return ucciProtocol{}
	case "xboard":
		return newCECP()
	}
	return nil
}

// reporter writes a search's lines in a protocol's text. It is made when
// the search starts, with what it needs of the engine copied, and used from
// the search's goroutine.
type reporter interface {
	// info is the line after a search of nodes simulations in all,
	// elapsed since go, that has reached depth (searchInfo's).
	info(r *mcts.Result, depth, nodes int, elapsed time.Duration) string
	// over is the line for a position without moves: lost, won or (neither)
	// drawn for the side to move.
	over(lost, won bool) string
	// best is the answer to go: the move, or rules.NoMove for none.
	best(m rules.Move) string
	// move appends a move's text to b.
	move(b []byte, m rules.Move) []byte
	// note is as protocol's.
	note(msg string) string
}
