package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/rules"
)

// capped is a preset with a length cap (and any extra YAML), so that
// uniform-search games stay short.
func capped(t testing.TB, base string, maxPlies int, extra string) *rules.RuleSet {
	t.Helper()
	return ruleSet(t, "base: "+base+"\nmaxPlies: "+strconv.Itoa(maxPlies)+"\n"+extra)
}

func run(t *testing.T, c Config) Outcome {
	t.Helper()
	out, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// replay plays a record's moves under rs and checks that they end the game
// as recorded, exactly at the last move.
func replay(t *testing.T, rs *rules.RuleSet, r GameRecord) {
	t.Helper()
	g, err := rules.NewGame(rs, r.StartFEN)
	if err != nil {
		t.Fatal(err)
	}
	for k, text := range strings.Fields(r.Moves) {
		if g.Result().Over() {
			t.Fatalf("game %d %s: over before move %d", r.Index, r.Rules, k+1)
		}
		if _, err := g.PlayText(text, rules.Ranks1); err != nil {
			t.Fatalf("game %d %s: move %d: %v", r.Index, r.Rules, k+1, err)
		}
	}
	res := g.Result()
	if res.Score() != r.Result || res.Reason.String() != r.Reason || g.Ply() != r.Plies {
		t.Errorf("game %d %s: replayed %s %s in %d plies, recorded %s %s in %d", r.Index, r.Rules,
			res.Score(), res.Reason, g.Ply(), r.Result, r.Reason, r.Plies)
	}
}

// Game i under A and under B start from the same position, opening moves
// and seed; the records replay to their recorded results.
func TestPairedGamesStartAlike(t *testing.T) {
	a, b := capped(t, "janggi", 40, ""), capped(t, "janggiclassic", 40, "")
	c := Config{A: a, B: b, Player: uniformPlayer(t, 4), Settings: arena.Settings{Pairs: 6, OpeningPlies: 3, Concurrency: 2}, Seed: 7,
		Records: filepath.Join(t.TempDir(), "exp.jsonl")}
	out := run(t, c)
	if len(out.Records) != 12 || out.Played != 12 || out.Before != 0 {
		t.Fatalf("%d records, %d played, %d before; want 12, 12, 0", len(out.Records), out.Played, out.Before)
	}
	h, recs, err := ReadRecords(c.Records)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(recs, out.Records) {
		t.Error("the file's records differ from Run's")
	}
	ra, rb, err := h.RuleSets()
	if err != nil {
		t.Fatal(err)
	}
	if ra.String() != a.String() || rb.String() != b.String() {
		t.Errorf("header rule sets %s, %s; want %s, %s", ra, rb, a, b)
	}
	for i := 0; i < 6; i++ {
		ga, gb := recs[2*i], recs[2*i+1]
		if ga.Index != i || gb.Index != i || ga.Rules != "A" || gb.Rules != "B" {
			t.Fatalf("records %d, %d are game %d %s and %d %s", 2*i, 2*i+1, ga.Index, ga.Rules, gb.Index, gb.Rules)
		}
		o, err := OpeningFor(a, b, 3, 7, i)
		if err != nil {
			t.Fatal(err)
		}
		if ga.Seed != GameSeed(7, i) || gb.Seed != ga.Seed {
			t.Errorf("game %d: seeds %d and %d, want both %d", i, ga.Seed, gb.Seed, GameSeed(7, i))
		}
		if ga.StartFEN != o.FEN || gb.StartFEN != o.FEN || ga.Opening != o.Name || gb.Opening != o.Name {
			t.Errorf("game %d: starts %q (%s) and %q (%s), want %q (%s)", i, ga.StartFEN, ga.Opening, gb.StartFEN, gb.Opening, o.FEN, o.Name)
		}
		for _, r := range []GameRecord{ga, gb} {
			if !strings.HasPrefix(r.Moves, o.MovesText()+" ") {
				t.Errorf("game %d %s: moves %q do not start with the opening %q", i, r.Rules, r.Moves, o.MovesText())
			}
		}
		// Janggi's setups in turn, as the arena cycles them.
		if want := rules.JanggiSetupFEN(rules.JanggiSetup(i%16/4), rules.JanggiSetup(i%4)); o.FEN != want {
			t.Errorf("game %d: setup %s, want %s", i, o.FEN, want)
		}
		replay(t, a, ga)
		replay(t, b, gb)
	}
}

// The same switches under two names: every pair is the same game move for
// move (the seeds pair), and the analysis sees no difference.
func TestPairedAgainstItself(t *testing.T) {
	a := capped(t, "janggi", 40, "")
	b := capped(t, "janggi", 40, "name: janggi-again\n")
	out := run(t, Config{A: a, B: b, Player: uniformPlayer(t, 4), Settings: arena.Settings{Pairs: 8, OpeningPlies: 2, Concurrency: 3}, Seed: 3,
		Records: filepath.Join(t.TempDir(), "exp.jsonl")})
	for i := 0; i < len(out.Records); i += 2 {
		ga, gb := out.Records[i], out.Records[i+1]
		if ga.Moves != gb.Moves || ga.Result != gb.Result || ga.Reason != gb.Reason {
			t.Errorf("game %d: %s %s %q under A, %s %s %q under B", ga.Index, ga.Result, ga.Reason, ga.Moves, gb.Result, gb.Reason, gb.Moves)
		}
	}
	an := Analyze(out.Header, out.Records)
	for name, d := range map[string]Diff{"score": an.Diff.Score, "draws": an.Diff.Draws, "length": an.Diff.Length, "wins": an.Diff.Wins} {
		if d.Significant || d.Mean != 0 || d.P != 1 || d.ExactP != 1 {
			t.Errorf("%s: %+v, want no difference (mean 0, p 1)", name, d)
		}
	}
	var text strings.Builder
	if err := an.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "significant at 5%:     nothing") {
		t.Errorf("the table finds a difference between a rule set and itself:\n%s", text.String())
	}
}

