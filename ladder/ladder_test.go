package ladder

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
)

func TestNext(t *testing.T) {
	cases := []struct {
		scores []float64
		rungs  int
		next   int
		done   bool
	}{
		{nil, 5, 0, false},
		{[]float64{0.9}, 5, 1, false},            // climbs
		{[]float64{0.9, 0.8, 0.75}, 5, 3, false}, // still climbing
		{[]float64{0.2}, 5, 0, true},             // beaten by the bottom rung
		{[]float64{0.9, 0.4}, 5, 0, true},        // bracketed: above rung 0, below rung 1
		{[]float64{0.9, 0.6}, 5, 2, false},       // not beaten yet
		{[]float64{0.6, 0.625}, 5, 2, false},     // near both, beaten by neither: on
		{[]float64{0.9, 0.6, 0.3}, 5, 0, true},   // bracketed by rungs 1 and 2
		{[]float64{0.5}, 5, 1, false},            // exactly half does not beat it
		{[]float64{0.49}, 5, 0, true},
		{[]float64{0.9, 0.9}, 2, 0, true}, // above the top rung
		{[]float64{0.9, 0.6}, 2, 0, true}, // no rung above
		{[]float64{0.55}, 1, 0, true},     // a one-rung scale
	}
	for _, c := range cases {
		next, done := Next(c.scores, c.rungs)
		if next != c.next || done != c.done {
			t.Errorf("Next(%v, %d) = %d, %v; want %d, %v", c.scores, c.rungs, next, done, c.next, c.done)
		}
	}
}

// testScale is a scale with rungs 150 Elo apart.
func testScale(rungs int) *Scale {
	s := &Scale{Format: ScaleFormat, Version: ScaleVersion, RuleSet: "xiangqi@test", Engine: Engine{ID: "stub", Program: "stub"}}
	for i := range rungs {
		s.Rungs = append(s.Rungs, Rung{Nodes: 1 << i, Elo: stats.Number(150 * i)})
	}
	return s
}

// stubRung plays a stub player of true rating elo against rung k: pairs
// pairs of games won with the logistic probability of the difference.
func stubRung(scale *Scale, elo float64, pairs int, rng *rand.Rand, played *[]int) func(k int) ([]arena.GameRecord, error) {
	return func(k int) ([]arena.GameRecord, error) {
		*played = append(*played, k)
		p := stats.ScoreFromElo(elo - float64(scale.Rungs[k].Elo))
		var recs []arena.GameRecord
		for pair := range pairs {
			for g := range 2 {
				s := 0.0
				if rng.Float64() < p {
					s = 1
				}
				recs = append(recs, arena.GameRecord{Pair: pair, Game: g, Score: s})
			}
		}
		return recs, nil
	}
}

// Players of known strength climb to the rungs around them, and the fit
// finds them there.
func TestClimbStubPlayers(t *testing.T) {
	scale := testScale(6) // 0, 150, …, 750
	cases := []struct {
		elo    float64
		played []int
		note   bool
	}{
		// Scores 0.90, 0.79, 0.61, then 0.40 at 450: beaten.
		{380, []int{0, 1, 2, 3}, false},
		// 0.76, 0.54, then 0.30 at 300.
		{170, []int{0, 1, 2}, false},
		// 0.24 against the bottom rung: below the scale.
		{-200, []int{0}, true},
		// Beats everything: climbs to the top.
		{1500, []int{0, 1, 2, 3, 4, 5}, true},
	}
	for _, c := range cases {
		var played []int
		rng := rand.New(rand.NewPCG(uint64(c.elo+10000), 7))
		r, err := Climb(scale, 400, stubRung(scale, c.elo, 400, rng, &played))
		if err != nil {
			t.Fatalf("elo %v: %v", c.elo, err)
		}
		if !slices.Equal(played, c.played) {
			t.Errorf("elo %v: played rungs %v (results %+v), want %v", c.elo, played, r.Rungs, c.played)
		}
		if len(r.Rungs) != len(played) || r.Games != 800*len(played) {
			t.Errorf("elo %v: %d rung results, %d games for %d rungs", c.elo, len(r.Rungs), r.Games, len(played))
		}
		if (r.Note != "") != c.note {
			t.Errorf("elo %v: note %q", c.elo, r.Note)
		}
		width := 100.0
		if c.elo > 1000 {
			width = 250 // far from every rung: few games carry information
		}
		if !(float64(r.Lo) <= c.elo && c.elo <= float64(r.Hi)) || float64(r.Hi-r.Lo) > width {
			t.Errorf("elo %v: rated %.0f [%.0f, %.0f]", c.elo, r.Elo, r.Lo, r.Hi)
		}
	}
}

