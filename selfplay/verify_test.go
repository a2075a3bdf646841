package selfplay

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// verifiedRun is a finished tiny run to damage: a copy of one run made
// once.
func verifiedRun(t *testing.T) testRun {
	t.Helper()
	verified.once.Do(func() {
		verified.cfg = tinyConfig(t, "janggi", 8)
		verified.cfg.Output = filepath.Join(sharedDir, "verified")
		mustRun(t, verified.cfg)
		checkDir(t, verified.cfg)
	})
	cfg := verified.cfg
	cfg.Output = copyDir(t, cfg.Output)
	return cfg
}

var verified struct {
	once sync.Once
	cfg  testRun
}

// editFile applies edit to a file's bytes.
func editFile(t *testing.T, path string, edit func([]byte) []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, edit(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// problemsMention runs Verify and reports whether a problem names file
// and says what.
func problemsMention(t *testing.T, dir, file, what string) bool {
	t.Helper()
	rep, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		if p.Name == file && strings.Contains(p.Err.Error(), what) {
			return true
		}
	}
	t.Logf("problems: %v", rep.Problems)
	return false
}

func TestVerifyFindsDamage(t *testing.T) {
	gname := "shard-000000" + GamesSuffix
	for _, tc := range []struct {
		name, file, what string
		edit             func(t *testing.T, dir string)
	}{
		{"result changed", gname, "replays to", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, gname), func(b []byte) []byte {
				lines := bytes.Split(b, []byte("\n"))
				for _, r := range [][2]string{{`"result":"1-0"`, `"result":"0-1"`}, {`"result":"0-1"`, `"result":"1-0"`}} {
					if bytes.Contains(lines[1], []byte(r[0])) {
						lines[1] = bytes.Replace(lines[1], []byte(r[0]), []byte(r[1]), 1)
						break
					}
				}
				return bytes.Join(lines, []byte("\n"))
			})
		}},
		{"move dropped", gname, "moves, the record says", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, gname), func(b []byte) []byte {
				i := bytes.Index(b, []byte(`"moves":"`)) + len(`"moves":"`)
				j := i + bytes.IndexByte(b[i:], ' ') + 1
				return append(b[:i:i], b[j:]...)
			})
		}},
		{"game id changed", gname, "is game", func(t *testing.T, dir string) {
			gf, err := gamerec.Read(filepath.Join(dir, gname))
			if err != nil {
				t.Fatal(err)
			}
			gf.Games[0].ID += 1000
			if err := gamerec.Write(filepath.Join(dir, gname), gf.Header, gf.Games); err != nil {
				t.Fatal(err)
			}
		}},
		{"duplicate game", "shard-000001" + GamesSuffix, "is also in", func(t *testing.T, dir string) {
			first, err := gamerec.Read(filepath.Join(dir, gname))
			if err != nil {
				t.Fatal(err)
			}
			gf, err := gamerec.Read(filepath.Join(dir, "shard-000001"+GamesSuffix))
			if err != nil {
				t.Fatal(err)
			}
			gf.Games[0] = first.Games[0]
			if err := gamerec.Write(filepath.Join(dir, "shard-000001"+GamesSuffix), gf.Header, gf.Games); err != nil {
				t.Fatal(err)
			}
		}},
		{"game records missing", gname, "no such file", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, gname))
		}},
		{"rule set switched", gname, "hash to", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, gname), func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"repetition":3`), []byte(`"repetition":4`), 1)
			})
		}},
		{"shard byte flipped", "shard-000000.shard", "", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "shard-000000.shard"), func(b []byte) []byte {
				b[len(b)/2] ^= 0x40
				return b
			})
		}},
		{"unlisted game records", "shard-000077" + GamesSuffix, "does not list", func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, gname), filepath.Join(dir, "shard-000077"+GamesSuffix))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := verifiedRun(t)
			tc.edit(t, cfg.Output)
			if !problemsMention(t, cfg.Output, tc.file, tc.what) {
				t.Errorf("no problem in %s mentioning %q", tc.file, tc.what)
			}
		})
	}
}

func TestReadGamesErrors(t *testing.T) {
	cfg := verifiedRun(t)
	path := GamesPath(filepath.Join(cfg.Output, "shard-000000.shard"))
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{"empty", func([]byte) []byte { return nil }, "empty"},
		{"format", func(b []byte) []byte { return bytes.Replace(b, []byte(gamerec.Format), []byte("other"), 1) }, `format "other"`},
		{"version", func(b []byte) []byte { return bytes.Replace(b, []byte(`"version":2`), []byte(`"version":9`), 1) }, "version 9"},
		{"count", func(b []byte) []byte { return b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1] }, "the header says"},
		{"unknown field", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"rule_set":`), []byte(`"extra":1,"rule_set":`), 1)
		}, "line 2"},
		{"not json", func(b []byte) []byte { return append(b, "{\n"...) }, "line"},
	} {
		p := filepath.Join(t.TempDir(), "g.games.jsonl")
		if err := os.WriteFile(p, tc.edit(bytes.Clone(good)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := gamerec.Read(p)
		if err == nil || !errors.Is(err, gamerec.ErrGames) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: got %v, want gamerec.ErrGames naming the file and %q", tc.name, err, tc.want)
		}
	}
	gf, err := gamerec.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	g := gf.Games[0]
	rs := gf.SelfPlayRuleSet()
	for name, tc := range map[string]struct {
		edit func(g *gamerec.Game)
		want string
	}{
		"illegal move":  {func(g *gamerec.Game) { g.Moves = "a1a9" + g.Moves[strings.IndexByte(g.Moves, ' '):] }, "illegal move"},
		"bad setup":     {func(g *gamerec.Game) { g.Setup = "masangmasang,nothing" }, "setup"},
		"setup differs": {func(g *gamerec.Game) { g.Setup = "masangmasang,masangmasang"; g.StartFEN = rules.JanggiStartFEN }, "starts from"},
		"not over":      {func(g *gamerec.Game) { g.Moves = g.Moves[:strings.LastIndexByte(g.Moves, ' ')]; g.Plies-- }, "not over"},
		"counts":        {func(g *gamerec.Game) { g.Count = nil }, "counts"},
	} {
		bad := g
		tc.edit(&bad)
		if _, err := bad.ReplayStrict(rs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", name, err, tc.want)
		}
	}
	if _, err := g.ReplayStrict(rs); err != nil {
		t.Error(err)
	}
}
