package main

import (
	"strings"
	"testing"

	"github.com/palace-chess/palace/rules"
)

// FuzzPerftBatchLine: a perft --batch line of any bytes is a position and
// a depth within rules.MaxPerftDepth, or an error; never a panic or a
// depth that reaches an allocation unbounded (issue 25: depth 1e9 ran out
// of memory). Lines that parse are counted to depth 2 at most, so that a
// run stays bounded.
func FuzzPerftBatchLine(f *testing.F) {
	for _, seed := range []string{
		rules.XiangqiStartFEN + "\t2",
		rules.MustPreset("janggi").StartFEN() + "\t1",
		rules.XiangqiStartFEN + "\t1000000000",
		rules.XiangqiStartFEN + "\t9223372036854775807",
		rules.XiangqiStartFEN + "\t1152921504606846976",
		rules.XiangqiStartFEN + "\t-1",
		"\t",
		"x\t1",
		"4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1\t 3 ",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	xiangqi, janggi := rules.MustPreset("xiangqi"), rules.MustPreset("janggi")
	f.Fuzz(func(t *testing.T, line string, isJanggi bool) {
		rs := xiangqi
		if isJanggi {
			rs = janggi
		}
		g, fen, depth, err := parsePerftLine(rs, line)
		if err != nil {
			if g != nil {
				t.Fatalf("%q: a game with the error %v", line, err)
			}
			return
		}
		if depth < 0 || depth > rules.MaxPerftDepth || !strings.HasPrefix(line, fen+"\t") {
			t.Fatalf("%q: fen %q, depth %d", line, fen, depth)
		}
		g.Perft(min(depth, 2))
	})
}
