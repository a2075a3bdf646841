package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestDir(t *testing.T) {
	d, err := NewDir(filepath.Join(t.TempDir(), "run"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Read("best.json"); !errors.Is(err, ErrNotExist) {
		t.Errorf("reading a missing key: %v", err)
	}
	for _, k := range []string{"nets/gen-0001.palnet", "nets/gen-0000.palnet", "best.json"} {
		if err := d.Write(k, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := d.Read("nets/gen-0001.palnet"); err != nil || string(b) != "nets/gen-0001.palnet" {
		t.Errorf("read back %q, %v", b, err)
	}
	os.WriteFile(filepath.Join(d.Local("nets"), ".gen-0002.palnet.tmp-1"), nil, 0o644) // a crashed write
	keys, err := d.List("nets/")
	if err != nil || !slices.Equal(keys, []string{"nets/gen-0000.palnet", "nets/gen-0001.palnet"}) {
		t.Errorf("List = %v, %v", keys, err)
	}
	if err := d.Remove("best.json"); err != nil {
		t.Fatal(err)
	}
	if err := d.Remove("best.json"); err != nil {
		t.Errorf("removing twice: %v", err)
	}
	for _, bad := range []string{"", "/etc/passwd", "../x", "a/../../x", "a\\b", "./a"} {
		if err := d.Write(bad, nil); err == nil {
			t.Errorf("key %q was accepted", bad)
		}
		if d.Local(bad) != "" {
			t.Errorf("key %q has a local path", bad)
		}
	}
}

// A store whose root is a symbolic link to a directory lists that
// directory's keys (issue 47: palace run --dir LINK saw none, and found
// its own networks missing).
func TestDirThroughLink(t *testing.T) {
	dir := t.TempDir()
	real, link := filepath.Join(dir, "run"), filepath.Join(dir, "link")
	d, err := NewDir(real)
	if err != nil {
		t.Fatal(err)
	}
	d.Write("nets/gen-0000.palnet", []byte("x"))
	d.Write("best.json", []byte("x"))
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	l, err := NewDir(link)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := l.List("")
	if err != nil || !slices.Equal(keys, []string{"best.json", "nets/gen-0000.palnet"}) {
		t.Errorf("List through the link = %v, %v", keys, err)
	}
}
