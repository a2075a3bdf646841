package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Every PALACE_* variable set to a value it does not take is refused,
// naming the variable and what it takes, by any command, not only by
// those that load a network (issue 47: PALACE_BLAS=garbage and
// PALACE_WINOGRAD=garbage were ignored). Each runs in a process of its
// own: OpenBLAS is loaded once a process.
func TestEnvValuesRefused(t *testing.T) {
	for _, tc := range []struct {
		env, want string // want "" for accepted
	}{
		{"PALACE_BLAS=garbage", `PALACE_BLAS="garbage": no OpenBLAS library loads from it (want off, or the file or name`},
		{"PALACE_WINOGRAD=garbage", `PALACE_WINOGRAD="garbage": want on or off`},
		{"PALACE_KERNEL=garbage", `unknown kernel "garbage" (auto, bf16, avx512, blas or off) (PALACE_KERNEL)`},
		{"PALACE_BLAS=off", ""},
		{"PALACE_WINOGRAD=off", ""},
		{"PALACE_KERNEL=blas", ""},
	} {
		cmd := exec.Command(os.Args[0], "perft", "--start", "--depth", "1")
		cmd.Env = append(os.Environ(), asPalaceEnv+"=1", tc.env)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if tc.want == "" {
			if err != nil || stdout.String() != "nodes 44\n" {
				t.Errorf("%s palace perft: %v, %q, %q; want it accepted", tc.env, err, stdout.String(), stderr.String())
			}
			continue
		}
		if err == nil || !strings.HasPrefix(stderr.String(), "palace: ") || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
			t.Errorf("%s palace perft: %v, stdout %q, stderr %q; want it refused with %q", tc.env, err, stdout.String(), stderr.String(), tc.want)
		}
	}
}
