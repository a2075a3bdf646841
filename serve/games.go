package serve

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/openings"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/rundir"
)

// gamesPerPage is the length of a games list's page.
const gamesPerPage = 100

// gameRow is a game in a list.
type gameRow struct {
	N          int // 1-based, in Collect's order: the viewer's ?i=
	Where      string
	White      string
	Black      string
	Date       string
	RuleSet    string
	Setup      string
	Result     string
	Reason     string
	Plies      int
	Generation string
	URL        string
}

type gamesPage struct {
	Name       string
	Filtered   string
	Rows       []gameRow
	Total      int
	Page, Last int
	Prev, Next string
}

// collect reads the games at t (a file or a directory) in Collect's
// order. A directory holding a symbolic link is refused: Collect would
// follow it out of the served tree.
func collect(t target, fn func(n int, g *gamerec.Game, rs *rules.RuleSet) error) error {
	if t.isDir {
		if err := checkNoLinks(t.path); err != nil {
			return err
		}
	}
	n := 0
	return rundir.Collect([]string{t.path}, func(g *gamerec.Game, rs *rules.RuleSet) error {
		n++
		return fn(n, g, rs)
	})
}

func (s *Server) handleGames(w http.ResponseWriter, r *http.Request) {
	t, err := s.target(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	pageNo := 1
	if q := r.URL.Query().Get("page"); q != "" {
		if pageNo, err = strconv.Atoi(q); err != nil || pageNo < 1 {
			s.fail(w, fmt.Errorf("serve: page %q: want a page number, 1 or more", q))
			return
		}
	}
	p := gamesPage{Name: s.name(t), Page: pageNo}
	// From the explorer: the games its counts at a position (and move)
	// are of, under its filters.
	var match *openings.Matcher
	if at := r.URL.Query().Get("fen"); at != "" {
		_, f, err := parseExplorerQuery(r.URL.Query())
		if err != nil {
			s.fail(w, err)
			return
		}
		if match, err = f.Matcher(r.URL.Query().Get("rs"), at, r.URL.Query().Get("move")); err != nil {
			s.fail(w, err)
			return
		}
		p.Filtered = "the games that reached " + at
		if mv := r.URL.Query().Get("move"); mv != "" {
			p.Filtered += " and played " + mv + " there"
		}
	}
	first, last := (pageNo-1)*gamesPerPage+1, pageNo*gamesPerPage
	shown := 0
	err = collect(t, func(n int, g *gamerec.Game, rs *rules.RuleSet) error {
		if match != nil {
			ok, err := match.Match(g, rs)
			if err != nil || !ok {
				return err
			}
		}
		shown++
		p.Total = shown
		if shown < first || shown > last {
			return nil
		}
		row := gameRow{N: n, Where: g.Where(), White: g.White, Black: g.Black, Date: g.Date, RuleSet: g.RuleSet,
			Setup: g.Setup, Result: g.Result, Reason: g.Reason, Plies: g.Plies, URL: link("game", t.root, t.rel) + "?i=" + strconv.Itoa(n)}
		if g.Generation != nil {
			row.Generation = strconv.Itoa(*g.Generation)
		}
		p.Rows = append(p.Rows, row)
		return nil
	})
	if err != nil {
		s.fail(w, err)
		return
	}
	p.Last = max(1, (p.Total+gamesPerPage-1)/gamesPerPage)
	pageURL := func(n int) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(n))
		return link("games", t.root, t.rel) + "?" + q.Encode()
	}
	if pageNo > 1 {
		p.Prev = pageURL(pageNo - 1)
	}
	if pageNo < p.Last {
		p.Next = pageURL(pageNo + 1)
	}
	s.render(w, http.StatusOK, "games.html", page{Title: "Games: " + p.Name, Crumbs: s.crumbs(t), Data: p})
}

