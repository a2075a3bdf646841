package gamerec

import "github.com/palace-chess/palace/rules"

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
