package openings

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/palace-chess/palace/internal/chart"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
)

// sides names White and Black as each game does.
func sides(g rules.GameKind) (white, black string) {
	if g == rules.Janggi {
		return "Cho", "Han"
	}
	return "Red", "Black"
}

// moveLabel is a move with its number: "1. h3e3" for White, "1... h10g8"
// for Black, numbered as the position's FEN counts moves.
func moveLabel(p *Position, move string) string {
	n := 1
	if f := strings.Fields(p.FEN); len(f) >= 6 {
		if k, err := strconv.Atoi(f[5]); err == nil {
			n = k
		}
	}
	if p.Side == rules.White {
		return fmt.Sprintf("%d. %s", n, move)
	}
	return fmt.Sprintf("%d... %s", n, move)
}

func fmtScore(w stats.WDL) (score, interval string) {
	s, ci, ok := scoreOf(w)
	if !ok {
		return "-", "-"
	}
	return fmt.Sprintf("%.3f", s), fmt.Sprintf("[%.3f, %.3f]", ci.Lo, ci.Hi)
}

// plural is "1 game", "2 games".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// WriteTable writes the view as aligned text: a header for each root
// position, then its moves depth first, each continuation indented under
// its move, at most top moves per position (0: all). A position reached
// again by another order (a transposition) is marked and not expanded twice.
func (v *View) WriteTable(w io.Writer, top int) error {
	bw := bufio.NewWriter(w)
	f := v.Filter
	depth := "whole games"
	switch {
	case f.Depth == 1:
		depth = "first ply"
	case f.Depth > 1:
		depth = fmt.Sprintf("first %d plies", f.Depth)
	}
	fmt.Fprintf(bw, "%s (%s), %s", plural(v.Games, "game"), strings.Join(v.RuleSets, ", "), depth)
	if f.MinGames > 1 {
		fmt.Fprintf(bw, ", positions and moves of at least %d games", f.MinGames)
	}
	fmt.Fprintln(bw)
	if s := v.Skipped; s.Total() > 0 {
		fmt.Fprintf(bw, "left out: %s by rule set, %d by generation, %d by date\n", plural(s.RuleSet, "game"), s.Generation, s.Date)
	}
	if len(v.Roots) == 0 {
		fmt.Fprintln(bw, "no position to show")
		return bw.Flush()
	}
	shown := make([]bool, len(v.Positions))
	transposed := false
	for _, r := range v.Roots {
		p := &v.Positions[r]
		white, black := sides(p.Game)
		fmt.Fprintf(bw, "\n%s, ply %d: %s\n", p.RuleSet, p.Ply, p.FEN)
		if p.Setup != "" {
			fmt.Fprintf(bw, "setup %s\n", p.Setup)
		}
		mover := white
		if p.Side == rules.Black {
			mover = black
		}
		score, ci := fmtScore(p.White)
		fmt.Fprintf(bw, "%s, %s to move: %s wins %d, draws %d, %s wins %d (%s's score %s %s), %d unscored\n\n",
			plural(p.Games, "game"), mover, white, p.White.Wins, p.White.Draws, black, p.White.Losses, white, score, ci, p.Unscored)
		rows := [][]string{{"move", "games", "share", "W", "D", "L", "unscored", "score", "95% interval"}}
		var walk func(id, level int)
		walk = func(id, level int) {
			shown[id] = true
			p := &v.Positions[id]
			for i := range p.Moves {
				if top > 0 && i == top {
					break
				}
				m := &p.Moves[i]
				label := strings.Repeat("  ", level) + moveLabel(p, m.Move)
				again := shown[m.Next]
				if again {
					label += " *"
					transposed = true
				}
				score, ci := fmtScore(m.WDL)
				rows = append(rows, []string{label, strconv.Itoa(m.Count), fmt.Sprintf("%.1f%%", 100*m.Share(p)),
					strconv.Itoa(m.WDL.Wins), strconv.Itoa(m.WDL.Draws), strconv.Itoa(m.WDL.Losses), strconv.Itoa(m.Unscored), score, ci})
				if !again {
					walk(m.Next, level+1)
				}
			}
		}
		walk(r, 0)
		if len(rows) == 1 {
			fmt.Fprintln(bw, "no moves to show")
			continue
		}
		writeAligned(bw, rows, 1)
	}
	fmt.Fprintln(bw, "\nW, D, L and score are the mover's: score = (W + D/2)/(W + D + L), with its 95% Wilson interval;")
	fmt.Fprintln(bw, "games with an unknown result (*) count in games and share only (unscored).")
	if transposed {
		fmt.Fprintln(bw, "* the move leads to a position listed above (a transposition); its moves are shown there.")
	}
	return bw.Flush()
}

