package xqf

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// Two games of xqdb_sample15_iccs.pgn (/work/shared/data/games/xiangqi),
// ICCS moves: Zhao Guorong – Ke Yongqing, Zhongli Cup 1997 (127 plies),
// and Liu Dianzhong – Liu Dahua, Jiafun Cup 1997 (76 plies).
const (
	game1 = `h2e2 h9g7 h0g2 i9h9 c3c4 g6g5 b0c2 b9c7 i0i1 c9e7 i1f1 h7h5 c2d4 c6c5 d4c6 c5c4 f1c1 b7b9 c1c4 b9c9
b2c2 a9b9 g3g4 b9b5 g4g5 b5g5 a0b0 e7c5 b0b6 h5h6 c4h4 g7h5 h4d4 c9c6 c2c6 g5g2 c6h6 h9h6 d4d7 h5f4
d7c7 g2g0 d0e1 f4e2 c0e2 g0g3 b6b3 g9e7 c7c6 a6a5 i3i4 g3i3 c6a6 i3i4 a6a5 i4i2 e2g4 i2i3 a5a4 e6e5
a4d4 f9e8 a3a4 i6i5 a4a5 h6h3 d4d6 e5e4 a5b5 i5i4 b5c5 i4h4 b3b7 h3e3 b7e7 e4f4 e7e3 i3e3 g4i2 h4h3
i2g0 e3c3 c5c6 f4f3 d6g6 h3h2 g6h6 h2g2 h6g6 f3g3 g0e2 g2g1 c6d6 g1f1 g6f6 g3f3 e1d0 f1g1 f0e1 f3e3
f6e6 e3d3 e6g6 g1f1 g6f6 f1g1 f6g6 g1f1 g6f6 f1g1 e0f0 c3c5 f6g6 c5f5 f0e0 g1f1 g6g9 e8f9 g9g3 f5h5
e1f0 d3d2 g3d3 d2d1 d3f3 f1g1 f3g3`
	game2 = `h2e2 b9c7 h0g2 h7f7 g3g4 h9g7 b2c2 i9h9 b0a2 a9b9 a0b0 b7b3 c3c4 h9h5 i0h0 h5d5 c2c6 c9e7 e2f2 d5d6
c4c5 b3b2 h0h8 b2g2 b0b9 c7b9 h8b8 g2a2 c0a2 b9d8 c6c9 d9e8 c9a9 d6d7 b8b9 e8d9 b9b8 d9e8 f2d2 d7a7
b8b9 e8d9 b9d9 e9e8 c5d5 d8b7 a9f9 g6g5 d2g2 f7f8 g4g5 g7f9 d9f9 a7a9 f9a9 b7a9 g5g6 a9c8 g2e2 e8e9
e2e6 f8e8 e6e8 e9e8 i3i4 e7c9 g6h6 c8e7 d5e5 e7c6 e5e6 c6b4 a2c4 a6a5 h6i6 b4c2`
)

// Test positions: an endgame with Black to move, and a mate in one.
const (
	endgameFEN = "4k4/9/9/9/9/9/9/9/9/3K1R3 b - - 0 1"
	mateFEN    = "3k5/8R/9/9/9/9/9/9/9/R3K4 w - - 0 1"
)

var xiangqi = rules.MustPreset("xiangqi")

// palaceMoves is ICCS moves as a games file writes them (ranks 1–10).
func palaceMoves(t testing.TB, iccs string) string {
	t.Helper()
	var out []string
	for _, f := range strings.Fields(iccs) {
		m, err := rules.ParseMoveText(f, rules.Ranks0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m.String())
	}
	return strings.Join(out, " ")
}

// versions are the file kinds each round trip is written in: plain,
// encrypted, encrypted with the start position rotated, and the newest
// with every key byte in play.
var versions = []spec{
	{version: 10},
	{version: 11, xy: 0x37, xyf: 0x91, xyt: 0x05, mask: 0xff, or: [4]byte{1, 2, 3, 4}},
	{version: 12, xy: 0xa3, xyf: 0x1c, xyt: 0xe9, mask: 0x5a, or: [4]byte{0x80, 0x11, 0x42, 0x07}},
	{version: 18, xy: 0xfe, xyf: 0x77, xyt: 0x33, mask: 0xaa, or: [4]byte{0xff, 0, 0x3c, 0x99}},
}

