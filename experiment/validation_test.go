package experiment

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/palace-chess/palace/arena"
)

// The validation experiments (issue 51): the method finds a known effect
// in its direction, finds none where there is none at about its nominal
// rate, and its counts agree with an independent count of the records.

// reseeded plays as its player does, from other seeds: the same player
// for B's games of a null experiment, whose games must not repeat A's.
type reseeded struct {
	arena.Player
	salt uint64
}

func (r reseeded) Name() string { return r.Player.Name() + "/reseeded" }

func (r reseeded) NewGame(seed uint64) (arena.Mover, error) { return r.Player.NewGame(seed ^ r.salt) }

// A known effect: xiangqi capped at 20 plies draws more than capped at
// 300 (a capped game is a draw), and the experiment says so, significantly
// and in that direction, with the ends by the cap to match.
func TestValidationKnownEffect(t *testing.T) {
	a, b := capped(t, "xiangqi", 20, ""), capped(t, "xiangqi", 300, "")
	c := Config{A: a, B: b, Player: uniformPlayer(t, 4), Settings: arena.Settings{Pairs: 40, OpeningPlies: 2, Concurrency: 2}, Seed: 5,
		Records: filepath.Join(t.TempDir(), "cap.jsonl")}
	out := run(t, c)
	an := Analyze(out.Header, out.Records)
	if !an.Diff.Draws.Significant || an.Diff.Draws.Mean >= 0 || !an.Diff.Length.Significant || an.Diff.Length.Mean <= 0 {
		t.Fatalf("the cap's effect not found: draws %+v, length %+v", an.Diff.Draws, an.Diff.Length)
	}
	if r := an.A.Reasons["length-cap"]; r.Rate < 0.5 {
		t.Errorf("A's games ended by its cap: %+v", r)
	}
	crossCheck(t, c.Records, an)
}

// A null experiment: one rule set as A and B, played by one player whose
// games under B are drawn from other seeds (the same player twice gives
// the same games: nothing to test; two players, even two random
// evaluators, differ, and the method rightly finds it). Over many small
// experiments the score is called significant at about the nominal 5%,
// and a larger one's intervals hold 0. Janggi, whose capped games
// counting decides: a null of nothing but draws would test nothing.
func TestValidationNull(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: plays 40 small experiments")
	}
	rs := capped(t, "janggi", 40, "")
	player := uniformPlayer(t, 4)
	const experiments, pairs = 40, 16
	significant, zOnly := 0, 0
	for k := range experiments {
		c := Config{A: rs, B: rs, Player: player, PlayerB: reseeded{player, uint64(k + 1)},
			Settings: arena.Settings{Pairs: pairs, OpeningPlies: 4, Concurrency: 2}, Seed: uint64(100 + k),
			Records: filepath.Join(t.TempDir(), "null.jsonl")}
		out := run(t, c)
		an := Analyze(out.Header, out.Records)
		if an.Diff.Score.Significant {
			significant++
		}
		if an.Diff.Score.P < Alpha {
			zOnly++
		}
	}
	t.Logf("the null experiment: the score significant in %d of %d experiments of %d pairs (the z test alone: %d)", significant, experiments, pairs, zOnly)
	// Binomial(40, 0.05): 2 expected; 6 or more has probability 1.4%.
	// Significance asks the exact test too, which is conservative on few
	// pairs; the z test alone is held to the same bound.
	if significant > 5 || zOnly > 5 {
		t.Errorf("the null experiment called the score significant in %d of %d experiments (the z test alone in %d); the nominal rate is 5%%", significant, experiments, zOnly)
	}
	c := Config{A: rs, B: rs, Player: player, PlayerB: reseeded{player, 1001},
		Settings: arena.Settings{Pairs: 60, OpeningPlies: 4, Concurrency: 2}, Seed: 7, Records: filepath.Join(t.TempDir(), "null-large.jsonl")}
	out := run(t, c)
	an := Analyze(out.Header, out.Records)
	if an.A.Draws.Rate > 0.5 {
		t.Fatalf("the null experiment's games are mostly draws (%.0f%%): it tests nothing", 100*float64(an.A.Draws.Rate))
	}
	for name, d := range map[string]Diff{"score": an.Diff.Score, "first mover's wins": an.Diff.Wins, "length": an.Diff.Length} {
		if d.Lo > 0 || d.Hi < 0 {
			t.Errorf("null experiment: %s's interval [%.3f, %.3f] leaves out 0", name, float64(d.Lo), float64(d.Hi))
		}
	}
	if an.PlayerB == "" || an.PlayerB == an.Player {
		t.Errorf("the players per rule set are not recorded: %q, %q", an.Player, an.PlayerB)
	}
	crossCheck(t, c.Records, an)
}

// crossCheck counts the record file's results and lengths by rule set
// with a reader of its own (JSON lines, not ReadRecords) and compares them
// with the analysis.
func crossCheck(t *testing.T, path string, an Analysis) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type count struct{ games, whiteWins, draws, blackWins, plies int }
	by := map[string]*count{"A": {}, "B": {}}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for line := 0; sc.Scan(); line++ {
		if line == 0 {
			continue // the header
		}
		var r struct {
			Rules  string `json:"rules"`
			Result string `json:"result"`
			Plies  int    `json:"plies"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		c := by[r.Rules]
		if c == nil {
			t.Fatalf("a record of rule set %q", r.Rules)
		}
		c.games++
		c.plies += r.Plies
		switch r.Result {
		case "1-0":
			c.whiteWins++
		case "1/2-1/2":
			c.draws++
		case "0-1":
			c.blackWins++
		}
	}
	for side, st := range map[string]SetStats{"A": an.A, "B": an.B} {
		c := by[side]
		got := fmt.Sprintf("%d games, %v-%v-%v, %.3f plies", st.Games, st.Wins.Count, st.Draws.Count, st.Losses.Count, float64(st.Length.Mean))
		want := fmt.Sprintf("%d games, %d-%d-%d, %.3f plies", c.games, c.whiteWins, c.draws, c.blackWins, float64(c.plies)/float64(c.games))
		if got != want {
			t.Errorf("%s: the analysis counts %s; the records hold %s", side, got, want)
		}
	}
}
