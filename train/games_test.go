package train_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/nn/gnet"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/train"
)

func mustMove(t *testing.T, text string) rules.Move {
	t.Helper()
	m, err := rules.ParseMoveText(text, rules.Ranks1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sortBySlot orders moves by their policy slots for side, the order
// fixedPolicy prefers them in.
func sortBySlot(moves []rules.Move, side rules.Color) {
	slices.SortFunc(moves, func(a, b rules.Move) int { return encode.MoveIndex(a, side) - encode.MoveIndex(b, side) })
}

type (
	nnInput  = nn.Input
	nnOutput = nn.Output
)

func ruleSet(t testing.TB, name string) *rules.RuleSet {
	t.Helper()
	rs, err := rules.LoadRuleSet(name)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// recorded is a recorded game under rs from its start position.
func recorded(t testing.TB, rs *rules.RuleSet, moves, result string) gamerec.Game {
	t.Helper()
	g, err := rules.NewGame(rs, rs.StartFEN())
	if err != nil {
		t.Fatal(err)
	}
	reason := gamerec.ReasonRecorded
	if result == gamerec.Unknown {
		reason = gamerec.ReasonUnfinished
	}
	return gamerec.Game{Source: "test", Index: 1, RuleSet: rs.String(), Line: gamerec.Line{StartFEN: g.RootFEN(), Moves: moves},
		Plies: len(strings.Fields(moves)), End: gamerec.End{Result: result, Reason: reason}}
}

// played is the move a record's one-hot target marks, checked to be the
// only one with weight.
func played(t *testing.T, rec *datasets.Record) int {
	t.Helper()
	slot := -1
	for _, e := range rec.Policy {
		switch e.P {
		case 0:
		case 1:
			if slot >= 0 {
				t.Fatalf("ply %d: two moves marked", rec.Ply)
			}
			slot = int(e.Index)
		default:
			t.Fatalf("ply %d: target %v on slot %d, want 0 or 1", rec.Ply, e.P, e.Index)
		}
	}
	if slot < 0 {
		t.Fatalf("ply %d: no move marked", rec.Ply)
	}
	return slot
}

// TestGamePositionsXiangqi checks a hand-followed game: Red's central
// cannon, Black's horse, then a cannon takes a pawn; Red won.
func TestGamePositionsXiangqi(t *testing.T) {
	rs := ruleSet(t, "xiangqi")
	g := recorded(t, rs, "h3e3 h10g8 e3e7", gamerec.WhiteWins)
	recs, err := train.GamePositions(nil, &g, rs, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("%d positions, want 3", len(recs))
	}
	// Xiangqi's start has 44 legal moves; after h3e3, Black has 45 (the
	// h8 cannon's file is open to h2, its capture of h1 gone).
	wantLegal := []int{44, 45}
	for i, want := range wantLegal {
		if n := len(recs[i].Policy); n != want {
			t.Errorf("ply %d: %d moves listed, want every legal move (%d)", i, n, want)
		}
	}
	h3e3 := mustMove(t, "h3e3")
	if slot := played(t, &recs[0]); slot != encode.MoveIndex(h3e3, rules.White) || recs[0].Move != h3e3 {
		t.Errorf("ply 0: target slot %d, move %s; want h3e3's slot %d", slot, recs[0].Move, encode.MoveIndex(h3e3, rules.White))
	}
	for i, want := range []struct {
		side   rules.Color
		result datasets.Outcome
		value  float32
	}{{rules.White, datasets.Win, 1}, {rules.Black, datasets.Loss, -1}, {rules.White, datasets.Win, 1}} {
		r := &recs[i]
		if r.Ply != i || r.Side != want.side || r.Result != want.result || r.Value != want.value || !r.Full {
			t.Errorf("ply %d: ply %d side %v result %v value %v full %t; want %v %v %v, full", i, r.Ply, r.Side, r.Result, r.Value, r.Full, want.side, want.result, want.value)
		}
	}
	// The game ends with Red a pawn up (the e7 pawn taken): 1 point to
	// Red, -1 to Black (rules.Position.MaterialBalance).
	if recs[0].FinalMaterial <= 0 || recs[1].FinalMaterial != -recs[0].FinalMaterial {
		t.Errorf("final material %d to Red, %d to Black: want Red ahead", recs[0].FinalMaterial, recs[1].FinalMaterial)
	}
	if recs[2].NumHistory != 2 || recs[2].History[0].Move != mustMove(t, "h10g8") {
		t.Errorf("ply 2's history: %d moves, last %s", recs[2].NumHistory, recs[2].History[0].Move)
	}
	// Every position's planes equal the encoder's for the replayed game.
	game, _ := rules.NewGame(rs, rs.StartFEN())
	want, got := make([]float32, encode.InputSize), make([]float32, encode.InputSize)
	for i, text := range strings.Fields(g.Moves) {
		encode.Encode(game, game.LegalMoves(nil), want)
		if err := datasets.EncodeRecord(&recs[i], rs, got); err != nil {
			t.Fatal(err)
		}
		for k := range want {
			if want[k] != got[k] {
				t.Fatalf("ply %d: plane value %d is %v, the encoder's %v", i, k, got[k], want[k])
			}
		}
		if _, err := game.PlayText(text, rules.Ranks1); err != nil {
			t.Fatal(err)
		}
	}

	opening, err := train.GamePositions(nil, &g, rs, 2)
	if err != nil || len(opening) != 2 {
		t.Errorf("opening plies 2: %d positions, %v; want 2", len(opening), err)
	}
}

// TestGamePositionsJanggi: a pass is a move like any other (its own
// policy slot); a draw and a game without a result.
func TestGamePositionsJanggi(t *testing.T) {
	rs := ruleSet(t, "janggi")
	game, _ := rules.NewGame(rs, rs.StartFEN())
	pass := rules.PassMove(game.Position().KingSquare(rules.White)) // Cho moves first
	moves := gamerec.MovesText([]rules.Move{pass}) + " a7a6"
	draw := recorded(t, rs, moves, gamerec.Draw)
	recs, err := train.GamePositions(nil, &draw, rs, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d positions, want 2", len(recs))
	}
	if !recs[0].PassLegal || recs[0].Move != pass || played(t, &recs[0]) != encode.MoveIndex(pass, rules.White) {
		t.Errorf("ply 0: pass legal %t, move %s, want the pass %s marked", recs[0].PassLegal, recs[0].Move, pass)
	}
	for _, r := range recs {
		if r.Result != datasets.Draw || r.WDL != [3]float32{0, 1, 0} {
			t.Errorf("ply %d of a draw: result %v WDL %v", r.Ply, r.Result, r.WDL)
		}
	}
	open := recorded(t, rs, moves, gamerec.Unknown)
	recs, err = train.GamePositions(recs[:0], &open, rs, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Result != datasets.NoResult {
			t.Errorf("ply %d of a game without a result: result %v, want none", r.Ply, r.Result)
		}
	}
	// NoResult survives a shard, and the trainer gives it no value target.
	dir := t.TempDir()
	w, err := datasets.NewWriter(filepath.Join(dir, "a.shard"), datasets.NewHeader(rs), datasets.WithManifest())
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := datasets.Open(filepath.Join(dir, "a.shard"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for rec, err := range r.Records() {
		if err != nil || rec.Result != datasets.NoResult {
			t.Fatalf("read back: %v, result %v", err, rec.Result)
		}
	}

	bad := recorded(t, rs, "a4a5 a4a5", gamerec.Draw)
	if _, err := train.GamePositions(nil, &bad, rs, 0); err == nil || !strings.Contains(err.Error(), "ply 2") {
		t.Errorf("an illegal move: %v, want an error naming ply 2", err)
	}
}

// TestPolicyFrom: the filter's PolicyFrom keeps the policy targets of the
// sides it names (Full) and leaves every position's value target; a game
// set whose filter names no side of any game is refused.
func TestPolicyFrom(t *testing.T) {
	rs := ruleSet(t, "xiangqi")
	moves := "h3e3 h8e8 h1g3 h10g8 i1h1"
	game := func(result, white, black string) gamerec.Game {
		g := recorded(t, rs, moves, result)
		g.White, g.Black = white, black
		return g
	}
	redWon := game(gamerec.WhiteWins, "net:abc/sims=64", "uci:fairy-stockfish/nodes=100")
	blackWon := game(gamerec.BlackWins, "uci:fairy-stockfish/nodes=100", "net:abc/sims=64")
	drawn := game(gamerec.Draw, "a", "b")
	open := game(gamerec.Unknown, "a", "b")
	for _, c := range []struct {
		from string
		g    *gamerec.Game
		want [2]bool // policy targets of Red's and Black's moves
	}{
		{"", &blackWon, [2]bool{true, true}},
		{"all", &blackWon, [2]bool{true, true}},
		{"winner", &redWon, [2]bool{true, false}},
		{"winner", &blackWon, [2]bool{false, true}},
		{"winner", &drawn, [2]bool{true, true}},
		{"winner", &open, [2]bool{true, true}},
		{"player:fairy-stockfish", &redWon, [2]bool{false, true}},
		{"player:fairy-stockfish", &blackWon, [2]bool{true, false}},
		{"player:net:", &blackWon, [2]bool{false, true}},
		{"player:nobody", &drawn, [2]bool{false, false}},
	} {
		f := train.GameFilter{PolicyFrom: c.from}
		if err := f.Validate(); err != nil {
			t.Fatalf("%q: %v", c.from, err)
		}
		all, err := train.GamePositions(nil, c.g, rs, 0)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := f.Positions(nil, c.g, rs)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != len(all) {
			t.Fatalf("%q: %d positions, want %d", c.from, len(recs), len(all))
		}
		for i, r := range recs {
			if r.Full != c.want[r.Side] || r.Result != all[i].Result || r.WDL != all[i].WDL || !slices.Equal(r.Policy, all[i].Policy) {
				t.Errorf("%q, %s, ply %d (side %v): policy target %t (want %t), result %v WDL %v (want %v %v)",
					c.from, c.g.Result, i, r.Side, r.Full, c.want[r.Side], r.Result, r.WDL, all[i].Result, all[i].WDL)
			}
		}
	}
	for _, bad := range []string{"loser", "player:", "Winner"} {
		f := train.GameFilter{PolicyFrom: bad}
		if err := f.Validate(); err == nil || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("policy from %q: %v, want an error naming it", bad, err)
		}
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "games.jsonl")
	writeGames(t, path, []gamerec.Game{redWon, blackWon}, rs)
	set, err := train.BuildGameSet(filepath.Join(dir, "set"), []string{path}, train.GameFilter{PolicyFrom: "player:fairy-stockfish", KeepDuplicates: true}, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Fairy-Stockfish plays Black's two moves of the first game and Red's three of the second.
	if set.Train.Positions != 10 || set.Train.Policy != 5 {
		t.Errorf("%d positions, %d with a policy target; want 10 and 5", set.Train.Positions, set.Train.Policy)
	}
	_, err = train.BuildGameSet(filepath.Join(dir, "none"), []string{path}, train.GameFilter{PolicyFrom: "player:nobody"}, "test", nil)
	if err == nil || !strings.Contains(err.Error(), `"player:nobody"`) {
		t.Errorf("a policy side no game has: %v, want an error naming it", err)
	}
	_, err = train.BuildGameSet(filepath.Join(dir, "unscored"), []string{path}, train.GameFilter{ScoreScale: 400}, "test", nil)
	if err == nil || !strings.Contains(err.Error(), "scores asked for") {
		t.Errorf("scores asked of games without any: %v, want an error", err)
	}
}

// TestScoreTargets: with a score scale, a scored position's WDL is the
// engine's (logistic in centipawns, certain for a mate), the rest keep
// the game's result; without one, scores are ignored.
func TestScoreTargets(t *testing.T) {
	rs := ruleSet(t, "xiangqi")
	g := recorded(t, rs, "h3e3 h8e8 h1g3 h10g8 i1h1", gamerec.BlackWins)
	cp := func(v int) gamerec.Score { return gamerec.Score{Kind: gamerec.Centipawns, Value: v} }
	g.Scores = []gamerec.Score{{}, cp(400), cp(-400), {Kind: gamerec.MateIn, Value: 3}, {Kind: gamerec.MateIn, Value: -2}}
	p := float32(1 / (1 + math.Exp(-1)))
	want := [][3]float32{
		{0, 0, 1},     // Red, no score: the result, lost
		{p, 0, 1 - p}, // Black's +400
		{1 - p, 0, p}, // Red's −400
		{1, 0, 0},     // Black mates in 3
		{0, 0, 1},     // Red is mated in 2
	}
	f := train.GameFilter{ScoreScale: 400}
	recs, err := f.Positions(nil, &g, rs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if math.Abs(float64(r.WDL[0]-want[i][0])) > 1e-6 || r.WDL[1] != want[i][1] || math.Abs(float64(r.WDL[2]-want[i][2])) > 1e-6 ||
			math.Abs(float64(r.Value-(want[i][0]-want[i][2]))) > 1e-6 {
			t.Errorf("ply %d: WDL %v value %v, want %v", i, r.WDL, r.Value, want[i])
		}
		if wantResult := []datasets.Outcome{datasets.Loss, datasets.Win}[i%2]; r.Result != wantResult || !r.Full {
			t.Errorf("ply %d: result %v (want %v), policy target %t", i, r.Result, wantResult, r.Full)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "games.jsonl")
	writeGames(t, path, []gamerec.Game{g}, rs)
	set, err := train.BuildGameSet(filepath.Join(dir, "set"), []string{path}, f, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if set.Train.Scored != 4 {
		t.Errorf("game set: %d scored positions, want 4", set.Train.Scored)
	}
	recs, err = (&train.GameFilter{}).Positions(recs[:0], &g, rs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if res := [][3]float32{{0, 0, 1}, {1, 0, 0}}[i%2]; r.WDL != res {
			t.Errorf("no score scale, ply %d: WDL %v, want the result's %v", i, r.WDL, res)
		}
	}
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		if err := (&train.GameFilter{ScoreScale: bad}).Validate(); err == nil || !strings.Contains(err.Error(), "score scale") {
			t.Errorf("score scale %v: %v", bad, err)
		}
	}
}

func TestSelector(t *testing.T) {
	rs := ruleSet(t, "xiangqi")
	a := recorded(t, rs, "h3e3 h10g8 e3e7", gamerec.WhiteWins)
	b := recorded(t, rs, "b3e3 h10g8", gamerec.Draw)
	a.Date, b.Date = "2004.11.02", "1999.??.??"
	sel, err := train.NewSelector(train.GameFilter{MinPlies: 3})
	if err != nil {
		t.Fatal(err)
	}
	copyA := a
	copyA.Source = "elsewhere"
	for _, c := range []struct {
		g    *gamerec.Game
		keep bool
	}{{&a, true}, {&b, false}, {&copyA, false}} {
		if keep, _ := sel.Select(c.g); keep != c.keep {
			t.Errorf("%s %q: keep %t, want %t", c.g.Source, c.g.Moves, keep, c.keep)
		}
	}
	if sel.Dropped != (train.Dropped{Short: 1, Duplicates: 1}) {
		t.Errorf("dropped %+v, want one short and one duplicate", sel.Dropped)
	}

	dates := []struct {
		after, before string
		keepA, keepB  bool
	}{
		{"2004", "", true, false},
		{"2004.11", "2004.11", true, false},
		{"2004.11.03", "", false, false},
		{"", "2000", false, true},     // 1999 is known to the year
		{"", "1999.06", false, false}, // its month is not known
		{"1999", "2004", true, true},
	}
	for _, d := range dates {
		sel, err := train.NewSelector(train.GameFilter{After: d.after, Before: d.before})
		if err != nil {
			t.Fatal(err)
		}
		ka, _ := sel.Select(&a)
		kb, _ := sel.Select(&b)
		if ka != d.keepA || kb != d.keepB {
			t.Errorf("after %q before %q: keep 2004.11.02 %t, 1999 %t; want %t, %t", d.after, d.before, ka, kb, d.keepA, d.keepB)
		}
	}

	janggi := recorded(t, ruleSet(t, "janggi"), "a4a5", gamerec.Draw)
	sel, _ = train.NewSelector(train.GameFilter{RuleSets: []string{"xiangqi"}})
	if k, _ := sel.Select(&janggi); k {
		t.Error("a janggi game kept by a xiangqi filter")
	}
	if k, _ := sel.Select(&a); !k {
		t.Error("a xiangqi game dropped by a xiangqi filter")
	}

	for _, bad := range []train.GameFilter{{HeldOut: 1}, {HeldOut: -0.1}, {MinPlies: -1}, {After: "2004-11-02"}, {After: "2024.02.30"}, {Before: "2023.13"}, {RuleSets: []string{""}}} {
		if _, err := train.NewSelector(bad); err == nil {
			t.Errorf("filter %+v accepted", bad)
		}
	}
}

// TestHeldOutSplit: the split is by game, decided by the game alone.
func TestHeldOutSplit(t *testing.T) {
	rs := ruleSet(t, "xiangqi")
	game, _ := rules.NewGame(rs, rs.StartFEN())
	var legal [128]rules.Move
	first := game.LegalMoves(legal[:0])
	held := 0
	n := 0
	for _, m := range first {
		game.Play(m)
		for _, r := range game.LegalMoves(nil) {
			g := recorded(t, rs, gamerec.MovesText([]rules.Move{m, r}), gamerec.Draw)
			k := train.GameKey(&g)
			h := train.IsHeldOut(k, 0.2, 7)
			if h != train.IsHeldOut(k, 0.2, 7) {
				t.Fatal("the split is not a function of the game")
			}
			if h {
				held++
			}
			n++
		}
		game.Undo()
	}
	if share := float64(held) / float64(n); math.Abs(share-0.2) > 0.03 {
		t.Errorf("held out %d of %d games (%.3f), want about 0.2", held, n, share)
	}
}

// writeGames writes games into a games file.
func writeGames(t *testing.T, path string, games []gamerec.Game, rs ...*rules.RuleSet) {
	t.Helper()
	sets := map[string]*rules.RuleSet{}
	for _, r := range rs {
		sets[r.String()] = r
	}
	hdr, err := gamerec.NewHeader(games, sets)
	if err != nil {
		t.Fatal(err)
	}
	if err := gamerec.Write(path, hdr, games); err != nil {
		t.Fatal(err)
	}
}

// randomGames plays n short random games under rs, results cycling
// through the four kinds.
func randomGames(t testing.TB, rs *rules.RuleSet, n, plies int, seed uint64) []gamerec.Game {
	t.Helper()
	results := []string{gamerec.WhiteWins, gamerec.Draw, gamerec.BlackWins, gamerec.Unknown}
	var games []gamerec.Game
	var buf [256]rules.Move
	for i := range n {
		game, _ := rules.NewGame(rs, rs.StartFEN())
		x := seed + uint64(i)*0x9e3779b97f4a7c15
		for game.Ply() < plies && !game.Result().Over() {
			legal := game.LegalMoves(buf[:0])
			x = x*6364136223846793005 + 1442695040888963407
			game.Play(legal[(x>>33)%uint64(len(legal))])
		}
		g := recorded(t, rs, gamerec.MovesText(game.Moves(nil)), results[i%4])
		g.Index = i + 1
		if r := game.Result(); r.Over() {
			g.End = gamerec.EndOf(r)
		}
		games = append(games, g)
	}
	return games
}

func TestBuildGameSet(t *testing.T) {
	rs := ruleSet(t, "xiangqi")
	dir := t.TempDir()
	games := randomGames(t, rs, 40, 12, 1)
	games = append(games, games[3]) // a duplicate
	path := filepath.Join(dir, "games.jsonl")
	writeGames(t, path, games, rs)
	filter := train.GameFilter{HeldOut: 0.25, Seed: 3}
	set, err := train.BuildGameSet(filepath.Join(dir, "set"), []string{path}, filter, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if set.Read != 41 || set.Dropped.Duplicates != 1 || set.Train.Games+set.HeldOut.Games != 40 || set.HeldOut.Games == 0 {
		t.Fatalf("read %d, dropped %+v, %d train and %d held-out games", set.Read, set.Dropped, set.Train.Games, set.HeldOut.Games)
	}
	ids := func(d string) (map[uint64]bool, int64) {
		m, err := datasets.ReadManifest(d)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[uint64]bool{}
		var n int64
		for _, s := range m.Shards {
			r, err := datasets.Open(filepath.Join(d, s.Name))
			if err != nil {
				t.Fatal(err)
			}
			for rec, err := range r.Records() {
				if err != nil {
					t.Fatal(err)
				}
				seen[rec.GameID] = true
				n++
			}
			r.Close()
		}
		return seen, n
	}
	tr, nt := ids(set.TrainDir())
	ho, nh := ids(set.HeldOutDir())
	if nt != set.Train.Positions || nh != set.HeldOut.Positions || int64(len(tr)) != set.Train.Games || int64(len(ho)) != set.HeldOut.Games {
		t.Errorf("shards hold %d/%d positions of %d/%d games; the set says %+v and %+v", nt, nh, len(tr), len(ho), set.Train, set.HeldOut)
	}
	for id := range ho {
		if tr[id] {
			t.Errorf("game %x has positions on both sides of the split", id)
		}
	}
	again, err := train.ReadGameSet(set.Dir())
	if err != nil || !again.Same([]string{path}, filter) || again.Same([]string{path}, train.GameFilter{HeldOut: 0.5, Seed: 3}) {
		t.Errorf("read back: %v; same job %t", err, again != nil && again.Same([]string{path}, filter))
	}
	if _, err := train.BuildGameSet(set.Dir(), []string{path}, filter, "test", nil); err == nil {
		t.Error("a second build over an existing set succeeded")
	}

	// A damaged games file (an illegal move) stops the build, naming the
	// game, and leaves no set behind.
	bad := games[:2:2]
	bad = append(bad, recorded(t, rs, "h3e3 h3e3", gamerec.Draw))
	bad[2].Index = 3
	badPath := filepath.Join(dir, "bad.jsonl")
	writeGames(t, badPath, bad, rs)
	_, err = train.BuildGameSet(filepath.Join(dir, "bad"), []string{badPath}, filter, "test", nil)
	if err == nil || !strings.Contains(err.Error(), "game 3") {
		t.Errorf("a damaged games file: %v, want an error naming game 3", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed build left %s behind", filepath.Join(dir, "bad"))
	}
}

// fixedPolicy is an evaluator whose policy prefers the legal moves in
// the order of their slots, with probabilities 0.5, 0.25, 0.125, ... (the
// rest spread on the others), and WDL always (0.5, 0.3, 0.2).
type fixedPolicy struct{}

func (fixedPolicy) InputSize() int  { return encode.InputSize }
func (fixedPolicy) PolicySize() int { return encode.PolicySize() }
func (fixedPolicy) Evaluate(in []nnInput, out []nnOutput) error {
	for i := range in {
		n := len(in[i].Legal)
		p := out[i].Policy[:n]
		left := 1.0
		for k := range p {
			p[k] = float32(left / 2)
			left /= 2
		}
		p[n-1] += float32(left)
		out[i].WDL = [3]float32{0.5, 0.3, 0.2}
	}
	return nil
}

// TestEvalAccuracy checks top-1, top-3 and the losses against figures
// computed by hand: three positions of one game whose moves are the
// fixed evaluator's first, second and fourth choices.
func TestEvalAccuracy(t *testing.T) {
	rs := ruleSet(t, "xiangqi")
	game, _ := rules.NewGame(rs, rs.StartFEN())
	var moves []rules.Move
	var ranks = []int{0, 1, 3}
	var legalCounts []int
	for _, rank := range ranks {
		legal := game.LegalMoves(nil)
		// The evaluator ranks the legal moves by policy slot.
		bySlot := make([]rules.Move, len(legal))
		copy(bySlot, legal)
		side := game.Position().SideToMove()
		sortBySlot(bySlot, side)
		m := bySlot[rank]
		moves = append(moves, m)
		legalCounts = append(legalCounts, len(legal))
		game.Play(m)
	}
	g := recorded(t, rs, gamerec.MovesText(moves), gamerec.WhiteWins)
	path := filepath.Join(t.TempDir(), "g.jsonl")
	writeGames(t, path, []gamerec.Game{g}, rs)
	rep, _, err := train.EvalGames(fixedPolicy{}, []string{path}, train.GameFilter{}, train.EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("%s %v, want %v", what, got, want)
		}
	}
	near("top-1", rep.Top1, 1./3)
	near("top-3", rep.Top3, 2./3)
	// The played moves had probabilities 1/2, 1/4 and 1/16.
	near("policy loss", rep.PolicyCE, (math.Log(2)+math.Log(4)+math.Log(16))/3)
	var uce, u1, u3 float64
	for _, n := range legalCounts {
		uce += math.Log(float64(n)) / 3
		u1 += 1 / float64(n) / 3
		u3 += 3 / float64(n) / 3
	}
	near("uniform policy loss", rep.UniformCE, uce)
	near("uniform top-1", rep.UniformTop1, u1)
	near("uniform top-3", rep.UniformTop3, u3)
	// Red won: Red's two positions are wins (WDL 0.5), Black's a loss
	// (0.2); the results' own frequencies are 2/3 and 1/3.
	near("wdl loss", rep.WDLCE, -(2*math.Log(0.5)+math.Log(0.2))/3)
	near("constant wdl loss", rep.ConstWDLCE, -(2./3*math.Log(2./3) + 1./3*math.Log(1./3)))
	if rep.Positions != 3 || rep.ValuePositions != 3 || rep.Results != [3]int64{2, 0, 1} {
		t.Errorf("positions %d, with results %d: %v", rep.Positions, rep.ValuePositions, rep.Results)
	}
}

func tinyGamesConfig() train.GamesConfig {
	c := train.DefaultGamesConfig()
	c.Network = tinyNet
	c.Train.Batch, c.Train.CheckpointEvery = 16, 4
	c.Train.Schedule = gnet.Schedule{Kind: gnet.Cosine, Rate: 0.05}
	return c
}

// TestTrainGamesResumes: a job stopped part way and run again ends where
// an uninterrupted one does, with the same curve.
func TestTrainGamesResumes(t *testing.T) {
	rs := ruleSet(t, "xiangqi")
	dir := t.TempDir()
	path := filepath.Join(dir, "games.jsonl")
	writeGames(t, path, randomGames(t, rs, 24, 16, 5), rs)
	set, err := train.BuildGameSet(filepath.Join(dir, "set"), []string{path}, train.GameFilter{HeldOut: 0.25, Seed: 1}, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := tinyGamesConfig()
	job := func(name string) train.GamesJob {
		return train.GamesJob{Set: set, State: filepath.Join(dir, name+".palnet"), Curve: filepath.Join(dir, name+".json"), Best: filepath.Join(dir, name+"-best.palnet"),
			Init: initial(t), Epochs: 1, EvalEvery: 6, Evaluators: 1, Seed: 2}
	}
	whole := job("whole")
	want, wantCurve, err := train.TrainGames(context.Background(), cfg.Train, whole)
	if err != nil {
		t.Fatal(err)
	}
	steps := train.GamesSteps(cfg.Train, set.Train.Positions, 1)
	if want.Steps != steps {
		t.Fatalf("%d steps, want %d", want.Steps, steps)
	}
	var wantSteps []int64
	for _, p := range wantCurve.Points {
		wantSteps = append(wantSteps, p.Step)
	}
	if len(wantSteps) < 3 || wantSteps[0] != 0 || wantSteps[1] != 6 || wantSteps[len(wantSteps)-1] != steps {
		t.Fatalf("curve at steps %v, want 0, 6, 12, ..., %d", wantSteps, steps)
	}

	cut := job("cut")
	ctx, cancel := context.WithCancel(context.Background())
	cut.TrainProgress = func(p train.Progress) {
		if p.Step >= 8 {
			cancel()
		}
	}
	if _, _, err := train.TrainGames(ctx, cfg.Train, cut); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped job: %v", err)
	}
	cut.TrainProgress = nil
	got, gotCurve, err := train.TrainGames(context.Background(), cfg.Train, cut)
	if err != nil {
		t.Fatal(err)
	}
	if got.Weights.ID() != want.Weights.ID() {
		t.Errorf("resumed job's network %s, uninterrupted %s", got.Weights.ID(), want.Weights.ID())
	}
	if len(gotCurve.Points) != len(wantCurve.Points) {
		t.Fatalf("resumed curve has %d points, uninterrupted %d", len(gotCurve.Points), len(wantCurve.Points))
	}
	for i, p := range gotCurve.Points {
		w := wantCurve.Points[i]
		if p.Step != w.Step || *p.HeldOut != *w.HeldOut {
			t.Errorf("point %d: step %d %+v, uninterrupted step %d %+v", i, p.Step, *p.HeldOut, w.Step, *w.HeldOut)
		}
	}
	// The best file holds the network of the point with the least
	// held-out loss.
	if gotCurve.BestStep != wantCurve.BestStep || gotCurve.BestStep < 0 {
		t.Errorf("best step %d, uninterrupted %d", gotCurve.BestStep, wantCurve.BestStep)
	}
	best, ok := gotCurve.Point(gotCurve.BestStep)
	for _, p := range gotCurve.Points {
		if p.HeldOutLoss() < best.HeldOutLoss() {
			t.Errorf("step %d's held-out loss %v beats the best's (step %d, %v)", p.Step, p.HeldOutLoss(), best.Step, best.HeldOutLoss())
		}
	}
	for _, name := range []string{"whole", "cut"} {
		ck, err := model.Load(filepath.Join(dir, name+"-best.palnet"))
		if err != nil || !ok || ck.Steps != best.Step || ck.Optimizer != nil {
			t.Errorf("%s's best file: %v, step %d, want step %d without its optimizer", name, err, ck.Steps, best.Step)
		}
	}
	wholeBest, _ := model.Load(filepath.Join(dir, "whole-best.palnet"))
	cutBest, _ := model.Load(filepath.Join(dir, "cut-best.palnet"))
	if wholeBest.Weights.ID() != cutBest.Weights.ID() {
		t.Error("the best networks of the resumed and the uninterrupted job differ")
	}
	// Done, the job does nothing more.
	again, againCurve, err := train.TrainGames(context.Background(), cfg.Train, cut)
	if err != nil || again.Steps != steps || len(againCurve.Points) != len(wantCurve.Points) {
		t.Errorf("a finished job run again: %v, %d steps, %d points", err, again.Steps, len(againCurve.Points))
	}
}

func TestGamesConfig(t *testing.T) {
	if _, err := train.ParseGamesConfig([]byte("epochs: 2\nnetwork: {blocks: 2}\n"), "x.yaml"); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"epochs: 0\n", "network: {blockz: 2}\n", "train: {label_smoothing: 1}\n", "eval_every: -1\n"} {
		if _, err := train.ParseGamesConfig([]byte(bad), "x.yaml"); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Records mixed into self-play's batches change what is learnt, the same
// way every time, and a stopped run resumes to the same network.
func TestRunMixesRecords(t *testing.T) {
	rs := ruleSet(t, "xiangqi")
	dir, sp := shards(t, 8)
	path := filepath.Join(t.TempDir(), "games.jsonl")
	writeGames(t, path, randomGames(t, rs, 12, 16, 9), rs)
	set, err := train.BuildGameSet(filepath.Join(t.TempDir(), "set"), []string{path}, train.GameFilter{}, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.Records, cfg.RecordsShare, cfg.RecordsGenerations = set.Dir(), 0.25, 1
	run := func(name string, records *train.GameSet, ctx context.Context, progress func(train.Progress)) (*train.Result, error) {
		job := train.Job{Dirs: []string{dir}, RuleSets: []*rules.RuleSet{sp}, Init: initial(t), TargetSteps: 12, Seed: 4,
			State: filepath.Join(t.TempDir(), name), Records: records, Progress: progress}
		res, err := train.Run(ctx, cfg, job)
		return &res, err
	}
	plain, err := run("plain", nil, context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mixed, err := run("mixed", set, context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Checkpoint.Weights.ID() == mixed.Checkpoint.Weights.ID() {
		t.Error("mixing records changed nothing")
	}
	// Stopped after the first save and resumed: the same network.
	state := filepath.Join(t.TempDir(), "cut")
	ctx, cancel := context.WithCancel(context.Background())
	job := train.Job{Dirs: []string{dir}, RuleSets: []*rules.RuleSet{sp}, Init: initial(t), TargetSteps: 12, Seed: 4, State: state, Records: set,
		Progress: func(p train.Progress) {
			if p.Step >= 5 {
				cancel()
			}
		}}
	if _, err := train.Run(ctx, cfg, job); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped run: %v", err)
	}
	job.Progress = nil
	res, err := train.Run(context.Background(), cfg, job)
	if err != nil {
		t.Fatal(err)
	}
	if res.Checkpoint.Weights.ID() != mixed.Checkpoint.Weights.ID() {
		t.Errorf("resumed with records: network %s, uninterrupted %s", res.Checkpoint.Weights.ID(), mixed.Checkpoint.Weights.ID())
	}

	bad := testConfig()
	bad.RecordsShare = 0.3
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "records") {
		t.Errorf("records_share without records: %v", err)
	}
	// Issue 47: records given without a share were accepted and never read.
	for _, unused := range []train.Config{{Records: "/etc"}, {RecordsGenerations: 2}} {
		bad := testConfig()
		bad.Records, bad.RecordsGenerations = unused.Records, unused.RecordsGenerations
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "never used with records_share 0") {
			t.Errorf("records %q, records_generations %d without records_share: %v", bad.Records, bad.RecordsGenerations, err)
		}
	}
}

// palace train --games reads a match's record file directly: a ladder
// rung's games, with the engines' scores as value targets.
func TestBuildGameSetFromMatchRecords(t *testing.T) {
	path := "../ladder/calibration/xiangqi/check-10/rung-1.jsonl"
	set, err := train.BuildGameSet(filepath.Join(t.TempDir(), "set"), []string{path}, train.GameFilter{ScoreScale: 400}, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if set.Read != 80 || set.Train.Games == 0 || set.Train.Scored == 0 {
		t.Errorf("read %d games, %d training games, %d scored positions", set.Read, set.Train.Games, set.Train.Scored)
	}
}