// B ends every game at ply 12 as a draw (no counting); A plays on to ply
// 40 and counts: the draw rate and length differences are found.
func TestPairedObviousDifference(t *testing.T) {
	a := capped(t, "janggi", 40, "")
	b := capped(t, "janggi", 12, "counting: false\n")
	out := run(t, Config{A: a, B: b, Player: uniformPlayer(t, 4), Settings: arena.Settings{Pairs: 12, Concurrency: 2}, Seed: 5,
		Records: filepath.Join(t.TempDir(), "exp.jsonl")})
	an := Analyze(out.Header, out.Records)
	if an.Pairs != 12 {
		t.Fatalf("%d pairs, want 12", an.Pairs)
	}
	if float64(an.B.Draws.Rate) < 0.9 || !an.Diff.Draws.Significant || float64(an.Diff.Draws.Mean) < 0.5 {
		t.Errorf("draws: B %+v, difference %+v; want B nearly all draws and a significant rise", an.B.Draws, an.Diff.Draws)
	}
	if !an.Diff.Length.Significant || float64(an.Diff.Length.Mean) >= 0 || an.Diff.Length.P >= 0.01 {
		t.Errorf("length difference %+v, want significantly shorter under B", an.Diff.Length)
	}
	if lc := an.B.Reasons["length-cap"]; lc.N != 12 || float64(lc.Rate) < 0.9 {
		t.Errorf("B's length-cap ends %+v, want nearly all 12", lc)
	}
	var text strings.Builder
	an.WriteText(&text)
	if !strings.Contains(text.String(), "significant at 5%:     ") || !strings.Contains(text.String(), "draws +") {
		t.Errorf("the table does not report the draw rate's rise as significant:\n%s", text.String())
	}
}

