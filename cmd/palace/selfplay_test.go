package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/selfplay"
)

// tinySelfplayConfig writes a self-play config small enough for a test: a
// 1×8 network, 8 simulations, capped games.
func tinySelfplayConfig(t *testing.T, dir, rules string, games, maxPlies int, extra string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "selfplay.yaml")
	text := fmt.Sprintf(`output: %s
rules: %s
games: %d
seed: 11
concurrent_games: 3
games_per_shard: 3
max_plies: %d
cache_entries: 4096
random_network: {blocks: 1, filters: 8, policy_channels: 2, value_channels: 1, value_hidden: 8, seed: 2}
search: {simulations: 8, cheap_simulations: 2, gumbel_k: 4}
%s`, dir, rules, games, maxPlies, extra)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// gamesOf reads a directory's game records by id, and counts how often
// each game id starts a game in the shards' records.
func gamesOf(t *testing.T, dir string) ([]gamerec.Game, map[uint64]int) {
	t.Helper()
	m, err := datasets.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var games []gamerec.Game
	inShards := map[uint64]int{}
	for _, s := range m.Shards {
		path := filepath.Join(dir, s.Name)
		gf, err := gamerec.Read(selfplay.GamesPath(path))
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range gf.Games {
			if _, err := g.ReplayStrict(gf.SelfPlayRuleSet()); err != nil {
				t.Errorf("%s: %v", path, err)
			}
		}
		games = append(games, gf.Games...)
		r, err := datasets.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for rec, err := range r.Records() {
			if err != nil {
				t.Fatal(err)
			}
			if rec.Ply == 0 {
				inShards[rec.GameID]++
			}
		}
		r.Close()
	}
	slices.SortFunc(games, func(a, b gamerec.Game) int { return int(int64(a.ID) - int64(b.ID)) })
	return games, inShards
}

func TestSelfplayCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cfg := tinySelfplayConfig(t, dir, "janggi", 5, 30, "janggi_setups: {cho: {sangmamasang: 1}}\n")
	code, out, errOut := runPalace(t, "", "selfplay", "--config", cfg, "--games", "2")
	if code != 0 || !strings.Contains(out, "selfplay event=done ") || !strings.Contains(out, "complete=2 ") || errOut != "" {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	code, out, errOut = runPalace(t, "", "selfplay", "--config", cfg, "--progress", "line")
	if code != 0 || !strings.Contains(out, "\n\rgames ") || !strings.Contains(out, "games 5/5 (5 saved)") {
		t.Fatalf("exit %d: %q %s", code, out, errOut)
	}
	games, inShards := gamesOf(t, dir)
	if len(games) != 5 || len(inShards) != 5 {
		t.Fatalf("%d games, %d in the shards; want 5", len(games), len(inShards))
	}
	for i, g := range games {
		if g.ID != uint64(i) || !strings.HasPrefix(g.Setup, "sangmamasang,") {
			t.Errorf("game %d: id %d, setup %s", i, g.ID, g.Setup)
		}
	}
	code, out, errOut = runPalace(t, "", "shard", "verify", dir)
	if code != 0 || !strings.Contains(out, ": 2 shards, ") || !strings.HasSuffix(out, " records, 5 games replayed, 0 problems\n") {
		t.Errorf("verify: exit %d: %s %s", code, out, errOut)
	}
	// Stopped at once, it commits nothing and says how to go on.
	code, out, errOut = runPalace(t, "", "selfplay", "--config", cfg, "--games", "9", "--duration", "1ns", "--progress", "none")
	if code != 0 || out != "" || !strings.Contains(errOut, "stopped with 5 of 9 games") {
		t.Errorf("--duration: exit %d: %q %q", code, out, errOut)
	}
	for _, args := range [][]string{
		{"selfplay"},
		{"selfplay", "--config", cfg, "--progress", "fancy"},
		{"selfplay", "--config", cfg, "extra"},
		{"selfplay", "--config", cfg, "--games", "-1"},
		{"selfplay", "--config", cfg, "--games", "9223372036854775807"}, // issue 25: out of memory
	} {
		if code, _, errOut := runPalace(t, "", args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, %q; want 2", args, code, errOut)
		}
	}
	bad := tinySelfplayConfig(t, dir, "janggi", 5, 30, "concurrent_gmes: 3\n")
	if code, _, errOut := runPalace(t, "", "selfplay", "--config", bad); code != 1 || !strings.Contains(errOut, "unknown keys concurrent_gmes") {
		t.Errorf("bad config: exit %d, %q", code, errOut)
	}
	// issue 25: yaml.v3 read games: 4.5 as 4 and the run played 4 games.
	fraction := tinySelfplayConfig(t, dir, "janggi", 5, 30, "")
	if data, err := os.ReadFile(fraction); err == nil {
		os.WriteFile(fraction, []byte(strings.Replace(string(data), "games: 5\n", "games: 4.5\n", 1)), 0o644)
	}
	if code, _, errOut := runPalace(t, "", "selfplay", "--config", fraction); code != 1 || !strings.Contains(errOut, "line 3: games: 4.5: want a whole number") {
		t.Errorf("games: 4.5: exit %d, %q", code, errOut)
	}
	other := tinySelfplayConfig(t, dir, "xiangqi", 6, 30, "")
	if code, _, errOut := runPalace(t, "", "selfplay", "--config", other); code != 1 || !strings.Contains(errOut, "another configuration") {
		t.Errorf("another configuration: exit %d, %q", code, errOut)
	}
}

