// Package jsonlrec is the append-only record file that matches and
// experiments keep: a header line, then one JSON record a line, each
// appended and fsynced as it is made. A process killed at any moment
// leaves every finished record and at most one torn last line, which the
// next Open cuts once it knows the file is the same job's; a file of
// another job is never overwritten. Open locks the file, so two processes
// never append to one job.
package jsonlrec

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/internal/runlock"
)

// Kind is what a record file is: its header's first two fields, which
// every header embeds first, so that a reader knows a file before it
// decodes the rest.
type Kind struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

// Stamp is who started a record file and when: its header's last fields,
// which every header embeds last. They are no part of the job, so a file
// resumed by another build or later is the same job's.
type Stamp struct {
	CodeVersion string    `json:"code_version,omitempty"`
	Started     time.Time `json:"started"`
}

// NewStamp is a file started now by palace of codeVersion.
func NewStamp(codeVersion string) Stamp {
	return Stamp{CodeVersion: codeVersion, Started: time.Now().UTC()}
}

// Spec describes a kind of record file. H is its header (a struct that
// embeds Kind first), R a record.
type Spec[H, R any] struct {
	// Pkg prefixes errors ("arena"); What names the job in them
	// ("match").
	Pkg, What string
	Kind
	// Same reports how a file's header differs from the wanted one (nil:
	// the same job).
	Same func(got, want *H) error
	// Check vets a record against the header; Key names the record's
	// slot ("pair 3 game 1"): a slot recorded twice is an error.
	Check func(h *H, r *R) error
	Key   func(r *R) string
}

// File is an open record file.
type File[H, R any] struct {
	spec   *Spec[H, R]
	path   string
	f      *os.File
	unlock func()
}

// Open opens the record file at path to resume it, or starts it with hdr,
// and returns the records it holds. The file stays locked until Close.
func Open[H, R any](path string, hdr H, s *Spec[H, R]) (*File[H, R], []R, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.Pkg, err)
	}
	// The lock is on the record file itself (created empty if missing):
	// nothing is left beside it.
	unlock, err := runlock.Lock(path)
	if errors.Is(err, runlock.ErrLocked) {
		return nil, nil, fmt.Errorf("%s: %s is being written by another process", s.Pkg, path)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.Pkg, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err == nil {
		// A device (/dev/zero) would be read for ever.
		if err = atomicfile.CheckRegular(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		unlock()
		return nil, nil, fmt.Errorf("%s: %w", s.Pkg, err)
	}
	rf := &File[H, R]{spec: s, path: path, f: f, unlock: unlock}
	recs, err := rf.load(hdr)
	if err != nil {
		rf.Close()
		return nil, nil, err
	}
	return rf, recs, nil
}

func (rf *File[H, R]) load(hdr H) ([]R, error) {
	s := rf.spec
	data, err := io.ReadAll(rf.f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Pkg, err)
	}
	whole := completeLines(data)
	if len(whole) == 0 && rf.isHeaderStart(data) {
		// New, or killed while writing its header: no record can be
		// there.
		line, err := json.Marshal(hdr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Pkg, err)
		}
		if err := rf.f.Truncate(0); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Pkg, err)
		}
		if err := rf.write(line); err != nil {
			return nil, fmt.Errorf("%s: %s: writing the header: %w", s.Pkg, rf.path, err)
		}
		syncDir(filepath.Dir(rf.path))
		return nil, nil
	}
	h, recs, err := parse(rf.path, whole, s)
	if err != nil {
		return nil, err
	}
	if err := s.Same(&h, &hdr); err != nil {
		return nil, fmt.Errorf("%s: %s holds another %s: %w", s.Pkg, rf.path, s.What, err)
	}
	if len(whole) < len(data) {
		// A torn last line: its record was not complete. Cut it, only
		// now that the file is known to be this job's.
		if err := rf.f.Truncate(int64(len(whole))); err != nil {
			return nil, fmt.Errorf("%s: %s: cutting a torn last line: %w", s.Pkg, rf.path, err)
		}
	}
	return recs, nil
}

// isHeaderStart reports whether data is empty or the start of a header
// line cut short: the only contents a new job may overwrite.
func (rf *File[H, R]) isHeaderStart(data []byte) bool {
	prefix := []byte(`{"format":"` + rf.spec.Format + `"`)
	n := min(len(data), len(prefix))
	return bytes.Equal(data[:n], prefix[:n])
}

