package pgn

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/notation"
	"github.com/palace-chess/palace/rules"
)

// Write writes games as PGN that Fairy-Stockfish (ffish's readGamePGN),
// liground and pychess-variants read: the seven-tag roster (Event, Site,
// Date, Round, White, Black, Result), Variant, SetUp "1" and FEN when the
// game does not start from the variant's start position (janggi setups
// other than the default, positions with Black to move), then the moves in
// Fairy-Stockfish's SAN with move numbers, lines of at most 80 columns, and
// the result. Games are separated by a blank line.
//
// The Variant is the Fairy-Stockfish variant whose moves are the rule
// set's: xiangqi; for janggi, janggi or janggitraditional when facing
// generals are bikjang (with counting or without), janggimodern or
// janggicasual when they mean nothing. A palace preset of one of those names
// keeps it. Other rule sets go out under the nearest of them (janggiclassic
// as janggitraditional; YAML ones by their switches), with the palace rule
// set in a PalaceRules tag ("janggiclassic@hash"), and the SAN is written as
// that variant sees each position, so that a reader resolves every move.
// ffish and liground know all five names; pychess-variants plays xiangqi
// and janggi, not the other three.
//
// Event, Site and Round come from the game's tags of those names (or the
// .gib ones, 대회명, 대국장소, 회전), "?" when absent; its other tags whose
// names are PGN symbols follow the roster. rulesOf gives each game's rule
// set; every game is replayed under it first (gamerec.Game.Replay), and a
// game that does not replay stops the writing with an error naming it
// (the games before it are written).
func Write(w io.Writer, games []gamerec.Game, rulesOf func(*gamerec.Game) *rules.RuleSet) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	for i := range games {
		buf = buf[:0]
		if i > 0 {
			buf = append(buf, '\n')
		}
		var err error
		if buf, err = exportGame(buf, &games[i], rulesOf); err != nil {
			if ferr := bw.Flush(); ferr != nil {
				return fmt.Errorf("pgn: write: %w", ferr)
			}
			return err
		}
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("pgn: write: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("pgn: write: %w", err)
	}
	return nil
}

// exportVariants are Fairy-Stockfish's variants palace exports to, with
// the presets of the same names.
var exportVariants = []string{"xiangqi", "janggi", "janggitraditional", "janggimodern", "janggicasual"}

// exportVariant is the Fairy-Stockfish variant a rule set's games go out
// as: its own name if it is one, else the one with the same board and
// facing-generals rule, counting deciding between the two of those (the
// rest of the ending rules do not change which moves are legal).
func exportVariant(rs *rules.RuleSet) string {
	for _, v := range exportVariants {
		if rs.Name == v {
			return v
		}
	}
	if rs.Game == rules.Xiangqi {
		return "xiangqi"
	}
	if rs.Facing == rules.FacingIgnored {
		if rs.Counting {
			return "janggimodern"
		}
		return "janggicasual"
	}
	if rs.Counting {
		return "janggi"
	}
	return "janggitraditional"
}