// importOne imports data and requires exactly one game, which replays.
func importOne(t *testing.T, data []byte, opt gamerec.ImportOptions) (gamerec.Game, []gamerec.Notice) {
	t.Helper()
	games, errs, notices := Import(data, "t.xqf", opt)
	if len(errs) > 0 || len(games) != 1 {
		t.Fatalf("Import: %d games, errors %v", len(games), errs)
	}
	g := games[0]
	rs := opt.RuleSet
	if rs == nil {
		rs = xiangqi
	}
	if _, err := g.Replay(rs); err != nil {
		t.Fatalf("Replay: %v", err)
	}
	return g, notices
}

// importErr imports data and requires an error of the given kind.
func importErr(t *testing.T, data []byte, opt gamerec.ImportOptions, kind error) error {
	t.Helper()
	games, errs, notices := Import(data, "t.xqf", opt)
	if len(games) != 0 || len(errs) != 1 || len(notices) != 0 {
		t.Fatalf("Import: %d games, errors %v, notices %v; want one error", len(games), errs, notices)
	}
	err := errs[0]
	if !errors.Is(err, kind) || !errors.Is(err, ErrRecord) {
		t.Fatalf("error %v: want %v and ErrRecord", err, kind)
	}
	if !strings.HasPrefix(err.Error(), "xqf: t.xqf: ") {
		t.Errorf("error %q lacks the xqf: SOURCE: prefix", err)
	}
	return err
}

func noticeMsg(notices []gamerec.Notice, kind string) string {
	for _, n := range notices {
		if n.Kind == kind {
			return n.Msg
		}
	}
	return ""
}

func TestRoundTripGames(t *testing.T) {
	for _, moves := range []string{game1, game2} {
		for _, v := range versions {
			t.Run(fmt.Sprintf("v%d/%d", v.version, len(strings.Fields(moves))), func(t *testing.T) {
				s := v
				s.root = line(strings.Fields(moves)...)
				s.result = 3
				s.text = map[string]string{"Red": "Zhao Guorong", "Black": "Ke Yongqing", "Event": "Zhongli Cup", "Date": "1997-05-03"}
				g, notices := importOne(t, encode(t, s), gamerec.ImportOptions{})
				if want := palaceMoves(t, moves); g.Moves != want {
					t.Errorf("moves\n%s\nwant\n%s", g.Moves, want)
				}
				if g.StartFEN != rules.XiangqiStartFEN || g.Plies != len(strings.Fields(moves)) {
					t.Errorf("start %q, %d plies", g.StartFEN, g.Plies)
				}
				if g.RuleSet != xiangqi.String() || g.Source != "t.xqf" || g.Index != 1 {
					t.Errorf("rule set %s, source %s, index %d", g.RuleSet, g.Source, g.Index)
				}
				if g.White != "Zhao Guorong" || g.Black != "Ke Yongqing" || g.Date != "1997.05.03" || g.Tags["Event"] != "Zhongli Cup" {
					t.Errorf("white %q black %q date %q tags %v", g.White, g.Black, g.Date, g.Tags)
				}
				if g.Result != gamerec.Draw || g.Reason != gamerec.ReasonRecorded {
					t.Errorf("result %s %s", g.Result, g.Reason)
				}
				if len(notices) != 0 {
					t.Errorf("notices %v", notices)
				}
			})
		}
	}
}

func TestEndgameBlackToMove(t *testing.T) {
	const moves = "e9e8 f0f1 e8e7 f1f2"
	for _, v := range versions {
		for _, who := range []byte{1, 2} { // 2: the header says Red (0), the first move Black
			t.Run(fmt.Sprintf("v%d/%d", v.version, who), func(t *testing.T) {
				s := v
				s.fen, s.root, s.gameType = endgameFEN, line(strings.Fields(moves)...), 3
				if who == 2 {
					s.fen = strings.Replace(endgameFEN, " b ", " w ", 1) // header byte 0
				}
				g, _ := importOne(t, encode(t, s), gamerec.ImportOptions{})
				if g.StartFEN != endgameFEN || g.Moves != palaceMoves(t, moves) {
					t.Errorf("start %q moves %q", g.StartFEN, g.Moves)
				}
				if g.Result != gamerec.Unknown || g.Reason != gamerec.ReasonUnfinished || g.Tags["Type"] != "endgame" {
					t.Errorf("result %s %s, tags %v", g.Result, g.Reason, g.Tags)
				}
			})
		}
	}
}

