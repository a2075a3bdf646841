package selfplay

import (
	"testing"

	"github.com/palace-chess/palace/rules"
)

// The games digest of a directory is fixed by its settings: a self-play
// directory written by an earlier palace resumes only while these stay
// what they were (computed before the search section decoded itself).
func TestGameHashPinned(t *testing.T) {
	rs, err := rules.LoadRuleSet("xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	j := Job{Rules: rs, Seed: 7}
	tuned := c
	tuned.Search.DrawScore, tuned.Search.RootLookahead, tuned.Search.MateCheck = -0.2, false, false
	tuned.Search.Seed = 99 // each game's own; never digested
	for _, tc := range []struct {
		name string
		c    Config
		want string
	}{{"defaults", c, "8b2a00dc8591c500"}, {"tuned", tuned, "f86f2b57719cae7b"}} {
		if got := gameHash(&tc.c, &j, "net"); got != tc.want {
			t.Errorf("%s: game hash %s, want %s", tc.name, got, tc.want)
		}
	}
}
