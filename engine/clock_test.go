package engine

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/palace-chess/palace/rules"
)

// A short clock with a large Move Overhead still gets a search (issue 50:
// "go wtime 3000 btime 3000" after an overhead of 700 ms answered the
// first legal move after 2 ms, with no info line).
func TestShortClockSearches(t *testing.T) {
	for _, goCmd := range []string{"go wtime 3000 btime 3000", "go wtime 500 btime 500", "go movetime 100"} {
		out := session(t, testOptions, []string{
			"uci", "setoption name Move Overhead value 700", "position startpos", goCmd,
		}, nil)
		infos := regexp.MustCompile(`(?m)^< info depth .* nodes (\d+) `).FindAllStringSubmatch(out, -1)
		if len(infos) == 0 || !strings.Contains(out, "< bestmove ") {
			t.Fatalf("%s: no search:\n%s", goCmd, out)
		}
		if n, _ := strconv.Atoi(infos[len(infos)-1][1]); n < minSimulations {
			t.Errorf("%s: %d simulations, want at least %d:\n%s", goCmd, n, minSimulations, out)
		}
	}
}

// The overhead comes off the clock, never more than three quarters of it.
func TestPlanOverhead(t *testing.T) {
	var l limits
	l.clock[rules.White], l.hasClock[rules.White] = 3*time.Second, true
	if got, want := l.plan(rules.White, 0, 800, 700*time.Millisecond).limit, (2300*time.Millisecond)/30; got != want {
		t.Errorf("3 s on the clock, 700 ms overhead: limit %v, want %v", got, want)
	}
	m := limits{movetime: 100 * time.Millisecond}
	if got, want := m.plan(rules.White, 0, 800, 700*time.Millisecond).limit, 25*time.Millisecond; got != want {
		t.Errorf("movetime 100, 700 ms overhead: limit %v, want %v", got, want)
	}
}

// With an increment and no movestogo, the clock is shared over fewer moves
// as the game goes on, down to 8; without one, over 30 whatever the ply.
// Played out by the plan on 1 minute + 1 s, a game of 70 plies ends with
// under a tenth of its time unused, and no move, however long the game,
// gets less than the increment's 0.8.
func TestPlanMovesToGo(t *testing.T) {
	var l limits
	l.clock[rules.Black], l.hasClock[rules.Black], l.inc[rules.Black] = 60*time.Second, true, time.Second
	for _, c := range []struct {
		ply  int
		want time.Duration
	}{{0, 3*time.Second + 800*time.Millisecond}, {40, 4*time.Second + 800*time.Millisecond}, {96, 7500*time.Millisecond + 800*time.Millisecond}, {400, 7500*time.Millisecond + 800*time.Millisecond}} {
		if got := l.plan(rules.Black, c.ply, 800, 0).limit; got != c.want {
			t.Errorf("60 s + 1 s at ply %d: limit %v, want %v", c.ply, got, c.want)
		}
	}
	l.inc[rules.Black] = 0
	if got, want := l.plan(rules.Black, 200, 800, 0).limit, 2*time.Second; got != want {
		t.Errorf("60 s, no increment, ply 200: limit %v, want %v", got, want)
	}
	l.movestogo = 10
	if got, want := l.plan(rules.Black, 200, 800, 0).limit, 6*time.Second; got != want {
		t.Errorf("60 s, 10 moves to go: limit %v, want %v", got, want)
	}
	for _, plies := range []int{70, 400} {
		var c limits
		c.hasClock[rules.White], c.inc[rules.White] = true, time.Second
		left, given, least := 60*time.Second, 60*time.Second, time.Hour
		for ply := 4; ply < 4+plies; ply += 2 {
			c.clock[rules.White] = left
			used := c.plan(rules.White, ply, 800, 0).limit
			least = min(least, used)
			left += time.Second - used
			given += time.Second
		}
		if share := float64(left) / float64(given); plies == 70 && share > 0.1 || least < 800*time.Millisecond {
			t.Errorf("%d plies of 60 s + 1 s: %.1f%% of the time left at the end, the shortest move %v", plies, 100*share, least)
		}
	}
}
