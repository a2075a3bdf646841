// Package jsonlrec is the append-only record file that matches and
// experiments keep: a header line, then one JSON record a line, each
// appended and fsynced as it is made. A process killed at any moment
// leaves every finished record and at most one torn last line, which the
// next Open cuts once it knows the file is the same job's; a file of
// another job is never overwritten. Open locks the file, so two processes
// never append to one job. Decode, the reader beneath, also reads the
// files palace writes whole (gamerec's games files).
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
	// ("match"), File the file ("match record"; What + " record" when
	// empty).
	Pkg, What, File string
	Kind
	// MinVersion is the oldest version of Format read (0: Version only).
	MinVersion int
	// StrictHeader refuses a header field the header lacks, as records'
	// are always refused (a games file's header is checked so).
	StrictHeader bool
	// Legacy, when its Format is set, is an older format that files of
	// this kind replaced, read at its Version by ReadLegacy into a header.
	Legacy     Kind
	ReadLegacy func(line []byte) (H, error)
	// Err, when set, is wrapped by every error about a file's contents
	// (gamerec.ErrGames), which then read "Err: name: what".
	Err error
	// Same reports how a file's header differs from the wanted one (nil:
	// the same job).
	Same func(got, want *H) error
	// Check vets a record against the header; Key names the record's
	// slot ("pair 3 game 1"): a slot recorded twice is an error. Either
	// may be nil.
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

// parse reads an appended file's complete lines (a torn last one cut
// off): the header, then its records.
func parse[H, R any](path string, data []byte, s *Spec[H, R]) (H, []R, error) {
	if len(data) == 0 {
		var h H
		return h, nil, fmt.Errorf("%s: %s: no complete header line", s.Pkg, path)
	}
	var recs []R
	h, err := Decode(bytes.NewReader(data), path, s, func(_ *H, _ int, r *R) error {
		recs = append(recs, *r)
		return nil
	})
	return h, recs, err
}

// MaxLine bounds a line of a record file (a header, or one record: a game
// of the longest rule-set cap is well under a megabyte).
const MaxLine = 64 << 20

var errLongLine = fmt.Errorf("longer than %d MiB: not a palace record file", MaxLine>>20)

// Decode reads a record file from r, line by line: the header (its format
// and version checked), then one record a line, each decoded strictly,
// vetted by Check, its slot not taken twice, and handed to fn with its
// line number (fn's error is reported as the line's). Every line counts,
// a last one without its newline too: a file written whole (a games file)
// is read so, while Read and Parse first cut an appended file's torn last
// line. name names the input in errors. Decode is the one reader of
// palace's record files and games files.
func Decode[H, R any](r io.Reader, name string, s *Spec[H, R], fn func(h *H, line int, r *R) error) (H, error) {
	var h H
	bad := func(err error) error {
		if s.Err != nil {
			return fmt.Errorf("%w: %s: %w", s.Err, name, err)
		}
		return fmt.Errorf("%s: %s: %w", s.Pkg, name, err)
	}
	badLine := func(n int, err error) error {
		if s.Err != nil {
			return fmt.Errorf("%w: %s: line %d: %w", s.Err, name, n, err)
		}
		return fmt.Errorf("%s: %s line %d: %w", s.Pkg, name, n, err)
	}
	br := bufio.NewReaderSize(r, 1<<16)
	seen := map[string]bool{}
	n := 0
	for {
		text, err := readLine(br)
		if errors.Is(err, errLongLine) {
			return h, badLine(n+1, err)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return h, fmt.Errorf("%s: reading %s: %w", s.Pkg, name, err)
		}
		if len(text) == 0 && err != nil {
			break
		}
		n++
		if len(bytes.TrimSpace(text)) == 0 {
			return h, badLine(n, errors.New("empty"))
		}
		if n == 1 {
			if h, err = s.readHeader(text); err != nil {
				return h, bad(err)
			}
			continue
		}
		var rec R
		if err := strictJSON(text, &rec); err != nil {
			return h, badLine(n, err)
		}
		if s.Check != nil {
			if err := s.Check(&h, &rec); err != nil {
				return h, badLine(n, err)
			}
		}
		if s.Key != nil {
			k := s.Key(&rec)
			if seen[k] {
				return h, badLine(n, fmt.Errorf("%s recorded twice", k))
			}
			seen[k] = true
		}
		if err := fn(&h, n, &rec); err != nil {
			return h, badLine(n, err)
		}
	}
	if n == 0 {
		return h, bad(errors.New("empty"))
	}
	return h, nil
}

// readHeader reads a header line: this kind's format at a version read, or
// its legacy format.
func (s *Spec[H, R]) readHeader(line []byte) (H, error) {
	var h H
	file := s.File
	if file == "" {
		file = s.What + " record"
	}
	var id Kind
	if err := json.Unmarshal(line, &id); err != nil {
		return h, fmt.Errorf("not a palace %s file", file)
	}
	switch {
	case id.Format == s.Format:
		lo := s.Version
		if s.MinVersion > 0 {
			lo = s.MinVersion
		}
		if id.Version < lo || id.Version > s.Version {
			if lo == s.Version {
				return h, fmt.Errorf("version %d, this palace reads %d", id.Version, s.Version)
			}
			return h, fmt.Errorf("version %d; this palace reads versions %d to %d", id.Version, lo, s.Version)
		}
	case s.Legacy.Format != "" && id.Format == s.Legacy.Format:
		if id.Version != s.Legacy.Version {
			return h, fmt.Errorf("version %d; this palace reads version %d of %s", id.Version, s.Legacy.Version, s.Legacy.Format)
		}
		return s.ReadLegacy(line)
	default:
		return h, fmt.Errorf("format %q: not a palace %s file", id.Format, file)
	}
	var err error
	if s.StrictHeader {
		err = strictJSON(line, &h)
	} else {
		err = json.Unmarshal(line, &h)
	}
	if err != nil {
		return h, fmt.Errorf("line 1 (header): %w", err)
	}
	return h, nil
}

// readLine is br's next line, with its '\n', as ReadBytes gives it, up to
// MaxLine bytes (errLongLine beyond: a file of one endless line, such as
// /dev/zero's, would otherwise be read into memory whole).
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > MaxLine {
			return nil, errLongLine
		}
		line = append(line, frag...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// strictJSON decodes data into v, refusing a field v lacks: a record
// with an unknown key is another program's, or damaged.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
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
