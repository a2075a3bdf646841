package engine

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// With hard, the engine searches on after its move until the GUI's next
// command, writing no thinking output meanwhile; with easy it stops with
// its move (issue 50: CECP had no pondering). The search on shows by
// filling a small tree, which it notes.
func TestCECPPonder(t *testing.T) {
	for _, mode := range []string{"hard", "easy"} {
		e := New(Options{Nodes: 64, Version: "test"})
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		done := make(chan error, 1)
		go func() { done <- e.Run(ctx, inR, outW); outW.Close() }()
		lines := bufio.NewScanner(outR)
		send := func(s string) { io.WriteString(inW, s+"\n") }
		expect := func(prefix string) string {
			for lines.Scan() {
				if strings.HasPrefix(lines.Text(), prefix) {
					return lines.Text()
				}
			}
			t.Fatalf("%s: no %q", mode, prefix)
			return ""
		}
		send("xboard")
		send("protover 2")
		expect("feature done=1")
		send("option Tree Memory=1")
		send("new")
		send(mode)
		send("post")
		send("go")
		expect("move ")
		time.Sleep(500 * time.Millisecond)
		send("ping 7")
		var between []string
		for lines.Scan() && lines.Text() != "pong 7" {
			between = append(between, lines.Text())
		}
		full := len(between) == 1 && strings.HasPrefix(between[0], "# uci: the search tree is full")
		if full != (mode == "hard") || mode == "easy" && len(between) > 0 {
			t.Errorf("%s: between the move and pong: %q", mode, between)
		}
		send("usermove h9g7")
		expect("move ")
		// Read on to the end, as a GUI does: a ponder search's note
		// written after the last move would otherwise block on the pipe.
		go io.Copy(io.Discard, outR)
		send("quit")
		inW.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		cancel()
	}
}