func TestScaleFileRoundTrip(t *testing.T) {
	s := testScale(3)
	s.Matches = []Match{{Lower: "1", Upper: "2", Pairs: 10, WDL: stats.WDL{Wins: 3, Draws: 4, Losses: 13},
		Elo: stats.EloEstimate{Elo: math.Inf(-1), CI: stats.Interval{Lo: math.Inf(-1), Hi: -100}}}}
	file := filepath.Join(t.TempDir(), "s.json")
	if err := s.Save(file); err != nil {
		t.Fatal(err)
	}
	back, err := LoadScale(file)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Errorf("read back %+v, wrote %+v", back, s)
	}
	bad := []struct{ edit, want string }{
		{`"version": 2`, "version 9"},
		{`"nodes": 2`, "want increasing"},
		{`"format": "palace-ladder-scale"`, "format"},
	}
	data, _ := os.ReadFile(file)
	for _, b := range bad {
		repl := map[string]string{`"version": 2`: `"version": 9`, `"nodes": 2`: `"nodes": 1`, `"format": "palace-ladder-scale"`: `"format": "x"`}[b.edit]
		edited := strings.Replace(string(data), b.edit, repl, 1)
		if _, err := ParseScale("edited", []byte(edited)); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s → %s: error %v, want one saying %q", b.edit, repl, err, b.want)
		}
	}
	if _, err := ParseScale("x", []byte(`{"format": "palace-ladder-scale", "extra": 1}`)); err == nil {
		t.Error("an unknown field was accepted")
	}
}

// The built-in scales parse, put Fairy-Stockfish at one node at 0 with a
// player rung below it, pair rungs further apart than neighbours, and rise
// with the node count.
func TestBuiltinScales(t *testing.T) {
	all, err := BuiltinScales()
	if err != nil {
		t.Fatal(err)
	}
	games := map[string]bool{}
	for _, s := range all {
		name, _, _ := strings.Cut(s.RuleSet, "@")
		games[name] = true
		rs, err := rules.Preset(name)
		if err != nil {
			t.Fatalf("scale %s: %v", s.ID(), err)
		}
		if rs.String() != s.RuleSet {
			t.Errorf("scale for %s, but the preset is now %s: recalibrate (palace ladder calibrate)", s.RuleSet, rs)
		}
		if s.Rungs[0].Player == "" || s.Rungs[0].Elo >= 0 || s.Rungs[1].Nodes != 1 || s.Rungs[1].Elo != 0 ||
			s.Rungs[len(s.Rungs)-1].Nodes < 10000 || s.Span < 2 {
			t.Errorf("scale %s: span %d, rungs %+v", s.ID(), s.Span, s.Rungs)
		}
		if s.Rungs[len(s.Rungs)-1].Elo <= s.Rungs[len(s.Rungs)/2].Elo {
			t.Errorf("scale %s: the top rung is not above the middle one: %+v", s.ID(), s.Rungs)
		}
		if got, err := BuiltinScale(rs); err != nil || got.RuleSet != s.RuleSet {
			t.Errorf("BuiltinScale(%s) = %v, %v", rs, got, err)
		}
	}
	if !games["xiangqi"] || !games["janggi"] {
		t.Errorf("built-in scales for %v, want xiangqi and janggi", games)
	}
	capped := *mustPreset(t, "xiangqi")
	capped.MaxPlies = 7
	if _, err := BuiltinScale(&capped); err == nil || !strings.Contains(err.Error(), "palace ladder calibrate") {
		t.Errorf("a rule set without a scale: %v", err)
	}
}