// writeAligned writes rows as columns two spaces apart: the first left
// columns aligned left, the others right.
func writeAligned(w io.Writer, rows [][]string, left int) {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		b.Reset()
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if i < left {
				b.WriteString(c)
				if i < len(r)-1 {
					b.WriteString(pad)
				}
			} else {
				b.WriteString(pad)
				b.WriteString(c)
			}
		}
		b.WriteByte('\n')
		io.WriteString(w, b.String())
	}
}

// CSVHeader names the columns of WriteCSV. ply is the position's; wins,
// draws, losses and score are the mover's; score, lo and hi are empty
// when no game that played the move has a known result.
var CSVHeader = []string{"fen", "ply", "move", "count", "share", "wins", "draws", "losses", "unscored", "score", "lo", "hi", "rule_set"}

// WriteCSV writes one row per (position, move) of the view, positions in
// the view's order, moves by count.
func (v *View) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return fmt.Errorf("openings: %w", err)
	}
	for i := range v.Positions {
		p := &v.Positions[i]
		for j := range p.Moves {
			m := &p.Moves[j]
			score, lo, hi := "", "", ""
			if s, ci, ok := m.Score(); ok {
				score, lo, hi = f4(s), f4(ci.Lo), f4(ci.Hi)
			}
			cw.Write([]string{p.FEN, strconv.Itoa(p.Ply), m.Move, strconv.Itoa(m.Count), f4(m.Share(p)),
				strconv.Itoa(m.WDL.Wins), strconv.Itoa(m.WDL.Draws), strconv.Itoa(m.WDL.Losses), strconv.Itoa(m.Unscored),
				score, lo, hi, p.RuleSet})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("openings: %w", err)
	}
	return nil
}

