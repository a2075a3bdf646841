package gamerec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/rules"
)

// The rule set as games files held it before version 2: Go's field names.
const xiangqiGoFields = `{"Name":"xiangqi","Game":0,"Pass":0,"Facing":0,"BikjangClaim":false,"Counting":false,"HanBonusHalves":0,` +
	`"Repetition":3,"PerpetualCheckLoses":true,"ChaseRule":true,"ShuttleRule":false,"MoveLimit":100,"CheckExtension":true,` +
	`"MaterialDraw":true,"MaxPlies":0}`

const mateFEN = "4k4/R8/9/9/9/9/9/9/9/3K3R1 w - - 0 1"

// TestReadLegacySelfplay reads a game-record file as self-play wrote it
// before it wrote games files (palace-selfplay-games version 1), written
// out by hand: the games name the header's rule set and network, replay
// strictly, and ReadEach dates them and names their file.
func TestReadLegacySelfplay(t *testing.T) {
	xq := rules.MustPreset("xiangqi")
	data := `{"format":"palace-selfplay-games","version":1,"shard":"shard-000000.shard","rule_set":"xiangqi@28da3d27164cf76e",` +
		`"rules":` + xiangqiGoFields + `,"network_id":"net-1","game_hash":"abc","seed":9,"code_version":"old","games":2}` + "\n" +
		`{"id":0,"seed":11,"start_fen":"` + mateFEN + `","moves":"h1h10","plies":1,"result":"1-0","reason":"checkmate","full":1}` + "\n" +
		`{"id":7,"seed":12,"start_fen":"` + mateFEN + `","moves":"h1h10","plies":1,"result":"1-0","reason":"checkmate","full":0}` + "\n"
	path := filepath.Join(t.TempDir(), "shard-000000.games.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	h := f.Header
	if h.Shard != "shard-000000.shard" || h.NetworkID != "net-1" || h.GameHash != "abc" || h.Seed != 9 || h.CodeVersion != "old" || f.SelfPlayRuleSet().String() != xq.String() {
		t.Errorf("header %+v", h)
	}
	if len(f.Games) != 2 || f.Games[1].ID != 7 || f.Games[1].Seed != 12 || f.Games[0].Full != 1 {
		t.Fatalf("games %+v", f.Games)
	}
	for i := range f.Games {
		g := &f.Games[i]
		if g.RuleSet != xq.String() || g.Network != "net-1" {
			t.Errorf("game %d: rule set %q network %q", g.ID, g.RuleSet, g.Network)
		}
		if _, err := g.ReplayStrict(f.RuleSet(g)); err != nil {
			t.Error(err)
		}
	}
	var got []string
	if err := ReadEach(path, func(g *Game, rs *rules.RuleSet) error {
		if g.Date == "" || rs.String() != xq.String() {
			t.Errorf("%s: date %q, rule set %s", g.Where(), g.Date, rs)
		}
		got = append(got, g.Where()+" "+g.Network)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1] != path+" game 2 net-1" {
		t.Errorf("collected %q", got)
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"hash", `"rule_set":"xiangqi@28da3d27164cf76e"`, `"rule_set":"xiangqi@0000000000000000"`, "hash to"},
		{"no rules", `"rules":` + xiangqiGoFields + `,`, ``, "no rule set"},
		{"version", `"version":1`, `"version":2`, "version 2"},
	} {
		_, err := ReadFrom(strings.NewReader(strings.Replace(data, c.from, c.to, 1)), "old")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestReadVersion1 reads a games file of version 1 (rule sets under Go's
// field names), written out by hand.
func TestReadVersion1(t *testing.T) {
	data := `{"format":"palace-games","version":1,"rules":[` + xiangqiGoFields + `],"source":"palace import","games":1}` + "\n" +
		`{"source":"a.pgn","index":1,"rule_set":"xiangqi@28da3d27164cf76e","start_fen":"` + rules.XiangqiStartFEN +
		`","moves":"` + xqMoves + `","plies":4,"result":"1-0","reason":"resignation"}` + "\n"
	f, err := ReadFrom(strings.NewReader(data), "v1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Games[0].Replay(f.RuleSet(&f.Games[0])); err != nil {
		t.Error(err)
	}
}

// TestReplayModes: a record that stops before the rules end the game is
// an unfinished import to the lenient replay and broken to the strict one.
func TestReplayModes(t *testing.T) {
	xq := rules.MustPreset("xiangqi")
	g := Game{RuleSet: xq.String(), Line: Line{StartFEN: rules.XiangqiStartFEN, Moves: xqMoves}, Plies: 4, End: End{Result: Unknown, Reason: ReasonUnfinished}}
	if _, err := g.Replay(xq); err != nil {
		t.Errorf("lenient: %v", err)
	}
	if _, err := g.ReplayStrict(xq); err == nil || !strings.Contains(err.Error(), "not over") || !strings.Contains(err.Error(), "game 0") {
		t.Errorf("strict: %v", err)
	}
}
