package serve

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/gib"
	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/notation"
	"github.com/palace-chess/palace/pgn"
	"github.com/palace-chess/palace/rules"
)

// Play sessions: a person against a network, palace's rules on the
// server. Each session holds its game, search and network in memory;
// there are at most Options.MaxSessions, and a finished one, or one idle
// for sessionIdle, is dropped to make room.
const (
	sessionIdle = 30 * time.Minute
	// maxVisits and maxMoveTime bound what one request may ask the
	// server's cores for.
	maxVisits   = 100000
	maxMoveTime = 60 * time.Second
	// maxPlayPlies ends a play game that goes on past any rule's limit.
	maxPlayPlies = 1000
)

type playSessions struct {
	mu   sync.Mutex
	byID map[string]*session
}

type session struct {
	mu       sync.Mutex
	id       string
	rs       *rules.RuleSet
	game     *rules.Game
	human    rules.Color
	search   *mcts.Search
	visits   int
	moveTime time.Duration
	// clock is each side's time left when the game has a clock (White's
	// first), inc the increment a move; turn is when the side to move's
	// clock started.
	clock     *[2]time.Duration
	inc       time.Duration
	clockBase time.Duration
	turn      time.Time
	flagged   *rules.Color
	netName   string
	lastUsed  time.Time
	// engine is what the last search said.
	engine *engineView
	// resigned is who resigned, if anyone did.
	resigned *rules.Color
	started  time.Time
}

// playRequest starts a session.
type playRequest struct {
	Rules string `json:"rules"`
	// Net is "builtin", "none" (the uniform search) or a network file
	// under a served path as root/rel ("0/nets/gen-0004.palnet").
	Net        string `json:"net"`
	Side       string `json:"side"` // white, black
	Visits     int    `json:"visits"`
	MoveTimeMS int    `json:"move_time_ms"`
	// ClockSeconds, when set, gives both sides a clock of that many
	// seconds with IncrementSeconds added after each move: the engine
	// spends its own, and a side whose clock runs out loses.
	ClockSeconds     float64 `json:"clock_seconds"`
	IncrementSeconds float64 `json:"increment_seconds"`
	FEN              string  `json:"fen,omitempty"`
}

// playState is what the page draws after each move.
type playState struct {
	ID        string      `json:"id"`
	Game      string      `json:"game"`
	RuleSet   string      `json:"rule_set"`
	Network   string      `json:"network"`
	Human     string      `json:"human"` // white or black
	ToMove    string      `json:"to_move"`
	Board     string      `json:"board"`
	Legal     []legalMove `json:"legal"`
	Moves     []plyView   `json:"moves"`
	Notations []string    `json:"notations"`
	Over      bool        `json:"over"`
	Result    string      `json:"result,omitempty"`
	Reason    string      `json:"reason,omitempty"`
	Count     *[2]float64 `json:"count,omitempty"`
	InCheck   bool        `json:"in_check,omitempty"`
	Engine    *engineView `json:"engine,omitempty"`
	Budget    string      `json:"budget"`
	// ClockMS is each side's time left (White's first) when the game has
	// a clock.
	ClockMS *[2]int64 `json:"clock_ms,omitempty"`
}

type engineView struct {
	// Move and PV are in ICCS.
	Move   string  `json:"move"`
	Value  float32 `json:"value"` // to the engine
	Visits int     `json:"visits"`
	PV     string  `json:"pv"`
}

func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// wantJSON refuses a request whose body is not JSON: a page elsewhere can
// post a form to a loopback server, not JSON without the browser asking.
func wantJSON(r *http.Request) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return errors.New("serve: want a JSON body (Content-Type: application/json)")
	}
	return nil
}

func (s *Server) handlePlayPage(w http.ResponseWriter, r *http.Request) {
	data := struct {
		Presets  []string
		Networks []crumb
		Net      string
		Visits   int
	}{Presets: rules.PresetNames(), Networks: s.networks(), Net: "builtin", Visits: 800}
	if root, rel := r.URL.Query().Get("root"), r.URL.Query().Get("path"); root != "" {
		data.Net = root + "/" + rel
	}
	s.render(w, http.StatusOK, "play.html", page{Title: "Play palace", Data: data})
}

