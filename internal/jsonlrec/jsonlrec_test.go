package jsonlrec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type hdr struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Job     string `json:"job"`
	Slots   int    `json:"slots"`
}

type rec struct {
	Slot  int    `json:"slot"`
	Value string `json:"value"`
}

var spec = Spec[hdr, rec]{
	Pkg: "test", What: "job", Kind: Kind{Format: "palace-test", Version: 1},
	Same: func(got, want *hdr) error {
		if got.Job != want.Job {
			return fmt.Errorf("job %s, not %s", got.Job, want.Job)
		}
		return nil
	},
	Check: func(h *hdr, r *rec) error {
		if r.Slot < 0 || r.Slot >= h.Slots {
			return fmt.Errorf("slot %d out of range", r.Slot)
		}
		return nil
	},
	Key: func(r *rec) string { return fmt.Sprintf("slot %d", r.Slot) },
}

func header(job string) hdr { return hdr{Format: "palace-test", Version: 1, Job: job, Slots: 4} }

func TestResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "r.jsonl")
	f, recs, err := Open(path, header("a"), &spec)
	if err != nil || len(recs) != 0 {
		t.Fatalf("new file: %v, %d records", err, len(recs))
	}
	if _, _, err := Open(path, header("a"), &spec); err == nil || !strings.Contains(err.Error(), "another process") {
		t.Errorf("second writer: %v", err)
	}
	for i := range 2 {
		if err := f.Append(&rec{Slot: i, Value: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	// A crash mid-append leaves a torn line: readers ignore it, Open of the
	// same job cuts it, Open of another job leaves the file alone.
	data, _ := os.ReadFile(path)
	torn := append(data, `{"slot":2,"va`...)
	if err := os.WriteFile(path, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, recs, err := Read(path, &spec); err != nil || len(recs) != 2 {
		t.Fatalf("read with a torn line: %v, %d records", err, len(recs))
	}
	if _, _, err := Open(path, header("b"), &spec); err == nil || !strings.Contains(err.Error(), "holds another job: job a, not b") {
		t.Errorf("another job: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(torn) {
		t.Error("another job's Open changed the file")
	}
	f, recs, err = Open(path, header("a"), &spec)
	if err != nil || len(recs) != 2 || recs[1].Slot != 1 {
		t.Fatalf("resume: %v, %+v", err, recs)
	}
	if err := f.Append(&rec{Slot: 2}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if h, recs, err := Read(path, &spec); err != nil || len(recs) != 3 || h.Job != "a" {
		t.Fatalf("after resume: %v, %+v", err, recs)
	}
}

func TestNewOrTornHeader(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"empty": "", "torn": `{"format":"palace-te`} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		f, _, err := Open(path, header("a"), &spec)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f.Close()
		if h, _, err := Read(path, &spec); err != nil || h.Job != "a" {
			t.Errorf("%s: header %+v, %v", name, h, err)
		}
	}
	// A file that is not a record file is never overwritten.
	path := filepath.Join(dir, "other")
	if err := os.WriteFile(path, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(path, header("a"), &spec); err == nil {
		t.Error("opened a file that is not a record file")
	}
	if got, _ := os.ReadFile(path); string(got) != "precious" {
		t.Error("overwrote it")
	}
}

func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	h := `{"format":"palace-test","version":1,"job":"a","slots":4}` + "\n"
	for _, c := range []struct{ name, data, want string }{
		{"format", `{"format":"x","version":1}` + "\n", "not a palace job record file"},
		{"version", `{"format":"palace-test","version":2}` + "\n", "version 2, this palace reads 1"},
		{"unknown field", h + `{"slot":1,"x":2}` + "\n", "line 2"},
		{"range", h + `{"slot":9}` + "\n", "line 2: slot 9 out of range"},
		{"twice", h + `{"slot":1}` + "\n" + `{"slot":1}` + "\n", "line 3: slot 1 recorded twice"},
		{"no header", "", "no complete header line"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := Read(path, &spec)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "test: "+path) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, _, err := Read(filepath.Join(dir, "missing"), &spec); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// A file written whole (a games file) is Decoded line by line, its last
// line counted without its newline; older versions, a legacy format and
// a strict header are the Spec's to ask for, and Err is wrapped by every
// error about the contents.
func TestDecode(t *testing.T) {
	errBad := errors.New("bad file")
	whole := Spec[hdr, rec]{Pkg: "test", What: "job", File: "job", Kind: Kind{Format: "palace-test", Version: 3}, MinVersion: 2,
		StrictHeader: true, Err: errBad,
		Legacy: Kind{Format: "palace-old", Version: 1},
		ReadLegacy: func(line []byte) (hdr, error) {
			return hdr{Format: "palace-old", Version: 1, Job: "legacy"}, nil
		}}
	decode := func(data string) (hdr, []rec, error) {
		var recs []rec
		h, err := Decode(strings.NewReader(data), "in", &whole, func(h *hdr, n int, r *rec) error {
			if r.Value == "refused" {
				return errors.New("refused")
			}
			recs = append(recs, *r)
			return nil
		})
		return h, recs, err
	}
	for _, v := range []string{"2", "3"} {
		h, recs, err := decode(`{"format":"palace-test","version":` + v + `,"job":"a"}` + "\n" + `{"slot":1}` + "\n" + `{"slot":1}`)
		if err != nil || h.Job != "a" || len(recs) != 2 {
			t.Errorf("version %s: %+v %+v %v", v, h, recs, err)
		}
	}
	if h, _, err := decode(`{"format":"palace-old","version":1,"whatever":1}` + "\n"); err != nil || h.Job != "legacy" {
		t.Errorf("legacy: %+v %v", h, err)
	}
	h := `{"format":"palace-test","version":3}` + "\n"
	for _, c := range []struct{ name, data, want string }{
		{"empty", "", "in: empty"},
		{"old version", `{"format":"palace-test","version":1}`, "version 1; this palace reads versions 2 to 3"},
		{"legacy version", `{"format":"palace-old","version":2}`, "version 2; this palace reads version 1 of palace-old"},
		{"format", `{"format":"x"}`, `format "x": not a palace job file`},
		{"strict header", `{"format":"palace-test","version":3,"x":1}`, "line 1 (header)"},
		{"empty line", h + "\n" + `{"slot":1}`, "line 2: empty"},
		{"refused", h + `{"slot":1,"value":"refused"}`, "line 2: refused"},
	} {
		if _, _, err := decode(c.data); !errors.Is(err, errBad) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
