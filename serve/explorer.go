package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/palace-chess/palace/gib"
	"github.com/palace-chess/palace/notation"
	"github.com/palace-chess/palace/openings"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
)

// defaultExplorerDepth is how many plies of each game the explorer's
// tree follows unless the page asks for another depth.
const defaultExplorerDepth = 30

// explorerQuery is an explorer page's state: the tree's filters and
// where in it the page is. Its URL form is the page's query.
type explorerQuery struct {
	RuleSet, From, To, Generations string
	Depth, MinGames                int
	// FEN and RS are the root chosen (empty: the one with most games),
	// Moves the moves played from it.
	FEN, RS, Moves string
	Notation       string
}

func parseExplorerQuery(q url.Values) (explorerQuery, openings.Filter, error) {
	e := explorerQuery{RuleSet: q.Get("rules"), From: q.Get("from"), To: q.Get("to"), Generations: q.Get("generations"),
		Depth: defaultExplorerDepth, MinGames: 1, FEN: q.Get("fen"), RS: q.Get("rs"), Moves: strings.Join(strings.Fields(q.Get("moves")), " "),
		Notation: q.Get("n")}
	for _, p := range []struct {
		key string
		dst *int
		min int
	}{{"depth", &e.Depth, 0}, {"min", &e.MinGames, 1}} {
		if v := q.Get(p.key); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < p.min {
				return e, openings.Filter{}, fmt.Errorf("serve: %s=%q: want a whole number, %d or more", p.key, v, p.min)
			}
			*p.dst = n
		}
	}
	f := openings.Filter{RuleSet: e.RuleSet, From: e.From, To: e.To, Depth: e.Depth, MinGames: e.MinGames}
	if e.Generations != "" {
		g, err := openings.ParseGenerations(e.Generations)
		if err != nil {
			return e, f, err
		}
		f.Generations = g
	}
	if err := f.Validate(); err != nil {
		return e, f, err
	}
	return e, f, nil
}

// values is the query of e, with the position changed to fen, rs and
// moves.
func (e explorerQuery) values(fen, rs, moves string) url.Values {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("rules", e.RuleSet)
	set("from", e.From)
	set("to", e.To)
	set("generations", e.Generations)
	if e.Depth != defaultExplorerDepth {
		q.Set("depth", strconv.Itoa(e.Depth))
	}
	if e.MinGames != 1 {
		q.Set("min", strconv.Itoa(e.MinGames))
	}
	set("fen", fen)
	set("rs", rs)
	set("moves", moves)
	set("n", e.Notation)
	return q
}

// treeCache keeps the trees built lately: building reads every game, and
// a person clicking down a tree asks for the same one each time. A tree
// is rebuilt when its files change (a run in progress).
type treeCache struct {
	mu      sync.Mutex
	entries []*cachedTree // most recent first
}

type cachedTree struct {
	key  string
	sig  string
	tree *openings.Tree
	// built serializes the building of one key.
	once sync.Once
	err  error
	took time.Duration
}

const treesKept = 4

