package experiment

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn"
)

// The validation experiments (issue 51): the method finds a known effect
// in its direction, finds none where there is none at about its nominal
// rate, and its counts agree with an independent count of the records.

// randomPlayer searches with a hash-based random evaluator of its own
// seed: players of equal strength that play differently, as two networks
// trained apart would.
func randomPlayer(t testing.TB, sims int, seed uint64) arena.Player {
	t.Helper()
	p, err := arena.NewSearch(fmt.Sprintf("random-evaluator-%d/sims=%d", seed, sims), SearchParams(sims),
		func() (nn.Evaluator, error) { return nn.NewRandom(encode.InputSize, encode.PolicySize(), seed), nil },
		arena.SearchOptions{Evaluators: 1})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

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

// A null experiment: one rule set as A and B, each played by its own
// player of equal strength. Over many small experiments the score is
// called significant at about the nominal 5%; a larger one's intervals
// hold 0.
func TestValidationNull(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: plays 40 small experiments")
	}
	rs := capped(t, "xiangqi", 60, "")
	const experiments, pairs = 40, 12
	significant := 0
	for k := range experiments {
		c := Config{A: rs, B: rs, Player: randomPlayer(t, 2, uint64(2*k+1)), PlayerB: randomPlayer(t, 2, uint64(2*k+2)),
			Settings: arena.Settings{Pairs: pairs, OpeningPlies: 4, Concurrency: 2}, Seed: uint64(100 + k),
			Records: filepath.Join(t.TempDir(), "null.jsonl")}
		out := run(t, c)
		an := Analyze(out.Header, out.Records)
		if an.Diff.Score.Significant {
			significant++
		}
	}
	// Binomial(40, 0.05): 2 expected; 6 or more has probability 1.4%.
	if significant > 5 {
		t.Errorf("the null experiment called the score significant in %d of %d experiments; the nominal rate is 5%%", significant, experiments)
	}
	c := Config{A: rs, B: rs, Player: randomPlayer(t, 2, 1001), PlayerB: randomPlayer(t, 2, 1002),
		Settings: arena.Settings{Pairs: 60, OpeningPlies: 4, Concurrency: 2}, Seed: 7, Records: filepath.Join(t.TempDir(), "null-large.jsonl")}
	out := run(t, c)
	an := Analyze(out.Header, out.Records)
	for name, d := range map[string]Diff{"score": an.Diff.Score, "draws": an.Diff.Draws, "first mover's wins": an.Diff.Wins} {
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
