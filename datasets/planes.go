package datasets

import (
	"fmt"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/rules"
)

// EncodeRecord writes the record's input planes into dst (encode.InputSize
// floats): the same planes encode.Encode writes for the game position the
// record was taken from, built straight from the record rather than by
// parsing a FEN and replaying moves into a rules.Game, which would cost
// several times more per training sample and would lose the ply and
// repetition count besides. rs must be the shard's rule set. The planes
// themselves come from encode.EncodeState, the one writer of the layout;
// TestEncodeRecordMatchesEncode holds the two paths equal on many games.
func EncodeRecord(rec *Record, rs *rules.RuleSet, dst []float32) error {
	if rs == nil {
		return fmt.Errorf("datasets: EncodeRecord: nil rule set")
	}
	if len(dst) < encode.InputSize {
		return fmt.Errorf("datasets: destination holds %d floats, want %d", len(dst), encode.InputSize)
	}
	if err := rec.checkPosition(); err != nil {
		return fmt.Errorf("datasets: record of game %d ply %d: %v", rec.GameID, rec.Ply, err)
	}
	st := &encode.State{Rules: rs, Side: rec.Side, PassLegal: rec.PassLegal, InCheck: rec.InCheck,
		Repetitions: int(rec.Repetitions), HalfmoveClock: int(rec.HalfmoveClock), Ply: int(rec.Ply)}
	board := rec.Board
	var kings [2]rules.Square
	for s, pc := range board {
		if pc.Type() == rules.King && pc != rules.NoPiece {
			kings[pc.Color()] = rules.Square(s)
		}
	}
	for step := 0; step < encode.HistorySteps && step <= int(rec.Ply); step++ {
		if step > 0 {
			if step > int(rec.NumHistory) {
				break
			}
			pm := rec.History[step-1]
			if m := pm.Move; !m.IsPass() {
				board[m.From()], board[m.To()] = board[m.To()], pm.Captured
			}
		}
		st.Boards[step] = board
		st.Steps++
	}
	st.LastWasPass = rec.NumHistory > 0 && rec.History[0].Move.IsPass()
	st.Bikjang = (rs.Facing == rules.FacingBikjang || rs.Facing == rules.FacingMustBreak) && kingsFacing(&rec.Board, kings)
	return encode.EncodeState(st, dst)
}

// kingsFacing is rules.Position's test: generals on one file with nothing
// between them, scanning up from White's.
func kingsFacing(board *[rules.Squares]rules.Piece, kings [2]rules.Square) bool {
	w, bl := kings[rules.White], kings[rules.Black]
	if w.File() != bl.File() {
		return false
	}
	for s := w + rules.Files; s < bl; s += rules.Files {
		if board[s] != rules.NoPiece {
			return false
		}
	}
	return true
}