// maxNetworksListed bounds the networks the play page offers.
const maxNetworksListed = 200

// networks are the network files under the served paths (no link
// followed), as root/rel with a readable name.
func (s *Server) networks() []crumb {
	var out []crumb
	for i, rt := range s.roots {
		if !rt.dir {
			if strings.HasSuffix(rt.abs, ".palnet") {
				out = append(out, crumb{rt.given, strconv.Itoa(i) + "/"})
			}
			continue
		}
		_ = filepath.WalkDir(rt.abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil || len(out) >= maxNetworksListed {
				return fs.SkipDir
			}
			if d.Type().IsRegular() && strings.HasSuffix(p, ".palnet") {
				rel := rt.rel(p)
				out = append(out, crumb{strings.TrimSuffix(rt.given, "/") + "/" + rel, strconv.Itoa(i) + "/" + rel})
			}
			return nil
		})
	}
	return out
}

func (s *Server) handlePlayStart(w http.ResponseWriter, r *http.Request) {
	if err := wantJSON(r); err != nil {
		s.failJSON(w, err)
		return
	}
	var req playRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.failJSON(w, fmt.Errorf("serve: play: %w", err))
		return
	}
	ss, err := s.newSession(req)
	if err != nil {
		s.failJSON(w, err)
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	// The engine moves first when the person took Black.
	if ss.game.Position().SideToMove() != ss.human {
		if err := ss.engineMove(); err != nil {
			s.failJSON(w, err)
			return
		}
	}
	s.writeJSON(w, ss.state())
}

func (s *Server) newSession(req playRequest) (*session, error) {
	rs, err := rules.Preset(req.Rules)
	if err != nil {
		return nil, fmt.Errorf("serve: play: %w", err)
	}
	if req.Visits < 0 || req.Visits > maxVisits {
		return nil, fmt.Errorf("serve: play: visits %d: want 1 to %d", req.Visits, maxVisits)
	}
	moveTime := time.Duration(req.MoveTimeMS) * time.Millisecond
	if req.MoveTimeMS < 0 || moveTime > maxMoveTime {
		return nil, fmt.Errorf("serve: play: move time %d ms: want 0 to %d", req.MoveTimeMS, maxMoveTime.Milliseconds())
	}
	if req.ClockSeconds < 0 || req.ClockSeconds > 6*3600 || req.IncrementSeconds < 0 || req.IncrementSeconds > 600 {
		return nil, fmt.Errorf("serve: play: clock %g s + %g s: want up to 6 hours and an increment up to 10 minutes", req.ClockSeconds, req.IncrementSeconds)
	}
	if req.ClockSeconds > 0 && moveTime > 0 {
		return nil, errors.New("serve: play: a clock or seconds a move, not both")
	}
	if req.Visits == 0 && moveTime == 0 && req.ClockSeconds == 0 {
		req.Visits = 800
	}
	human := rules.White
	switch req.Side {
	case "", "white":
	case "black":
		human = rules.Black
	default:
		return nil, fmt.Errorf("serve: play: side %q: want white or black", req.Side)
	}
	fen := rs.StartFEN()
	if req.FEN != "" {
		fen = req.FEN
	}
	game, err := rules.NewGame(rs, fen)
	if err != nil {
		return nil, fmt.Errorf("serve: play: %w", err)
	}
	file, name, err := s.networkFile(req.Net)
	if err != nil {
		return nil, err
	}
	// Room first: a network is not loaded for a session that cannot be held.
	ss := &session{id: newSessionID(), rs: rs, game: game, human: human, visits: req.Visits, moveTime: moveTime,
		netName: name, lastUsed: time.Now(), started: time.Now(), turn: time.Now()}
	if req.ClockSeconds > 0 {
		base := time.Duration(req.ClockSeconds * float64(time.Second))
		ss.clock = &[2]time.Duration{base, base}
		ss.clockBase = base
		ss.inc = time.Duration(req.IncrementSeconds * float64(time.Second))
	}
	if err := s.sessions.add(ss, s.opt.MaxSessions); err != nil {
		return nil, err
	}
	ev, _, err := model.OpenEvaluator(file, rs, 1)
	if err != nil {
		s.sessions.remove(ss.id)
		return nil, fmt.Errorf("serve: play: network %s: %w", name, err)
	}
	p := mcts.PlayParams(max(req.Visits, 1))
	if (moveTime > 0 || ss.clock != nil) && req.Visits == 0 {
		p.Simulations = maxVisits
	}
	p.Seed = 1
	search, err := mcts.New(p, ev)
	if err != nil {
		s.sessions.remove(ss.id)
		return nil, fmt.Errorf("serve: play: %w", err)
	}
	ss.search = search
	ss.turn = time.Now() // the clock starts once the network is loaded
	return ss, nil
}

