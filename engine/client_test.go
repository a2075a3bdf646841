package engine

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/uci"
)

// childEnv makes the test binary, started by a uci.Client, palace's engine
// on its standard input and output instead of the tests.
const childEnv = "PALACE_ENGINE_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		if err := New(Options{}).Run(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The client against palace's own engine, in every dialect.
func TestClientPalaceEngine(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rules, protocol string
		notation        string
	}{{"xiangqi", "uci", uci.NotationRanks1}, {"janggi", "uci", uci.NotationRanks1}, {"xiangqi", "ucci", uci.NotationRanks0}, {"janggimodern", "ucci", uci.NotationRanks0}} {
		t.Run(tc.rules+"-"+tc.protocol, func(t *testing.T) {
			rs := rules.MustPreset(tc.rules)
			var mu sync.Mutex
			var log []string
			c, err := uci.StartClient(context.Background(), uci.ClientConfig{Path: exe, Env: []string{childEnv + "=1"},
				Rules: rs, Protocol: tc.protocol, StartTimeout: 10 * time.Second,
				Log: func(line string) { mu.Lock(); log = append(log, line); mu.Unlock() }})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.Notation() != tc.notation || c.Variant() != tc.rules || !strings.HasPrefix(c.ID(), "palace") {
				t.Errorf("id %q notation %s variant %q", c.ID(), c.Notation(), c.Variant())
			}
			g, err := rules.NewGame(rs, rs.StartFEN())
			if err != nil {
				t.Fatal(err)
			}
			if err := c.NewGame(context.Background()); err != nil {
				t.Fatal(err)
			}
			for range 8 {
				if g.Result().Over() {
					break
				}
				bm, err := c.Go(context.Background(), g, uci.Limits{Nodes: 8})
				if err != nil {
					t.Fatalf("ply %d (%s): %v", g.Ply(), g.Position().FEN(), err)
				}
				if !g.IsLegal(bm.Move) {
					t.Fatalf("ply %d: illegal %s", g.Ply(), bm.Text)
				}
				g.Play(bm.Move)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, line := range log {
				if strings.Contains(line, "info string") && !strings.Contains(line, "info string uci: no network:") {
					t.Errorf("palace complained: %s\n%s", line, strings.Join(log, "\n"))
				}
			}
		})
	}
}
