package main

import (
	"strings"
	"testing"
)

// palace simulate prints a row per mode and worker count, says where the
// asynchronous mode's trainer becomes the bound, and refuses bad input
// with the flag's name.
func TestSimulate(t *testing.T) {
	code, out, errOut := runPalace(t, "", "simulate", "--workers", "1,8", "--hours", "0.5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"| mode | workers | positions/s | workers busy |", "| exact | 1 |", "| exact | 8 |", "| async | 1 |", "| async | 8 |",
		"async: the trainer is the bound from 8 workers"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "exact: the trainer is the bound") {
		t.Errorf("the exact mode's trainer is never busy all the time, yet:\n%s", out)
	}
	for _, c := range []struct{ args, want string }{
		{"--workers 1,x", `--workers "1,x"`},
		{"--modes fast", `mode "fast"`},
		{"--block-seconds 0", "a block of 0 s"},
	} {
		code, _, errOut := runPalace(t, "", append([]string{"simulate"}, strings.Fields(c.args)...)...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, %q; want an error naming %q", c.args, code, errOut, c.want)
		}
	}
}
