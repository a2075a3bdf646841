package datasets

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/palace-chess/palace/internal/atomicfile"
)

// ManifestName is the manifest's file name in a shard directory.
const ManifestName = "manifest.json"

// ManifestVersion is the manifest layout this code writes and reads.
const ManifestVersion = 1

const lockName = ".manifest.lock"

// ShardInfo is what a manifest lists for one completed shard.
type ShardInfo struct {
	Name      string `json:"name"` // file name within the directory
	Records   int64  `json:"records"`
	Games     int64  `json:"games"` // runs of records with one game id
	FirstGame uint64 `json:"first_game"`
	LastGame  uint64 `json:"last_game"`
	Blocks    int    `json:"blocks"`
	Bytes     int64  `json:"bytes"`
	// SHA256 is the digest of the whole file, so that a copy can be
	// checked without reading a record.
	SHA256  string    `json:"sha256"`
	RuleSet string    `json:"rule_set"` // name@hash
	Added   time.Time `json:"added"`
}

// Manifest lists a directory's completed shards in the order they were
// completed. Readers use only the shards it lists: a file that is not
// listed (a temporary file, a shard whose writer died before listing it)
// is not training data.
type Manifest struct {
	Version int         `json:"version"`
	Shards  []ShardInfo `json:"shards"`
	dir     string
}

// ReadManifest reads dir's manifest; a directory without one has an empty
// manifest.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestName)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Manifest{Version: ManifestVersion, dir: dir}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	m := &Manifest{dir: dir}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, &FileError{Path: path, Block: -1, Err: fmt.Errorf("%w: manifest: %v", ErrCorrupt, err)}
	}
	if m.Version != ManifestVersion {
		return nil, &FileError{Path: path, Block: -1, Err: fmt.Errorf("%w: manifest version %d; this palace reads version %d", ErrVersion, m.Version, ManifestVersion)}
	}
	seen := map[string]bool{}
	for i, s := range m.Shards {
		if err := s.check(); err != nil {
			return nil, &FileError{Path: path, Block: -1, Err: fmt.Errorf("%w: manifest entry %d: %v", ErrCorrupt, i, err)}
		}
		if seen[s.Name] {
			return nil, &FileError{Path: path, Block: -1, Err: fmt.Errorf("%w: manifest lists %s twice", ErrCorrupt, s.Name)}
		}
		seen[s.Name] = true
	}
	return m, nil
}

func (s *ShardInfo) check() error {
	if s.Name == "" || s.Name != filepath.Base(s.Name) || strings.HasPrefix(s.Name, ".") || s.Name == ManifestName {
		return fmt.Errorf("shard name %q is not a plain file name", s.Name)
	}
	if s.Records < 0 || s.Games < 0 || s.Games > s.Records || s.Bytes < 0 || s.Blocks < 0 {
		return fmt.Errorf("shard %s: negative or inconsistent counts", s.Name)
	}
	return nil
}

// Dir is the manifest's directory.
func (m *Manifest) Dir() string { return m.dir }

// Records is the number of records in the listed shards.
func (m *Manifest) Records() int64 {
	var n int64
	for _, s := range m.Shards {
		n += s.Records
	}
	return n
}

// Add lists a completed shard, which must already be in the manifest's
// directory under its name. It rereads the manifest under the directory's
// lock, so that concurrent writers do not lose each other's entries, and
// rewrites it crash-safely; m then holds what is on disk.
func (m *Manifest) Add(info ShardInfo) error {
	if err := info.check(); err != nil {
		return fmt.Errorf("datasets: %v", err)
	}
	st, err := os.Stat(filepath.Join(m.dir, info.Name))
	if err != nil {
		return fmt.Errorf("datasets: listing a shard: %w", err)
	}
	if st.Size() != info.Bytes {
		return fmt.Errorf("datasets: shard %s has %d bytes, its info says %d", info.Name, st.Size(), info.Bytes)
	}
	unlock, err := lockDir(m.dir)
	if err != nil {
		return err
	}
	defer unlock()
	cur, err := ReadManifest(m.dir)
	if err != nil {
		return err
	}
	for _, s := range cur.Shards {
		if s.Name == info.Name {
			return fmt.Errorf("datasets: %s is already listed in %s", info.Name, filepath.Join(m.dir, ManifestName))
		}
	}
	cur.Shards = append(cur.Shards, info)
	data, err := json.MarshalIndent(cur, "", "\t")
	if err != nil {
		return fmt.Errorf("datasets: %w", err)
	}
	if err := atomicfile.WriteBytes(filepath.Join(m.dir, ManifestName), 0o644, append(data, '\n')); err != nil {
		return fmt.Errorf("datasets: writing the manifest: %w", err)
	}
	*m = *cur
	return nil
}

// AddShard lists a completed shard in dir's manifest.
func AddShard(dir string, info ShardInfo) error {
	m, err := ReadManifest(dir)
	if err != nil {
		return err
	}
	return m.Add(info)
}