// gameView is what the viewer's script draws: the boards after each ply
// and each move in every notation of its game.
type gameView struct {
	Game    string `json:"game"` // xiangqi or janggi: the board's drawing
	RuleSet string `json:"rule_set"`
	Where   string `json:"where"`
	White   string `json:"white"`
	Black   string `json:"black"`
	Date    string `json:"date,omitempty"`
	Setup   string `json:"setup,omitempty"`
	Result  string `json:"result"`
	Reason  string `json:"reason"`
	Network string `json:"network,omitempty"`
	Gen     *int   `json:"generation,omitempty"`
	// Boards[k] is the board before ply k+1 (Boards[len(Moves)] the last):
	// 90 FEN letters or '.', rank 10 first, files a to i.
	Boards []string  `json:"boards"`
	Moves  []plyView `json:"moves"`
	// Notations are the keys of plyView.Text this game has, the first
	// the default.
	Notations []string `json:"notations"`
}

// plyView is one move: its squares on the drawn board (file, rank from
// the bottom; a pass has none), its text per notation, and what the
// search or engine said of the position it was played from.
type plyView struct {
	From  [2]int `json:"from"`
	To    [2]int `json:"to"`
	Pass  bool   `json:"pass,omitempty"`
	Check bool   `json:"check,omitempty"`
	// Black says Black (Han) made the move: the list's second column.
	Black bool              `json:"black,omitempty"`
	Text  map[string]string `json:"text"`
	Score string            `json:"score,omitempty"`
	// Value is the self-play search's root value to the mover ([-1, 1])
	// and Visits its most visited moves with their share, where the
	// game's shard kept them.
	Value  *float32    `json:"value,omitempty"`
	Visits []moveShare `json:"visits,omitempty"`
	Full   bool        `json:"full,omitempty"`
}

type moveShare struct {
	Move  string  `json:"move"`
	Share float32 `json:"share"`
}

// errFound stops a walk at the game wanted.
var errFound = errors.New("found")

