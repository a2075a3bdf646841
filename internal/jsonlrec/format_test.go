package jsonlrec

import (
	"os"
	"path/filepath"
	"testing"
)

// A file's format is its first line's header field, whatever follows;
// no header, an empty file or a line that is not JSON is "".
func TestFileFormat(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ data, want string }{
		{`{"format":"palace-arena","version":1}` + "\n" + `{"pair":0}` + "\n", "palace-arena"},
		{`{"format":"palace-games"}`, "palace-games"}, // no newline yet
		{`{"pair":0}` + "\n", ""},
		{"[Event \"x\"]\n", ""},
		{"", ""},
	} {
		path := filepath.Join(dir, "f.jsonl")
		if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := FileFormat(path)
		if err != nil || got != tc.want || FormatOf([]byte(tc.data)) != tc.want {
			t.Errorf("%q: FileFormat %q, %v; FormatOf %q; want %q", tc.data, got, err, FormatOf([]byte(tc.data)), tc.want)
		}
	}
	if _, err := FileFormat(filepath.Join(dir, "missing.jsonl")); err == nil {
		t.Error("a missing file: no error")
	}
}