func mustPreset(t *testing.T, name string) *rules.RuleSet {
	t.Helper()
	rs, err := rules.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

const fsfPath = DefaultEngine

func needFSF(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(fsfPath); err != nil {
		if os.Getenv("PALACE_REQUIRE_FSF") != "" {
			t.Fatalf("PALACE_REQUIRE_FSF is set: %v", err)
		}
		t.Skipf("no Fairy-Stockfish: %v", err)
	}
}

// A calibration and a rating end to end with Fairy-Stockfish, then the
// same rating stopped after a few games and resumed: the same games, the
// same rating.
func TestCalibrateRateResume(t *testing.T) {
	needFSF(t)
	rs := *mustPreset(t, "xiangqi")
	rs.MaxPlies = 60 // short games
	dir := t.TempDir()
	cal := Calibration{Settings: Settings{Settings: arena.Settings{Pairs: 2, OpeningPlies: 2, Concurrency: 2}, Seed: 3, Dir: filepath.Join(dir, "cal")},
		RuleSet: &rs, Program: fsfPath, Nodes: []int{1, 30, 1000}, Below: []string{"random"}, Span: 2}
	scale, err := Calibrate(context.Background(), cal)
	if err != nil {
		t.Fatal(err)
	}
	// random, 1, 30, 1000: three neighbours' matches and two of rungs two
	// apart.
	if len(scale.Rungs) != 4 || scale.Rungs[1].Elo != 0 || scale.Rungs[0].Player != "random" || scale.Games != 20 || len(scale.Matches) != 5 ||
		scale.Matches[3].Lower != "random" || scale.Matches[3].Upper != "30" || scale.Span != 2 ||
		!strings.Contains(scale.Engine.ID, "Fairy-Stockfish") || scale.RuleSet != rs.String() {
		t.Fatalf("scale %+v", scale)
	}
	if err := scale.Check(); err != nil {
		t.Fatal(err)
	}
	// Calibrated again from its records: nothing is played, the same scale.
	again, err := Calibrate(context.Background(), cal)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Rungs, scale.Rungs) {
		t.Errorf("recalibrated from the records: %+v, then %+v", scale.Rungs, again.Rungs)
	}

	job := func(sub string) Job {
		return Job{Settings: Settings{Settings: arena.Settings{Pairs: 2, OpeningPlies: 2, Concurrency: 2}, Seed: 5, Dir: filepath.Join(dir, sub)},
			Scale: scale, RuleSet: &rs, Player: arena.Random{}}
	}
	whole, err := Rate(context.Background(), job("whole"))
	if err != nil {
		t.Fatal(err)
	}
	if whole.Games != 4*len(whole.Rungs) || whole.Player != "random" {
		t.Fatalf("rating %+v", whole)
	}
	back, err := ReadRating(filepath.Join(dir, "whole"))
	if err != nil || back.Elo != whole.Elo {
		t.Fatalf("rating file: %+v, %v", back, err)
	}

	// Stopped after 3 games.
	ctx, cancel := context.WithCancel(context.Background())
	j := job("resumed")
	finished := 0
	j.Progress = func(e Event) {
		if !e.Started {
			if finished++; finished == 3 {
				cancel()
			}
		}
	}
	if _, err := Rate(ctx, j); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped ladder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(j.Dir, ResultFile)); err == nil {
		t.Fatal("a stopped ladder wrote its rating")
	}
	j.Progress = nil
	resumed, err := Rate(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if resumed.Elo != whole.Elo || resumed.Lo != whole.Lo || !reflect.DeepEqual(resumed.Rungs, whole.Rungs) {
		t.Errorf("resumed rating %+v, uninterrupted %+v", resumed, whole)
	}
	for _, rr := range whole.Rungs {
		name := RungFile(Rung{Nodes: rr.Nodes, Player: rr.Player})
		_, a, err1 := arena.ReadRecords(filepath.Join(dir, "whole", name))
		_, b, err2 := arena.ReadRecords(filepath.Join(j.Dir, name))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if len(a) != len(b) {
			t.Fatalf("%s: %d games, resumed %d", name, len(a), len(b))
		}
		for i := range a {
			if a[i].Moves != b[i].Moves || a[i].Score != b[i].Score {
				t.Errorf("%s game %d differs after the resume", name, i)
			}
		}
	}

	// Another engine build is refused.
	other := *scale
	other.Engine.ID = "Fairy-Stockfish 0.0"
	j2 := job("other")
	j2.Scale = &other
	if _, err := Rate(context.Background(), j2); err == nil || !strings.Contains(err.Error(), "calibrated with") {
		t.Errorf("another engine build: %v", err)
	}
	// A missing engine is refused before any game, though a player that
	// the player rung beats off would never meet it.
	j4 := job("noengine")
	j4.Program = "/no/such/engine"
	if _, err := Rate(context.Background(), j4); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing engine: %v", err)
	}
	if _, err := os.Stat(filepath.Join(j4.Dir, RungFile(scale.Rungs[0]))); err == nil {
		t.Error("a game was played before the engine was checked")
	}
	// And another rule set.
	j3 := job("rules")
	j3.RuleSet = mustPreset(t, "xiangqi")
	if _, err := Rate(context.Background(), j3); err == nil || !strings.Contains(err.Error(), "the scale is for") {
		t.Errorf("another rule set: %v", err)
	}
}

