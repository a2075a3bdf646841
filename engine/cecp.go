package engine

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/rules"
)

// CECP, the Chess Engine Communication Protocol (xboard/WinBoard's,
// version 2), as XBoard 4.9 and Fairy-Stockfish speak it. Unlike UCI the
// engine keeps the game: the GUI sends moves one by one and the engine
// answers "move M" when it is its turn, so the protocol has state of its
// own (cecpProtocol): force mode, the side the engine plays, the clocks,
// post, analysis, and the search whose move is not yet played. The
// position is the Engine's (e.game); a move the engine played is put on it
// by the command loop once the search is done (settle), never by the
// search's goroutine.

// cecpProtocol is CECP. The line "xboard" makes a fresh one.
type cecpProtocol struct {
	force     bool        // play neither side
	side      rules.Color // the side the engine plays outside force mode
	post      bool        // thinking output in play
	ponder    bool        // hard: search on in the opponent's time (easy: not)
	analyzing bool

	// The time control: level's moves per session, base and increment, or
	// st's time a move; sd's depth; time and otim's clocks (the engine's,
	// its opponent's).
	mps              int
	base, inc        time.Duration
	level            bool
	st               time.Duration
	sd               int
	clock, oclock    time.Duration
	hasTime, hasOtim bool

	pending *cecpSearch // the search whose answer the game has not taken yet
	next    *cecpSearch // the search being started, for reporter
}

func newCECP() *cecpProtocol { return &cecpProtocol{side: rules.Black} }

// A cecpSearch is one search of the engine's: a move of its own or
// analysis. Its state says whether its move went out (sent) or the command
// loop dropped it first (force, new, undo... while it thinks): whichever
// comes first wins, so a move the GUI saw is always played here and one it
// did not see never is.
type cecpSearch struct {
	state    atomic.Int32
	analysis bool
	post     bool
	g        *rules.Game // a copy of the position, for the end the move brings
	move     rules.Move  // the move sent; read once the job is done
}

const (
	cecpSearching = iota
	cecpSent
	cecpDropped
)

// cecpJanggiSetup is the setup command's piece table for janggi on
// XBoard's xiangqi board, as Fairy-Stockfish 11.1 (Debian's) sends it:
// palace's FEN letters in slots of XBoard's table whose own moves the
// piece commands replace, the soldier and the general out of the Pawn and
// King slots so that XBoard applies no pawn or xiangqi-palace rule of its
// own to them (checked in XBoard 4.9: with the soldier in the Pawn slot
// XBoard sees checks by soldiers outside the palace and forfeits legal
// replies).
const cecpJanggiSetup = "(.N.R.AB.P..C.........K.n.r.ab.p..c.........k) 9x10+0_xiangqi"

// cecpJanggiPieces are janggi's pieces in Betza notation, as
// Fairy-Stockfish sends them: the palace diagonals (general, advisor,
// soldier, chariot, cannon) and the cannon's screen rules are wider than
// Betza can say, so XBoard checks a superset and palace the rest.
var cecpJanggiPieces = []string{"R& RB", "C& pRpB", "P& fsWfF", "N& nN", "B& mafsmafW", "A& WF", "K& WF"}

func (p *cecpProtocol) hello(*Engine) {}

func (p *cecpProtocol) moveBase(*Engine) rules.RankBase { return rules.Ranks0 }

func (p *cecpProtocol) note(msg string) string { return "# " + msg }

// offers: the options that are not another protocol's, less the variant
// (CECP's variant command) and the notation (CECP's is fixed).
func (p *cecpProtocol) offers(o *option) bool {
	// The variant is CECP's own command, moves are always ranks 0–9, and
	// pondering is hard/easy's.
	return (o.only == "" || o.only == "xboard") && o.name != "UCI_Variant" && o.name != "MoveNotation" && o.name != "Ponder"
}

func (p *cecpProtocol) reporter(*Engine) reporter {
	s := p.next
	if s == nil {
		s = &cecpSearch{}
	}
	return cecpReport{s}
}