func TestVariationsAndComments(t *testing.T) {
	main := strings.Fields(game2)[:10]
	for _, v := range versions {
		t.Run(fmt.Sprintf("v%d", v.version), func(t *testing.T) {
			root := line(main...)
			root.comment = "对局评注"               // the game's comment
			root.alt(1, "b2e2", "h9g7")         // two alternatives to the first move,
			root.alt(1, "c3c4", "c6c5", "b0c2") // one to the second
			root.alt(2, "h9g7")
			root.next[1].alt(1, "h7e7") // and one inside a variation
			root.at(3).comment = "好棋"
			root.next[1].next[0].comment = "变着的评注"
			s := v
			s.root = root
			g, notices := importOne(t, encode(t, s), gamerec.ImportOptions{})
			if want := palaceMoves(t, strings.Join(main, " ")); g.Moves != want {
				t.Errorf("moves %q, want %q", g.Moves, want)
			}
			if got := noticeMsg(notices, gamerec.NoticeVariations); got != "4" {
				t.Errorf("variations notice %q, want 4 (%v)", got, notices)
			}
			if got := noticeMsg(notices, gamerec.NoticeComments); got != "3" {
				t.Errorf("comments notice %q, want 3 (%v)", got, notices)
			}
			for _, n := range notices {
				if n.Source != "t.xqf" || n.Game != 1 {
					t.Errorf("notice %v: want source t.xqf, game 1", n)
				}
			}
		})
	}
}

func TestResults(t *testing.T) {
	for b, want := range []string{gamerec.Unknown, gamerec.WhiteWins, gamerec.BlackWins, gamerec.Draw} {
		s := versions[2]
		s.root, s.result = line(strings.Fields(game2)...), byte(b)
		g, notices := importOne(t, encode(t, s), gamerec.ImportOptions{})
		if g.Result != want || len(notices) != 0 {
			t.Errorf("result byte %d: %s %s, notices %v; want %s", b, g.Result, g.Reason, notices, want)
		}
	}
	s := versions[2]
	s.root, s.result = line(strings.Fields(game2)...), 4
	importErr(t, encode(t, s), gamerec.ImportOptions{}, gamerec.ErrRecordResult)
}

func TestMateRecordedAsLoss(t *testing.T) {
	s := versions[3]
	s.fen, s.root, s.result = mateFEN, line("a0a9"), 2 // Red mates; the record says Black won
	data := encode(t, s)
	g, notices := importOne(t, data, gamerec.ImportOptions{})
	if g.Result != gamerec.WhiteWins || g.Reason != rules.Checkmate.String() {
		t.Errorf("result %s %s, want 1-0 by checkmate", g.Result, g.Reason)
	}
	if noticeMsg(notices, gamerec.NoticeResultCorrected) == "" {
		t.Errorf("no result-corrected notice: %v", notices)
	}
	importErr(t, data, gamerec.ImportOptions{Strict: true}, gamerec.ErrRecordResult)

	// A move after the mate is refused.
	s.root = line("a0a9", "d9d8")
	err := importErr(t, encode(t, s), gamerec.ImportOptions{}, gamerec.ErrRecordMove)
	if !strings.Contains(err.Error(), "ply 2 d9d8") {
		t.Errorf("error %q does not name ply 2 d9d8", err)
	}
}

func TestChineseText(t *testing.T) {
	s := versions[1]
	s.root = line(strings.Fields(game1)...)
	s.text = map[string]string{
		"Title": "中立杯象棋电视快棋赛", "Event": "1997年中立杯", "Date": "1997年5月",
		"Site": "广州", "Red": "赵国荣", "Black": "柯有庆", "Annotator": "董世伟",
	}
	g, _ := importOne(t, encode(t, s), gamerec.ImportOptions{})
	if g.White != "赵国荣" || g.Black != "柯有庆" || g.Date != "1997.05.??" {
		t.Errorf("white %q black %q date %q", g.White, g.Black, g.Date)
	}
	for tag, want := range map[string]string{"Title": "中立杯象棋电视快棋赛", "Event": "1997年中立杯", "Site": "广州", "Annotator": "董世伟", "XQFVersion": "11", "Type": "full game"} {
		if g.Tags[tag] != want {
			t.Errorf("tag %s = %q, want %q", tag, g.Tags[tag], want)
		}
	}
	if _, ok := g.Tags["Author"]; ok {
		t.Errorf("empty Author tag kept: %v", g.Tags)
	}
}

