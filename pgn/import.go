package pgn

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/notation"
	"github.com/palace-chess/palace/rules"
)

// Import reads a file's games (see Read) and turns each into a
// gamerec.Game that replays under gamerec.Game.Replay:
//
//   - the rule set is the Variant tag's palace preset (absent: opt.Variant,
//     else xiangqi), replaced by opt.RuleSet when that is given (a game of
//     the other game is then an error); the start is the FEN tag (either
//     side to move; "r" is read as Red, "w");
//   - every move, in whichever notation (ICCS, WXF, Chinese, SAN) each
//     token is written, resolves to exactly one legal move;
//   - the result is the Result tag or the closing token, which must agree,
//     settled with the rules by gamerec.Game.SettleImport: a forced end
//     (mate, stalemate) gives the result and reason, correcting a record
//     that says otherwise (a notice; an error under opt.Strict); no move
//     may follow it, while moves after an end the rules give on a claim
//     are the players' (see Options.CutAtRulesEnd);
//   - Date is normalised to YYYY.MM.DD (?? for unknown parts), White and
//     Black come from White/Red and Black, Source is source and Index the
//     game's place in the file; the other non-empty tags go into Tags.
//
// A game that fails any of this is reported as an *Error and left out;
// errors come back in file order. Notices say what an imported game lost
// (comments, variations, notes after the moves) or had corrected. A bad opt.Variant is the one error
// that is not an *Error: nothing is imported then. A large file's games
// are checked on all CPUs; the result is the same.
func Import(data []byte, source string, opt Options) ([]gamerec.Game, []error, []gamerec.Notice) {
	if opt.Variant != "" {
		if _, err := rules.Preset(strings.ToLower(opt.Variant)); err != nil {
			return nil, []error{fmt.Errorf("pgn: Options.Variant: %w", err)}, nil
		}
	}
	games, errs := Read(data, source, opt)
	recs := make([]gamerec.Game, len(games))
	gameErrs := make([]error, len(games))
	gameNotices := make([][]gamerec.Notice, len(games))
	// Workers take batches of games in turn; a batch is big enough that
	// taking one costs nothing, small enough to share out a short file.
	const batch = 16
	workers := min(runtime.GOMAXPROCS(0), (len(games)+batch-1)/batch)
	var next atomic.Int64
	work := func() {
		im := importer{opt: opt, ruleSets: map[string]*rules.RuleSet{}}
		for {
			lo := int(next.Add(batch)) - batch
			if lo >= len(games) {
				return
			}
			for i := lo; i < min(lo+batch, len(games)); i++ {
				recs[i], gameNotices[i], gameErrs[i] = im.game(&games[i], source)
			}
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	out := recs[:0]
	var notices []gamerec.Notice
	for i := range recs {
		if gameErrs[i] != nil {
			errs = append(errs, gameErrs[i])
		} else {
			out = append(out, recs[i])
			notices = append(notices, gameNotices[i]...)
		}
	}
	// Syntax errors came first; put them all in file order.
	slices.SortStableFunc(errs, func(a, b error) int {
		ea, eb := a.(*Error), b.(*Error)
		if ea.Line != eb.Line {
			return ea.Line - eb.Line
		}
		return ea.Game - eb.Game
	})
	return out, errs, notices
}

// importer holds what one worker's games share.
type importer struct {
	opt      Options
	ruleSets map[string]*rules.RuleSet
	last     *rules.Game // the last game played, reused when the next starts alike
}

// newGame starts a game from fen under rs, reusing the last game's
// history storage when it started from the same position (most games of
// a file start from the standard one).
func (im *importer) newGame(rs *rules.RuleSet, fen string) (*rules.Game, error) {
	if g := im.last; g != nil && g.Rules() == rs && g.RootFEN() == fen {
		g.Reset()
		return g, nil
	}
	g, err := rules.NewGame(rs, fen)
	if err == nil {
		im.last = g
	}
	return g, err
}

// consumed are the tags Import turns into gamerec.Game fields.
var consumed = map[string]bool{"Variant": true, "FEN": true, "SetUp": true, "Result": true,
	"Date": true, "White": true, "Red": true, "Black": true}

func (im *importer) game(pg *Game, source string) (gamerec.Game, []gamerec.Notice, error) {
	fail := func(line int, kind error, format string, args ...any) (gamerec.Game, []gamerec.Notice, error) {
		return gamerec.Game{}, nil, &Error{Source: source, Game: pg.Index, Line: line,
			Err: fmt.Errorf("%w: %w", kind, fmt.Errorf(format, args...))}
	}
	if len(pg.Moves) == 0 {
		return fail(pg.Line, ErrNoMoves, "the record has no moves")
	}
	variant := strings.ToLower(strings.TrimSpace(pg.Tag("Variant")))
	if variant == "" {
		variant = strings.ToLower(im.opt.Variant)
	}
	if variant == "" {
		variant = "xiangqi"
	}
	rs := im.ruleSets[variant]
	if rs == nil {
		var err error
		if rs, err = rules.Preset(variant); err != nil {
			return fail(pg.Line, ErrSetup, "tag Variant: %w", err)
		}
		im.ruleSets[variant] = rs
	}
	if want := im.opt.RuleSet; want != nil {
		if want.Game != rs.Game {
			return fail(pg.Line, ErrSetup, "the game is %s (variant %s), the rule set %s is for %s", rs.Game, variant, want.Name, want.Game)
		}
		rs = want
	}
	fen, hasFEN := pg.LookupTag("FEN")
	fen = strings.TrimSpace(fen)
	if !hasFEN || fen == "" {
		if setup := strings.TrimSpace(pg.Tag("SetUp")); setup == "1" {
			return fail(pg.Line, ErrSetup, "tag SetUp 1 without a FEN tag")
		}
		fen = rs.StartFEN()
	}
	fen = redToMove(fen)
	g, err := im.newGame(rs, fen)
	if err != nil {
		return fail(pg.Line, ErrSetup, "tag FEN: %w", err)
	}

	result := pg.Result
	if v := strings.TrimSpace(pg.Tag("Result")); v != "" && v != "?" { // "?": unknown, as "*"
		tagResult, ok := resultToken(v)
		switch {
		case !ok:
			return fail(pg.Line, ErrResult, "tag Result %q is not 1-0, 0-1, 1/2-1/2 or *", v)
		case result != "" && result != tagResult:
			return fail(pg.Line, ErrResult, "tag Result %s, the movetext ends %s", tagResult, result)
		}
		result = tagResult
	}
	if result == "" {
		result = gamerec.Unknown
	}

	var cut string
	for k, mv := range pg.Moves {
		// Only a forced end stops play; an end the rules would give on
		// a claim (repetition, perpetual chase) did not if the players
		// went on, unless the caller asks to cut there.
		if r := g.ImmediateResult(); r.Over() {
			return fail(mv.Line, ErrMove, "ply %d %q: the game was over before it (%s after ply %d)", k+1, mv.Text, r, k)
		}
		if im.opt.CutAtRulesEnd {
			if r := g.Result(); r.Over() {
				cut = cutNote(pg, k, r, result)
				break
			}
		}
		m, err := notation.Parse(g, mv.Text)
		if err != nil {
			return fail(mv.Line, ErrMove, "ply %d: %w", k+1, err)
		}
		g.Play(m)
	}

	rec := gamerec.Game{Source: source, Index: pg.Index}
	rec.SetMoves(g)
	var notices []gamerec.Notice
	notice := func(kind, format string, args ...any) {
		notices = append(notices, gamerec.Notice{Source: source, Game: pg.Index, Line: pg.Line, Kind: kind, Msg: fmt.Sprintf(format, args...)})
	}
	if cut != "" {
		r := g.Result()
		rec.End = gamerec.EndOf(r)
	} else if corrected, err := rec.SettleImport(g, result, gamerec.ReasonRecorded, im.opt.ImportOptions); err != nil {
		return fail(pg.Line, ErrResult, "%w", err)
	} else if corrected != "" {
		notice(gamerec.NoticeResultCorrected, "%s", corrected)
	}
	var aside []string
	if pg.Comments > 0 {
		aside = append(aside, plural(pg.Comments, "comment"))
	}
	if pg.Trailing > 0 {
		aside = append(aside, plural(pg.Trailing, "line")+" of notes after the moves")
	}
	if len(aside) > 0 {
		notice(gamerec.NoticeComments, "%s", strings.Join(aside, ", "))
	}
	if pg.Variations > 0 {
		notice(gamerec.NoticeVariations, "%s", plural(pg.Variations, "variation"))
	}

	rec.White = strings.TrimSpace(pg.Tag("White"))
	red := strings.TrimSpace(pg.Tag("Red"))
	if rec.White == "" {
		rec.White = red
	}
	rec.Black = strings.TrimSpace(pg.Tag("Black"))
	date, dateOK := normDate(pg.Tag("Date"))
	rec.Date = date
	for _, t := range pg.Tags {
		v := strings.TrimSpace(t.Value)
		keep := v != "" && (!consumed[t.Name] ||
			t.Name == "Date" && !dateOK || t.Name == "Red" && v != rec.White)
		if keep {
			if rec.Tags == nil {
				rec.Tags = make(map[string]string, len(pg.Tags))
			}
			rec.Tags[t.Name] = v
		}
	}
	if cut != "" {
		if rec.Tags == nil {
			rec.Tags = map[string]string{}
		}
		rec.Tags["PalaceCut"] = cut
	}
	return rec, notices, nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// redToMove reads the side-to-move field "r" (Red), as xqbase's PGN
// standard and XQWizard write it, as FEN's "w".
func redToMove(fen string) string {
	board, rest, ok := strings.Cut(fen, " ")
	if !ok {
		return fen
	}
	if side, tail, _ := strings.Cut(rest, " "); side == "r" || side == "R" {
		if tail == "" {
			return board + " w"
		}
		return board + " w " + tail
	}
	return fen
}

// cutNote says where CutAtRulesEnd cut a game and what it dropped.
func cutNote(pg *Game, k int, r rules.Result, result string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the rules ended the game after ply %d (%s); the record's result %s; its %d later plies:", k, r, result, len(pg.Moves)-k)
	for _, mv := range pg.Moves[k:] {
		b.WriteByte(' ')
		b.WriteString(mv.Text)
	}
	return b.String()
}

// normDate normalises a date to YYYY.MM.DD with ?? (????) for unknown
// parts: 2005.01.14, 2005-1-14, 2005/01/14, 20050114, 2007年1月,
// 2007年1月5日, 2005.??.??. It reports false for a date it cannot read
// (and "" for an absent or wholly unknown one).
func normDate(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", true
	}
	var parts [3]string
	n := 0
	for i := 0; i < len(v); {
		r, size := utf8.DecodeRuneInString(v[i:])
		switch {
		case r >= '0' && r <= '9' || r >= '０' && r <= '９' || r == '?':
			if n == len(parts) {
				return "", false
			}
			j := i
			for j < len(v) {
				r, size := utf8.DecodeRuneInString(v[j:])
				if !(r >= '0' && r <= '9' || r >= '０' && r <= '９' || r == '?') {
					break
				}
				if r >= '０' {
					parts[n] += string('0' + (r - '０'))
				} else {
					parts[n] += string(r)
				}
				j += size
			}
			n++
			i = j
			continue
		case strings.ContainsRune(".-/ 年月日．", r):
		default:
			return "", false
		}
		i += size
	}
	if n == 1 && len(parts[0]) == 8 && !strings.Contains(parts[0], "?") { // 20050114
		parts[0], parts[1], parts[2], n = parts[0][:4], parts[0][4:6], parts[0][6:], 3
	}
	field := func(p string, width, lo, hi int) (string, bool) {
		if p == "" || strings.Trim(p, "?") == "" {
			return strings.Repeat("?", width), true
		}
		if strings.Contains(p, "?") || len(p) > width {
			return "", false
		}
		x := 0
		for _, c := range p {
			x = x*10 + int(c-'0')
		}
		if x < lo || x > hi {
			return "", false
		}
		return fmt.Sprintf("%0*d", width, x), true
	}
	y, ok1 := field(parts[0], 4, 1000, 2999)
	m, ok2 := field(parts[1], 2, 1, 12)
	d, ok3 := field(parts[2], 2, 1, 31)
	if !ok1 || !ok2 || !ok3 {
		return "", false
	}
	if y == "????" && m == "??" && d == "??" {
		return "", true
	}
	return y + "." + m + "." + d, true
}
