package main

import (
	"strings"
	"testing"
)

// Commands with subcommands list them on -h, --help and help (exit
// status 0), and a subcommand's -h is help too, not a usage error.
func TestSubcommandHelp(t *testing.T) {
	for _, tc := range []struct {
		command string
		subs    []subcommand
	}{{"net", netSubcommands}, {"shard", shardSubcommands}} {
		for _, help := range []string{"-h", "--help", "help"} {
			code, out, errOut := runPalace(t, "", tc.command, help)
			if code != 0 || out != "" || !strings.HasPrefix(errOut, "usage: palace "+tc.command+" <subcommand> [flags]\n") {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q", tc.command, help, code, out, errOut)
			}
			for _, s := range tc.subs {
				if !strings.Contains(errOut, "  "+s.name) || !strings.Contains(errOut, s.summary) {
					t.Errorf("%s %s: no line for %s in %q", tc.command, help, s.name, errOut)
				}
			}
		}
		for _, s := range tc.subs {
			if code, _, errOut := runPalace(t, "", tc.command, s.name, "-h"); code != 0 || !strings.Contains(errOut, "palace "+tc.command+" "+s.name) {
				t.Errorf("%s %s -h: exit %d, %q", tc.command, s.name, code, errOut)
			}
		}
	}
}

func TestSubcommandUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"net"}, "palace net: want a subcommand: palace net init|grow|info|bench|eval\n"},
		{[]string{"net", "bogus"}, "palace net: unknown subcommand \"bogus\": want init, grow, info, bench or eval\n"},
		{[]string{"shard"}, "palace shard: want a subcommand: palace shard inspect FILE | palace shard verify DIR\n"},
		{[]string{"shard", "bogus"}, "palace shard: unknown subcommand \"bogus\": want inspect or verify\n"},
		{[]string{"net", "info"}, "palace net: want one checkpoint file: palace net info FILE\n"},
		{[]string{"net", "info", "a", "b"}, "palace net: want one checkpoint file: palace net info FILE\n"},
		{[]string{"shard", "verify"}, "palace shard: want one shard directory: palace shard verify DIR\n"},
	} {
		if code, _, errOut := runPalace(t, "", tc.args...); code != 2 || errOut != tc.want {
			t.Errorf("%v: exit %d, %q; want 2, %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestCheckLowerBounds(t *testing.T) {
	for _, tc := range []struct {
		bounds []lowerBound
		want   string
	}{
		{[]lowerBound{{flag: "pairs", value: 1, min: 1}, {flag: "depth", value: 0}}, ""},
		{[]lowerBound{{flag: "pairs", value: 0, min: 1}}, "--pairs 0: want at least 1"},
		{[]lowerBound{{flag: "depth", value: -1}}, "--depth -1: want 0 or more"},
		{[]lowerBound{{flag: "top", value: -2, want: "0 (all) or more"}}, "--top -2: want 0 (all) or more"},
		// The first flag out of bounds is the one named.
		{[]lowerBound{{flag: "games", value: 0, min: 1}, {flag: "cache", value: -1}}, "--games 0: want at least 1"},
	} {
		err := checkLowerBounds(tc.bounds...)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%v: %v, want none", tc.bounds, err)
			}
			continue
		}
		if _, usage := err.(usageError); !usage || err.Error() != tc.want {
			t.Errorf("%v: %v, want the usage error %q", tc.bounds, err, tc.want)
		}
	}
}