// Append records r: it is in the file, fsynced, when Append returns.
func (rf *File[H, R]) Append(r *R) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("%s: %w", rf.spec.Pkg, err)
	}
	if err := rf.write(line); err != nil {
		return fmt.Errorf("%s: %s: recording: %w", rf.spec.Pkg, rf.path, err)
	}
	return nil
}

func (rf *File[H, R]) write(line []byte) error {
	if _, err := rf.f.Write(append(line, '\n')); err != nil {
		return err
	}
	return rf.f.Sync()
}

// Close closes the file and drops the lock.
func (rf *File[H, R]) Close() error {
	err := rf.f.Close()
	rf.unlock()
	return err
}

// Read reads a record file without locking it: its header and records. A
// torn last line (a job still being written, or killed) is ignored.
func Read[H, R any](path string, s *Spec[H, R]) (H, []R, error) {
	data, err := atomicfile.ReadFile(path, atomicfile.MaxGamesBytes)
	if err != nil {
		var h H
		return h, nil, fmt.Errorf("%s: %w", s.Pkg, err)
	}
	return Parse(path, data, s)
}

// Parse is Read on a file's contents (held in a store, say); name names it
// in errors.
func Parse[H, R any](name string, data []byte, s *Spec[H, R]) (H, []R, error) {
	return parse(name, completeLines(data), s)
}

// Encode writes a whole record file to w: hdr, then recs in order, each a
// line as Open and Append write them.
func Encode[H, R any](w io.Writer, hdr H, recs []R, s *Spec[H, R]) error {
	enc := json.NewEncoder(w)
	if err := enc.Encode(hdr); err != nil {
		return fmt.Errorf("%s: %w", s.Pkg, err)
	}
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return fmt.Errorf("%s: %w", s.Pkg, err)
		}
	}
	return nil
}

// completeLines is data up to its last newline: what a crash mid-write
// leaves complete.
func completeLines(data []byte) []byte {
	return data[:bytes.LastIndexByte(data, '\n')+1]
}

// parse reads a record file's complete lines: the header, then one record
// a line, each checked (valid, its slot not taken twice).
func parse[H, R any](path string, data []byte, s *Spec[H, R]) (H, []R, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	var h H
	if !sc.Scan() {
		return h, nil, fmt.Errorf("%s: %s: no complete header line", s.Pkg, path)
	}
	var id Kind
	if err := json.Unmarshal(sc.Bytes(), &id); err != nil || id.Format != s.Format {
		return h, nil, fmt.Errorf("%s: %s: not a palace %s record file", s.Pkg, path, s.What)
	}
	if id.Version != s.Version {
		return h, nil, fmt.Errorf("%s: %s: version %d, this palace reads %d", s.Pkg, path, id.Version, s.Version)
	}
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
		return h, nil, fmt.Errorf("%s: %s line 1 (header): %w", s.Pkg, path, err)
	}
	var recs []R
	seen := map[string]bool{}
	for n := 2; sc.Scan(); n++ {
		var r R
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return h, nil, fmt.Errorf("%s: %s line %d: %w", s.Pkg, path, n, err)
		}
		if err := s.Check(&h, &r); err != nil {
			return h, nil, fmt.Errorf("%s: %s line %d: %w", s.Pkg, path, n, err)
		}
		k := s.Key(&r)
		if seen[k] {
			return h, nil, fmt.Errorf("%s: %s line %d: %s recorded twice", s.Pkg, path, n, k)
		}
		seen[k] = true
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		return h, nil, fmt.Errorf("%s: %s: %w", s.Pkg, path, err)
	}
	return h, recs, nil
}

// syncDir makes a new file's directory entry durable, where the file
// system allows.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// FormatOf is the format a JSON lines file's first line names (its
// header's "format"), or "" when that line is no such header: how a
// reader tells palace's record, games and metrics files apart.
func FormatOf(data []byte) string {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	var k struct {
		Format string `json:"format"`
	}
	_ = json.Unmarshal(line, &k)
	return k.Format
}

// FileFormat is FormatOf the file at path, from its first line only (at
// most 64 KiB read).
func FileFormat(path string) (string, error) {
	f, err := atomicfile.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 1<<16).ReadSlice('\n')
	if err != nil && len(line) == 0 {
		if errors.Is(err, io.EOF) {
			return "", nil
		}
		return "", err
	}
	return FormatOf(line), nil
}