// networkFile resolves a play request's network: builtin, none, or a
// file under a served path (root/rel), never one outside.
func (s *Server) networkFile(net string) (file, name string, err error) {
	switch net {
	case "", model.Builtin:
		return model.Builtin, "the shipped network", nil
	case model.NoNetwork:
		return model.NoNetwork, "no network (uniform search)", nil
	}
	rootText, rel, _ := strings.Cut(net, "/")
	i, err := strconv.Atoi(rootText)
	if err != nil || i < 0 || i >= len(s.roots) || !strings.HasSuffix(net, ".palnet") && rel != "" {
		return "", "", fmt.Errorf("serve: play: network %q: want builtin, none or one the page lists", net)
	}
	p, err := s.roots[i].resolve(rel)
	if err != nil {
		return "", "", fmt.Errorf("serve: play: network %q: %w", net, err)
	}
	if !strings.HasSuffix(p, ".palnet") {
		return "", "", fmt.Errorf("serve: play: network %q: want a .palnet file", net)
	}
	return p, strings.TrimSuffix(s.roots[i].given, "/") + "/" + rel, nil
}

func (ps *playSessions) add(ss *session, most int) error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.byID == nil {
		ps.byID = map[string]*session{}
	}
	if len(ps.byID) >= most {
		// Make room: finished games first, then those idle longest past
		// the idle time.
		var spare []*session
		for _, x := range ps.byID {
			if x.mu.TryLock() {
				if x.over() || time.Since(x.lastUsed) > sessionIdle {
					spare = append(spare, x)
				}
				x.mu.Unlock()
			}
		}
		sort.Slice(spare, func(i, j int) bool {
			if oi, oj := spare[i].over(), spare[j].over(); oi != oj {
				return oi
			}
			return spare[i].lastUsed.Before(spare[j].lastUsed)
		})
		for _, x := range spare {
			if len(ps.byID) < most {
				break
			}
			delete(ps.byID, x.id)
		}
	}
	if len(ps.byID) >= most {
		return fmt.Errorf("serve: play: %d games are going on, the most this server holds (--max-sessions); finish one, or wait %v for an idle one to end", most, sessionIdle)
	}
	ps.byID[ss.id] = ss
	return nil
}

func (ps *playSessions) get(id string) (*session, bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ss, ok := ps.byID[id]
	return ss, ok
}

func (ps *playSessions) remove(id string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	delete(ps.byID, id)
}

// playMove is a move request: a move in any notation the page offers
// (ICCS or palace's text), "pass", or "resign".
type playMove struct {
	Move string `json:"move"`
}

func (s *Server) session(w http.ResponseWriter, r *http.Request) (*session, bool) {
	ss, ok := s.sessions.get(r.PathValue("id"))
	if !ok {
		s.failJSON(w, fmt.Errorf("serve: play: no game %q here (it ended after %v idle, or the server restarted)", r.PathValue("id"), sessionIdle))
		return nil, false
	}
	return ss, true
}

