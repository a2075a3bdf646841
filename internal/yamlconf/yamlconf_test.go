package yamlconf

import (
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