// command carries out one line. First the move of a finished search is
// played here, so the position is the GUI's.
func (p *cecpProtocol) command(e *Engine, c command) bool {
	p.settle(e)
	switch c.name {
	case "protover":
		p.features(e)
	case "new":
		p.abort(e)
		e.newGame()
		p.force, p.side, p.analyzing, p.sd = false, rules.Black, false, 0
		p.hasTime, p.hasOtim = false, false
		p.setup(e)
	case "variant":
		p.abort(e)
		if len(c.args) != 1 {
			p.errorf(e, "want one variant", c)
			break
		}
		if err := p.setVariant(e, c.args[0]); err != nil {
			p.errorf(e, err.Error(), c)
			break
		}
		p.setup(e)
	case "force":
		p.abort(e)
		p.force = true
	case "go":
		p.abort(e)
		if p.analyzing {
			break
		}
		p.force = false
		if g, err := e.current(); err == nil {
			p.side = g.Position().SideToMove()
		}
		p.think(e)
	case "playother":
		p.abort(e)
		p.force = false
		if g, err := e.current(); err == nil {
			p.side = g.Position().SideToMove().Other()
		}
	case "usermove":
		if len(c.args) != 1 {
			p.errorf(e, "want one move", c)
			break
		}
		p.userMove(e, c.args[0])
	case "?":
		if s := p.pending; s != nil && !s.analysis {
			e.stopSearch() // its move follows
		}
	case "time", "otim":
		cs, err := strconv.ParseFloat(strings.Join(c.args, " "), 64)
		if err != nil || math.IsNaN(cs) {
			p.errorf(e, "want centiseconds", c)
			break
		}
		d := time.Duration(max(0, min(cs, 8640000)) * float64(10*time.Millisecond))
		if c.name == "time" {
			p.clock, p.hasTime = d, true
		} else {
			p.oclock, p.hasOtim = d, true
		}
	case "level":
		if err := p.setLevel(c.args); err != nil {
			p.errorf(e, err.Error(), c)
		}
	case "st":
		s, err := strconv.ParseFloat(strings.Join(c.args, " "), 64)
		if err != nil || math.IsNaN(s) || s <= 0 {
			p.errorf(e, "want seconds", c)
			break
		}
		p.st, p.level = time.Duration(min(s, 86400)*float64(time.Second)), false
	case "sd":
		d, err := strconv.Atoi(strings.Join(c.args, " "))
		if err != nil || d < 0 {
			p.errorf(e, "want a depth", c)
			break
		}
		p.sd = d
	case "nps":
		e.note(errors.New("uci: nps: unsupported, ignored (palace searches by its clock)"))
	case "post":
		p.post = true
	case "nopost":
		p.post = false
	case "analyze":
		p.abort(e)
		p.analyzing = true
		p.analyze(e)
	case "exit":
		p.abort(e)
		p.analyzing = false
	case ".":
		// The status of the analysis: palace has none to give.
	case "ping":
		e.out.line(strings.TrimSpace("pong " + c.rest))
	case "result":
		p.abort(e)
		p.force = true
	case "setboard":
		p.abort(e)
		p.setBoard(e, c)
	case "undo", "remove":
		p.abort(e)
		n := 1
		if c.name == "remove" {
			n = 2
		}
		g, err := e.current()
		if err != nil {
			e.note(err)
			break
		}
		if g.Ply() < n {
			p.errorf(e, "no move to take back", c)
			break
		}
		for range n {
			g.Undo()
		}
		p.analyze(e)
	case "option":
		p.option(e, c)
	case "d":
		if g, err := e.current(); err == nil {
			e.out.line("# Fen: " + g.Position().FEN())
		}
	case "quit":
		p.abort(e)
		return true
	case "hard", "easy":
		// Pondering: after its move the engine searches on in the
		// position after it until the GUI's next command (usually the
		// opponent's move, whose subtree the next search reuses).
		p.ponder = c.name == "hard"
	case "random", "computer", "name", "rating", "ics", "accepted", "rejected",
		"draw", "hint", "bk", "cores", "memory", "egtpath":
		// Accepted and ignored: palace offers no draws.
	default:
		if cecpLooksLikeMove(c.word) && len(c.args) == 0 {
			p.userMove(e, c.word)
			break
		}
		e.out.line("Error (unknown command): " + c.word)
	}
	return false
}

