package engine

import (
	"regexp"
	"strconv"
	"testing"
)

// Info lines' depth rises from one line to the next as the search deepens:
// the mean depth of the go's simulations, never below the depth reported
// before (issue 50: the principal variation's length went up and down).
func TestInfoDepthRises(t *testing.T) {
	out := session(t, Options{Nodes: 64, Version: "test"}, []string{
		"uci", "position startpos moves h2e2 h9g7", "go movetime 400",
	}, nil)
	var depths []int
	for _, m := range regexp.MustCompile(`(?m)^< info depth (\d+) `).FindAllStringSubmatch(out, -1) {
		d, _ := strconv.Atoi(m[1])
		depths = append(depths, d)
	}
	if len(depths) < 3 {
		t.Fatalf("%d info lines, want a sequence:\n%s", len(depths), out)
	}
	for k := 1; k < len(depths); k++ {
		if depths[k] < depths[k-1] {
			t.Errorf("depth fell from %d to %d: %v", depths[k-1], depths[k], depths)
		}
	}
	if depths[len(depths)-1] <= depths[0] {
		t.Errorf("depth never rose: %v", depths)
	}
}

// depthNow is the rounded mean leaf depth, at least 1, never falling.
func TestDepthNow(t *testing.T) {
	q := &sequence{}
	for _, c := range []struct{ leaves, nodes, want int }{
		{0, 0, 1}, {40, 32, 1}, {50, 32, 2}, {100, 96, 2}, {400, 96, 4}, {420, 200, 4},
	} {
		q.leaves, q.nodes = c.leaves, c.nodes
		if got := q.depthNow(); got != c.want {
			t.Errorf("%d leaf plies over %d simulations: depth %d, want %d", c.leaves, c.nodes, got, c.want)
		}
	}
}
