package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hashes are recorded in shards and checkpoints: a change here breaks
// every file written before it, so it must be deliberate.
func TestPresetHashesAreStable(t *testing.T) {
	want := map[string]string{
		"xiangqi":           "28da3d27164cf76e",
		"janggi":            "e1f9c542c39ccf30",
		"janggitraditional": "60cbd4af991958a4",
		"janggimodern":      "bb421d98851345ef",
		"janggicasual":      "ec1249a89afa3fa3",
		"janggiclassic":     "8faa771e7b2c4fd8",
	}
	seen := map[string]string{}
	for _, name := range PresetNames() {
		rs := MustPreset(name)
		if err := rs.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
		h := rs.Hash()
		if h != want[name] {
			t.Errorf("preset %s: hash %s, want %s", name, h, want[name])
		}
		if other, dup := seen[h]; dup {
			t.Errorf("presets %s and %s share hash %s", name, other, h)
		}
		seen[h] = name
	}
}

func TestParseRuleSet(t *testing.T) {
	rs, err := ParseRuleSet([]byte("base: janggi\nname: janggi-nocount\ncounting: false\nrepetition: 4\nmaxPlies: 300\n"), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base := MustPreset("janggi")
	if rs.Name != "janggi-nocount" || rs.Counting || rs.Repetition != 4 || rs.MaxPlies != 300 || rs.Facing != base.Facing || rs.Pass != base.Pass {
		t.Errorf("parsed %+v", rs)
	}
	if rs.Hash() == base.Hash() {
		t.Error("a changed rule set kept its base's hash")
	}
	same, err := ParseRuleSet([]byte("base: janggi\n"), "same.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if same.Hash() != base.Hash() || same.Name != "janggi-custom" {
		t.Errorf("unchanged copy: name %s hash %s, want janggi-custom %s", same.Name, same.Hash(), base.Hash())
	}
	rs, err = ParseRuleSet([]byte("base: janggiclassic\nbikjangClaim: true\ncounting: true\nhanBonus: 1.5\npass: unlessInCheck\n"), "classic.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !rs.BikjangClaim || !rs.Counting || rs.HanBonusHalves != 3 || rs.Pass != PassUnlessInCheck {
		t.Errorf("parsed %+v", rs)
	}
}

func TestParseRuleSetErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"counting: true\n", "missing `base:`"},
		{"base: chess\n", "unknown rule set \"chess\""},
		{"base: janggi\ncountng: false\n", "line 2: unknown key countng in the rule set"},
		{"base: janggi\nrepetition: 3.5\n", "line 2: repetition: 3.5: want a whole number"},
		{"base: janggi\nhanBonus: .nan\n", "hanBonus: .nan is not a number"},
		{"", "missing `base:`"},
		{"base: janggi\nrepetition: 1\n", "repetition 1"},
		{"base: janggi\npass: sometimes\n", "pass: \"sometimes\" is not one of never, unlessInCheck, whenStuck"},
		{"base: janggi\nfacingKings: maybe\n", "facingKings: \"maybe\""},
		{"base: janggi\npass: never\n", "bikjang needs a pass rule"},
		{"base: janggi\nchaseRule: true\n", "chaseRule is defined for xiangqi only"},
		{"base: janggi\nbikjangClaim: true\n", "bikjangClaim needs facingKings: mustBreak"},
		{"base: janggi\nhanBonus: 2\n", "never ties"},
		{"base: janggi\nhanBonus: 0.3\n", "multiple of 0.5"},
		{"base: xiangqi\nmoveLimit: 0\n", "checkExtension needs a moveLimit"},
		{"base: xiangqi\nmaxPlies: -1\n", "maxPlies -1 is negative"},
		{"base: [\n", "bad.yaml"},
	} {
		_, err := ParseRuleSet([]byte(tc.yaml), "bad.yaml")
		if err == nil {
			t.Errorf("%q: accepted", tc.yaml)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.yaml") || !strings.HasPrefix(err.Error(), "rules: ") {
			t.Errorf("%q: error %q, want it to name bad.yaml and contain %q", tc.yaml, err, tc.want)
		}
	}
}

func TestLoadRuleSet(t *testing.T) {
	if rs, err := LoadRuleSet("janggimodern"); err != nil || rs.Name != "janggimodern" {
		t.Errorf("preset: %v %v", rs, err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "r.yaml")
	if err := os.WriteFile(path, []byte("base: xiangqi\nname: xq-nochase\nchaseRule: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rs, err := LoadRuleSet(path); err != nil || rs.Name != "xq-nochase" || rs.ChaseRule {
		t.Errorf("file: %+v %v", rs, err)
	}
	if _, err := LoadRuleSet("xiangqii"); err == nil || !strings.Contains(err.Error(), "not a preset") {
		t.Errorf("typo: %v", err)
	}
	if _, err := LoadRuleSet(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("missing file accepted")
	}
}

// A cap is put on a copy, whose hash is its own; 0 leaves the rule set.
func TestWithMaxPlies(t *testing.T) {
	rs := MustPreset("janggi")
	if rs.WithMaxPlies(0) != rs || rs.WithMaxPlies(-1) != rs {
		t.Error("no cap made a copy")
	}
	c := rs.WithMaxPlies(300)
	if c == rs || c.MaxPlies != 300 || rs.MaxPlies != 0 || c.Hash() == rs.Hash() || c.Name != rs.Name {
		t.Errorf("capped %+v from %+v", c, rs)
	}
}