func (s *Server) handlePlayMove(w http.ResponseWriter, r *http.Request) {
	if err := wantJSON(r); err != nil {
		s.failJSON(w, err)
		return
	}
	ss, ok := s.session(w, r)
	if !ok {
		return
	}
	var req playMove
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.failJSON(w, fmt.Errorf("serve: play: %w", err))
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.lastUsed = time.Now()
	if ss.over() {
		s.failJSON(w, errors.New("serve: play: the game is over"))
		return
	}
	if ss.game.Position().SideToMove() != ss.human {
		s.failJSON(w, errors.New("serve: play: it is not your move"))
		return
	}
	if req.Move == "resign" {
		c := ss.human
		ss.resigned = &c
		s.writeJSON(w, ss.state())
		return
	}
	m, err := ss.parseMove(req.Move)
	if err != nil {
		s.failJSON(w, err)
		return
	}
	if !ss.charge() {
		s.writeJSON(w, ss.state())
		return
	}
	ss.game.Play(m)
	if !ss.over() {
		if err := ss.engineMove(); err != nil {
			s.failJSON(w, err)
			return
		}
	}
	s.writeJSON(w, ss.state())
}

// parseMove reads a person's move: palace's text (h3e3, ranks 1–10) or
// "pass", which must be legal in the game as it stands (its history
// included: repetitions, passes).
func (ss *session) parseMove(text string) (rules.Move, error) {
	text = strings.TrimSpace(text)
	var m rules.Move
	if text == "pass" {
		for _, lm := range ss.game.LegalMoves(nil) {
			if lm.IsPass() {
				return lm, nil
			}
		}
		return rules.NoMove, errors.New("serve: play: a pass is not legal here")
	}
	m, err := rules.ParseMoveText(text, rules.Ranks1)
	if err != nil {
		return rules.NoMove, fmt.Errorf("serve: play: move %q: %w", text, err)
	}
	if !ss.game.IsLegal(m) {
		return rules.NoMove, fmt.Errorf("serve: play: move %q is not legal here", text)
	}
	return m, nil
}

// charge takes the time since the side to move's clock started off its
// clock, adds the increment and starts the other side's; false when the
// clock ran out first (the side lost on time).
func (ss *session) charge() bool {
	now := time.Now()
	side := ss.game.Position().SideToMove()
	if ss.clock != nil {
		ss.clock[side] -= now.Sub(ss.turn)
		if ss.clock[side] < 0 {
			ss.clock[side] = 0
			ss.flagged = &side
			return false
		}
		ss.clock[side] += ss.inc
	}
	ss.turn = now
	return true
}

// engineShare is the part of its time left the engine spends on a move
// (besides most of its increment).
const engineShare = 25

// engineMove searches and plays the engine's move.
func (ss *session) engineMove() error {
	var res mcts.Result
	o := mcts.RunOptions{}
	if ss.moveTime > 0 {
		o.Deadline = time.Now().Add(ss.moveTime)
	}
	if ss.clock != nil {
		left := ss.clock[ss.game.Position().SideToMove()]
		spend := min(left/engineShare+ss.inc*3/4, left*3/4, maxMoveTime)
		o.Deadline = time.Now().Add(spend)
	}
	if err := ss.search.RunWith(ss.game, o, &res); err != nil {
		return fmt.Errorf("serve: play: the engine's search: %w", err)
	}
	// ICCS, whatever the page's notation: a line of moves ahead cannot
	// be written in notations that read the position without playing it.
	var pv []string
	for _, m := range res.PV {
		pv = append(pv, string(notation.AppendICCS(nil, m)))
	}
	ss.engine = &engineView{Move: string(notation.AppendICCS(nil, res.Best)), Value: res.Value, Visits: res.Simulations, PV: strings.Join(pv, " ")}
	if !ss.charge() {
		return nil // the engine's own flag fell: it loses on time
	}
	ss.game.Play(res.Best)
	return nil
}

func (ss *session) over() bool {
	return ss.resigned != nil || ss.flagged != nil || ss.game.Result().Over() || ss.game.Ply() >= maxPlayPlies
}

