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
	var date string
	if !h.Started.IsZero() {
		date = h.Started.UTC().Format("2006.01.02")
	}
	for i := range recs {
		r := &recs[i]
		g := gamerec.Game{Source: source, Index: i + 1, RuleSet: rs.String(), Line: r.Line, Plies: len(strings.Fields(r.Moves)),
			End: r.End, Date: date, White: h.A, Black: h.B,
			Tags: map[string]string{"Pair": strconv.Itoa(r.Pair), "Game": strconv.Itoa(r.Game), "Opening": r.Opening}}
		if r.Game == 1 {
			g.White, g.Black = h.B, h.A
		}
		where := fmt.Sprintf("arena: %s: game %d (pair %d game %d)", source, g.Index, r.Pair, r.Game)
		if _, err := r.replay(rs); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			continue
		}
		if r.Reason == "forfeit" {
			errs = append(errs, fmt.Errorf("%s: %w: forfeited by %s, not ended on the board", where, gamerec.ErrRecordResult, r.Forfeit))
			continue
		}
		if len(r.Scores) > 0 { // as many as the plies after the opening: replay checked
			// The opening's plies, before the players', have none.
			g.Scores = make([]gamerec.Score, g.Plies-len(r.Scores), g.Plies)
			g.Scores = append(g.Scores, r.Scores...)
		}
		games = append(games, g)
	}
	return games, errs, nil
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