func f4(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

// JSONFormat and JSONVersion identify WriteJSON's document.
const (
	JSONFormat  = "palace-openings"
	JSONVersion = 1
)

type jsonFilter struct {
	RuleSet     string `json:"rule_set,omitempty"`
	Generations string `json:"generations,omitempty"`
	From        string `json:"from,omitempty"`
	To          string `json:"to,omitempty"`
	Depth       int    `json:"depth"`
	MinGames    int    `json:"min_games"`
	Position    string `json:"position,omitempty"`
	Moves       string `json:"moves,omitempty"`
}

// jsonScore is W/D/L with the score and its interval (absent when no game
// has a known result).
type jsonScore struct {
	Wins   int      `json:"wins"`
	Draws  int      `json:"draws"`
	Losses int      `json:"losses"`
	Score  *float64 `json:"score,omitempty"`
	Lo     *float64 `json:"lo,omitempty"`
	Hi     *float64 `json:"hi,omitempty"`
}

func newJSONScore(w stats.WDL) jsonScore {
	j := jsonScore{Wins: w.Wins, Draws: w.Draws, Losses: w.Losses}
	if s, ci, ok := scoreOf(w); ok {
		j.Score, j.Lo, j.Hi = &s, &ci.Lo, &ci.Hi
	}
	return j
}

type jsonMove struct {
	Move     string  `json:"move"`
	Count    int     `json:"count"`
	Share    float64 `json:"share"`
	Unscored int     `json:"unscored"`
	jsonScore
	Next int `json:"next"`
}

type jsonPosition struct {
	ID       int        `json:"id"`
	RuleSet  string     `json:"rule_set"`
	FEN      string     `json:"fen"`
	Setup    string     `json:"setup,omitempty"`
	Ply      int        `json:"ply"`
	Games    int        `json:"games"`
	Unscored int        `json:"unscored"`
	White    jsonScore  `json:"white"`
	ToMove   jsonScore  `json:"to_move"`
	Moves    []jsonMove `json:"moves"`
}

type jsonView struct {
	Format    string         `json:"format"`
	Version   int            `json:"version"`
	RuleSets  []string       `json:"rule_sets"`
	Games     int            `json:"games"`
	Skipped   Skipped        `json:"skipped"`
	Filter    jsonFilter     `json:"filter"`
	Roots     []int          `json:"roots"`
	Positions []jsonPosition `json:"positions"`
}

// WriteJSON writes the view as one JSON document: positions with ids
// (their index), each move naming the position it leads to by id ("next"),
// so transpositions appear once. White is White's (Red's, Cho's) view,
// to_move the side to move's, a move's counts the mover's.
func (v *View) WriteJSON(w io.Writer) error {
	f := v.Filter
	jf := jsonFilter{RuleSet: f.RuleSet, From: f.From, To: f.To, Depth: f.Depth, MinGames: f.MinGames, Position: f.Position, Moves: f.Moves}
	if f.Generations != nil {
		jf.Generations = f.Generations.String()
	}
	jv := jsonView{Format: JSONFormat, Version: JSONVersion, RuleSets: v.RuleSets, Games: v.Games, Skipped: v.Skipped,
		Filter: jf, Roots: v.Roots, Positions: make([]jsonPosition, len(v.Positions))}
	if jv.RuleSets == nil {
		jv.RuleSets = []string{}
	}
	if jv.Roots == nil {
		jv.Roots = []int{}
	}
	for i := range v.Positions {
		p := &v.Positions[i]
		jp := jsonPosition{ID: i, RuleSet: p.RuleSet, FEN: p.FEN, Setup: p.Setup, Ply: p.Ply, Games: p.Games, Unscored: p.Unscored,
			White: newJSONScore(p.White), ToMove: newJSONScore(p.ToMove()), Moves: make([]jsonMove, len(p.Moves))}
		for j := range p.Moves {
			m := &p.Moves[j]
			jp.Moves[j] = jsonMove{Move: m.Move, Count: m.Count, Share: m.Share(p), Unscored: m.Unscored, jsonScore: newJSONScore(m.WDL), Next: m.Next}
		}
		jv.Positions[i] = jp
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	if err := enc.Encode(jv); err != nil {
		return fmt.Errorf("openings: %w", err)
	}
	return nil
}

// Chart is a bar chart of the top most played moves (0: all) at the
// view's first root: each bar the mover's score with its 95% interval, the
// label the move and its games. A move with no scored game has a label
// and no bar.
func (v *View) Chart(top int) (chart.Bars, error) {
	if len(v.Roots) == 0 {
		return chart.Bars{}, fmt.Errorf("openings: %w: no position to chart", chart.ErrEmpty)
	}
	p := &v.Positions[v.Roots[0]]
	c := chart.Bars{
		Title:  fmt.Sprintf("Most played moves, %s\n%s", p.RuleSet, p.FEN),
		XLabel: "score of the side to move (95% Wilson interval)",
	}
	for i := range p.Moves {
		if top > 0 && i == top {
			break
		}
		m := &p.Moves[i]
		c.Bars = append(c.Bars, scoreBar(fmt.Sprintf("%s (%s)", moveLabel(p, m.Move), plural(m.Count, "game")), m.WDL))
	}
	if len(c.Bars) == 0 {
		return c, fmt.Errorf("openings: %w: no moves at %s", chart.ErrEmpty, p.FEN)
	}
	return c, nil
}

// scoreBar is a bar of the score in w and its interval, labelled label;
// with no scored games its values are NaN, so the chart keeps only the
// label.
func scoreBar(label string, w stats.WDL) chart.Bar {
	b := chart.Bar{Label: label, Value: nanFloat, Lo: nanFloat, Hi: nanFloat}
	if score, ci, ok := scoreOf(w); ok {
		b.Value, b.Lo, b.Hi = score, ci.Lo, ci.Hi
	}
	return b
}

// WriteChart draws Chart(top) to a PNG file, crash-safely.
func (v *View) WriteChart(path string, top int) error {
	c, err := v.Chart(top)
	if err != nil {
		return err
	}
	if err := chart.WriteBars(path, c); err != nil {
		return fmt.Errorf("openings: %w", err)
	}
	return nil
}

var nanFloat = math.NaN()

// setupLabel names a setup row or column; -1 is the total.
func setupLabel(s int) string {
	if s < 0 {
		return "all"
	}
	return rules.JanggiSetup(s).String()
}

// cellAt is a matrix cell or total: cho or han -1 for all.
func (m *SetupMatrix) cellAt(cho, han int) Cell {
	switch {
	case cho < 0 && han < 0:
		return m.Total()
	case cho < 0:
		return m.Han(rules.JanggiSetup(han))
	case han < 0:
		return m.Cho(rules.JanggiSetup(cho))
	}
	return m.Cells[cho][han]
}

// setupOrder lists the cells then the totals, as the CSV rows go: the 16
// cells by Cho's setup then Han's, Cho's totals, Han's totals, the total.
func setupOrder() [][2]int {
	var o [][2]int
	for c := range 4 {
		for h := range 4 {
			o = append(o, [2]int{c, h})
		}
	}
	for c := range 4 {
		o = append(o, [2]int{c, -1})
	}
	for h := range 4 {
		o = append(o, [2]int{-1, h})
	}
	return append(o, [2]int{-1, -1})
}

// WriteSetupsTable writes each matrix as a grid of Cho's score, interval
// and games by Cho's setup (rows) and Han's (columns), with totals, then
// the same cells with their W/D/L.
func WriteSetupsTable(w io.Writer, ms []*SetupMatrix) error {
	bw := bufio.NewWriter(w)
	if len(ms) == 0 {
		fmt.Fprintln(bw, "no janggi games")
	}
	for i, m := range ms {
		if i > 0 {
			fmt.Fprintln(bw)
		}
		t := m.Total()
		fmt.Fprintf(bw, "%s: %s from the janggi setups (%d unscored)", m.RuleSet, plural(t.Games, "game"), t.Unscored)
		if m.Other > 0 {
			fmt.Fprintf(bw, "; %d more from other positions, not counted here", m.Other)
		}
		fmt.Fprintln(bw, "\nCho's score, 95% Wilson interval and games, by Cho's setup (rows) and Han's (columns):")
		fmt.Fprintln(bw)
		// Indices 0–3 are the setups, 4 the total.
		all := func(i int) int {
			if i == 4 {
				return -1
			}
			return i
		}
		grid := [][]string{{"Cho \\ Han"}}
		for h := range 5 {
			grid[0] = append(grid[0], setupLabel(all(h)))
		}
		for c := range 5 {
			row := []string{setupLabel(all(c))}
			for h := range 5 {
				cell := m.cellAt(all(c), all(h))
				score, ci := fmtScore(cell.WDL)
				if score == "-" {
					row = append(row, fmt.Sprintf("- (%d)", cell.Games))
				} else {
					row = append(row, fmt.Sprintf("%s %s (%d)", score, ci, cell.Games))
				}
			}
			grid = append(grid, row)
		}
		writeAligned(bw, grid, 1)
		fmt.Fprintln(bw)
		rows := [][]string{{"Cho setup", "Han setup", "games", "W", "D", "L", "unscored", "Cho's score", "95% interval"}}
		for _, ch := range setupOrder() {
			cell := m.cellAt(ch[0], ch[1])
			score, ci := fmtScore(cell.WDL)
			rows = append(rows, []string{setupLabel(ch[0]), setupLabel(ch[1]), strconv.Itoa(cell.Games),
				strconv.Itoa(cell.WDL.Wins), strconv.Itoa(cell.WDL.Draws), strconv.Itoa(cell.WDL.Losses), strconv.Itoa(cell.Unscored), score, ci})
		}
		writeAligned(bw, rows, 2)
	}
	return bw.Flush()
}

// SetupsCSVHeader names the columns of WriteSetupsCSV; "all" in cho or han
// marks a total. wins, draws, losses and score are Cho's.
var SetupsCSVHeader = []string{"rule_set", "cho", "han", "games", "wins", "draws", "losses", "unscored", "score", "lo", "hi"}

// WriteSetupsCSV writes a row per cell and total of each matrix.
func WriteSetupsCSV(w io.Writer, ms []*SetupMatrix) error {
	cw := csv.NewWriter(w)
	cw.Write(SetupsCSVHeader)
	for _, m := range ms {
		for _, ch := range setupOrder() {
			c := m.cellAt(ch[0], ch[1])
			score, lo, hi := "", "", ""
			if s, ci, ok := c.Score(); ok {
				score, lo, hi = f4(s), f4(ci.Lo), f4(ci.Hi)
			}
			cw.Write([]string{m.RuleSet, setupLabel(ch[0]), setupLabel(ch[1]), strconv.Itoa(c.Games),
				strconv.Itoa(c.WDL.Wins), strconv.Itoa(c.WDL.Draws), strconv.Itoa(c.WDL.Losses), strconv.Itoa(c.Unscored), score, lo, hi})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("openings: %w", err)
	}
	return nil
}

type jsonCell struct {
	Games    int `json:"games"`
	Unscored int `json:"unscored"`
	jsonScore
}

func newJSONCell(c Cell) jsonCell {
	return jsonCell{Games: c.Games, Unscored: c.Unscored, jsonScore: newJSONScore(c.WDL)}
}

type jsonMatrix struct {
	RuleSet string         `json:"rule_set"`
	Cells   [4][4]jsonCell `json:"cells"` // [cho][han]
	Cho     [4]jsonCell    `json:"cho_totals"`
	Han     [4]jsonCell    `json:"han_totals"`
	Total   jsonCell       `json:"total"`
	Other   int            `json:"other_starts"`
}

// SetupsJSONFormat identifies WriteSetupsJSON's document (version
// JSONVersion).
const SetupsJSONFormat = "palace-openings-setups"

// WriteSetupsJSON writes the matrices as one JSON document: cells
// [cho][han] in the order of "setups", W/D/L and scores Cho's.
func WriteSetupsJSON(w io.Writer, ms []*SetupMatrix) error {
	doc := struct {
		Format   string       `json:"format"`
		Version  int          `json:"version"`
		Setups   [4]string    `json:"setups"`
		Matrices []jsonMatrix `json:"matrices"`
	}{Format: SetupsJSONFormat, Version: JSONVersion, Matrices: []jsonMatrix{}}
	for s := range 4 {
		doc.Setups[s] = rules.JanggiSetup(s).String()
	}
	for _, m := range ms {
		jm := jsonMatrix{RuleSet: m.RuleSet, Total: newJSONCell(m.Total()), Other: m.Other}
		for c := range 4 {
			for h := range 4 {
				jm.Cells[c][h] = newJSONCell(m.Cells[c][h])
			}
			jm.Cho[c] = newJSONCell(m.Cho(rules.JanggiSetup(c)))
			jm.Han[c] = newJSONCell(m.Han(rules.JanggiSetup(c)))
		}
		doc.Matrices = append(doc.Matrices, jm)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("openings: %w", err)
	}
	return nil
}

// SetupsChart is a bar chart of Cho's score with its interval for each
// setup pair of m that has games.
func SetupsChart(m *SetupMatrix) (chart.Bars, error) {
	c := chart.Bars{Title: "Cho's score by setup (Cho / Han), " + m.RuleSet, XLabel: "Cho's score (95% Wilson interval)"}
	for _, ch := range setupOrder()[:16] {
		cell := m.Cells[ch[0]][ch[1]]
		if cell.Games == 0 {
			continue
		}
		c.Bars = append(c.Bars, scoreBar(fmt.Sprintf("%s / %s (%s)", setupLabel(ch[0]), setupLabel(ch[1]), plural(cell.Games, "game")), cell.WDL))
	}
	if len(c.Bars) == 0 {
		return c, fmt.Errorf("openings: %w: no janggi games from the setups under %s", chart.ErrEmpty, m.RuleSet)
	}
	return c, nil
}