// The built-in scales are the fit of the calibration games kept beside
// them (calibration/GAME/): refitted here, to the last bit, without
// Fairy-Stockfish.
func TestBuiltinScalesRefit(t *testing.T) {
	all, err := BuiltinScales()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		name, _, _ := strings.Cut(s.RuleSet, "@")
		rs := mustPreset(t, name)
		pairs := s.Matches[0].Pairs
		var matches []CalibrationMatch
		for _, pr := range Pairings(len(s.Rungs), s.Span) {
			i, j := pr[0], pr[1]
			file := filepath.Join("calibration", name, CalibrationFile(s.Rungs[i], s.Rungs[j]))
			h, recs, err := arena.ReadRecords(file)
			if err != nil {
				t.Fatalf("%s: %v", s.ID(), err)
			}
			a, errA := RungName(s, i, "", rs)
			b, errB := RungName(s, j, "", rs)
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			if h.RuleSet != s.RuleSet || h.A != a || h.B != b || h.Seed != s.Seed || h.Pairs != pairs {
				t.Errorf("%s: header %+v", file, h)
			}
			matches = append(matches, CalibrationMatch{Lower: i, Upper: j, Records: recs})
		}
		unrated := make([]Rung, len(s.Rungs))
		for i, r := range s.Rungs {
			unrated[i] = Rung{Nodes: r.Nodes, Player: r.Player}
		}
		rungs, ms, err := FitCalibration(unrated, pairs, matches)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rungs, s.Rungs) || !reflect.DeepEqual(ms, s.Matches) || s.Games != 2*pairs*len(ms) {
			t.Errorf("%s refitted:\n%+v\n%+v\nbuilt in:\n%+v\n%+v", s.ID(), rungs, ms, s.Rungs, s.Matches)
		}
	}
}

// Pairings pair every two rungs up to span apart, neighbours first.
func TestPairings(t *testing.T) {
	cases := []struct {
		rungs, span int
		want        [][2]int
	}{
		{3, 1, [][2]int{{0, 1}, {1, 2}}},
		{3, 0, [][2]int{{0, 1}, {1, 2}}},
		{4, 2, [][2]int{{0, 1}, {1, 2}, {2, 3}, {0, 2}, {1, 3}}},
		{3, 5, [][2]int{{0, 1}, {1, 2}, {0, 2}}},
		{1, 2, nil},
	}
	for _, c := range cases {
		if got := Pairings(c.rungs, c.span); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Pairings(%d, %d) = %v, want %v", c.rungs, c.span, got, c.want)
		}
	}
}

// A version 1 scale (engine rungs only, matches named by node counts)
// still reads; a version 2 scale's player rung comes first, has no node
// count and is one of palace's own players; its matches name it by spec.
func TestScaleVersions(t *testing.T) {
	v1 := `{"format": "palace-ladder-scale", "version": 1, "rule_set": "xiangqi@x", "engine": {"id": "e", "program": "p"},
		"opening_plies": 2, "seed": 1, "rungs": [{"nodes": 1, "elo": 0, "lo": 0, "hi": 0}, {"nodes": 3, "elo": 12, "lo": 1, "hi": 20}],
		"matches": [{"lower": 1, "upper": 3, "pairs": 1, "wdl": {"Wins": 0, "Draws": 1, "Losses": 1}, "pentanomial": [0, 1, 0, 0, 0],
		"elo": {"Elo": 0, "CI": {"Lo": 0, "Hi": 0}, "LOS": 0}}], "games": 2, "code_version": "v", "created": "2026-01-01T00:00:00Z"}`
	s, err := ParseScale("v1", []byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	if s.Matches[0].Lower != "1" || s.Matches[0].Upper != "3" || s.Rungs[1].Label() != "3 nodes" || s.Span != 0 {
		t.Errorf("version 1 scale read as %+v", s)
	}

	s2 := testScale(3)
	s2.Rungs = append([]Rung{{Player: "uniform,sims=800", Elo: -200}}, s2.Rungs...)
	s2.Span = 2
	s2.Matches = []Match{{Lower: "uniform,sims=800", Upper: "1", Pairs: 1}, {Lower: "1", Upper: "2", Pairs: 1}}
	file := filepath.Join(t.TempDir(), "s2.json")
	if err := s2.Save(file); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if !strings.Contains(string(data), `"lower": "uniform,sims=800"`) || !strings.Contains(string(data), `"lower": 1,`) {
		t.Errorf("matches written as\n%s", data)
	}
	back, err := LoadScale(file)
	if err != nil || !reflect.DeepEqual(back, s2) {
		t.Fatalf("read back %+v, %v; wrote %+v", back, err, s2)
	}
	if got := RungFile(back.Rungs[0]); got != "rung-uniform-sims-800.jsonl" {
		t.Errorf("the player rung's record file is %s", got)
	}
	if got := CalibrationFile(back.Rungs[0], back.Rungs[1]); got != "calibrate-uniform-sims-800-1.jsonl" {
		t.Errorf("the player rung's calibration file is %s", got)
	}
	bad := []struct {
		edit func(*Scale)
		want string
	}{
		{func(s *Scale) { s.Rungs[0].Player = "net:x.palnet" }, "no network or program"},
		{func(s *Scale) { s.Rungs[0].Player = "bogus" }, "unknown player"},
		{func(s *Scale) { s.Rungs[0].Nodes = 5 }, "a player rung has no node count"},
		{func(s *Scale) { s.Rungs[0], s.Rungs[1] = s.Rungs[1], s.Rungs[0] }, "comes before the engine's rungs"},
		{func(s *Scale) { s.Rungs = append(s.Rungs, Rung{Player: "random"}) }, "comes before"},
		{func(s *Scale) { s.Rungs = []Rung{{Player: "random"}, {Player: "uniform"}} }, "no engine rung"},
	}
	for i, b := range bad {
		c := *back
		c.Rungs = slices.Clone(back.Rungs)
		b.edit(&c)
		if err := c.Check(); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("case %d: %v, want an error saying %q", i, err, b.want)
		}
	}
}

