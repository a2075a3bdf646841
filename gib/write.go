package gib

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// Write writes janggi games as a .gib file (UTF-8, which Import reads as
// it reads CP949): each game's setups (초차림, 한차림) or, from another
// position, its board (판), its result (대국결과), players and date, then
// its moves numbered ply by ply with side marks and hanja, as Kakao
// Janggi writes them (1. 71楚卒61 2. ...). rulesOf gives each game's rule
// set, under which its moves are replayed and checked.
func Write(w io.Writer, games []gamerec.Game, rulesOf func(*gamerec.Game) *rules.RuleSet) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	for i := range games {
		text, err := gameText(&games[i], rulesOf(&games[i]))
		if err != nil {
			return err
		}
		if i > 0 {
			text = "\n" + text
		}
		if _, err := bw.WriteString(text); err != nil {
			return fmt.Errorf("gib: write: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("gib: write: %w", err)
	}
	return nil
}

func gameText(g *gamerec.Game, rs *rules.RuleSet) (string, error) {
	if rs == nil || rs.Game != rules.Janggi {
		return "", fmt.Errorf("gib: %s: .gib records are janggi games, this is %s", g.Where(), g.RuleSet)
	}
	game, err := g.Replay(rs)
	if err != nil {
		return "", fmt.Errorf("gib: %w", err)
	}
	var b strings.Builder
	tag := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "[%s \"%s\"]\n", k, strings.ReplaceAll(v, "\"", "'"))
		}
	}
	if cho, han, ok := standardSetups(g.StartFEN); ok && strings.Contains(g.StartFEN, " w ") {
		tag("초차림", cho)
		tag("한차림", han)
	} else {
		tag("판", boardTag(game.RootFEN()))
	}
	tag("대국결과", resultTag(g, game))
	tag("초대국자", g.White)
	tag("한대국자", g.Black)
	tag("대국일자", strings.ReplaceAll(strings.TrimSuffix(strings.TrimSuffix(g.Date, ".??"), ".??"), "?", ""))
	b.WriteString("\n")
	replay, err := rules.NewGame(rs, g.StartFEN)
	if err != nil {
		return "", fmt.Errorf("gib: %s: %w", g.Where(), err)
	}
	var buf []byte
	for i, m := range game.Moves(nil) {
		buf = strconv.AppendInt(buf[:0], int64(i+1), 10)
		buf = append(buf, ". "...)
		if m.IsPass() {
			buf = append(buf, "한수쉼"...)
		} else {
			pc := replay.Position().Board(m.From())
			buf = appendSquare(buf, m.From())
			buf = append(buf, map[rules.Color]string{rules.White: "楚", rules.Black: "漢"}[pc.Color()]...)
			buf = append(buf, hanjaPiece(pc)...)
			buf = appendSquare(buf, m.To())
			if cap := replay.Position().Board(m.To()); cap != rules.NoPiece {
				buf = append(buf, hanjaPiece(cap)...)
			}
			if replay.GivesCheck(m) {
				buf = append(buf, "장군"...)
			}
		}
		replay.Play(m)
		buf = append(buf, ' ')
		b.Write(buf)
	}
	b.WriteString("\n")
	return b.String(), nil
}

// standardSetups names the start FEN's setups, read from file a to file
// i as gibSetups does, when it is one of the sixteen.
func standardSetups(fen string) (cho, han string, ok bool) {
	c, h, ok := rules.JanggiSetupsOf(fen)
	if !ok {
		return "", "", false
	}
	return setupName(c), setupName(h), true
}

func setupName(s rules.JanggiSetup) string {
	for name, v := range gibSetups {
		if v == s && strings.ContainsRune(name, '마') {
			return name
		}
	}
	return ""
}

// boardTag is the 판 tag gibBoardFEN reads: ranks from Cho's back rank,
// Cho's pieces in Hangul and Han's in hanja, empty points as digits.
func boardTag(fen string) string {
	pos, err := rules.ParseFEN(fen, rules.MustPreset(RuleSetName))
	if err != nil {
		return ""
	}
	var b strings.Builder
	for rank := 0; rank < rules.Ranks; rank++ {
		if rank > 0 {
			b.WriteByte('/')
		}
		empty := 0
		for file := 0; file < rules.Files; file++ {
			pc := pos.Board(rules.SquareAt(file, rank))
			if pc == rules.NoPiece {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteString(strconv.Itoa(empty))
				empty = 0
			}
			if pc.Color() == rules.White {
				b.WriteString(hangulPiece(pc))
			} else {
				b.WriteString(hanjaPiece(pc))
			}
		}
		if empty > 0 {
			b.WriteString(strconv.Itoa(empty))
		}
	}
	return b.String()
}

// resultTag is the 대국결과 the reader takes back as g's result: a win the
// rules gave is 완승 (or 점수승 when counting decided it), a draw
// 무승부, anything else 미상.
func resultTag(g *gamerec.Game, game *rules.Game) string {
	winner := map[string]string{gamerec.WhiteWins: "초", gamerec.BlackWins: "한"}[g.Result]
	switch {
	case g.Result == gamerec.Draw:
		return "무승부"
	case winner == "":
		return "미상"
	case game.Result().Counted:
		return winner + " 점수승"
	}
	return winner + " 완승"
}

// AppendMove appends m, a move of g's position, as .gib records and
// Korean players write it: the from-square, the piece in Hangul, the
// to-square (79졸78; Han's soldier is 병), or 한수쉼 for a pass. Squares are
// two digits, row then column, as gibSquare reads them.
func AppendMove(dst []byte, g *rules.Game, m rules.Move) []byte {
	if m.IsPass() {
		return append(dst, "한수쉼"...)
	}
	pc := g.Position().Board(m.From())
	dst = appendSquare(dst, m.From())
	dst = append(dst, hangulPiece(pc)...)
	return appendSquare(dst, m.To())
}

// appendSquare writes s as gibSquare reads it: row 1–9 counted from
// Han's side and 0 for Cho's back rank, then the column 1–9 from file a.
func appendSquare(dst []byte, s rules.Square) []byte {
	row := 0
	if r := s.Rank(); r > 0 {
		row = 10 - r
	}
	return append(dst, byte('0'+row), byte('1'+s.File()))
}

// pieceNames are each piece type's name as records write it, Cho's then
// Han's (they differ for a soldier), each in Hangul then in hanja.
var pieceNames = map[rules.PieceType][2][2]string{
	rules.King:     {{"장", "將"}, {"장", "將"}},
	rules.Advisor:  {{"사", "士"}, {"사", "士"}},
	rules.Elephant: {{"상", "象"}, {"상", "象"}},
	rules.Horse:    {{"마", "馬"}, {"마", "馬"}},
	rules.Chariot:  {{"차", "車"}, {"차", "車"}},
	rules.Cannon:   {{"포", "包"}, {"포", "包"}},
	rules.Soldier:  {{"졸", "卒"}, {"병", "兵"}},
}

// pieceName is pc's name in Hangul (hanja 0) or hanja (1).
func pieceName(pc rules.Piece, hanja int) string {
	names, ok := pieceNames[pc.Type()]
	if !ok {
		return "?"
	}
	side := 0
	if pc.Color() == rules.Black {
		side = 1
	}
	return names[side][hanja]
}

func hangulPiece(pc rules.Piece) string { return pieceName(pc, 0) }

func hanjaPiece(pc rules.Piece) string { return pieceName(pc, 1) }
