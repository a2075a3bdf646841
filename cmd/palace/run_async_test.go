package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/store"
)

// palace run of an asynchronous config on one machine (issue 46):
// self-play and training at once, through a NATS server inside the
// process whose store is in the run directory. Killed with SIGKILL while
// training and while gating, the same command resumes it to the end:
// every generation committed with all its games, the last candidate
// gated, and palace report reads the directory.
func TestRunAsyncKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds palace and runs the asynchronous loop three times")
	}
	bin := palaceBinary(t)
	root := t.TempDir()
	cfg := filepath.Join(root, "async.yaml")
	const gens = 4
	yaml := looptest.Merge(t, tinyRunYAML(t), "generations: 4\nasync: {enabled: true}")
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "run")
	kills := 0
	for _, at := range []string{"trainer: gen 0: step", "gatekeeper: gen"} {
		if runKilledAt(t, bin, at, 0, "--config", cfg, "--dir", dir) {
			kills++
		}
	}
	if kills == 0 {
		t.Fatal("no run was killed")
	}
	out := runToEnd(t, bin, "--dir", dir)
	if !strings.Contains(strings.Join(out, "\n"), "run complete") {
		t.Errorf("the resumed run did not say it completed:\n%s", strings.Join(out, "\n"))
	}

	st, err := store.NewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := loop.LoadConfig(filepath.Join(dir, loop.ConfigKey))
	if err != nil {
		t.Fatal(err)
	}
	for g := range gens {
		m, err := datasets.ReadManifest(st.Local(loop.SelfplayKey(g)))
		if err != nil {
			t.Fatal(err)
		}
		var games int64
		for _, s := range m.Shards {
			games += s.Games
		}
		if games != int64(c.Selfplay.Games) {
			t.Errorf("generation %d: %d games committed, want %d", g, games, c.Selfplay.Games)
		}
		if code, o, e := runPalace(t, "", "shard", "verify", st.Local(loop.SelfplayKey(g))); code != 0 {
			t.Errorf("shard verify of generation %d: %s %s", g, o, e)
		}
	}
	ms, err := loop.ReadMetrics(st)
	if err != nil {
		t.Fatal(err)
	}
	gated := false
	for _, m := range ms {
		gated = gated || m.Stage == loop.StageGate && m.Network == loop.NetKey(gens)
	}
	if !gated {
		t.Errorf("candidate %d was not gated: %+v", gens, ms)
	}
	if entries, err := os.ReadDir(filepath.Join(dir, "tmp")); err != nil || len(entries) > 0 {
		t.Errorf("the worker's temporary directory holds %d entries (%v)", len(entries), err)
	}
	code, report, errOut := runPalace(t, "", "report", dir)
	if code != 0 || !strings.Contains(report, "best network: generation") {
		t.Errorf("report: exit %d\n%s%s", code, report, errOut)
	}
}