// palaceBinary builds palace into a temporary directory.
func palaceBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "palace")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startSelfplay starts palace selfplay as a process; lines delivers its
// output line by line.
func startSelfplay(t *testing.T, bin, cfg string) (*exec.Cmd, <-chan string) {
	t.Helper()
	return startPalace(t, bin, "selfplay", "--config", cfg, "--progress", "log", "--interval", "50ms")
}

// startPalace starts palace with args as a process on the Go kernel, whose
// outputs do not depend on the batch, so that a resumed run plays exactly
// what an uninterrupted one does (see selfplay's package doc); lines
// delivers its stdout and stderr line by line.
func startPalace(t *testing.T, bin string, args ...string) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "PALACE_BLAS=off")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return cmd, lines
}

// killAfterShard kills the run with SIGKILL once it has committed a shard
// and a little more (delay), wherever it then is: playing, gathering or
// writing the next shard. It reports whether the run was still going.
func killAfterShard(t *testing.T, cmd *exec.Cmd, lines <-chan string, delay time.Duration) bool {
	t.Helper()
	for line := range lines {
		if strings.Contains(line, "event=shard") {
			time.Sleep(delay)
			break
		}
		if strings.Contains(line, "event=done") {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	err := cmd.Wait()
	for range lines {
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return err != nil && ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// The durability test: palace selfplay killed with SIGKILL, twice, at a
// random moment after a shard, then run to completion, holds every game
// 0..n-1 exactly once, each replaying to its stored result, passes
// palace shard verify, and has the very games of an uninterrupted run.
func TestSelfplayKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds palace and plays about 100 games")
	}
	bin := palaceBinary(t)
	const games = 36
	root := t.TempDir()
	refDir, dir := filepath.Join(root, "reference"), filepath.Join(root, "killed")
	refCfg := tinySelfplayConfig(t, refDir, "janggi", games, 60, "")
	cfg := tinySelfplayConfig(t, dir, "janggi", games, 60, "")

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	kills := 0
	for attempt := 0; attempt < 2; attempt++ {
		cmd, lines := startSelfplay(t, bin, cfg)
		delay := time.Duration(rng.IntN(150)) * time.Millisecond
		if killAfterShard(t, cmd, lines, delay) {
			kills++
			t.Logf("killed run %d %v after a shard", attempt+1, delay)
		}
		m, err := datasets.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		var listed int64
		for _, s := range m.Shards {
			listed += s.Games
		}
		t.Logf("after kill %d: %d shards, %d of %d games committed", attempt+1, len(m.Shards), listed, games)
	}
	if kills == 0 {
		t.Fatal("every run finished before it could be killed: make the test's runs longer")
	}
	cmd, lines := startSelfplay(t, bin, cfg)
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the resumed run: %v", err)
	}
	cmd, lines = startSelfplay(t, bin, refCfg)
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the reference run: %v", err)
	}

	got, inShards := gamesOf(t, dir)
	for i, g := range got {
		if g.ID != uint64(i) {
			t.Fatalf("game records: position %d holds game %d; want every id 0..%d once", i, g.ID, games-1)
		}
		if inShards[g.ID] != 1 {
			t.Errorf("game %d starts %d times in the shards", g.ID, inShards[g.ID])
		}
	}
	if len(got) != games || len(inShards) != games {
		t.Fatalf("%d game records, %d games in the shards; want %d", len(got), len(inShards), games)
	}
	if code, out, errOut := runPalace(t, "", "shard", "verify", dir); code != 0 {
		t.Errorf("shard verify: exit %d: %s %s", code, out, errOut)
	}
	want, _ := gamesOf(t, refDir)
	if !reflect.DeepEqual(got, want) {
		for i := range min(len(got), len(want)) {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("game %d differs from the uninterrupted run's:\n%+v\n%+v", i, got[i], want[i])
				break
			}
		}
		t.Fatal("the killed and resumed run played other games than the uninterrupted one")
	}
}
