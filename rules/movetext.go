package rules

import (
	"fmt"
	"sort"
	"strings"
)

// RankBase says how move text numbers ranks.
type RankBase uint8

const (
	// Ranks1 numbers ranks 1–10, as Fairy-Stockfish's UCI_Variant mode and
	// palace's files do (h3e3, a10a9).
	Ranks1 RankBase = 1
	// Ranks0 numbers ranks 0–9, as ICCS, UCCI and Pikafish do (h2e2).
	Ranks0 RankBase = 0
)

// String writes the move with ranks 1–10; a pass is the king's square twice.
func (m Move) String() string { return m.Text(Ranks1) }

// Text writes the move with the given rank base.
func (m Move) Text(base RankBase) string {
	if m == NoMove {
		return "0000"
	}
	var buf [6]byte
	b := appendSquare(buf[:0], m.From(), base)
	b = appendSquare(b, m.To(), base)
	return string(b)
}

// AppendText appends the move's text to b, for writers that avoid allocation.
func (m Move) AppendText(b []byte, base RankBase) []byte {
	return appendSquare(appendSquare(b, m.From(), base), m.To(), base)
}

func appendSquare(b []byte, s Square, base RankBase) []byte {
	b = append(b, byte('a'+s.File()))
	r := s.Rank() + int(base)
	if r >= 10 {
		return append(b, '1', byte('0'+r-10))
	}
	return append(b, byte('0'+r))
}

// ParseSquare reads a square such as "e2" (ranks as base says).
func ParseSquare(s string, base RankBase) (Square, error) {
	sq, rest, err := parseSquarePrefix(s, base)
	if err != nil {
		return NoSquare, err
	}
	if rest != "" {
		return NoSquare, fmt.Errorf("rules: bad square %q: trailing %q", s, rest)
	}
	return sq, nil
}

func parseSquarePrefix(s string, base RankBase) (Square, string, error) {
	if len(s) < 2 || s[0] < 'a' || s[0] > 'i' {
		return NoSquare, "", fmt.Errorf("rules: bad square in %q: want a file a–i then a rank", s)
	}
	f := int(s[0] - 'a')
	i := 1
	r := 0
	for ; i < len(s) && i < 3 && s[i] >= '0' && s[i] <= '9'; i++ {
		r = r*10 + int(s[i]-'0')
	}
	// "a10a9": a two-digit rank only where ranks reach 10 ("a01" is not one).
	if i == 3 && (base == Ranks0 || r != 10) {
		i, r = 2, int(s[1]-'0')
	}
	if i == 1 {
		return NoSquare, "", fmt.Errorf("rules: bad square in %q: no rank after the file", s)
	}
	r -= int(base)
	if r < 0 || r >= Ranks {
		lo, hi := int(base), int(base)+Ranks-1
		return NoSquare, "", fmt.Errorf("rules: bad square in %q: rank %d is outside %d–%d", s, r+int(base), lo, hi)
	}
	return SquareAt(f, r), s[i:], nil
}

// ParseMoveText reads a move's text (from-square, to-square) without
// checking it against a position.
func ParseMoveText(text string, base RankBase) (Move, error) {
	t := strings.TrimSpace(text)
	from, rest, err := parseSquarePrefix(t, base)
	if err != nil {
		return NoMove, fmt.Errorf("rules: bad move %q: %w", text, err)
	}
	to, rest, err := parseSquarePrefix(rest, base)
	if err != nil {
		return NoMove, fmt.Errorf("rules: bad move %q: %w", text, err)
	}
	if rest != "" {
		return NoMove, fmt.Errorf("rules: bad move %q: trailing %q", text, rest)
	}
	if m := NewMove(from, to); m != NoMove {
		return m, nil
	}
	return NoMove, fmt.Errorf("rules: bad move %q: a general never stands on a1, so this is no pass", text)
}

// ParseMove reads a move's text and checks that it is legal in p.
func (p *Position) ParseMove(text string, base RankBase) (Move, error) {
	m, err := ParseMoveText(text, base)
	if err != nil {
		return NoMove, err
	}
	if !p.IsLegal(m) {
		return NoMove, fmt.Errorf("rules: illegal move %q in %s", text, p.FEN())
	}
	return m, nil
}

// SortedMoveText writes moves (ranks 1–10) sorted as strings and separated
// by spaces, the form of palace's and Fairy-Stockfish's move lists.
func SortedMoveText(moves []Move) string {
	texts := make([]string, len(moves))
	for i, m := range moves {
		texts[i] = m.String()
	}
	sort.Strings(texts)
	return strings.Join(texts, " ")
}