// signature sums up the files under path: their count, sizes and latest
// modification. A changed games file changes it. The same walk refuses a
// symbolic link, as checkNoLinks does.
func signature(path string) (string, error) {
	var n, size int64
	var latest time.Time
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		if err := linkError(p, d); err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n++
			size += info.Size()
			if info.ModTime().After(latest) {
				latest = info.ModTime()
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d/%d/%d", n, size, latest.UnixNano()), nil
}

// get is the tree of t's games under f, built or kept, and how long its
// building took.
func (c *treeCache) get(t target, f openings.Filter) (*openings.Tree, time.Duration, error) {
	sig, err := signature(t.path)
	if err != nil {
		return nil, 0, err
	}
	gens := ""
	if f.Generations != nil {
		gens = f.Generations.String()
	}
	key := strings.Join([]string{t.path, f.RuleSet, f.From, f.To, gens, strconv.Itoa(f.Depth)}, "\x00")
	c.mu.Lock()
	var e *cachedTree
	for i, x := range c.entries {
		if x.key == key && x.sig == sig {
			e = x
			c.entries = append(append([]*cachedTree{x}, c.entries[:i]...), c.entries[i+1:]...)
			break
		}
	}
	if e == nil {
		e = &cachedTree{key: key, sig: sig}
		c.entries = append([]*cachedTree{e}, c.entries...)
		if len(c.entries) > treesKept {
			c.entries = c.entries[:treesKept]
		}
	}
	c.mu.Unlock()
	e.once.Do(func() {
		build := f
		build.MinGames, build.Position, build.Moves = 0, "", ""
		start := time.Now()
		e.tree, e.err = openings.Build([]string{t.path}, build)
		e.took = time.Since(start)
	})
	if e.err != nil {
		c.mu.Lock()
		for i, x := range c.entries {
			if x == e {
				c.entries = append(c.entries[:i], c.entries[i+1:]...)
				break
			}
		}
		c.mu.Unlock()
	}
	return e.tree, e.took, e.err
}

// explorerPage is what explorer.html shows.
type explorerPage struct {
	Name     string
	Query    explorerQuery
	Action   string
	RuleSets []string
	Games    int
	Skipped  openings.Skipped
	// Roots are the start positions to choose from, when more than one.
	Roots []rootChoice
	// Path is the moves from the root, each linking back to its position.
	Path      []crumb
	Here      *positionView
	Moves     []moveRow
	Notations []string
	Setups    []setupView
	Board     boardData
	Built     string
	// Sources are the files below a directory, each its own explorer:
	// the filter by source file.
	Sources []crumb
}

// maxSources bounds the source files an explorer offers.
const maxSources = 200

// sources lists the games and record files below t (a directory).
func (s *Server) sources(t target) []crumb {
	var out []crumb
	_ = filepath.WalkDir(t.path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(out) >= maxSources {
			return fs.SkipAll
		}
		if !d.Type().IsRegular() {
			return nil
		}
		switch classify(p, false) {
		case kindGames, kindMatch, kindExperiment:
			rel := s.roots[t.root].rel(p)
			out = append(out, crumb{strings.TrimPrefix(strings.TrimPrefix(rel, t.rel), "/"), link("explorer", t.root, rel)})
		}
		return nil
	})
	return out
}

type rootChoice struct {
	Label   string
	Games   int
	URL     string
	Current bool
}

type positionView struct {
	First    string // Red or Cho: whose view White is
	FEN      string
	RuleSet  string
	Setup    string
	Side     string
	Games    int
	Unscored int
	White    stats.WDL
	Bar      wdlBar
	GamesURL string
}

type moveRow struct {
	Text     string
	Move     string
	Count    int
	Share    float64
	WDL      stats.WDL
	Unscored int
	Bar      wdlBar
	Scored   bool
	Score    float64
	Lo, Hi   float64
	DownURL  string
	GamesURL string
}

// wdlBar is a W/D/L split as three widths out of 160 (the page's SVG).
type wdlBar struct{ W, D, L float64 }

func barOf(c stats.WDL) wdlBar {
	n := float64(c.Games())
	if n == 0 {
		return wdlBar{}
	}
	return wdlBar{W: 160 * float64(c.Wins) / n, D: 160 * float64(c.Draws) / n, L: 160 * float64(c.Losses) / n}
}

// boardData is the explorer board's script data: the position and the
// URL each legal move goes down to.
type boardData struct {
	Game  string      `json:"game"`
	Board string      `json:"board"`
	Legal []legalMove `json:"legal"`
}

// legalMove is a legal move as the board's script takes it: its squares
// (none for a pass) and what a click on it does (a URL, or the move to
// send).
type legalMove struct {
	From [2]int `json:"from"`
	To   [2]int `json:"to"`
	URL  string `json:"url"`
	Pass bool   `json:"pass,omitempty"`
}

