// Package ffishtest runs palace's node scripts over Fairy-Stockfish's
// WebAssembly build (the npm package ffish), the oracle that tests of
// results, SAN and PGN compare palace with. Only tests import it.
package ffishtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Version is the ffish release the tests and CI use.
const Version = "0.7.10"

// Run runs scripts/SCRIPT with args under node, lines on its standard
// input, and returns its output lines that start with prefix (prefix cut
// off; "" takes every line), which must be one for each input line. It
// skips the test when node or ffish is missing, unless PALACE_REQUIRE_FFISH
// is set (CI installs both). ffish is looked for in PALACE_FFISH_DIR's
// node_modules, by default ~/.cache/palace-ffish.
func Run(t testing.TB, script string, args []string, prefix string, lines []string) []string {
	t.Helper()
	dir := os.Getenv("PALACE_FFISH_DIR")
	if dir == "" {
		dir = filepath.Join(os.Getenv("HOME"), ".cache", "palace-ffish")
	}
	skip := func(why string) {
		if os.Getenv("PALACE_REQUIRE_FFISH") != "" {
			t.Fatalf("PALACE_REQUIRE_FFISH is set but %s", why)
		}
		t.Skipf("%s (npm install --prefix %s ffish@%s): ffish comparison skipped", why, dir, Version)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "ffish")); err != nil {
		skip("ffish is not installed in " + dir)
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, append([]string{filepath.Join(root, "scripts", script)}, args...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(dir, "node_modules"))
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ffish (%s): %v\n%s", script, err, stderr.String())
	}
	var got []string
	if prefix == "" {
		got = strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	} else {
		for l := range strings.SplitSeq(string(out), "\n") {
			if rest, ok := strings.CutPrefix(l, prefix); ok {
				got = append(got, rest)
			}
		}
	}
	if len(got) != len(lines) {
		t.Fatalf("ffish (%s) answered %d lines for %d\n%s", script, len(got), len(lines), stderr.String())
	}
	return got
}

// moduleRoot is the directory of the go.mod above the working directory
// (a test runs in its package's directory).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
