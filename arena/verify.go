package arena

import (
	"fmt"
	"strings"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// CheckRecords replays every record's game under rs, from its pair's
// opening (pair i plays openings[i mod len(openings)]), and checks what
// the record says against its moves: the opening, every move legal, none
// after the rules ended the game, the result and reason the rules give
// after the last move (or, for a forfeit, a game still going whose side to
// move lost), the plies and A's score. A record file is read back to
// resume a match and to decide a gate from; an edited or damaged line
// would otherwise change the W-D-L without a word. name names the record
// file in errors, which name the pair and game and say what to do.
func CheckRecords(name string, rs *rules.RuleSet, openings []Opening, recs []GameRecord) error {
	if len(recs) > 0 && len(openings) == 0 {
		return fmt.Errorf("arena: %s: no openings to replay its games from", name)
	}
	for i := range recs {
		r := &recs[i]
		if err := r.check(rs, openings[r.Pair%len(openings)]); err != nil {
			return fmt.Errorf("arena: %s: pair %d game %d: %w; the record does not match its moves (an edited or damaged file): remove its line to have the game played again", name, r.Pair, r.Game, err)
		}
	}
	return nil
}

// check replays r's game from opening o under rs.
func (r *GameRecord) check(rs *rules.RuleSet, o Opening) error {
	if r.Pair < 0 || r.Game < 0 || r.Game > 1 {
		return fmt.Errorf("pair %d game %d out of range", r.Pair, r.Game)
	}
	if r.Opening != o.Name || r.StartFEN != o.FEN {
		return fmt.Errorf("opening %q from %s, the pair's is %q from %s", r.Opening, r.StartFEN, o.Name, o.FEN)
	}
	moves := strings.Fields(r.Moves)
	if len(moves) < len(o.Moves) || strings.Join(moves[:len(o.Moves)], " ") != o.MovesText() {
		return fmt.Errorf("the moves do not start with the opening's (%s)", o.MovesText())
	}
	if got := len(moves) - len(o.Moves); got != r.Plies {
		return fmt.Errorf("%d moves after the opening, the record says %d plies", got, r.Plies)
	}
	_, err := r.replay(rs)
	return err
}

// replay plays r's moves from its start under rs and checks its end and
// A's score against them; its errors wrap gamerec's refusal reasons (a
// bad setup, move or result), which Import counts by.
func (r *GameRecord) replay(rs *rules.RuleSet) (*rules.Game, error) {
	moves := strings.Fields(r.Moves)
	if len(r.Scores) > 0 && (len(r.Scores) != r.Plies || r.Plies > len(moves)) {
		return nil, fmt.Errorf("%w: %d scores for %d plies after the opening (%d moves)", gamerec.ErrRecordSyntax, len(r.Scores), r.Plies, len(moves))
	}
	g, err := rules.NewGame(rs, r.StartFEN)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", gamerec.ErrRecordSetup, err)
	}
	for i, text := range moves {
		if res := g.Result(); res.Over() {
			return nil, fmt.Errorf("%w: over after %d plies (%s), yet %d more moves follow", gamerec.ErrRecordMove, i, res, len(moves)-i)
		}
		if _, err := g.PlayText(text, rules.Ranks1); err != nil {
			return nil, fmt.Errorf("%w: ply %d: %w", gamerec.ErrRecordMove, i+1, err)
		}
	}
	res := g.Result()
	want := gamerec.EndOf(res)
	if r.Forfeit != "" || r.Reason == "forfeit" {
		// A forfeit ends a game still going: its side to move lost.
		if res.Over() {
			return nil, fmt.Errorf("%w: a forfeit after the game ended %s", gamerec.ErrRecordResult, res)
		}
		want = gamerec.End{Result: "1-0", Reason: "forfeit"}
		if g.Position().SideToMove() == rules.White {
			want.Result = "0-1"
		}
		if r.Forfeit == "" {
			return nil, fmt.Errorf("%w: a forfeit that names no player", gamerec.ErrRecordResult)
		}
	} else if !res.Over() {
		return nil, fmt.Errorf("%w: not over after its %d moves, the record says %s %s", gamerec.ErrRecordResult, len(moves), r.Result, r.Reason)
	}
	if r.End != want {
		return nil, fmt.Errorf("%w: the moves end it %s %s, the record says %s %s", gamerec.ErrRecordResult, want.Result, want.Reason, r.Result, r.Reason)
	}
	score := 0.5
	switch want.Result {
	case "1-0":
		score = 1
	case "0-1":
		score = 0
	}
	if r.Game == 1 {
		score = 1 - score
	}
	if r.Score != score {
		return nil, fmt.Errorf("%w: A's score %v, the result %s gives %v", gamerec.ErrRecordResult, r.Score, r.Result, score)
	}
	return g, nil
}
