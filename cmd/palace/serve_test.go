package main

import (
	"strings"
	"testing"
)

// TestServeRefuses: palace serve wants paths, and a token before it
// listens anywhere but loopback.
func TestServeRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "want at least one PATH"},
		{[]string{"serve", "--addr", "0.0.0.0:0", dir}, "not loopback"},
		{[]string{"serve", "--addr", ":0", dir}, "not loopback"},
		{[]string{"serve", "--addr", "0.0.0.0:0", "--token", "short", dir}, "16 characters"},
		{[]string{"serve", "--addr", "nonsense", dir}, "want host:port"},
		{[]string{"serve", "--max-sessions", "0", dir}, "--max-sessions 0"},
		{[]string{"serve", "--addr", "127.0.0.1:0", dir + "/missing"}, "missing"},
	} {
		code, _, errOut := runPalace(t, "", c.args...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want an error saying %q", c.args, code, errOut, c.want)
		}
	}
}