// exportGame appends one game's PGN, ending in a newline.
func exportGame(dst []byte, g *gamerec.Game, rulesOf func(*gamerec.Game) *rules.RuleSet) ([]byte, error) {
	fail := func(format string, args ...any) ([]byte, error) {
		return dst, fmt.Errorf("pgn: write %s: %s", g.Where(), fmt.Sprintf(format, args...))
	}
	rs := rulesOf(g)
	if rs == nil {
		return fail("no rule set for %s", g.RuleSet)
	}
	played, err := g.Replay(rs)
	if err != nil {
		return dst, fmt.Errorf("pgn: write: %w", err)
	}
	variant := exportVariant(rs)
	vrs := rules.MustPreset(variant)
	// The SAN is the variant's: its legal moves decide disambiguation, as
	// they do for the reader.
	vg, err := rules.NewGame(vrs, played.RootFEN())
	if err != nil {
		return fail("start %s under %s: %v", played.RootFEN(), variant, err)
	}
	start := *vg.Position()

	tag := func(name, value string) {
		dst = append(dst, '[')
		dst = append(dst, name...)
		dst = append(dst, ' ', '"')
		dst = exportAppendTagValue(dst, value)
		dst = append(dst, '"', ']', '\n')
	}
	used := map[string]bool{}
	pick := func(names ...string) string {
		for _, n := range names {
			used[n] = true
		}
		for _, n := range names {
			if v := strings.TrimSpace(g.Tags[n]); v != "" && v != "미상" {
				return v
			}
		}
		return "?"
	}
	tag("Event", pick("Event", "대회명"))
	tag("Site", pick("Site", "대국장소"))
	date := g.Date
	if date == "" {
		date = "????.??.??"
	}
	tag("Date", date)
	tag("Round", pick("Round", "회전"))
	tag("White", exportOr(g.White, "?"))
	tag("Black", exportOr(g.Black, "?"))
	tag("Result", g.Result)
	tag("Variant", variant)
	if start.FEN() != exportStartFEN(vrs) {
		tag("SetUp", "1")
		tag("FEN", start.FEN())
	}
	if rs.String() != vrs.String() {
		tag("PalaceRules", rs.String())
	}
	for _, n := range []string{"Event", "Site", "Date", "Round", "White", "Black", "Result", "Variant", "SetUp", "FEN", "PalaceRules", "Red"} {
		used[n] = true
	}
	var extra []string
	for n := range g.Tags {
		if !used[n] && exportSymbol(n) && strings.TrimSpace(g.Tags[n]) != "" {
			extra = append(extra, n)
		}
	}
	sort.Strings(extra)
	for _, n := range extra {
		tag(n, g.Tags[n])
	}
	dst = append(dst, '\n')

	// Movetext: tokens joined by spaces, a new line before a token that
	// would pass column 80.
	col := 0
	word := func(tok []byte) {
		switch {
		case col == 0:
		case col+1+len(tok) > 80:
			dst = append(dst, '\n')
			col = 0
		default:
			dst = append(dst, ' ')
			col++
		}
		dst = append(dst, tok...)
		col += len(tok)
	}
	var tok []byte
	for i, m := range played.Moves(nil) {
		pos := vg.Position()
		switch {
		case pos.SideToMove() == rules.White:
			word(fmt.Appendf(tok[:0], "%d.", pos.FullmoveNumber()))
		case i == 0: // Black moves first: "12... Hg8"
			word(fmt.Appendf(tok[:0], "%d...", pos.FullmoveNumber()))
		}
		if !pos.IsLegal(m) {
			return fail("ply %d (%s) is not legal in Fairy-Stockfish's %s, so it cannot be written in its SAN", i+1, m, variant)
		}
		tok = notation.AppendSAN(tok[:0], vg, m)
		word(tok)
		vg.Play(m)
	}
	word([]byte(g.Result))
	return append(dst, '\n'), nil
}

// exportStartFEN is a variant's start position as Position.FEN writes it.
func exportStartFEN(rs *rules.RuleSet) string {
	p, err := rules.ParseFEN(rs.StartFEN(), rs)
	if err != nil {
		return ""
	}
	return p.FEN()
}

func exportOr(v, def string) string {
	if v = strings.TrimSpace(v); v == "" {
		return def
	}
	return v
}

// exportAppendTagValue writes a tag value as PGN quotes it: backslash and
// quote escaped, control characters (a newline would end the tag) as
// spaces.
func exportAppendTagValue(dst []byte, v string) []byte {
	for _, r := range v {
		switch {
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r < ' ' || r == 0x7f:
			dst = append(dst, ' ')
		default:
			dst = append(dst, string(r)...)
		}
	}
	return dst
}

// exportSymbol reports whether a tag name is a PGN symbol: an ASCII letter
// or digit, then letters, digits and _+#=:-.
func exportSymbol(name string) bool {
	if name == "" || len(name) > 255 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || !strings.ContainsRune("_+#=:-", rune(c))) {
			return false
		}
	}
	return true
}
