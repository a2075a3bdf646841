package arena

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/internal/jsonlrec"
	"github.com/palace-chess/palace/rules"
)

// IsRecordFile reports whether data is a match record file: its first
// line a header of this package's format.
func IsRecordFile(data []byte) bool { return jsonlrec.FormatOf(data) == RecordsFormat }

// Import reads a match record file (palace arena's --records, a gate's
// or a ladder rung's) as game records, so that a match's games, an
// external engine's included, can be studied, exported and learnt from
// (palace import, then palace train --games) like any collection's.
// Each game is replayed and its end checked as a resumed match checks it;
// a forfeit (a player failed: the result is not the board's) is refused
// with gamerec.ErrRecordResult, as is a game whose recorded end or score
// its moves contradict (an illegal move: gamerec.ErrRecordMove). White and Black are the match's player specs by colour,
// the date the match's start, and the pair, game and opening tags. The
// match's rule set must be a preset or opt.RuleSet (its name@hash
// checked); a file that cannot be read at all is one error.
func Import(data []byte, source string, opt gamerec.ImportOptions) (games []gamerec.Game, errs []error, notices []gamerec.Notice) {
	fail := func(kind error, format string, args ...any) ([]gamerec.Game, []error, []gamerec.Notice) {
		return nil, []error{fmt.Errorf("arena: %s: %w: %s", source, kind, fmt.Sprintf(format, args...))}, nil
	}
	h, recs, err := ParseRecords(source, data)
	if err != nil {
		return fail(gamerec.ErrRecordSyntax, "%v", err)
	}
	rs, err := recordRuleSet(h.RuleSet, opt.RuleSet)
	if err != nil {
		return fail(gamerec.ErrRecordSetup, "%v", err)
	}
	date := startDate(h)
	for i := range recs {
		r := &recs[i]
		g := r.game(&h, source, i, rs, date)
		where := fmt.Sprintf("arena: %s: game %d (pair %d game %d)", source, g.Index, r.Pair, r.Game)
		if _, err := r.replay(rs); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			continue
		}
		if r.Reason == "forfeit" {
			errs = append(errs, fmt.Errorf("%s: %w: forfeited by %s, not ended on the board", where, gamerec.ErrRecordResult, r.Forfeit))
			continue
		}
		games = append(games, g)
	}
	return games, errs, nil
}

// ReadGames reads the match record file at path (a match's --records, a
// gate's or a ladder rung's) and hands each game to fn with the match's
// rule set, in pair order, as Import makes it a games file's game but
// unchecked (fn's reader replays it): rundir.Collect's reader of matches.
// A forfeited game comes with its moves and no result (gamerec.Unknown,
// its reason "forfeit"): the match scored it, the board did not end it.
// A torn last line (a match still being played) is ignored. The match's
// rule set must be a preset of this build. fn's error stops it and is
// returned as is; fn must not keep g past the call.
func ReadGames(path string, fn func(g *gamerec.Game, rs *rules.RuleSet) error) error {
	h, recs, err := ReadRecords(path)
	if err != nil {
		return err
	}
	rs, err := recordRuleSet(h.RuleSet, nil)
	if err != nil {
		return fmt.Errorf("arena: %s: the match was played under %s, not a preset of this build: make a games file of it with palace import --rules", path, h.RuleSet)
	}
	date := startDate(h)
	for i := range recs {
		r := &recs[i]
		g := r.game(&h, path, i, rs, date)
		if r.Reason == "forfeit" {
			g.Result = gamerec.Unknown
		}
		if err := fn(&g, rs); err != nil {
			return err
		}
	}
	return nil
}

// game is record i (0-based, in pair order) of the match h in file source
// as a games file's game under rs: its players by colour (h's player
// specs), the match's start date, and the pair, game and opening (and a
// forfeit) as tags.
func (r *GameRecord) game(h *Header, source string, i int, rs *rules.RuleSet, date string) gamerec.Game {
	g := r.AsGame(rs.String())
	g.Source, g.Index, g.Date, g.White, g.Black = source, i+1, date, h.A, h.B
	if r.Game == 1 {
		g.White, g.Black = h.B, h.A
	}
	g.Tags = map[string]string{"Pair": strconv.Itoa(r.Pair), "Game": strconv.Itoa(r.Game), "Opening": r.Opening}
	if r.Forfeit != "" {
		g.Tags["Forfeit"] = r.Forfeit
	}
	return g
}

// startDate is the day the match started, PGN style ("" when unknown).
func startDate(h Header) string {
	if h.Started.IsZero() {
		return ""
	}
	return h.Started.UTC().Format("2006.01.02")
}

// recordRuleSet is the rule set a match record names (name@hash): given,
// which must be it, else the preset of that name, whose hash must match.
func recordRuleSet(id string, given *rules.RuleSet) (*rules.RuleSet, error) {
	if given != nil {
		if given.String() != id {
			return nil, fmt.Errorf("the match was played under %s, --rules gives %s", id, given)
		}
		return given, nil
	}
	name, _, _ := strings.Cut(id, "@")
	rs, err := rules.Preset(name)
	if err != nil || rs.String() != id {
		return nil, fmt.Errorf("the match was played under %s, not a preset of this build: give its rule set file with --rules", id)
	}
	return rs, nil
}
