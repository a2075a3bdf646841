package loop_test

import (
	"io/fs"
	"testing"

	"github.com/palace-chess/palace/configs"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/train"
)

// FuzzConfigs: every config palace reads (a run's, self-play's, palace
// train's, a network shape, a rule set), given any bytes, parses to a
// config that passes its own checks, or is an error; never a panic (the
// configs' counts reach allocations: issue 25). kind picks the parser;
// the seeds are the example configs and the tiny test run.
func FuzzConfigs(f *testing.F) {
	files, _ := fs.Glob(configs.FS, "*.yaml")
	for _, name := range files {
		data, err := configs.FS.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for kind := range byte(5) {
			f.Add(kind, data)
		}
	}
	f.Add(byte(0), []byte(looptest.TinyYAML))
	f.Add(byte(0), []byte("rules: xiangqi\nseed: 1\nselfplay: {games: 4.5}\n"))
	f.Add(byte(1), []byte("output: x\nrules: janggi\ngames: 1e18\nconcurrent_games: 100000000\n"))
	f.Add(byte(4), []byte("base: janggi\nhanBonus: .nan\nrepetition: 3.5\n"))
	f.Add(byte(0), []byte("a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"))
	f.Fuzz(func(t *testing.T, kind byte, data []byte) {
		switch kind % 5 {
		case 0:
			if c, err := loop.ParseConfig(data, "fuzz.yaml"); err == nil {
				if err := c.Validate(); err != nil {
					t.Fatalf("parsed, then invalid: %v", err)
				}
			}
		case 1:
			if c, _, err := selfplay.ParseConfig(data, "fuzz.yaml"); err == nil {
				if err := c.Validate(); err != nil {
					t.Fatalf("parsed, then invalid: %v", err)
				}
			}
		case 2:
			// Its schedule's steps are left to the job (0: from the
			// games), so its parse is its check.
			train.ParseGamesConfig(data, "fuzz.yaml")
		case 3:
			if c, err := model.ParseConfig(data, "fuzz.yaml"); err == nil {
				if err := c.Validate(); err != nil {
					t.Fatalf("parsed, then invalid: %v", err)
				}
			}
		case 4:
			if rs, err := rules.ParseRuleSet(data, "fuzz.yaml"); err == nil {
				if _, err := rules.NewGame(rs, rs.StartFEN()); err != nil {
					t.Fatalf("parsed, then no start position: %v", err)
				}
			}
		}
	})
}
