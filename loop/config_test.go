package loop_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/selfplay"
)

var updateConfigs = flag.Bool("update-configs", false, "rewrite loop/testdata/configs.json from configs/")

// The example configs parse to the values they did when each package came
// to decode its own section (checked then against the earlier decoding):
// a run directory keeps its config.yaml, so a resumed run reads it again,
// and must get the same settings.
func TestConfigsParsePinned(t *testing.T) {
	got := map[string]any{}
	for _, name := range []string{"quickstart-xiangqi.yaml", "quickstart-janggi.yaml"} {
		c, err := loop.LoadConfig(filepath.Join("..", "configs", name))
		if err != nil {
			t.Fatal(err)
		}
		got[name] = c
	}
	sp, job, err := selfplay.LoadConfig(filepath.Join("..", "configs", "selfplay.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got["selfplay.yaml"] = struct {
		selfplay.Config
		selfplay.Job
	}{sp, job}
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	golden := filepath.Join("testdata", "configs.json")
	if *updateConfigs {
		if err := os.WriteFile(golden, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Errorf("the example configs parse to\n%s\nwant (%s)\n%s", data, golden, want)
	}
}

// Every run config palace ships (the quickstarts, and the configs under
// test for issue 43) loads and validates: a typo in one is found here,
// not an hour into somebody's run.
func TestRunConfigsLoad(t *testing.T) {
	var names []string
	for _, pattern := range []string{"quickstart-*.yaml", "strength-*.yaml", "zero-*.yaml"} {
		m, err := filepath.Glob(filepath.Join("..", "configs", pattern))
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, m...)
	}
	if len(names) < 6 {
		t.Fatalf("found %v, want both quickstarts, both strength configs and both zero configs", names)
	}
	for _, name := range names {
		c, err := loop.LoadConfig(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The gate's section is gate; arena, its old name, still reads the same
// config: every shipped run config parses to the same values with its
// section renamed back, and a file giving both is refused, not settled by
// the last.
func TestGateSectionOldName(t *testing.T) {
	names, err := filepath.Glob(filepath.Join("..", "configs", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	gateKey := regexp.MustCompile(`(?m)^gate:`)
	renamed := 0
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !gateKey.Match(data) {
			continue
		}
		renamed++
		want, err := loop.ParseConfig(data, name)
		if err != nil {
			t.Fatal(err)
		}
		old := gateKey.ReplaceAll(data, []byte("arena:"))
		got, err := loop.ParseConfig(old, name+" (arena:)")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: arena: parses to %+v, gate: to %+v", name, got.Gate, want.Gate)
		}
	}
	if renamed < 4 {
		t.Errorf("%d shipped configs have a gate section, want the quickstarts and the strength configs", renamed)
	}
	for _, c := range []struct{ yaml, want string }{
		{"rules: xiangqi\nseed: 1\ngate: {pairs: 7}\n", ""},
		{"rules: xiangqi\nseed: 1\narena: {pairs: 7}\n", ""},
		{"rules: xiangqi\nseed: 1\ngate: {pairs: 7}\narena: {pairs: 7}\n", "gate and arena are the same section"},
		{"rules: xiangqi\nseed: 1\narena: {pairs: 0}\n", "gate: pairs 0"},
		{"rules: xiangqi\nseed: 1\narena: {pears: 7}\n", "unknown key pears in gate"},
	} {
		cfg, err := loop.ParseConfig([]byte(c.yaml), "test")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.yaml, err)
		case c.want == "" && cfg.Gate.Pairs != 7:
			t.Errorf("%q: pairs %d, want 7", c.yaml, cfg.Gate.Pairs)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want one saying %q", c.yaml, err, c.want)
		}
	}
}