// errorf answers a command it cannot carry out, as CECP writes errors.
func (p *cecpProtocol) errorf(e *Engine, reason string, c command) {
	reason = strings.TrimPrefix(reason, "uci: ")
	e.out.line("Error (" + reason + "): " + strings.TrimSpace(c.word+" "+c.rest))
}

// features answers protover.
func (p *cecpProtocol) features(e *Engine) {
	e.out.line("feature done=0")
	e.out.line(fmt.Sprintf("feature myname=\"palace %s\" variants=\"%s\"", e.opts.Version, strings.Join(rules.PresetNames(), ",")))
	e.out.line("feature setboard=1 usermove=1 ping=1 sigint=0 san=0 colors=0 analyze=1 memory=0 reuse=1 name=0 debug=1 exclude=0")
	for i := range options {
		if o := &options[i]; p.offers(o) {
			def := ""
			if o.def != nil {
				def = o.def(e)
			}
			e.out.line("feature option=\"" + cecpOption(o, def) + "\"")
		}
	}
	if note := networkNote(e.network); note != "" {
		e.out.line(p.note(note))
	}
	e.out.line("feature done=1")
}

// cecpOption is o's declaration: "NAME -TYPE DEFAULT [MIN MAX]", a combo's
// other values after " /// ", a string that names a file as -file.
func cecpOption(o *option, def string) string {
	kind := o.kind
	switch {
	case kind == "check":
		def = map[bool]string{true: "1", false: "0"}[def == "true"]
	case kind == "string" && strings.HasSuffix(o.name, "File"):
		kind = "file"
		if def == "<empty>" {
			def = ""
		}
	}
	if kind == "button" {
		return o.name + " -button"
	}
	s := o.name + " -" + kind + " " + def
	switch kind {
	case "spin":
		s += fmt.Sprintf(" %d %d", o.min, o.max)
	case "combo":
		for _, v := range o.vars() {
			if v != def {
				s += " /// " + v
			}
		}
	}
	return s
}

// option sets an option from "option NAME=VALUE" (a check's value 1 or 0).
func (p *cecpProtocol) option(e *Engine, c command) {
	name, value, _ := strings.Cut(c.rest, "=")
	name = strings.TrimSpace(name)
	for i := range options {
		if o := &options[i]; strings.EqualFold(o.name, name) && o.kind == "check" {
			switch strings.TrimSpace(value) {
			case "1":
				value = "true"
			case "0":
				value = "false"
			}
		}
	}
	if err := e.setOption(name, strings.TrimSpace(value)); err != nil {
		p.errorf(e, oneLine(err), c)
	}
}

// setVariant makes name (one of rules.PresetNames, maybe with XBoard's
// "9x10_" board prefix) the variant, at its start position.
func (p *cecpProtocol) setVariant(e *Engine, name string) error {
	name = strings.ToLower(strings.TrimPrefix(name, "9x10_"))
	for _, v := range rules.PresetNames() {
		if v == name {
			if e.variant != v {
				// Another game may need another evaluator.
				e.variant, e.stale = v, true
			}
			e.game = nil
			return nil
		}
	}
	return fmt.Errorf("unsupported variant %s", name)
}

// setup tells XBoard janggi's board and pieces, which it does not know.
func (p *cecpProtocol) setup(e *Engine) {
	rs, err := e.ruleSet()
	if err != nil || rs.Game != rules.Janggi {
		return
	}
	e.out.line("setup " + cecpJanggiSetup + " " + rs.StartFEN())
	for _, piece := range cecpJanggiPieces {
		e.out.line("piece " + piece)
	}
}

