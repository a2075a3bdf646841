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
	if got, want := l.plan(rules.White, 800, 700*time.Millisecond).limit, (2300*time.Millisecond)/30; got != want {
		t.Errorf("3 s on the clock, 700 ms overhead: limit %v, want %v", got, want)
	}
	m := limits{movetime: 100 * time.Millisecond}
	if got, want := m.plan(rules.White, 800, 700*time.Millisecond).limit, 25*time.Millisecond; got != want {
		t.Errorf("movetime 100, 700 ms overhead: limit %v, want %v", got, want)
	}
}
