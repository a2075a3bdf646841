package pgn

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/palace-chess/palace/rules"
)

// FuzzRead feeds arbitrary bytes to Import: it must not panic, every error
// must be an *Error naming the source, and every game it imports must
// replay.
func FuzzRead(f *testing.F) {
	for _, path := range []string{"testdata/ccpd_sample/00000016.pgn", "testdata/xqdb_sample15/xqdb_sample15_iccs.pgn",
		"testdata/xqdb_sample15/xqdb_sample15_wxf_fullwidth.pgn", "testdata/xqdb_sample15/xqdb_sample15_chinese_simplified.pgn"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 700)]) // a game, cut mid-game
	}
	for _, s := range []string{
		"[Event \"a \\\"b\\\"\"]\n1. h2e2 {c} (1. h0g2 (1. b0c2)) h9g7 $1 2.h0g2!? 1-0\n",
		"[FEN \"3k5/9/9/9/9/9/R8/9/R8/4K4 w - - 0 1\"]\n1. R9+1 R+.3 +R-1 ++.4 3+.4 33.4 *",
		"[FEN \"2P6/2P1k4/2P6/2P6/2P6/9/9/9/9/3K5 w - - 0 1\"]\n1. ++.6 一兵平六 前七進一 中兵平六 *",
		"[Variant \"janggi\"]\n1. Che3 @@@@ *",
		"１．炮二平五　馬８進７ ２．马二进三 紅勝",
		"[Event \"x\"\n{ unclosed", "(((", "[Result \"1-0\"]\n1-0", "\xEF\xBB\xBF[Event \"bom\"]\n1. h2e2 *",
		"[SetUp \"1\"]\n1. h2e2", "1. h2e2 h9g7 2. h0g2\xff *",
	} {
		f.Add([]byte(s))
	}
	xiangqi := rules.MustPreset("xiangqi")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []Options{{}, {CutAtRulesEnd: true}, {Encoding: Big5}} {
			games, errs, _ := Import(data, "fuzz.pgn", opt)
			for _, err := range errs {
				var e *Error
				if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), "pgn: fuzz.pgn: ") {
					t.Fatalf("error %v is not a pgn *Error naming the file", err)
				}
			}
			for i := range games {
				rs := xiangqi
				if name, _, _ := strings.Cut(games[i].RuleSet, "@"); name != "xiangqi" {
					rs = rules.MustPreset(name)
				}
				if _, err := games[i].Replay(rs); err != nil {
					t.Fatalf("imported game does not replay: %v", err)
				}
			}
		}
	})
}