// setLevel reads "level MPS BASE INC": BASE in minutes or MIN:SEC, INC in
// seconds.
func (p *cecpProtocol) setLevel(args []string) error {
	if len(args) != 3 {
		return errors.New("want moves, base and increment")
	}
	mps, err := strconv.Atoi(args[0])
	if err != nil || mps < 0 {
		return errors.New("bad moves per session")
	}
	mins, secs, colon := strings.Cut(args[1], ":")
	m, err := strconv.ParseFloat(mins, 64)
	s := 0.0
	if err == nil && colon {
		s, err = strconv.ParseFloat(secs, 64)
	}
	if err != nil || math.IsNaN(m) || math.IsNaN(s) || m < 0 || s < 0 {
		return errors.New("bad base time")
	}
	inc, err := strconv.ParseFloat(args[2], 64)
	if err != nil || math.IsNaN(inc) || inc < 0 {
		return errors.New("bad increment")
	}
	p.mps = mps
	p.base = time.Duration(min(m*60+s, 86400) * float64(time.Second))
	p.inc = time.Duration(min(inc, 86400) * float64(time.Second))
	p.level, p.st = true, 0
	return nil
}

// limits are the search's for the side to move of g under the time
// control: st's time, or the clocks; without either, the Nodes budget (sd
// in both cases caps it).
func (p *cecpProtocol) limits(g *rules.Game) limits {
	var l limits
	l.depth = p.sd
	switch {
	case p.st > 0:
		l.movetime = p.st
	case p.level || p.hasTime:
		us := g.Position().SideToMove()
		l.clock[us], l.clock[us.Other()] = p.base, p.base
		if p.hasTime {
			l.clock[us] = p.clock
		}
		if p.hasOtim {
			l.clock[us.Other()] = p.oclock
		}
		l.hasClock = [2]bool{true, true}
		l.inc = [2]time.Duration{p.inc, p.inc}
		if p.mps > 0 {
			l.movestogo = p.mps - (g.Position().FullmoveNumber()-1)%p.mps
		}
	}
	return l
}

// think starts the search for the engine's move, or says the game is
// over.
func (p *cecpProtocol) think(e *Engine) {
	g, err := e.current()
	if err != nil {
		e.note(err)
		return
	}
	if r := g.Result(); r.Over() {
		e.out.line(cecpResult(g.Rules(), r))
		return
	}
	l := p.limits(g)
	l.thinkOn = p.ponder
	p.launch(e, g, l, false)
}

// analyze starts analysis of the position when in analysis mode.
func (p *cecpProtocol) analyze(e *Engine) {
	if !p.analyzing {
		return
	}
	g, err := e.current()
	if err != nil {
		e.note(err)
		return
	}
	if g.Result().Over() {
		return
	}
	p.launch(e, g, limits{infinite: true}, true)
}

func (p *cecpProtocol) launch(e *Engine, g *rules.Game, l limits, analysis bool) {
	c, err := clone(g)
	if err != nil {
		e.note(err)
		return
	}
	s := &cecpSearch{analysis: analysis, post: p.post || analysis, g: c}
	p.next = s
	e.start(g, l)
	p.next = nil
	p.pending = s
}

// settle plays the move of a finished search on the position.
func (p *cecpProtocol) settle(e *Engine) {
	s := p.pending
	if s == nil || s.state.Load() != cecpSent {
		return
	}
	e.stopSearch() // the search on in the opponent's time (hard), if any
	e.wait()
	p.pending = nil
	p.play(e, s.move)
}

// abort ends the search: a move already sent is played, any other
// dropped unsent.
func (p *cecpProtocol) abort(e *Engine) {
	s := p.pending
	if s == nil {
		return
	}
	s.state.CompareAndSwap(cecpSearching, cecpDropped)
	e.stopSearch() // its move unsent, or searching on after it (hard)
	e.wait()
	p.pending = nil
	if s.state.Load() == cecpSent {
		p.play(e, s.move)
	}
}

func (p *cecpProtocol) play(e *Engine, m rules.Move) {
	if g, err := e.current(); err == nil && m != rules.NoMove && g.IsLegal(m) {
		g.Play(m)
	}
}

