package yamlconf

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type inner struct {
	Sims int `yaml:"sims"`
}

type outer struct {
	Name   string `yaml:"name"`
	Search *inner `yaml:"search"`
}

func TestDecode(t *testing.T) {
	sections := map[string]string{"yamlconf.inner": "search", "yamlconf.outer": "the config"}
	var o outer
	if err := Decode([]byte("name: a\nsearch: {sims: 3}"), &o, sections); err != nil || o.Name != "a" || o.Search.Sims != 3 {
		t.Fatalf("%+v, %v", o, err)
	}
	if err := Decode(nil, &o, sections); err != nil {
		t.Errorf("empty document: %v", err)
	}
	err := Decode([]byte("name: a\nsearch: {simz: 3}\nbogus: 1"), &o, sections)
	if err == nil || !strings.Contains(err.Error(), "line 2: unknown key simz in search") || !strings.Contains(err.Error(), "unknown key bogus in the config") || strings.Contains(err.Error(), "yamlconf.") {
		t.Errorf("unknown keys: %v", err)
	}
	if err := Decode([]byte("name: [1"), &o, sections); err == nil {
		t.Error("broken YAML decoded")
	}
}

type withSection struct {
	Search Section[inner] `yaml:"search"`
}

// A Section decodes over the value it holds, says whether the file had it,
// and stays strict: an unknown key in it is an error with its line.
func TestSection(t *testing.T) {
	sections := map[string]string{"yamlconf.inner": "search", "yamlconf.withSection": "the config"}
	for _, tc := range []struct {
		yaml  string
		sims  int
		given bool
	}{{"", 7, false}, {"search: ~", 7, false}, {"search: {}", 7, true}, {"search: {sims: 3}", 3, true}} {
		w := withSection{Search: Section[inner]{Value: inner{Sims: 7}}}
		if err := Decode([]byte(tc.yaml), &w, sections); err != nil || w.Search.Value.Sims != tc.sims || w.Search.Given != tc.given {
			t.Errorf("%q: %+v, %v; want sims %d, given %v", tc.yaml, w.Search, err, tc.sims, tc.given)
		}
	}
	var w withSection
	if err := Decode([]byte("search:\n  sims: 3\n  simz: 4\n"), &w, sections); err == nil || err.Error() != "line 3: unknown key simz in search" {
		t.Errorf("an unknown key in a section: %v", err)
	}
}

// Load parses the file's bytes naming the file; a file it cannot read is
// the package's error, wrapping the read's.
func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte("name: a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	parse := func(data []byte, source string) (outer, error) {
		var o outer
		err := Decode(data, &o, nil)
		if source != path {
			t.Errorf("source %q, want %q", source, path)
		}
		return o, err
	}
	if o, err := Load("pkg", path, parse); err != nil || o.Name != "a" {
		t.Errorf("%+v, %v", o, err)
	}
	_, err := Load("pkg", filepath.Join(t.TempDir(), "none.yaml"), parse)
	if err == nil || !strings.HasPrefix(err.Error(), "pkg: open ") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// Missing names every required key not given, in order, and is nil when
// all are.
func TestMissing(t *testing.T) {
	if err := Missing(Required{Name: "a", Given: true}); err != nil {
		t.Errorf("all given: %v", err)
	}
	err := Missing(Required{Name: "a (x)"}, Required{Name: "b", Given: true}, Required{Name: "c"})
	if err == nil || err.Error() != "missing a (x); c" {
		t.Errorf("two missing: %v", err)
	}
}

type numbers struct {
	Games  int                `yaml:"games"`
	Seed   uint64             `yaml:"seed"`
	Rate   float64            `yaml:"rate"`
	Search Section[inner]     `yaml:"search"`
	Counts []uint16           `yaml:"counts"`
	Named  map[string]int64   `yaml:"named"`
	Floats map[string]float32 `yaml:"floats"`
}

// A number with a fraction where a whole number is wanted is an error
// naming its line and key (issue 25: yaml.v3 read `games: 4.5` as 4), and
// so is a whole number written as a float (issue 47: `seed: 5.0`); a float
// field takes fractions and exponents, and .nan and .inf are refused
// everywhere.
func TestDecodeNumbers(t *testing.T) {
	var n numbers
	ok := "games: 4\nrate: 0.5\nsearch: {sims: 1000}\ncounts: [1, 2]\nnamed: {a: 3}\nfloats: {x: 2.5, y: 1e30}\n"
	if err := Decode([]byte(ok), &n, nil); err != nil || n.Games != 4 || n.Rate != 0.5 || n.Search.Value.Sims != 1000 || n.Floats["x"] != 2.5 {
		t.Fatalf("%+v, %v", n, err)
	}
	for doc, want := range map[string]string{
		"games: 4.5":                       "line 1: games: 4.5: want a whole number",
		"games: 4.0":                       "line 1: games: 4.0: want a whole number written as one (4)",
		"seed: 5.0":                        "line 1: seed: 5.0: want a whole number written as one (5)",
		"search: {sims: 1e3}":              "line 1: sims: 1e3: want a whole number written as one (1000)",
		"counts: [1, 2.0]":                 "line 1: counts: 2.0: want a whole number written as one (2)",
		"rate: 1\n\nsearch:\n  sims: 0.25": "line 4: sims: 0.25: want a whole number",
		"counts: [1, 2.5]":                 "line 1: counts: 2.5: want a whole number",
		"named: {a: -7.5}":                 "line 1: a: -7.5: want a whole number",
		"seed: 18446744073709551616":       "line 1: seed: 18446744073709551616: too large a whole number to read exactly",
		"games: 1e18":                      "line 1: games: 1e18: too large a whole number to read exactly",
		"rate: .nan":                       "line 1: rate: .nan is not a number palace can use",
		"games: 3\nrate: -.Inf":            "line 2: rate: -.Inf is not a number palace can use",
		"games: .inf":                      "line 1: cannot unmarshal !!float `.inf` into int",
	} {
		err := Decode([]byte(doc), new(numbers), nil)
		if err == nil || err.Error() != want {
			t.Errorf("%q: got %v, want %q", doc, err, want)
		}
	}
}
