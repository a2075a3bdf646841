package main

import (
	"fmt"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/store"
)

// tinyRunYAML is a whole run small enough for a test: two generations of a
// 1×8 network, loop's tiny run made janggi with more and longer games.
func tinyRunYAML(t *testing.T) string {
	return looptest.Merge(t, looptest.TinyYAML, `
rules: janggi
seed: 3
network: {seed: null}
selfplay: {games: 12, max_plies: 40}
train: {window: {min_rows: 200}, schedule: null}
arena: {pairs: 6, opening_plies: null, sprt: {elo1: 300}, accept_score: null}
`)
}

func startRun(t *testing.T, bin string, args ...string) (*exec.Cmd, <-chan string) {
	t.Helper()
	return startPalace(t, bin, append([]string{"run", "--progress", "log"}, args...)...)
}

// runKilledAt starts palace run with args and kills it with SIGKILL delay
// after a line holding at (or when it ends, if none does); it reports
// whether the kill found the run going.
func runKilledAt(t *testing.T, bin, at string, delay time.Duration, args ...string) bool {
	t.Helper()
	cmd, lines := startRun(t, bin, args...)
	for line := range lines {
		if strings.Contains(line, at) {
			time.Sleep(delay)
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	err := cmd.Wait()
	for range lines {
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return err != nil && ok && ws.Signaled()
}

// runToEnd runs palace run with args to its end, failing the test with
// its output if it fails, and returns its lines.
func runToEnd(t *testing.T, bin string, args ...string) []string {
	t.Helper()
	cmd, lines := startRun(t, bin, args...)
	var out []string
	for line := range lines {
		out = append(out, line)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("palace run %s: %v\n%s", strings.Join(args, " "), err, strings.Join(out, "\n"))
	}
	return out
}

// The end-to-end test of palace's main job: a run killed with SIGKILL in
// the middle of training and of a match, then resumed, finishes with every
// artifact in place and the very networks and decisions of a run left
// alone; palace report reads it back and draws its charts.
func TestRunKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds palace and runs the loop twice")
	}
	bin := palaceBinary(t)
	root := t.TempDir()
	cfg := filepath.Join(root, "tiny.yaml")
	if err := os.WriteFile(cfg, []byte(tinyRunYAML(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	ref, dir := filepath.Join(root, "reference"), filepath.Join(root, "killed")

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	kills := 0
	for _, at := range []string{"stage=train start", "stage=arena start", "stage=selfplay start"} {
		if runKilledAt(t, bin, at, time.Duration(rng.IntN(300))*time.Millisecond, "--config", cfg, "--dir", dir) {
			kills++
		}
		b, _ := os.ReadFile(filepath.Join(dir, loop.StateKey))
		t.Logf("killed at %q: state %s", at, strings.TrimSpace(string(b)))
	}
	if kills == 0 {
		t.Fatal("no run was killed")
	}
	for _, d := range []string{dir, ref} {
		runToEnd(t, bin, "--config", cfg, "--dir", d)
	}
	for g := 0; g <= 2; g++ {
		a, err := model.Load(filepath.Join(ref, loop.NetKey(g)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := model.Load(filepath.Join(dir, loop.NetKey(g)))
		if err != nil {
			t.Fatal(err)
		}
		if a.Weights.ID() != b.Weights.ID() || a.Steps != b.Steps {
			t.Errorf("generation %d: uninterrupted %s at step %d, killed and resumed %s at step %d", g, a.Weights.ID(), a.Steps, b.Weights.ID(), b.Steps)
		}
	}
	rst, _ := store.NewDir(ref)
	kst, _ := store.NewDir(dir)
	rb, _ := loop.BestOf(rst)
	kb, _ := loop.BestOf(kst)
	if rb != kb {
		t.Errorf("best: uninterrupted %+v, resumed %+v", rb, kb)
	}
	// The same networks report the same training: every step of the
	// generation and their mean loss, killed or not. (A kill that fell
	// between the trainer's save and the record of its losses is said by
	// LossSteps instead.)
	trainLines := func(st store.Store) map[int]loop.Metric {
		ms, err := loop.ReadMetrics(st)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int]loop.Metric{}
		for _, m := range ms {
			if m.Stage == loop.StageTrain {
				out[m.Generation] = m
			}
		}
		return out
	}
	rt, kt := trainLines(rst), trainLines(kst)
	for g := 0; g < 2; g++ {
		a, b := rt[g], kt[g]
		if b.LossSteps != 0 {
			t.Logf("generation %d: a kill lost the losses of %d of its %d steps", g, b.Steps-b.LossSteps, b.Steps)
			continue
		}
		if a.Steps != b.Steps || a.Loss == nil || b.Loss == nil || *a.Loss != *b.Loss {
			t.Errorf("generation %d's training: uninterrupted %d steps, loss %+v; killed and resumed %d steps, loss %+v", g, a.Steps, a.Loss, b.Steps, b.Loss)
		}
	}
	for g := 0; g < 2; g++ {
		if code, out, errOut := runPalace(t, "", "shard", "verify", filepath.Join(dir, loop.SelfplayKey(g))); code != 0 {
			t.Errorf("shard verify of generation %d: %s %s", g, out, errOut)
		}
		// Games finish in any order, and games of pairs after the one
		// that decided a match may or may not have been recorded; the
		// standings up to the decision are exact.
		sa, sb := standings(t, filepath.Join(ref, loop.ArenaKey(g+1))), standings(t, filepath.Join(dir, loop.ArenaKey(g+1)))
		if sa != sb {
			t.Errorf("match %d: uninterrupted %s, killed and resumed %s", g+1, sa, sb)
		}
	}

	code, out, errOut := runPalace(t, "", "report", dir)
	if code != 0 {
		t.Fatalf("report: exit %d %s", code, errOut)
	}
	t.Log("\n" + out)
	if !strings.Contains(out, "Elo vs best") || strings.Count(out, "\n") < 4 || !strings.Contains(out, "best network: generation") {
		t.Errorf("report:\n%s", out)
	}
	for _, name := range []string{"elo.png", "loss.png"} {
		f, err := os.Open(filepath.Join(dir, "report", name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		f.Close()
	}

	other := filepath.Join(root, "other.yaml")
	os.WriteFile(other, []byte(looptest.Merge(t, tinyRunYAML(t), "seed: 4")), 0o644)
	if code, _, errOut := runPalace(t, "", "run", "--config", other, "--dir", dir); code != 1 || !strings.Contains(errOut, "another configuration") {
		t.Errorf("another config over a run: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runPalace(t, "", "report", root); code != 1 || !strings.Contains(errOut, "not a palace run") {
		t.Errorf("report of a non-run: exit %d, %s", code, errOut)
	}
	// A path that is not there is not created by asking for its report.
	missing := filepath.Join(root, "no-such-run")
	if code, _, errOut := runPalace(t, "", "report", missing); code != 1 || !strings.Contains(errOut, "not a palace run") {
		t.Errorf("report of a missing path: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("report created %s: %v", missing, err)
	}
}

// standings is a match record file's result.
func standings(t *testing.T, path string) string {
	t.Helper()
	h, recs, err := arena.ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	s := arena.Summarize(h, recs)
	return fmt.Sprintf("%d games %v %v %v", s.Games, s.WDL, s.Pentanomial, s.Decision)
}

// The quickstarts parse, and each runs as it was measured: with the root
// lookahead, the mate check and masked policy training, from the network
// palace ships for its game.
func TestRunConfigsParse(t *testing.T) {
	for name, init := range map[string]string{"quickstart-xiangqi.yaml": "builtin", "quickstart-janggi.yaml": "builtin"} {
		c, err := loop.LoadConfig(filepath.Join("..", "..", "configs", name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if c.NetworkInit != init {
			t.Errorf("%s: network init %q, measured with %q", name, c.NetworkInit, init)
		}
		sp, ap := c.Selfplay.Search, c.Gate.Search
		for what, on := range map[string]bool{
			"selfplay root lookahead": sp.RootLookahead, "selfplay mate check": sp.MateCheck,
			"arena root lookahead": ap.RootLookahead, "arena mate check": ap.MateCheck,
			"masked policy training": c.Train.MaskIllegal,
		} {
			if !on {
				t.Errorf("%s: %s off, measured with it on", name, what)
			}
		}
	}
}
