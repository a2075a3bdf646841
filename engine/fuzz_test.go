package engine

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzEngineInput feeds arbitrary lines (at most 64) to an engine with a
// tiny budget: it must neither panic nor hang, and must return once its
// context ends. Seeds: the golden sessions' commands and a few odd lines.
//
//	go test -fuzz FuzzEngineInput ./engine
func FuzzEngineInput(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var in strings.Builder
		for _, line := range strings.Split(string(data), "\n") {
			if cmd, ok := strings.CutPrefix(line, "> "); ok {
				in.WriteString(cmd + "\n")
			}
		}
		f.Add(in.String())
	}
	for _, s := range []string{
		"",
		"go\ngo\ngo\n",
		"position fen\ngo depth\ngo perft\n",
		"position fen / w\n",
		"position fen 9/9/9/9/9/9/9/9/9/9 w - - 0 1 moves\n",
		"position startpos moves a0a0 e1e1 e2e2 a10a10 z9z9\n",
		"setoption name\nsetoption\nsetoption name UCI_Variant value\nsetoption name Threads value 99999999999999999999\n",
		"ucci\ngo time -5 increment 1e308 opptime NaN\n",
		"go infinite\nisready\nucinewgame\ngo nodes 3\nstop\n",
		"go ponder\nponderhit\ngo depth infinite\nquit\n",
		"\x00\xff\r\n\t \nd\n",
		"go perft 3\nstop\nquit\n",
		"setoption name MultiPV value 5\nsetoption name Ponder value true\ngo ponder nodes 9\nponderhit\ngo searchmoves a0a1 zz nodes 5\n",
		"ucci\nbanmoves a0a1 h2e2\ngo depth 1\nprobe\nprobe startpos moves h2e2\nprobe fen\nsetoption clearhash\n",
		"position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR 7 moves h3e3 h0e0\ngo mate 2\nd\n",
	} {
		f.Add(s)
	}
	capOptionsForFuzzing(f)
	f.Fuzz(func(t *testing.T, input string) {
		lines := strings.SplitAfter(input, "\n")
		if len(lines) > 64 {
			lines = lines[:64]
		}
		// A 1 MB cache: the default 16 MB, made anew a few hundred times a
		// second, held each fuzz worker near 5 GB.
		lines = append([]string{"setoption name Hash value 1\n"}, lines...)
		// A small tree: a go infinite over the uniform evaluator fills a
		// 1 GB tree in seconds, and the fuzzer runs thousands of them.
		e := New(Options{Nodes: 8, Version: "fuzz", TreeMB: 8})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- e.Run(ctx, strings.NewReader(strings.Join(lines, "")), io.Discard) }()
		select {
		case err := <-done:
			if err != nil && ctx.Err() == nil {
				t.Fatalf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Run hung on %q", input)
		}
	})
}

// capOptionsForFuzzing lowers Hash's and Tree Memory's maxima to 64 MB and
// turns Debug Log File off until f ends: at their real maxima (gigabytes,
// sized against the machine's free memory) a mutated "Hash value 1" makes a
// cache of gigabytes in each of the fuzzer's workers at once, and a log
// file would land wherever the input names.
func capOptionsForFuzzing(f *testing.F) {
	saved := slices.Clone(options)
	f.Cleanup(func() { copy(options, saved) })
	for i := range options {
		switch options[i].name {
		case "Hash", "Tree Memory":
			options[i].max = 64
		case "Debug Log File":
			options[i].set = func(*Engine, string) error { return errors.New("engine: Debug Log File is off while fuzzing") }
		}
	}
}
