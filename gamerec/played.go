package gamerec

import (
	"strings"

	"github.com/palace-chess/palace/rules"
)

// Line is where a played game started and its moves, as games files and
// the records of matches and experiments hold them (embedded, so that
// each record's JSON keeps these keys in place).
type Line struct {
	StartFEN string `json:"start_fen"`
	// Moves are space-separated, ranks 1–10 (MovesText): the opening's
	// and the players'.
	Moves string `json:"moves"`
}

// LineOf is game's start and every move played from it.
func LineOf(game *rules.Game) Line {
	return Line{StartFEN: game.RootFEN(), Moves: MovesText(game.Moves(nil))}
}

// End is how a played game ended: the result from White's view (1-0, 0-1,
// 1/2-1/2) and why (rules.Termination's label, or the record's own reason
// such as a forfeit).
type End struct {
	Result string `json:"result"`
	Reason string `json:"reason"`
}

// EndOf is a finished game's end by the rules.
func EndOf(r rules.Result) End { return End{Result: r.Score(), Reason: r.Reason.String()} }

// Record is a played game as a match's or an experiment's record line
// carries it: the line is a Record embedded in a small typed extension
// (arena's pair, game, opening and forfeit; experiment's index, rule set,
// seed and passes), so that its JSON stays flat and its keys in place,
// and every such file's games become a games file's Game alike (AsGame).
type Record struct {
	// End's result is White's view (Red, Cho).
	End
	// Plies counts the moves as the record's file always has: a match's
	// after its opening, an experiment's the whole game's. AsGame counts
	// every move.
	Plies int `json:"plies"`
	Line
	// Scores are the movers' evaluations of the positions they moved from
	// (Game's Scores) for the last len(Scores) moves: a match's moves
	// after its opening. Absent when no mover gave one.
	Scores []Score `json:"scores,omitempty"`
}

// AsGame is r's game as a games file holds it, under rule set ruleSet
// (name@hash): Plies counts every move, and Scores, when given, are one a
// move, the zero Score for the moves before the scored ones (an
// opening's). The caller adds where the game came from and its players.
func (r *Record) AsGame(ruleSet string) Game {
	g := Game{RuleSet: ruleSet, Line: r.Line, Plies: len(r.MoveList()), End: r.End}
	if n := len(r.Scores); n > 0 {
		if n > g.Plies { // Replay says so
			g.Scores = r.Scores
		} else {
			g.Scores = make([]Score, g.Plies-n, g.Plies)
			g.Scores = append(g.Scores, r.Scores...)
		}
	}
	return g
}

// MoveList is the record's moves split.
func (l *Line) MoveList() []string { return strings.Fields(l.Moves) }
