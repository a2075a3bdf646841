package engine

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nets"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

// The UCI family: UCI (plain, as Pikafish speaks it, or with
// Fairy-Stockfish's UCI_Variant) and UCCI share their commands and go's
// arguments (uciCommand, parseGo); they differ in the handshake, option
// lines, the default notation, go's time unit and the search's lines.

// uciProtocol is UCI: ranks 0–9, or 1–10 once the client has set
// UCI_Variant; times in milliseconds; scores as "cp" or "mate".
type uciProtocol struct{}

func (uciProtocol) hello(e *Engine)        { identify(e, "option name ", "uciok", false) }
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

func (ucciProtocol) hello(e *Engine)                 { identify(e, "option ", "ucciok", true) }
func (ucciProtocol) offers(o *option) bool           { return o.only == "" || o.only == "ucci" }
func (ucciProtocol) note(msg string) string          { return uciNote(msg) }
func (ucciProtocol) moveBase(*Engine) rules.RankBase { return rules.Ranks0 }

func (ucciProtocol) reporter(e *Engine) reporter {
	return ucciReport{uciReport{base: e.base(), none: "nobestmove"}}
}

func (ucciProtocol) command(e *Engine, c command) bool {
	switch c.name {
	case "banmoves":
		banMoves(e, c.args)
		return false
	case "probe":
		probe(e, c.args)
		return false
	}
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
	case "stop":
		e.stopSearch()
	case "ponderhit": // UCCI may add "draw": palace plays on
		e.ponderHit()
	case "d":
		if e.refused != nil {
			e.note(fmt.Errorf("uci: d: no position: %s", refusal(e.refused)))
			break
		}
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
// protocol offers (under UCCI's names when ucci), each line starting with
// prefix, a note when there is no network, then ok, the line that ends the
// handshake.
func identify(e *Engine, prefix, ok string, ucci bool) {
	e.out.line("id name palace " + e.opts.Version)
	e.out.line("id author the palace authors")
	for i := range options {
		o := &options[i]
		if e.proto.offers(o) {
			def := ""
			if o.def != nil {
				def = o.def(e)
			}
			e.out.line(declareOption(prefix, o.declared(ucci), o, def))
		}
	}
	if note := networkNote(e.network); note != "" {
		e.out.line(e.proto.note(note))
	}
	e.out.line(ok)
}

// networkNote is the handshake's note on the network option's value: none;
// the built-in networks, each named by its file, id and games; or the
// file's network, likewise (as palace net info names a network), or why it
// does not load.
func networkNote(network string) string {
	switch network {
	case "", model.NoNetwork:
		return "uci: no network: searching with uniform priors (plain MCTS); set WeightsFile"
	case model.Builtin:
		return "uci: network: palace's built-in network for the variant (" + builtinNetworks() +
			"); set WeightsFile to a checkpoint, or to none for plain MCTS"
	}
	ck, err := model.LoadPlayable(network)
	if err != nil {
		return "uci: network: " + oneLine(err)
	}
	return "uci: network: " + network + ": " + describeNetwork(ck)
}

// builtinNetworks names the networks palace ships, one per game, read once.
var builtinNetworks = sync.OnceValue(func() string {
	var parts []string
	for _, game := range []string{"xiangqi", "janggi"} {
		name, _, _ := nets.For(game)
		ck, err := model.LoadBuiltin(rules.MustPreset(game))
		if err != nil {
			parts = append(parts, name+": "+oneLine(err))
			continue
		}
		parts = append(parts, name+": "+describeNetwork(ck))
	}
	return strings.Join(parts, "; ")
})

// describeNetwork is "network ID, games G": the id reports and shards
// record, and the games it may play.
func describeNetwork(ck *model.Checkpoint) string {
	games := strings.Join(ck.Games, ", ")
	if games == "" {
		games = "not recorded" // a checkpoint older than the games field
	}
	return "network " + ck.Weights.ID() + ", games " + games
}

// uciNote is both protocols' note: "info string MSG".
func uciNote(msg string) string { return "info string " + msg }

// declareOption is o's handshake line: prefix (UCI's "option name ",
// UCCI's "option "), the name, the type, the default and the range or
// values.
func declareOption(prefix, name string, o *option, def string) string {
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteString(name)
	b.WriteString(" type " + o.kind)
	if o.kind != "button" {
		b.WriteString(" default " + def)
	}
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

// position sets the position from "startpos|fen FEN [moves M...]". A
// position that cannot be applied (a bad FEN, an unreadable or illegal
// move) leaves the engine refusing to search (Engine.refused) until one
// that can. Any position command lifts UCCI's banmoves.
func position(e *Engine, args []string) error {
	e.banned = nil
	g, err := e.parsePosition(args, true)
	if err != nil {
		e.refused = err
		return fmt.Errorf("%w; no move until a position that applies", err)
	}
	e.game, e.refused = g, nil
	return nil
}

// parsePosition reads "startpos|fen FEN [moves M...]" into a game. With
// MoveNotation auto the moves are read in both notations: a list that
// only one reading plays is read so, and with record the engine keeps that
// notation for its own moves (Engine.detected); a list both play is read in
// the notation in force.
func (e *Engine) parsePosition(args []string, record bool) (*rules.Game, error) {
	rs, err := e.ruleSet()
	if err != nil {
		return nil, err
	}
	var fen string
	i := 0
	switch {
	case len(args) == 0:
		return nil, errors.New("uci: position: want startpos or fen FEN")
	case args[0] == "startpos":
		fen, i = rs.StartFEN(), 1
	case args[0] == "fen":
		i = 1
		for i < len(args) && args[i] != "moves" {
			i++
		}
		fen = tolerantFEN(args[1:i])
	default:
		return nil, fmt.Errorf("uci: position: %q: want startpos or fen FEN", args[0])
	}
	if _, err := rules.NewGame(rs, fen); err != nil {
		return nil, fmt.Errorf("uci: position: %w", err)
	}
	var moves []string
	switch {
	case i == len(args):
	case args[i] != "moves":
		return nil, fmt.Errorf("uci: position: %q after the position: want moves", args[i])
	default:
		moves = args[i+1:]
	}
	// UCI2WB, XBoard's adapter, speaks Cyclone's dialect: moves with ranks
	// 0–9 whatever UCI_Variant says, and position commands with a mark of
	// their own: the moves keyword even when no move follows, a FEN of the
	// board and side only. Where the moves do not decide the notation (the
	// engine moves first), that mark does.
	cyclone := e.notation == "auto" && !e.hasDetected &&
		(i < len(args) && len(moves) == 0 || args[0] == "fen" && len(args[1:i]) == 2)
	base := e.base()
	if cyclone {
		base = rules.Ranks0
	}
	g, err := playMoves(rs, fen, moves, base)
	if e.notation != "auto" || len(moves) == 0 {
		if err == nil && cyclone && record {
			e.detected, e.hasDetected = base, true
		}
		return g, err
	}
	other := rules.Ranks1 - base // the other reading
	g2, err2 := playMoves(rs, fen, moves, other)
	switch {
	case err == nil && err2 == nil:
		if cyclone && record {
			e.detected, e.hasDetected = base, true
		}
		return g, nil
	case err == nil:
	case err2 == nil:
		g, err, base = g2, nil, other
	default:
		return nil, err
	}
	if record {
		e.detected, e.hasDetected = base, true
	}
	return g, nil
}

// refusal says why the engine refuses to search: the last position
// command's error.
func refusal(err error) string {
	return "the last position command did not apply (" + strings.TrimPrefix(err.Error(), "uci: position: ") + ")"
}

// playMoves sets up fen and plays moves read with base.
func playMoves(rs *rules.RuleSet, fen string, moves []string, base rules.RankBase) (*rules.Game, error) {
	g, err := rules.NewGame(rs, fen)
	if err != nil {
		return nil, fmt.Errorf("uci: position: %w", err)
	}
	for k, text := range moves {
		if _, err := g.PlayText(text, base); err != nil {
			return nil, fmt.Errorf("uci: position: move %d (%s): %w", k+1, text, err)
		}
	}
	return g, nil
}

// tolerantFEN reads a FEN as GUIs write it (UCI, UCCI and CECP alike),
// its trailing fields shortened or missing: the board, then the side to
// move (w, b, or r for red; w when missing: unlike Fairy-Stockfish, which
// reads both as Black, see the package comment), then what is left of "-
// - HALFMOVE FULLMOVE" with the dashes optional ("w 0 1", "w"), the rest 0
// and 1. Anything else is left for rules.NewGame to report.
func tolerantFEN(f []string) string {
	if len(f) == 0 {
		return ""
	}
	side, rest := "w", f[1:]
	if len(rest) > 0 {
		switch rest[0] {
		case "w", "r":
			rest = rest[1:]
		case "b":
			side, rest = "b", rest[1:]
		default:
			return strings.Join(f, " ")
		}
	}
	var nums []string
	for _, x := range rest {
		if x != "-" {
			nums = append(nums, x)
		}
	}
	if len(nums) > 2 {
		return strings.Join(f, " ")
	}
	half, full := "0", "1"
	if len(nums) > 0 {
		half = nums[0]
	}
	if len(nums) > 1 {
		full = nums[1]
	}
	return strings.Join([]string{f[0], side, "-", "-", half, full}, " ")
}

// goCmd reads go's arguments for the position's side to move and starts
// the search (or perft); bad arguments are reported and the rest used. A
// refused position (see position) answers with why and no move.
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
	if e.refused != nil {
		e.note(fmt.Errorf("uci: go: no position to search: %s", refusal(e.refused)))
		if !l.isPerft {
			e.out.line(e.proto.reporter(e).best(rules.NoMove))
		}
		return
	}
	var ok bool
	if l.root, ok = rootMoves(e, cur, l.searchmoves); !ok {
		e.note(errors.New("uci: go: every legal move is banned (banmoves)"))
		e.out.line(e.proto.reporter(e).best(rules.NoMove))
		return
	}
	e.start(cur, l)
}

// rootMoves are the root moves a search considers: go searchmoves's (the
// illegal ones reported and dropped; none legal: every move) less UCCI's
// banmoves; nil for every move. It reports false when the bans leave no
// legal move.
func rootMoves(e *Engine, cur *rules.Game, searchmoves []string) ([]rules.Move, bool) {
	if cur == nil || len(searchmoves) == 0 && len(e.banned) == 0 {
		return nil, true
	}
	var root []rules.Move
	if len(searchmoves) > 0 {
		root = readMoves(e, cur, "go searchmoves", searchmoves)
		if len(root) == 0 {
			e.note(errors.New("uci: go searchmoves: no legal move given; searching every move"))
		}
	}
	if len(e.banned) == 0 {
		return root, true
	}
	if len(root) == 0 {
		root = cur.LegalMoves(nil)
	}
	root = slices.DeleteFunc(root, func(m rules.Move) bool { return slices.Contains(e.banned, m) })
	return root, len(root) > 0 || len(cur.LegalMoves(nil)) == 0
}

// readMoves reads texts as moves legal in cur, reporting (as what) and
// dropping the others.
func readMoves(e *Engine, cur *rules.Game, what string, texts []string) []rules.Move {
	var moves []rules.Move
	base := e.base()
	for _, text := range texts {
		m, err := rules.ParseMoveText(text, base)
		if err == nil && !cur.IsLegal(m) {
			err = fmt.Errorf("illegal in %s", cur.Position().FEN())
		}
		if err != nil {
			e.note(fmt.Errorf("uci: %s %s: %w; ignored", what, text, err))
			continue
		}
		if !slices.Contains(moves, m) {
			moves = append(moves, m)
		}
	}
	return moves
}

// banMoves is UCCI's "banmoves M...": the moves are not played from the
// position set (until the next position command, or ucinewgame).
func banMoves(e *Engine, args []string) {
	if e.refused != nil {
		e.note(errors.New("uci: banmoves: no position to ban moves in"))
		return
	}
	cur, err := e.current()
	if err != nil {
		e.note(err)
		return
	}
	e.banned = readMoves(e, cur, "banmoves", args)
}

// probe is UCCI's "probe [fen FEN | startpos] [moves M...]" (the position
// set when there are no arguments): "pophash", with what the search tree
// knows of the position when it holds it (see the package comment).
func probe(e *Engine, args []string) {
	var g *rules.Game
	var err error
	if len(args) == 0 {
		if e.refused == nil {
			g, err = e.current()
		}
	} else {
		g, err = e.parsePosition(args, false)
	}
	if err != nil {
		e.note(err)
	}
	line := "pophash"
	if g != nil && e.search != nil && !e.stale && e.idle() {
		if p, ok := e.search.Probe(g); ok {
			line += pophash(&p, e.base())
		}
	}
	e.out.line(line)
}

// pophash is UCCI's pophash fields for a position the tree holds: its
// move, and its value as both bounds (an MCTS mean is an estimate, not a
// bound; a proof is exact), in UCCI's centipawns, at the depth of its
// principal variation.
func pophash(p *mcts.Probed, base rules.RankBase) string {
	var b []byte
	if len(p.PV) > 0 {
		b = append(b, " bestmove "...)
		b = p.PV[0].AppendText(b, base)
	}
	score := ucciScore(&mcts.Result{Value: p.Value, Proof: p.Proof, ProofPlies: p.ProofPlies})
	d := max(len(p.PV), 1)
	b = fmt.Appendf(b, " lowerbound %s depth %d upperbound %s depth %d", score, d, score, d)
	return string(b)
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
			l.mate = num()
		case "searchmoves":
			for i+1 < len(args) && !isGoKey(args[i+1]) {
				i++
				l.searchmoves = append(l.searchmoves, args[i])
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

func (u uciReport) info(r *mcts.Result, depth, nodes int, elapsed time.Duration) string {
	ms := elapsed.Milliseconds()
	b := fmt.Appendf(make([]byte, 0, 256), "info depth %d score %s", depth, uciScore(r))
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

// searchInfo is what the UCI family's info lines say beyond the result.
type searchInfo struct {
	depth    int // the go's depth so far (sequence.depthNow)
	nodes    int
	elapsed  time.Duration
	seldepth int
	hashfull int         // per mille; -1: no cache
	lines    []mcts.Line // MultiPV above 1: the lines to write, ranked; nil: the result's line
}

// fullReporter is a reporter with the UCI family's fuller lines (the job
// uses them when its reporter has them): info lines with seldepth,
// hashfull and MultiPV, and bestmove with the reply the engine expects.
type fullReporter interface {
	infoLines(r *mcts.Result, si *searchInfo) []string
	bestPonder(m, ponder rules.Move) string
}

// infoLines are UCI's "info depth D seldepth S [multipv K] score ...
// [wdl W D L] nodes N nps X [hashfull H] time MS pv M..." lines: one from
// the result, or one per MultiPV line.
func (u uciReport) infoLines(r *mcts.Result, si *searchInfo) []string {
	if si.lines == nil {
		return []string{u.infoLine(0, uciScore(r), r.WDL, r.PV, si)}
	}
	out := make([]string, 0, len(si.lines))
	for k := range si.lines {
		l := &si.lines[k]
		lr := mcts.Result{Value: l.Value, Proof: l.Proof, ProofPlies: l.ProofPlies}
		out = append(out, u.infoLine(k+1, uciScore(&lr), l.WDL, l.PV, si))
	}
	return out
}

func (u uciReport) infoLine(multipv int, score string, wdl [3]float32, pv []rules.Move, si *searchInfo) string {
	ms := si.elapsed.Milliseconds()
	b := fmt.Appendf(make([]byte, 0, 256), "info depth %d seldepth %d", si.depth, max(si.seldepth, si.depth))
	if multipv > 0 {
		b = fmt.Appendf(b, " multipv %d", multipv)
	}
	b = append(b, " score "...)
	b = append(b, score...)
	if u.wdl {
		w, d, l := wdlPermille(&mcts.Result{WDL: wdl})
		b = fmt.Appendf(b, " wdl %d %d %d", w, d, l)
	}
	b = fmt.Appendf(b, " nodes %d nps %d", si.nodes, si.nodes*1000/max(int(ms), 1))
	if si.hashfull >= 0 {
		b = fmt.Appendf(b, " hashfull %d", si.hashfull)
	}
	b = fmt.Appendf(b, " time %d", ms)
	return string(appendPV(b, pv, u.base))
}

// bestPonder is "bestmove M ponder P", or best's line when the reply is
// not known.
func (u uciReport) bestPonder(m, ponder rules.Move) string {
	if m == rules.NoMove || ponder == rules.NoMove {
		return u.best(m)
	}
	return u.best(m) + " ponder " + string(ponder.AppendText(nil, u.base))
}

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

func (u ucciReport) info(r *mcts.Result, depth, nodes int, elapsed time.Duration) string {
	b := fmt.Appendf(make([]byte, 0, 256), "info depth %d score %s nodes %d time %d",
		depth, ucciScore(r), nodes, elapsed.Milliseconds())
	return string(appendPV(b, r.PV, u.base))
}

// infoLines is UCCI's one info line: no seldepth, hashfull or MultiPV.
func (u ucciReport) infoLines(r *mcts.Result, si *searchInfo) []string {
	return []string{u.info(r, si.depth, si.nodes, si.elapsed)}
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