// userMove plays the opponent's move (in force mode, either side's), then
// the engine's turn follows: a result when the move ended the game, else
// a search when the engine is to move (or the analysis goes on).
func (p *cecpProtocol) userMove(e *Engine, text string) {
	if s := p.pending; s != nil && !s.analysis {
		// The GUI moved while the engine thought: the engine's move goes
		// out first, and the GUI's is checked after it.
		e.stopSearch()
		e.wait()
		p.settle(e)
	}
	p.abort(e)
	g, err := e.current()
	if err != nil {
		e.note(err)
		return
	}
	m, reason := cecpParseMove(g, text)
	if m == rules.NoMove {
		e.out.line("Illegal move (" + reason + "): " + text)
		p.analyze(e)
		return
	}
	g.Play(m)
	switch {
	case p.analyzing:
		p.analyze(e)
	case p.force:
	case g.Result().Over():
		e.out.line(cecpResult(g.Rules(), g.Result()))
	case g.Position().SideToMove() == p.side:
		p.think(e)
	}
}

// setBoard sets the position from a FEN. XBoard tells a pass it cannot
// send as a move by the position after it: a FEN that is the position
// after a pass is played as one, keeping the game's history.
func (p *cecpProtocol) setBoard(e *Engine, c command) {
	rs, err := e.ruleSet()
	if err != nil {
		e.note(err)
		return
	}
	// One FEN reader for every protocol: XBoard writes shortened FENs
	// ("BOARD w 0 1" for a variant it set up), as UCI GUIs do.
	fen := tolerantFEN(strings.Fields(c.rest))
	pos, err := rules.ParseFEN(fen, rs)
	if err != nil {
		e.out.line("tellusererror Illegal position")
		e.note(fmt.Errorf("uci: setboard: %w", err))
		return
	}
	if g := e.game; g != nil {
		pass := rules.PassMove(g.Position().KingSquare(g.Position().SideToMove()))
		if g.IsLegal(pass) {
			g.Play(pass)
			if g.Position().Key() == pos.Key() {
				switch {
				case p.analyzing:
					p.analyze(e)
				case !p.force && g.Position().SideToMove() == p.side:
					p.think(e)
				}
				return
			}
			g.Undo()
		}
	}
	g, err := rules.NewGame(rs, fen)
	if err != nil {
		e.out.line("tellusererror Illegal position")
		e.note(fmt.Errorf("uci: setboard: %w", err))
		return
	}
	e.game = g
	p.analyze(e)
}

// cecpLooksLikeMove reports whether a word is a move (bare, as a GUI
// sends them when usermove is off).
func cecpLooksLikeMove(w string) bool {
	if w == "@@@@" {
		return true
	}
	return len(w) == 4 && w[0] >= 'a' && w[0] <= 'i' && w[2] >= 'a' && w[2] <= 'i' &&
		w[1] >= '0' && w[1] <= '9' && w[3] >= '0' && w[3] <= '9'
}

// cecpParseMove reads a move (ranks 0–9; a pass as @@@@ or the general's
// square twice) legal in g, or says why it is not one.
func cecpParseMove(g *rules.Game, text string) (rules.Move, string) {
	var m rules.Move
	if text == "@@@@" {
		m = rules.PassMove(g.Position().KingSquare(g.Position().SideToMove()))
	} else {
		var err error
		if m, err = rules.ParseMoveText(text, rules.Ranks0); err != nil {
			return rules.NoMove, "unreadable"
		}
	}
	if !g.IsLegal(m) {
		if g.Result().Over() {
			return rules.NoMove, "the game is over"
		}
		if m.IsPass() {
			return rules.NoMove, "no pass here"
		}
		return rules.NoMove, "not legal here"
	}
	return m, ""
}

// cecpAppendMove appends a move as CECP writes it: ranks 0–9, a pass as @@@@ (as
// Fairy-Stockfish sends it).
func cecpAppendMove(b []byte, m rules.Move) []byte {
	if m.IsPass() {
		return append(b, "@@@@"...)
	}
	return m.AppendText(b, rules.Ranks0)
}