// The engine of a rung, rated by the ladder like any player, lands inside
// its own rung's interval: the scale is consistent with the way the
// ladder uses it (a player climbs from the bottom rung, so it meets rungs
// far below it: a fit over neighbours alone, and a rating over every
// rung met, put such an engine above its rung). The games
// are kept in calibration/GAME/check-NODES/, played by
// `palace ladder --player uci:/usr/games/fairy-stockfish,nodes=NODES
// --pairs 40 --seed 4242`; refitted here without Fairy-Stockfish. (At 10
// pairs a rung the rating's own noise, ±70, is twice the rung's.)
func TestRungEnginesRateInTheirRungs(t *testing.T) {
	all, err := BuiltinScales()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range all {
		name, _, _ := strings.Cut(s.RuleSet, "@")
		dirs, _ := filepath.Glob(filepath.Join("calibration", name, "check-*"))
		if len(dirs) < 2 {
			t.Errorf("%s: %d rung engines rated (%v), want at least 2", s.ID(), len(dirs), dirs)
		}
		for _, dir := range dirs {
			nodes, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), "check-"))
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			k := slices.IndexFunc(s.Rungs, func(r Rung) bool { return r.Player == "" && r.Nodes == nodes })
			if k < 0 {
				t.Fatalf("%s: no rung of %d nodes", dir, nodes)
			}
			r, err := Climb(s, 40, func(k int) ([]arena.GameRecord, error) {
				h, recs, err := arena.ReadRecords(filepath.Join(dir, RungFile(s.Rungs[k])))
				if err != nil {
					return nil, err
				}
				if h.RuleSet != s.RuleSet || h.Seed != 4242 || h.Pairs != 40 || h.A != fmt.Sprintf("uci:fairy-stockfish/nodes=%d", nodes) {
					t.Errorf("%s: header %+v", dir, h)
				}
				return recs, nil
			})
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			rung := s.Rungs[k]
			if r.Elo < rung.Lo || r.Elo > rung.Hi {
				t.Errorf("%s: Fairy-Stockfish at %d nodes rated %.0f [%.0f, %.0f]; its rung is at %.0f [%.0f, %.0f]",
					s.ID(), nodes, r.Elo, r.Lo, r.Hi, rung.Elo, rung.Lo, rung.Hi)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Error("no rung engine rated")
	}
}

func TestIsRungFile(t *testing.T) {
	for name, want := range map[string]bool{
		"rung-100.jsonl": true, "rung-uniform-sims-800.jsonl": true, "rating.json": false,
		"rung-random.jsonl": true, "rung-.jsonl": false, "rung-a,b.jsonl": false, "rung-100.json": false, "x-100.jsonl": false,
		"rung-0.jsonl": false, "rung-010.jsonl": false, "rung-x.jsonl": false, "rung-uniformly.jsonl": false,
	} {
		if got := IsRungFile(name); got != want {
			t.Errorf("IsRungFile(%q) = %v", name, got)
		}
	}
	if !IsRungFile(RungFile(Rung{Player: "uniform,sims=800"})) || !IsRungFile(RungFile(Rung{Nodes: 30})) {
		t.Error("a RungFile is not a rung file")
	}
}
