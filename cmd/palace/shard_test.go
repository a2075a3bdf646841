package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
)

// selfplayDir plays a few games for the shard commands to read.
func selfplayDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	cfg := tinySelfplayConfig(t, dir, "xiangqi", 4, 20, "")
	if code, out, errOut := runPalace(t, "", "selfplay", "--config", cfg, "--progress", "none"); code != 0 {
		t.Fatalf("selfplay: exit %d: %s %s", code, out, errOut)
	}
	return dir
}

func TestShardInspect(t *testing.T) {
	dir := selfplayDir(t)
	shard := filepath.Join(dir, "shard-000000.shard")
	code, out, errOut := runPalace(t, "", "shard", "inspect", "--blocks", "--records", "3", shard)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"file            " + shard, "rule set        xiangqi@", fmt.Sprintf("encoding        version %d, 2581 policy slots", encode.Version),
		fmt.Sprintf("format          version %d\n", datasets.FormatVersion), "result material full",
		"network         ", "config hash     ", "records         60\n", "games           3 (first id 0, last id 2)",
		"full searches   ", "results         ", "game records    " + filepath.Join(dir, "shard-000000.games.jsonl") + ": 3 games",
		"block       offset", "game      ply side  move", "\n0           0 white ", "\n0           2 white ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q:\n%s", want, out)
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "0           2 ") || !strings.Contains(last, "moves)") {
		t.Errorf("last record line %q", last)
	}
	for _, args := range [][]string{
		{"shard"},
		{"shard", "list"},
		{"shard", "inspect"},
		{"shard", "inspect", shard, shard},
		{"shard", "inspect", "--records", "-1", shard},
		{"shard", "verify"},
		{"shard", "verify", "--bogus", dir},
	} {
		if code, _, errOut := runPalace(t, "", args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, %q; want 2", args, code, errOut)
		}
	}
	if code, _, errOut := runPalace(t, "", "shard", "inspect", filepath.Join(dir, "manifest.json")); code != 1 || !strings.Contains(errOut, "not a palace shard") {
		t.Errorf("not a shard: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runPalace(t, "", "shard", "verify", shard); code != 1 || !strings.Contains(errOut, "not a directory") {
		t.Errorf("verify of a file: exit %d, %q", code, errOut)
	}
}

// A damaged shard or game record makes verify exit 1, naming the file.
func TestShardVerifyDamage(t *testing.T) {
	dir := selfplayDir(t)
	if code, out, errOut := runPalace(t, "", "shard", "verify", dir); code != 0 || !strings.HasSuffix(out, "2 shards, 80 records, 4 games replayed, 0 problems\n") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	shard := filepath.Join(dir, "shard-000001.shard")
	data, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x10
	if err := os.WriteFile(shard, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runPalace(t, "", "shard", "verify", dir)
	if code != 1 || !strings.Contains(out, "problem "+shard+": ") || !strings.Contains(out, "1 problems") || !strings.Contains(errOut, "1 problems in "+dir) {
		t.Errorf("damaged shard: exit %d: %s %s", code, out, errOut)
	}
	if code, _, errOut := runPalace(t, "", "shard", "inspect", shard); code != 1 || !strings.Contains(errOut, shard) {
		t.Errorf("inspect of the damaged shard: exit %d, %q", code, errOut)
	}
	games := filepath.Join(dir, "shard-000000.games.jsonl")
	text, err := os.ReadFile(games)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(games, []byte(strings.Replace(string(text), `"reason":"length-cap"`, `"reason":"checkmate"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runPalace(t, "", "shard", "verify", dir)
	if code != 1 || !strings.Contains(out, "problem "+games+": ") || !strings.Contains(out, "replays to 1/2-1/2 length-cap") {
		t.Errorf("damaged game record: exit %d: %s", code, out)
	}
}
