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