func TestNormDate(t *testing.T) {
	for in, want := range map[string]string{
		"1997-05-03": "1997.05.03", "1997.5.3": "1997.05.03", "1997年5月3日": "1997.05.03",
		"1997年": "1997.??.??", "1997年13月": "1997.??.??", "19970503": "1997.05.03",
		"１９９７年５月": "1997.05.??", "97.5.3": "", "": "", "五月": "",
	} {
		if got := normDate(in); got != want {
			t.Errorf("normDate(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKeys checks the key schedule against values worked out by hand:
// f(k) = 54k²+221, KeyXY = f(1)·1 = 275 = 19, KeyXYf = f(2)·19 = 437·19 =
// 111, KeyXYt = f(3)·111 = 707·111 = 141 (mod 256), and the comment key
// (250·256+1) mod 32000 + 767 = 768.
func TestKeys(t *testing.T) {
	h := make([]byte, headerSize)
	h[offKeyMask] = 0x0f
	copy(h[offKeyOr:], []byte{0x10, 0x20, 0x40, 0x80})
	copy(h[offKeySum:], []byte{250, 1, 2, 3})
	k, err := headerKeys(h, 11)
	if err != nil {
		t.Fatal(err)
	}
	if k.xy != 19 || k.from != 111 || k.to != 141 || k.remark != 768 {
		t.Errorf("keys xy %d from %d to %d remark %d; want 19 111 141 768", k.xy, k.from, k.to, k.remark)
	}
	// '[' & (250&0x0f|0x10) = 0x5b & 0x1a = 0x1a; '(' & (1|0x20) = 0x28 & 0x21 = 0x20.
	if k.stream[0] != 0x1a || k.stream[1] != 0x20 {
		t.Errorf("stream key starts %#x %#x, want 0x1a 0x20", k.stream[0], k.stream[1])
	}
	if k, _ := headerKeys(h, 10); k != (keys{}) {
		t.Errorf("version 10 keys %+v, want none", k)
	}
	h[offKeySum]++
	if _, err := headerKeys(h, 11); err == nil {
		t.Error("a bad key checksum was accepted")
	}
}

func TestRefusals(t *testing.T) {
	good := versions[2]
	good.root = line(strings.Fields(game2)...)
	data := encode(t, good)

	bad := append([]byte(nil), data...)
	bad[0] = 'P'
	importErr(t, bad, gamerec.ImportOptions{}, gamerec.ErrRecordSyntax)
	importErr(t, []byte("XQ"), gamerec.ImportOptions{}, gamerec.ErrRecordSyntax)

	bad = append([]byte(nil), data...)
	bad[offVersion] = 19
	importErr(t, bad, gamerec.ImportOptions{}, gamerec.ErrRecordSyntax)

	s := good
	s.badSum = true
	importErr(t, encode(t, s), gamerec.ImportOptions{}, gamerec.ErrRecordSyntax)

	bad = append(append([]byte(nil), data...), 1, 2, 3)
	if _, notices := importOne(t, bad, gamerec.ImportOptions{}); noticeMsg(notices, gamerec.NoticeStrayBytes) == "" {
		t.Errorf("trailing bytes: notices %v", notices)
	}

	s = good
	s.root = nil
	importErr(t, encode(t, s), gamerec.ImportOptions{}, gamerec.ErrRecordNoMoves)

	janggi := gamerec.ImportOptions{RuleSet: rules.MustPreset("janggi")}
	err := importErr(t, data, janggi, gamerec.ErrRecordSetup)
	if !strings.Contains(err.Error(), "janggi") {
		t.Errorf("error %q does not name the rule set", err)
	}

	// Two pieces on one square; a general missing; an advisor out of its palace.
	bad = append([]byte(nil), data...)
	sq := startSquares(bad[:headerSize], good.version, mustKeys(t, bad))
	setSquare(t, bad, good.version, 1, sq[0]) // the second slot's horse onto the first's chariot
	importErr(t, bad, gamerec.ImportOptions{}, gamerec.ErrRecordSetup)
	bad = append([]byte(nil), data...)
	setSquare(t, bad, good.version, 4, 0xff)
	importErr(t, bad, gamerec.ImportOptions{}, gamerec.ErrRecordSetup)
	bad = append([]byte(nil), data...)
	setSquare(t, bad, good.version, 3, 4*10+4) // e4
	err = importErr(t, bad, gamerec.ImportOptions{}, gamerec.ErrRecordSetup)
	if !strings.Contains(err.Error(), "A starts on e4") {
		t.Errorf("error %q does not name the advisor's square", err)
	}
}

// mustKeys is data's keys.
func mustKeys(t *testing.T, data []byte) keys {
	k, err := headerKeys(data[:headerSize], data[offVersion])
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// setSquare changes slot's start square in an encoded header.
func setSquare(t *testing.T, data []byte, version byte, slot int, xy byte) {
	k := mustKeys(t, data)
	for i := range 32 {
		j := i
		if version >= firstRotatedVersion {
			j = (i + 1 + int(k.xy)) % 32
		}
		if j == slot {
			data[offPieces+i] = xy + k.xy
			return
		}
	}
}

func TestIllegalMove(t *testing.T) {
	moves := strings.Fields(game2)[:6]
	moves[4] = "g3g5" // a soldier two steps forward, ply 5
	for _, v := range versions {
		s := v
		s.root = line(moves...)
		err := importErr(t, encode(t, s), gamerec.ImportOptions{}, gamerec.ErrRecordMove)
		want := "ply 5 g3g5 is not legal in r1bakabnr/9/1cn2c3/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w"
		if !strings.Contains(err.Error(), want) {
			t.Errorf("v%d: error %q, want it to contain %q", v.version, err, want)
		}
	}
}

func TestTruncated(t *testing.T) {
	for _, v := range versions {
		root := line(strings.Fields(game2)[:12]...)
		root.comment = "开局"
		root.alt(3, "b0c2", "h9g7")
		root.at(5).comment = "注"
		s := v
		s.root = root
		data := encode(t, s)
		importOne(t, data, gamerec.ImportOptions{})
		for n := range len(data) {
			games, errs, _ := Import(data[:n], "t.xqf", gamerec.ImportOptions{})
			if len(games) != 0 || len(errs) != 1 || !errors.Is(errs[0], gamerec.ErrRecordSyntax) {
				t.Fatalf("v%d cut to %d of %d bytes: %d games, errors %v", v.version, n, len(data), len(games), errs)
			}
		}
	}
}

// seeds are encoded files of every kind for the fuzz target.
func seeds(t testing.TB) [][]byte {
	var out [][]byte
	for _, v := range versions {
		root := line(strings.Fields(game2)[:20]...)
		root.comment = "评注"
		root.alt(2, "h9g7", "b0c2")
		root.at(4).comment = "x"
		s := v
		s.root, s.result = root, 1
		out = append(out, encode(t, s))
		s.fen, s.root = endgameFEN, line("e9e8", "f0f1")
		out = append(out, encode(t, s))
		s.fen, s.root = mateFEN, line("a0a9")
		out = append(out, encode(t, s))
	}
	return out
}

func FuzzImport(f *testing.F) {
	for _, d := range seeds(f) {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		games, errs, _ := Import(data, "fuzz.xqf", gamerec.ImportOptions{})
		if len(games)+len(errs) != 1 {
			t.Fatalf("%d games and %d errors", len(games), len(errs))
		}
		for _, err := range errs {
			if !errors.Is(err, ErrRecord) || gamerec.RefusalReason(err) == "other" {
				t.Fatalf("error %v wraps no refusal reason", err)
			}
		}
		for i := range games {
			if _, err := games[i].Replay(xiangqi); err != nil {
				t.Fatalf("imported game does not replay: %v", err)
			}
		}
	})
}

func BenchmarkImport(b *testing.B) {
	s := versions[3]
	s.root, s.result = line(strings.Fields(game1)...), 3
	s.text = map[string]string{"Red": "赵国荣", "Black": "柯有庆", "Event": "中立杯", "Date": "1997-05-03"}
	data := encode(b, s)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		games, errs, _ := Import(data, "b.xqf", gamerec.ImportOptions{})
		if len(games) != 1 || games[0].Plies != 127 {
			b.Fatalf("%d games, errors %v", len(games), errs)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
}

// TestRepeatedRecord: a record repeating the move before it only holds a
// comment, as some writers store one.
func TestRepeatedRecord(t *testing.T) {
	for _, v := range versions {
		s := v
		s.root = line("h2e2", "h2e2", "h9g7")
		s.root.at(2).comment = "中炮"
		g, notices := importOne(t, encode(t, s), gamerec.ImportOptions{})
		if g.Moves != palaceMoves(t, "h2e2 h9g7") || noticeMsg(notices, gamerec.NoticeComments) != "1" {
			t.Errorf("v%d: moves %q, notices %v", v.version, g.Moves, notices)
		}
	}
}