// Problem is what Verify found wrong with one file.
type Problem struct {
	Name string // file name within the directory
	Err  error
}

func (p Problem) String() string { return p.Name + ": " + p.Err.Error() }

// Verify checks every shard dir's manifest lists: its size and SHA-256,
// its header, every block and record, and its counts against the
// manifest's. It also reports shard files the manifest does not list
// (ErrUnlisted). The error is for a manifest that cannot be read.
func Verify(dir string) ([]Problem, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	var problems []Problem
	listed := map[string]bool{}
	for _, s := range m.Shards {
		listed[s.Name] = true
		if err := verifyShard(dir, s); err != nil {
			problems = append(problems, Problem{s.Name, err})
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return problems, fmt.Errorf("datasets: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if listed[name] || name == ManifestName || strings.HasPrefix(name, ".") || !e.Type().IsRegular() {
			continue
		}
		if isShardFile(filepath.Join(dir, name)) {
			problems = append(problems, Problem{name, &FileError{Path: filepath.Join(dir, name), Block: -1, Err: ErrUnlisted}})
		}
	}
	return problems, nil
}

// CheckSums checks that every shard the manifest lists has the size and
// SHA-256 the manifest gives: one read of each file and none of its
// records (Verify decodes those too), what a trainer checks before it
// trusts a directory's shards. The error names the first shard that
// differs, a FileError wrapping ErrCorrupt.
func (m *Manifest) CheckSums() error {
	for _, s := range m.Shards {
		path := filepath.Join(m.dir, s.Name)
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("datasets: a shard the manifest lists: %w", err)
		}
		h := sha256.New()
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("datasets: reading %s: %w", path, err)
		}
		var why string
		if got := hex.EncodeToString(h.Sum(nil)); n != s.Bytes || got != s.SHA256 {
			why = fmt.Sprintf("%d bytes of SHA-256 %s, the manifest says %d of %s", n, got, s.Bytes, s.SHA256)
		}
		if why != "" {
			return &FileError{Path: path, Block: -1, Err: fmt.Errorf("%w: %s", ErrCorrupt, why)}
		}
	}
	return nil
}

func isShardFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [8]byte
	_, err = io.ReadFull(f, b[:])
	return err == nil && bytes.Equal(b[:], shardMagic)
}

// Describe reads a whole shard from its bytes and returns its manifest
// entry under name: size, SHA-256, rule set, records, blocks and games,
// Added now. A shard written elsewhere (a cluster worker's, fetched from
// the store) is listed so.
func Describe(name string, data []byte) (ShardInfo, error) {
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), name)
	if err != nil {
		return ShardInfo{}, err
	}
	sum := sha256.Sum256(data)
	info := ShardInfo{Name: name, Records: r.Len(), Blocks: r.NumBlocks(), Bytes: int64(len(data)),
		SHA256: hex.EncodeToString(sum[:]), RuleSet: r.Header().RuleSet(), Added: time.Now().UTC()}
	last := uint64(0)
	for rec, err := range r.Records() {
		if err != nil {
			return ShardInfo{}, err
		}
		if info.Games == 0 || rec.GameID != last {
			if info.Games == 0 {
				info.FirstGame = rec.GameID
			}
			info.Games++
			last = rec.GameID
		}
	}
	info.LastGame = last
	return info, nil
}

func verifyShard(dir string, s ShardInfo) error {
	path := filepath.Join(dir, s.Name)
	mismatch := func(format string, args ...any) error {
		return &FileError{Path: path, Block: -1, Err: fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)}
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("datasets: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return fmt.Errorf("datasets: reading %s: %w", path, err)
	}
	if n != s.Bytes {
		return mismatch("%d bytes, the manifest says %d", n, s.Bytes)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != s.SHA256 {
		return mismatch("SHA-256 %s, the manifest says %s", got, s.SHA256)
	}
	r, err := NewReader(f, n, path)
	if err != nil {
		return err
	}
	hdr := r.Header()
	if hdr.RuleSet() != s.RuleSet {
		return mismatch("rule set %s, the manifest says %s", hdr.RuleSet(), s.RuleSet)
	}
	if r.Len() != s.Records || r.NumBlocks() != s.Blocks {
		return mismatch("%d records in %d blocks, the manifest says %d in %d", r.Len(), r.NumBlocks(), s.Records, s.Blocks)
	}
	var games, records int64
	var first, last uint64
	for rec, err := range r.Records() {
		if err != nil {
			return err
		}
		if records == 0 {
			first = rec.GameID
		}
		if records == 0 || rec.GameID != last {
			games++
		}
		last = rec.GameID
		records++
	}
	if records != s.Records || games != s.Games || (records > 0 && (first != s.FirstGame || last != s.LastGame)) {
		return mismatch("%d records of %d games (%d to %d), the manifest says %d of %d (%d to %d)",
			records, games, first, last, s.Records, s.Games, s.FirstGame, s.LastGame)
	}
	return nil
}