func (s *Server) handleGame(w http.ResponseWriter, r *http.Request) {
	t, err := s.target(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	i, err := strconv.Atoi(r.URL.Query().Get("i"))
	if err != nil || i < 1 {
		s.fail(w, fmt.Errorf("serve: game %q: want ?i= a game's number, 1 or more", r.URL.Query().Get("i")))
		return
	}
	var v *gameView
	err = collect(t, func(n int, g *gamerec.Game, rs *rules.RuleSet) error {
		if n < i {
			return nil
		}
		view, err := viewGame(g, rs)
		if err != nil {
			return err
		}
		if shard, ok := shardOf(t, g); ok {
			if err := addSearch(view, g, shard); err != nil {
				return err
			}
		}
		v = view
		return errFound
	})
	if err != nil && !errors.Is(err, errFound) {
		s.fail(w, err)
		return
	}
	if v == nil {
		s.fail(w, fmt.Errorf("serve: %s holds no game %d", s.name(t), i))
		return
	}
	data := struct {
		View       *gameView
		Name       string
		Prev, Next string
		N          int
	}{View: v, Name: s.name(t), N: i, Next: link("game", t.root, t.rel) + "?i=" + strconv.Itoa(i+1)}
	if i > 1 {
		data.Prev = link("game", t.root, t.rel) + "?i=" + strconv.Itoa(i-1)
	}
	s.render(w, http.StatusOK, "game.html", page{Title: "Game " + strconv.Itoa(i) + ": " + v.Where, Crumbs: s.crumbs(t), Data: data})
}

// viewGame replays g move by move, writing each board and each move's
// notations.
func viewGame(g *gamerec.Game, rs *rules.RuleSet) (*gameView, error) {
	game, err := rules.NewGame(rs, g.StartFEN)
	if err != nil {
		return nil, fmt.Errorf("serve: %s: %w", g.Where(), err)
	}
	v := &gameView{Game: rs.Game.String(), RuleSet: g.RuleSet, Where: g.Where(), White: g.White, Black: g.Black, Date: g.Date,
		Setup: g.Setup, Result: g.Result, Reason: g.Reason, Network: g.Network, Gen: g.Generation}
	v.Notations = notationsOf(rs)
	moves := g.MoveList()
	for k, text := range moves {
		v.Boards = append(v.Boards, boardString(game.Position()))
		m, err := rules.ParseMoveText(text, rules.Ranks1)
		if err != nil || !game.IsLegal(m) {
			return nil, fmt.Errorf("serve: %s: ply %d %q is not a legal move", g.Where(), k+1, text)
		}
		p := plyView{Pass: m.IsPass(), Check: game.GivesCheck(m), Black: game.Position().SideToMove() == rules.Black, Text: map[string]string{}}
		if !m.IsPass() {
			p.From = [2]int{m.From().File(), m.From().Rank()}
			p.To = [2]int{m.To().File(), m.To().Rank()}
		}
		for _, nt := range v.Notations {
			p.Text[nt] = moveText(game, m, nt)
		}
		if k < len(g.Scores) && g.Scores[k].Given() {
			p.Score = g.Scores[k].String()
		}
		v.Moves = append(v.Moves, p)
		game.Play(m)
	}
	v.Boards = append(v.Boards, boardString(game.Position()))
	return v, nil
}

// notationsOf are the notations a game of rs is shown in, the default
// first: janggi's numeric one, WXF for xiangqi.
func notationsOf(rs *rules.RuleSet) []string {
	if rs.Game == rules.Janggi {
		return []string{"janggi", "iccs", "wxf"}
	}
	return []string{"wxf", "iccs", "chinese"}
}

// boardString is the board as 90 FEN letters ('.' for empty), rank 10
// first, files a to i.
func boardString(p *rules.Position) string {
	var b strings.Builder
	b.Grow(rules.Squares)
	for rank := rules.Ranks - 1; rank >= 0; rank-- {
		for file := 0; file < rules.Files; file++ {
			pc := p.Board(rules.SquareAt(file, rank))
			if pc == rules.NoPiece {
				b.WriteByte('.')
			} else {
				b.WriteByte(pc.Letter())
			}
		}
	}
	return b.String()
}

// shardOf is the shard beside the self-play games file g came from, when
// that file lies under t: a record's Source, an imported game's original
// file, may name any path, and nothing outside the served tree is read.
func shardOf(t target, g *gamerec.Game) (string, bool) {
	src, ok := strings.CutSuffix(g.Source, ".games.jsonl")
	if !ok || g.Network == "" {
		return "", false
	}
	shard := src + ".shard"
	if t.isDir {
		if !strings.HasPrefix(shard, t.path+string(filepath.Separator)) {
			return "", false
		}
	} else if g.Source != t.path {
		return "", false
	}
	info, err := os.Lstat(shard)
	return shard, err == nil && info.Mode().IsRegular()
}

// maxVisitsShown is the moves a ply's search shows.
const maxVisitsShown = 5

// addSearch fills each ply's search value and visits from the game's
// records in its shard. A damaged shard is an error, as any file.
func addSearch(v *gameView, g *gamerec.Game, shard string) error {
	rd, err := datasets.Open(shard)
	if err != nil {
		return err
	}
	defer rd.Close()
	for rec, err := range rd.Records() {
		if err != nil {
			return err
		}
		if rec.GameID != g.ID || rec.Ply >= len(v.Moves) {
			continue
		}
		p := &v.Moves[rec.Ply]
		val := rec.Value
		p.Value, p.Full = &val, rec.Full
		pol := append([]datasets.PolicyEntry(nil), rec.Policy...)
		sort.SliceStable(pol, func(a, b int) bool { return pol[a].P > pol[b].P })
		king := kingSquare(rec)
		for _, e := range pol[:min(len(pol), maxVisitsShown)] {
			if e.P <= 0 {
				break
			}
			m, ok := encode.IndexMove(int(e.Index), rec.Side, king)
			if !ok {
				continue
			}
			p.Visits = append(p.Visits, moveShare{Move: m.Text(rules.Ranks1), Share: e.P})
		}
	}
	return nil
}

// kingSquare is the side to move's general, which a pass's policy slot
// names.
func kingSquare(rec *datasets.Record) rules.Square {
	for sq, pc := range rec.Board {
		if pc != rules.NoPiece && pc.Type() == rules.King && pc.Color() == rec.Side {
			return rules.Square(sq)
		}
	}
	return rules.NoSquare
}
