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
// repetition count besides. rs must be the shard's rule set.
//
// The layout below copies encode's for encode.Version 1; the lines after
// this function stop the build when encode's version or plane count
// changes, and TestEncodeRecordMatchesEncode compares the two on many
// games, so the copies cannot drift apart unnoticed.
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
	dst = dst[:encode.InputSize]
	clear(dst)
	side := rec.Side
	board := rec.Board
	var kings [2]rules.Square
	for step := 0; step < encode.HistorySteps && step <= rec.Ply; step++ {
		if step > 0 {
			pm := rec.History[step-1]
			if m := pm.Move; !m.IsPass() {
				board[m.From()], board[m.To()] = board[m.To()], pm.Captured
			}
		}
		base := step * piecePlanes * rules.Squares
		for s, pc := range board {
			if pc == rules.NoPiece {
				continue
			}
			if step == 0 && pc.Type() == rules.King {
				kings[pc.Color()] = rules.Square(s)
			}
			plane := int(pc.Type()) - 1
			if pc.Color() != side {
				plane += 7
			}
			sq := s
			if side == rules.Black {
				sq = (rules.Ranks-1-s/rules.Files)*rules.Files + s%rules.Files
			}
			dst[base+plane*rules.Squares+sq] = 1
		}
	}
	feat := func(i int, v float32) {
		if v == 0 {
			return
		}
		p := dst[(encode.HistorySteps*piecePlanes+i)*rules.Squares:][:rules.Squares]
		for j := range p {
			p[j] = v
		}
	}
	b := func(x bool) float32 {
		if x {
			return 1
		}
		return 0
	}
	lastWasPass := rec.NumHistory > 0 && rec.History[0].Move.IsPass()
	bikjang := (rs.Facing == rules.FacingBikjang || rs.Facing == rules.FacingMustBreak) && kingsFacing(&rec.Board, kings)
	feat(featBlackToMove, b(side == rules.Black))
	feat(featJanggi, b(rs.Game == rules.Janggi))
	feat(featPassLegal, b(rec.PassLegal))
	feat(featLastWasPass, b(lastWasPass))
	feat(featBikjang, b(bikjang))
	feat(featInCheck, b(rec.InCheck))
	feat(featRepeatedOnce, b(rec.Repetitions >= 1))
	feat(featRepeatedTwice, b(rec.Repetitions >= 2))
	if rs.MoveLimit > 0 {
		feat(featMoveClock, min(float32(rec.HalfmoveClock)/float32(rs.MoveLimit), 1))
	}
	if rs.MaxPlies > 0 {
		feat(featGameLength, min(float32(rec.Ply)/float32(rs.MaxPlies), 1))
	}
	if rs.Counting {
		feat(featCounting, 1)
		bonus := float32(rs.HanBonusHalves) / 2 // Han's (Black's) bonus
		if side == rules.White {
			bonus = -bonus
		}
		margin := float32(materialCount(&rec.Board, side)-materialCount(&rec.Board, side.Other())) + bonus
		feat(featCountMargin, margin/40)
	}
	feat(featPassUnlessInCheck, b(rs.Pass == rules.PassUnlessInCheck))
	feat(featPassWhenStuck, b(rs.Pass == rules.PassWhenStuck))
	feat(featFacingBikjang, b(rs.Facing == rules.FacingBikjang))
	feat(featFacingMustBreak, b(rs.Facing == rules.FacingMustBreak))
	feat(featFacingIgnored, b(rs.Facing == rules.FacingIgnored))
	feat(featPerpetualCheckLoses, b(rs.PerpetualCheckLoses))
	feat(featChaseRule, b(rs.ChaseRule))
	feat(featShuttleRule, b(rs.ShuttleRule))
	feat(featFourfold, b(rs.Repetition >= 4))
	feat(featBikjangClaim, b(rs.BikjangClaim))
	feat(featMaterialDraw, b(rs.MaterialDraw))
	feat(featOnes, 1)
	return nil
}

// EncodeRecord follows encode.Version 1 with 80 planes; either changing
// makes one of these constant indices out of range and stops the build,
// so that EncodeRecord is brought into line before any shard is read
// with it.
var (
	_ = [1]struct{}{}[encode.Version-1]
	_ = [1]struct{}{}[encode.Planes-80]
)

// encode's layout for Version 1: 14 piece planes per history step, then
// these features, each a plane filled with one value.
const piecePlanes = 14

const (
	featBlackToMove = iota
	featJanggi
	featPassLegal
	featLastWasPass
	featBikjang
	featInCheck
	featRepeatedOnce
	featRepeatedTwice
	featMoveClock
	featGameLength
	featCounting
	featCountMargin
	featPassUnlessInCheck
	featPassWhenStuck
	featFacingBikjang
	featFacingMustBreak
	featFacingIgnored
	featPerpetualCheckLoses
	featChaseRule
	featShuttleRule
	featFourfold
	featBikjangClaim
	featMaterialDraw
	featOnes
	featureCount
)

var _ = [1]struct{}{}[encode.HistorySteps*piecePlanes+featureCount-encode.Planes]

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

// countingValues are janggi's material values (rules.Position.MaterialCount).
var countingValues = [8]int{rules.Chariot: 13, rules.Cannon: 7, rules.Horse: 5, rules.Elephant: 3, rules.Advisor: 3, rules.Soldier: 2}

func materialCount(board *[rules.Squares]rules.Piece, c rules.Color) int {
	n := 0
	for _, pc := range board {
		if pc != rules.NoPiece && pc.Color() == c {
			n += countingValues[pc.Type()]
		}
	}
	return n
}