func (ss *session) state() playState {
	st := playState{ID: ss.id, Game: ss.rs.Game.String(), RuleSet: ss.rs.String(), Network: ss.netName,
		Human: colorName(ss.human), ToMove: colorName(ss.game.Position().SideToMove()), Board: boardString(ss.game.Position()),
		Engine: ss.engine, InCheck: ss.game.InCheck()}
	if ss.clock != nil {
		st.ClockMS = &[2]int64{ss.clock[0].Milliseconds(), ss.clock[1].Milliseconds()}
		if !ss.over() {
			// The side to move's clock runs from ss.turn.
			st.ClockMS[ss.game.Position().SideToMove()] -= time.Since(ss.turn).Milliseconds()
		}
	}
	switch {
	case ss.clock != nil:
		st.Budget = fmt.Sprintf("a clock of %v + %v a move", ss.clockBase, ss.inc)
	case ss.visits > 0 && ss.moveTime > 0:
		st.Budget = fmt.Sprintf("%d visits or %v a move", ss.visits, ss.moveTime)
	case ss.moveTime > 0:
		st.Budget = fmt.Sprintf("%v a move", ss.moveTime)
	default:
		st.Budget = fmt.Sprintf("%d visits a move", ss.visits)
	}
	rec := ss.record()
	v, err := viewGame(&rec, ss.rs)
	if err == nil {
		st.Moves, st.Notations = v.Moves, v.Notations
	}
	st.Over = ss.over()
	if st.Over {
		st.Result, st.Reason = rec.Result, rec.Reason
		st.Count = rec.Count
	} else if ss.game.Position().SideToMove() == ss.human {
		st.Legal = legalMoves(ss.game, func(m rules.Move) string {
			if m.IsPass() {
				return "pass"
			}
			return m.Text(rules.Ranks1)
		})
	}
	return st
}

func colorName(c rules.Color) string {
	if c == rules.Black {
		return "black"
	}
	return "white"
}

// record is the session's game as a games file holds it.
func (ss *session) record() gamerec.Game {
	g := gamerec.Game{RuleSet: ss.rs.String(), Line: gamerec.LineOf(ss.game), Plies: ss.game.Ply(), Date: ss.started.UTC().Format("2006.01.02")}
	if cho, han, ok := rules.JanggiSetupsOf(g.StartFEN); ok && ss.rs.Game == rules.Janggi {
		g.Setup = cho.String() + "," + han.String()
	}
	person, engine := "you", "palace ("+ss.netName+")"
	g.White, g.Black = person, engine
	if ss.human == rules.Black {
		g.White, g.Black = engine, person
	}
	r := ss.game.Result()
	switch {
	case ss.resigned != nil:
		g.Result, g.Reason = gamerec.WhiteWins, gamerec.ReasonResignation
		if *ss.resigned == rules.White {
			g.Result = gamerec.BlackWins
		}
	case ss.flagged != nil:
		g.Result, g.Reason = gamerec.WhiteWins, gamerec.ReasonTime
		if *ss.flagged == rules.White {
			g.Result = gamerec.BlackWins
		}
	case r.Over():
		g.End = gamerec.EndOf(r)
		if r.Counted {
			count := r.Count
			g.Count = &count
		}
	default:
		g.Result, g.Reason = gamerec.Unknown, gamerec.ReasonUnfinished
	}
	return g
}

// handlePlayState is a game's state as it stands: the page takes a game
// up again after a reload (its address keeps the game's id).
func (s *Server) handlePlayState(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.session(w, r)
	if !ok {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.lastUsed = time.Now()
	s.writeJSON(w, ss.state())
}

// handlePlaySave sends the game as PGN or .gib.
func (s *Server) handlePlaySave(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.session(w, r)
	if !ok {
		return
	}
	ss.mu.Lock()
	rec := ss.record()
	rs := ss.rs
	ss.mu.Unlock()
	var buf bytes.Buffer
	var err error
	name := "palace-" + rec.Date + "-" + ss.id[:8]
	rulesOf := func(*gamerec.Game) *rules.RuleSet { return rs }
	switch r.PathValue("format") {
	case "pgn":
		err = pgn.Write(&buf, []gamerec.Game{rec}, rulesOf)
		name += ".pgn"
	case "gib":
		err = gib.Write(&buf, []gamerec.Game{rec}, rulesOf)
		name += ".gib"
	default:
		s.failJSON(w, fmt.Errorf("serve: play: format %q: want pgn or gib", r.PathValue("format")))
		return
	}
	if err != nil {
		s.failJSON(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	_, _ = w.Write(buf.Bytes())
}