// cecpResult is the line that ends a game: "1-0 {Red mates}".
func cecpResult(rs *rules.RuleSet, r rules.Result) string {
	side := [2]string{"Red", "Black"}
	if rs.Game == rules.Janggi {
		side = [2]string{"Cho", "Han"}
	}
	winner, loser := side[0], side[1]
	if r.Outcome == rules.BlackWins {
		winner, loser = loser, winner
	}
	var why string
	label := map[rules.Termination]string{
		rules.Repetition:           "repetition",
		rules.PerpetualCheck:       "perpetual check",
		rules.PerpetualChase:       "perpetual chase",
		rules.DoublePass:           "both sides passing",
		rules.Bikjang:              "bikjang",
		rules.MoveLimit:            "the move limit",
		rules.InsufficientMaterial: "insufficient material",
		rules.NoLegalMoves:         "neither side able to move",
		rules.Shuttle:              "shuttling",
		rules.LengthCap:            "the game length cap",
	}[r.Reason]
	switch {
	case r.Reason == rules.Checkmate:
		why = winner + " mates"
	case r.Reason == rules.Stalemate:
		why = loser + " is stalemated"
	case r.Outcome == rules.Draw:
		why = "Draw by " + label
	case r.Counted:
		why = fmt.Sprintf("%s wins on points, %s %s to %s %s, after %s", winner,
			side[0], strconv.FormatFloat(r.Count[0], 'f', -1, 64), side[1], strconv.FormatFloat(r.Count[1], 'f', -1, 64), label)
	case r.Reason == rules.PerpetualCheck || r.Reason == rules.PerpetualChase || r.Reason == rules.Shuttle:
		why = loser + " loses by " + label
	default:
		why = winner + " wins by " + label
	}
	return r.Score() + " {" + why + "}"
}

// cecpReport writes a search's lines in CECP: thinking output "PLY SCORE
// TIME NODES PV" (centipawns, centiseconds) when posting, and "move M",
// with the result after it when the move ends the game.
type cecpReport struct{ s *cecpSearch }

func (c cecpReport) info(r *mcts.Result, depth, nodes int, elapsed time.Duration) string {
	if !c.s.post || c.s.state.Load() == cecpSent { // no output when searching on after the move
		return silent
	}
	b := fmt.Appendf(make([]byte, 0, 256), "%d %d %d %d", depth, cecpScore(r), elapsed.Milliseconds()/10, nodes)
	for _, m := range r.PV {
		b = cecpAppendMove(append(b, ' '), m)
	}
	return string(b)
}

// cecpScore is the root's value in centipawns, a proven win or loss as
// ±(100000 + moves), XBoard's mate scores.
func cecpScore(r *mcts.Result) int {
	moves := (max(r.ProofPlies, 0) + 1) / 2
	switch r.Proof {
	case mcts.ProvenWin:
		return 100000 + moves
	case mcts.ProvenLoss:
		return -100000 - moves
	case mcts.ProvenDraw:
		return 0
	}
	return ValueToCentipawns(float64(r.Value))
}

func (c cecpReport) over(lost, won bool) string { return "# no legal moves" }

func (c cecpReport) best(m rules.Move) string {
	s := c.s
	if s.analysis || !s.state.CompareAndSwap(cecpSearching, cecpSent) {
		return silent
	}
	s.move = m
	if m == rules.NoMove {
		return "# no move"
	}
	line := "move " + string(cecpAppendMove(nil, m))
	if s.g != nil && s.g.IsLegal(m) {
		s.g.Play(m)
		if r := s.g.Result(); r.Over() {
			line += "\n" + cecpResult(s.g.Rules(), r)
		}
	}
	return line
}

func (c cecpReport) move(b []byte, m rules.Move) []byte { return cecpAppendMove(b, m) }
func (c cecpReport) note(msg string) string             { return "# " + msg }
