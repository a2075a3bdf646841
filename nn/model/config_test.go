package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// configs/net-6x64.yaml is the default shape; a shape file's unknown keys
// (the encoding's planes among them) and impossible shapes are errors
// naming the file.
func TestLoadConfig(t *testing.T) {
	c, err := LoadConfig(filepath.Join("..", "..", "configs", "net-6x64.yaml"))
	if err != nil || c != DefaultConfig() {
		t.Errorf("net-6x64.yaml: %+v, %v; want %+v", c, err, DefaultConfig())
	}
	dir := t.TempDir()
	for _, tc := range []struct{ yaml, want string }{
		{"blocks: 1\nfiltres: 8\n", "line 2: unknown key filtres in the network shape"},
		{"planes: 3\n", "unknown key planes"},
		{"blocks: 500\n", "blocks = 500"},
	} {
		path := filepath.Join(dir, "shape.yaml")
		os.WriteFile(path, []byte(tc.yaml), 0o644)
		if _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: %v, want an error naming %s and containing %q", tc.yaml, err, path, tc.want)
		}
	}
	path := filepath.Join(dir, "small.yaml")
	os.WriteFile(path, []byte("blocks: 1\nfilters: 8\n"), 0o644)
	want := DefaultConfig()
	want.Blocks, want.Filters = 1, 8
	if c, err := LoadConfig(path); err != nil || c != want {
		t.Errorf("a partial shape: %+v, %v; want the rest from the defaults", c, err)
	}
}