// An experiment stopped midway and resumed (with a torn last line, as a
// kill -9 mid-write leaves) ends with the same records as one that ran
// through; extending the game count later adds only the new indices.
func TestResumeExact(t *testing.T) {
	a, b := capped(t, "janggi", 30, ""), capped(t, "janggiclassic", 30, "")
	dir := t.TempDir()
	base := Config{A: a, B: b, Player: uniformPlayer(t, 4), Settings: arena.Settings{Pairs: 6, OpeningPlies: 2, Concurrency: 2}, Seed: 11}

	whole := base
	whole.Records = filepath.Join(dir, "whole.jsonl")
	want := run(t, whole).Records

	cut := base
	cut.Records = filepath.Join(dir, "cut.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	cut.Progress = func(s Status) {
		if s.Played == 3 {
			cancel()
		}
	}
	first, err := Run(ctx, cut)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v, want context.Canceled", err)
	}
	if first.Played < 3 || first.Played >= 12 {
		t.Fatalf("interrupted run played %d games, want 3 to 11", first.Played)
	}
	// A torn line: half a record, no newline.
	f, err := os.OpenFile(cut.Records, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"index":5,"rules":"B","seed":12`)
	f.Close()

	cut.Progress = nil
	second := run(t, cut)
	if second.Before != first.Played || second.Before+second.Played != 12 {
		t.Errorf("resumed with %d games and played %d; want %d and the other %d", second.Before, second.Played, first.Played, 12-first.Played)
	}
	_, got, err := ReadRecords(cut.Records)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("interrupted and resumed records differ from an uninterrupted run's:\n%v\n%v", got, want)
	}

	// Three game indices, then six: the same six pairs again.
	grown := base
	grown.Records = filepath.Join(dir, "grown.jsonl")
	grown.Pairs = 3
	if out := run(t, grown); out.Played != 6 {
		t.Errorf("3 games: played %d, want 6", out.Played)
	}
	grown.Pairs = 6
	if out := run(t, grown); out.Before != 6 || out.Played != 6 || !reflect.DeepEqual(out.Records, want) {
		t.Errorf("grown to 6 games: %d before, %d played, same records %v", out.Before, out.Played, reflect.DeepEqual(out.Records, want))
	}
	// Fewer games than the file holds: nothing is played, the rest left out.
	grown.Pairs = 2
	if out := run(t, grown); out.Played != 0 || len(out.Records) != 4 || out.Beyond != 8 {
		t.Errorf("2 games of 6 recorded: played %d, %d records, %d beyond; want 0, 4, 8", out.Played, len(out.Records), out.Beyond)
	}
	// Complete: a rerun plays nothing and changes nothing.
	if out := run(t, whole); out.Played != 0 || out.Before != 12 || !reflect.DeepEqual(out.Records, want) {
		t.Errorf("rerun of a complete experiment: played %d, %d before", out.Played, out.Before)
	}
}

func TestRecordFileErrors(t *testing.T) {
	a, b := capped(t, "janggi", 20, ""), capped(t, "janggiclassic", 20, "")
	dir := t.TempDir()
	c := Config{A: a, B: b, Player: uniformPlayer(t, 2), Settings: arena.Settings{Pairs: 2}, Seed: 1, Records: filepath.Join(dir, "exp.jsonl")}
	run(t, c)
	good, err := os.ReadFile(c.Records)
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"seed", func(c *Config) { c.Seed = 2 }, "seed 1, not 2"},
		{"player", func(c *Config) { c.Player = uniformPlayer(t, 3) }, "player uniform/sims=2, not uniform/sims=3"},
		{"rules", func(c *Config) { c.A, c.B = c.B, c.A }, "rules janggi-custom@"},
		{"openings", func(c *Config) { c.OpeningPlies = 2 }, "openings of 0 plies, not 2"},
	} {
		other := c
		tc.change(&other)
		_, err := Run(context.Background(), other)
		if err == nil || !strings.Contains(err.Error(), "holds another experiment") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s changed: %v, want a refusal naming %q", tc.name, err, tc.want)
		}
	}

	lines := strings.SplitAfter(string(good), "\n")
	for _, tc := range []struct {
		name, data, want string
	}{
		{"corrupt line", lines[0] + lines[1] + "{not json\n" + lines[2], "line 3"},
		{"unknown field", lines[0] + strings.Replace(lines[1], `"index"`, `"idx":0,"index"`, 1), "line 2"},
		{"twice", lines[0] + lines[1] + lines[1], "line 3: game 0 under A recorded twice"},
		{"bad result", lines[0] + strings.Replace(lines[1], `"result":"`, `"result":"2-0`, 1), "line 2: result"},
		{"bad side", lines[0] + strings.Replace(lines[1], `"rules":"A"`, `"rules":"C"`, 1), `line 2: rules "C"`},
		{"version", strings.Replace(lines[0], `"version":1`, `"version":9`, 1), "version 9"},
		{"not ours", "# notes\nsome text\n", "not a palace experiment record file"},
		{"no header line", "some text without a newline", "no complete header line"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".jsonl")
		if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		other := c
		other.Records = path
		_, err := Run(context.Background(), other)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s and %q", tc.name, err, path, tc.want)
		}
		if data, _ := os.ReadFile(path); string(data) != tc.data {
			t.Errorf("%s: the refused file was changed", tc.name)
		}
	}

	// A header torn while being written: nothing was recorded, start anew.
	torn := filepath.Join(dir, "torn.jsonl")
	os.WriteFile(torn, good[:20], 0o644)
	other := c
	other.Records = torn
	if out := run(t, other); out.Played != 4 {
		t.Errorf("torn header: played %d, want 4", out.Played)
	}

	// A second writer is kept out.
	rf, _, err := openRecords(c.Records, c.header())
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), c)
	rf.Close()
	if err == nil || !strings.Contains(err.Error(), "another process") {
		t.Errorf("a locked record file: %v, want a refusal", err)
	}
}

func TestConfigErrors(t *testing.T) {
	jg, xq := rules.MustPreset("janggi"), rules.MustPreset("xiangqi")
	p := uniformPlayer(t, 2)
	rec := filepath.Join(t.TempDir(), "exp.jsonl")
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{A: jg, B: xq, Player: p, Settings: arena.Settings{Pairs: 1}, Records: rec}, "janggi is for janggi and xiangqi for xiangqi; an experiment compares two rule sets of the same game"},
		{Config{A: jg, Player: p, Settings: arena.Settings{Pairs: 1}, Records: rec}, "rule set is missing"},
		{Config{A: jg, B: jg, Settings: arena.Settings{Pairs: 1}, Records: rec}, "no player"},
		{Config{A: jg, B: jg, Player: p, Records: rec}, "pairs 0"},
		{Config{A: jg, B: jg, Player: p, Settings: arena.Settings{Pairs: 1, OpeningPlies: -1}, Records: rec}, "opening_plies -1"},
		{Config{A: jg, B: jg, Player: p, Settings: arena.Settings{Pairs: 1}}, "no record file"},
		{Config{A: jg, B: &rules.RuleSet{Name: "odd", Game: rules.Janggi, Repetition: 1}, Player: p, Settings: arena.Settings{Pairs: 1}, Records: rec}, `rule set "odd"`},
	} {
		_, err := Run(context.Background(), tc.c)
		if err == nil || !strings.HasPrefix(err.Error(), "experiment: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want an error saying %q", err, tc.want)
		}
	}
	if _, err := os.Stat(rec); !os.IsNotExist(err) {
		t.Errorf("a refused configuration created its record file")
	}
}

// A failing player stops the experiment with its error; what was recorded
// stays.
func TestPlayerError(t *testing.T) {
	a := capped(t, "janggi", 20, "")
	c := Config{A: a, B: a, Player: failing{}, Settings: arena.Settings{Pairs: 2}, Records: filepath.Join(t.TempDir(), "exp.jsonl")}
	_, err := Run(context.Background(), c)
	if err == nil || !strings.Contains(err.Error(), "no move today") || !strings.Contains(err.Error(), "game 0") {
		t.Errorf("a failing player: %v, want its error, naming the game", err)
	}
}

type failing struct{}

func (failing) Name() string                        { return "failing" }
func (failing) NewGame(uint64) (arena.Mover, error) { return failing{}, nil }
func (failing) Move(context.Context, *rules.Game) (rules.Move, error) {
	return rules.NoMove, errors.New("no move today")
}
func (failing) Close() {}

// An opening one rule set refuses is redrawn for both: under a 4-ply move
// limit only openings with a capture go on, and the redraws are the same
// every time.
func TestOpeningRedrawn(t *testing.T) {
	a := rules.MustPreset("xiangqi")
	b := ruleSet(t, "base: xiangqi\nmoveLimit: 4\n")
	redrawn := 0
	for i := range 8 {
		o, err := OpeningFor(a, b, 4, 9, i)
		if err != nil {
			t.Fatal(err)
		}
		for _, rs := range []*rules.RuleSet{a, b} {
			if _, err := o.Game(rs); err != nil {
				t.Errorf("opening %d under %s: %v", i, rs.Name, err)
			}
		}
		again, _ := OpeningFor(a, b, 4, 9, i)
		if !reflect.DeepEqual(o, again) {
			t.Errorf("opening %d drawn twice: %s, then %s", i, o.Name, again.Name)
		}
		if plain, _ := OpeningFor(a, a, 4, 9, i); plain.Name != o.Name {
			redrawn++
		}
	}
	if redrawn == 0 {
		t.Error("no opening was redrawn")
	}
	// Every opening ends the game under one rule set: a clear error.
	short := ruleSet(t, "base: janggi\nmaxPlies: 2\n")
	if _, err := OpeningFor(rules.MustPreset("janggi"), short, 2, 1, 0); err == nil || !strings.Contains(err.Error(), "no opening of 2 plies") {
		t.Errorf("openings no rule set lets go on: %v", err)
	}
	if _, err := OpeningFor(a, rules.MustPreset("janggi"), 2, 1, 0); err == nil || !strings.Contains(err.Error(), "same game") {
		t.Errorf("xiangqi and janggi openings: %v", err)
	}
}

// An experiment record file as palace wrote it before rules.RuleSet wrote
// its own JSON (experiment.RuleSetInfo), by hand: its header's rule sets
// read back, hashes checked.
func TestReadOldRecords(t *testing.T) {
	jg, cl := rules.MustPreset("janggi"), rules.MustPreset("janggiclassic")
	info := func(rs *rules.RuleSet) string {
		return fmt.Sprintf(`{"id":%q,"game":"janggi","name":%q,"pass":%q,"facingKings":%q,"bikjangClaim":%t,"counting":%t,`+
			`"hanBonus":%v,"repetition":%d,"perpetualCheckLoses":%t,"chaseRule":false,"shuttleRule":false,"moveLimit":%d,`+
			`"checkExtension":false,"materialDraw":true,"maxPlies":0}`, rs.String(), rs.Name, rs.Pass, rs.Facing, rs.BikjangClaim,
			rs.Counting, float64(rs.HanBonusHalves)/2, rs.Repetition, rs.PerpetualCheckLoses, rs.MoveLimit)
	}
	data := `{"format":"palace-experiment","version":1,"a":` + info(jg) + `,"b":` + info(cl) +
		`,"player":"p","opening_plies":0,"seed":1,"started":"2026-11-30T10:00:00Z"}` + "\n" +
		`{"index":0,"rules":"A","seed":5,"opening":"o","result":"1-0","reason":"checkmate","plies":2,"passes":0,"start_fen":"x","moves":"a b"}` + "\n"
	path := filepath.Join(t.TempDir(), "old.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	h, recs, err := ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	a, b, err := h.RuleSets()
	if err != nil || !reflect.DeepEqual(a, jg) || !reflect.DeepEqual(b, cl) {
		t.Errorf("rule sets %+v, %+v (%v)", a, b, err)
	}
	if len(recs) != 1 || recs[0].Result != "1-0" || recs[0].Moves != "a b" || recs[0].Passes != 0 {
		t.Errorf("records %+v", recs)
	}
	// The records' lines come back byte for byte.
	line, _ := json.Marshal(recs[0])
	if want := strings.SplitAfter(data, "\n")[1]; string(line)+"\n" != want {
		t.Errorf("record written as\n%s\nwant %s", line, want)
	}
}
