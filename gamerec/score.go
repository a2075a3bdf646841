package gamerec

import (
	"fmt"
	"strconv"
	"strings"
)

// Score is an engine's evaluation of the position it searched, to the
// side to move: centipawns, or a mate in Value moves (negative: the side
// to move is mated). In records it is UCI's text, "cp 34" or "mate -3",
// and "" for none.
type Score struct {
	Kind  ScoreKind
	Value int
}

// ScoreKind says what a Score's Value counts.
type ScoreKind uint8

const (
	NoScore    ScoreKind = iota // none given
	Centipawns                  // UCI's score cp, UCCI's plain score
	MateIn                      // UCI's score mate
)

// Given reports whether s holds a score (NoScore: the engine gave none).
func (s Score) Given() bool { return s.Kind != NoScore }

// String is the record's form.
func (s Score) String() string {
	switch s.Kind {
	case Centipawns:
		return "cp " + strconv.Itoa(s.Value)
	case MateIn:
		return "mate " + strconv.Itoa(s.Value)
	}
	return ""
}

// ParseScore reads String's form.
func ParseScore(text string) (Score, error) {
	if text == "" {
		return Score{}, nil
	}
	kind, value, ok := strings.Cut(text, " ")
	v, err := strconv.Atoi(value)
	switch {
	case !ok || err != nil:
	case kind == "cp":
		return Score{Centipawns, v}, nil
	case kind == "mate" && v != 0:
		return Score{MateIn, v}, nil
	}
	return Score{}, fmt.Errorf("score %q: want cp N or mate N (N ≠ 0), or none", text)
}

func (s Score) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *Score) UnmarshalText(text []byte) error {
	v, err := ParseScore(string(text))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