// legalMoves lists g's legal moves, each with url(m).
func legalMoves(g *rules.Game, url func(rules.Move) string) []legalMove {
	var out []legalMove
	for _, m := range g.LegalMoves(nil) {
		lm := legalMove{URL: url(m), Pass: m.IsPass()}
		if !m.IsPass() {
			lm.From = [2]int{m.From().File(), m.From().Rank()}
			lm.To = [2]int{m.To().File(), m.To().Rank()}
		}
		out = append(out, lm)
	}
	return out
}

func (s *Server) handleExplorer(w http.ResponseWriter, r *http.Request) {
	t, err := s.target(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	q, f, err := parseExplorerQuery(r.URL.Query())
	if err != nil {
		s.fail(w, err)
		return
	}
	start := time.Now()
	tree, took, err := s.trees.get(t, f)
	if err != nil {
		s.fail(w, err)
		return
	}
	p, err := explore(tree, q, link("explorer", t.root, t.rel), link("games", t.root, t.rel))
	if err != nil {
		s.fail(w, err)
		return
	}
	p.Name = s.name(t)
	p.Built = fmt.Sprintf("tree built in %v, page in %v", took.Round(time.Millisecond), time.Since(start).Round(100*time.Microsecond))
	if t.isDir {
		p.Sources = s.sources(t)
	}
	s.render(w, http.StatusOK, "explorer.html", page{Title: "Openings: " + p.Name, Crumbs: s.crumbs(t), Data: p})
}

// explore is the page at q's position of tree; base and gamesBase are
// the URLs of the explorer and the games list over the same target.
func explore(tree *openings.Tree, q explorerQuery, base, gamesBase string) (*explorerPage, error) {
	p := &explorerPage{Query: q, Action: base, RuleSets: tree.RuleSets(), Games: tree.Games(), Skipped: tree.Skipped()}
	if tree.Games() == 0 {
		return p, nil
	}
	// The roots: every start position, most games first.
	starts, err := tree.Explore("", "", q.MinGames)
	if err != nil {
		return nil, err
	}
	if len(starts.Roots) == 0 {
		return p, nil
	}
	fen, rs := q.FEN, q.RS
	if fen == "" {
		root := &starts.Positions[starts.Roots[0]]
		fen, rs = root.FEN, root.RuleSet
	}
	if len(starts.Roots) > 1 {
		// The rule set names a root only where the roots have several.
		ruleSets := map[string]bool{}
		for _, id := range starts.Roots {
			ruleSets[starts.Positions[id].RuleSet] = true
		}
		for _, id := range starts.Roots {
			root := &starts.Positions[id]
			var label []string
			if len(ruleSets) > 1 {
				label = append(label, root.RuleSet)
			}
			if root.Setup != "" {
				label = append(label, root.Setup)
			} else if root.FEN != rules.XiangqiStartFEN {
				label = append(label, root.FEN)
			}
			if len(label) == 0 {
				label = append(label, "the start position")
			}
			p.Roots = append(p.Roots, rootChoice{Label: strings.Join(label, " "), Games: root.Games, URL: base + "?" + q.values(root.FEN, root.RuleSet, "").Encode(),
				Current: root.FEN == fen && root.RuleSet == rs})
		}
	}
	here, err := explorePosition(tree, fen, rs, q)
	if err != nil {
		return nil, err
	}
	rset := tree.RuleSet(here.RuleSet)
	game, err := rules.NewGame(rset, here.FEN)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	p.Notations = notationsOf(rset)
	nt := q.Notation
	if !slices.Contains(p.Notations, nt) {
		nt = p.Notations[0]
		p.Query.Notation = ""
	}
	// The path back up: the root, then each move.
	p.Path = append(p.Path, crumb{"start", base + "?" + q.values(fen, here.RuleSet, "").Encode()})
	if q.Moves != "" {
		pg, err := rules.NewGame(rset, fen)
		if err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
		moves := strings.Fields(q.Moves)
		for i, text := range moves {
			m, err := pg.Position().ParseMove(text, rules.Ranks1)
			if err != nil {
				return nil, fmt.Errorf("serve: moves: %w", err)
			}
			label := moveText(pg, m, nt)
			pg.Play(m)
			p.Path = append(p.Path, crumb{strconv.Itoa(i+1) + ". " + label, base + "?" + q.values(fen, here.RuleSet, strings.Join(moves[:i+1], " ")).Encode()})
		}
	}
	side := "Red"
	if rset.Game == rules.Janggi {
		side = "Cho"
	}
	if here.Side == rules.Black {
		side = map[bool]string{true: "Han", false: "Black"}[rset.Game == rules.Janggi]
	}
	gq := q.values(here.FEN, here.RuleSet, "")
	gq.Del("moves")
	gq.Del("n")
	first := "Red"
	if rset.Game == rules.Janggi {
		first = "Cho"
	}
	p.Here = &positionView{First: first, FEN: here.FEN, RuleSet: here.RuleSet, Setup: here.Setup, Side: side, Games: here.Games, Unscored: here.Unscored,
		White: here.White, Bar: barOf(here.White), GamesURL: gamesBase + "?" + gq.Encode()}
	down := func(m string) string {
		return base + "?" + q.values(fen, here.RuleSet, strings.TrimSpace(q.Moves+" "+m)).Encode()
	}
	for _, ms := range here.Moves {
		m, err := rules.ParseMoveText(ms.Move, rules.Ranks1)
		if err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
		row := moveRow{Text: moveText(game, m, nt), Move: ms.Move, Count: ms.Count, Share: 100 * ms.Share(here), WDL: ms.WDL,
			Unscored: ms.Unscored, Bar: barOf(ms.WDL), DownURL: down(ms.Move)}
		if score, ci, ok := ms.Score(); ok {
			row.Scored, row.Score, row.Lo, row.Hi = true, 100*score, 100*ci.Lo, 100*ci.Hi
		}
		mq := q.values(here.FEN, here.RuleSet, "")
		mq.Del("n")
		mq.Set("move", ms.Move)
		row.GamesURL = gamesBase + "?" + mq.Encode()
		p.Moves = append(p.Moves, row)
	}
	p.Board = boardData{Game: rset.Game.String(), Board: boardString(game.Position())}
	p.Board.Legal = legalMoves(game, func(m rules.Move) string { return down(m.Text(rules.Ranks1)) })
	if rset.Game == rules.Janggi && q.Moves == "" {
		for _, m := range tree.Setups() {
			if m.RuleSet == here.RuleSet {
				p.Setups = append(p.Setups, setupMatrixView(m))
			}
		}
	}
	return p, nil
}

// explorePosition is the tree's position after q's moves from fen under
// rule set rs, with its moves; a position no game reached (a legal move
// clicked on the board that none played) is shown with none.
func explorePosition(tree *openings.Tree, fen, rs string, q explorerQuery) (*openings.Position, error) {
	v, err := tree.Explore(fen, q.Moves, q.MinGames)
	if err == nil {
		for _, id := range v.Roots {
			if pos := &v.Positions[id]; rs == "" || pos.RuleSet == rs {
				return pos, nil
			}
		}
	}
	if err != nil && !errors.Is(err, openings.ErrNotReached) {
		return nil, err
	}
	rset := tree.RuleSet(rs)
	if rset == nil {
		return nil, fmt.Errorf("serve: no game of rule set %q reached that position", rs)
	}
	g, err := rules.NewGame(rset, fen)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	for i, text := range strings.Fields(q.Moves) {
		m, err := g.Position().ParseMove(text, rules.Ranks1)
		if err != nil || !g.IsLegal(m) {
			return nil, fmt.Errorf("serve: moves: move %d (%s) is not legal", i+1, text)
		}
		g.Play(m)
	}
	return &openings.Position{RuleSet: rs, Game: rset.Game, FEN: g.Position().FEN(), Side: g.Position().SideToMove(), Ply: g.Ply()}, nil
}

// moveText is m, a legal move of g's position, in notation nt.
func moveText(g *rules.Game, m rules.Move, nt string) string {
	switch nt {
	case "wxf":
		return string(notation.AppendWXF(nil, g, m))
	case "chinese":
		return string(notation.AppendChinese(nil, g, m, false))
	case "janggi":
		return string(gib.AppendMove(nil, g, m))
	}
	return string(notation.AppendICCS(nil, m))
}

// setupView is janggi's setup matrix as the page draws it: a heat map
// of Cho's score by Cho's setup (rows) and Han's (columns), with totals.
type setupView struct {
	RuleSet string
	Cells   []heatCell
	Labels  []heatLabel
	Width   int
	Height  int
	Other   int
	Games   int
}

type heatCell struct {
	X, Y   int
	Fill   string
	Games  int
	Scored bool
	Score  string // Cho's, in percent
	CI     string
}

type heatLabel struct {
	X, Y   int
	Text   string
	Anchor string
}

const (
	heatW, heatH      = 116, 52
	heatLeft, heatTop = 130, 40
)

func setupMatrixView(m *openings.SetupMatrix) setupView {
	v := setupView{RuleSet: m.RuleSet, Other: m.Other, Games: m.Total().Games, Width: heatLeft + 5*heatW + 10, Height: heatTop + 5*heatH + 10}
	setups := []rules.JanggiSetup{rules.MaSangSangMa, rules.MaSangMaSang, rules.SangMaSangMa, rules.SangMaMaSang}
	cell := func(row, col int, c openings.Cell) {
		h := heatCell{X: heatLeft + col*heatW, Y: heatTop + row*heatH, Games: c.Games, Fill: "#f4f4f4"}
		if score, ci, ok := c.Score(); ok {
			h.Scored = true
			h.Score = strconv.FormatFloat(100*score, 'f', 1, 64) + "%"
			h.CI = "[" + strconv.FormatFloat(100*ci.Lo, 'f', 0, 64) + ", " + strconv.FormatFloat(100*ci.Hi, 'f', 0, 64) + "]"
			h.Fill = heatFill(score)
		}
		v.Cells = append(v.Cells, h)
	}
	for i, cho := range setups {
		v.Labels = append(v.Labels, heatLabel{X: heatLeft - 8, Y: heatTop + i*heatH + heatH/2 + 4, Text: cho.String(), Anchor: "end"})
		v.Labels = append(v.Labels, heatLabel{X: heatLeft + i*heatW + heatW/2, Y: heatTop - 8, Text: setups[i].String(), Anchor: "middle"})
		for j := range setups {
			cell(i, j, m.Cells[cho][setups[j]])
		}
		cell(i, 4, m.Cho(cho))
		cell(4, i, m.Han(setups[i]))
	}
	cell(4, 4, m.Total())
	v.Labels = append(v.Labels, heatLabel{X: heatLeft - 8, Y: heatTop + 4*heatH + heatH/2 + 4, Text: "all Cho", Anchor: "end"},
		heatLabel{X: heatLeft + 4*heatW + heatW/2, Y: heatTop - 8, Text: "all Han", Anchor: "middle"},
		heatLabel{X: 4, Y: 14, Text: "Cho's setup ↓  Han's setup →", Anchor: "start"})
	return v
}

// heatFill colours Cho's score: green above one half, red below, white
// at it.
func heatFill(score float64) string {
	t := min(1, 2*math.Abs(score-0.5))
	base := [3]float64{28, 122, 50}
	if score < 0.5 {
		base = [3]float64{179, 19, 27}
	}
	c := func(x float64) int { return int(255 + (x-255)*t*0.75) }
	return fmt.Sprintf("rgb(%d,%d,%d)", c(base[0]), c(base[1]), c(base[2]))
}
