package datasets

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Option configures a Writer; an invalid one makes NewWriter fail.
type Option func(*writerOptions) error

type writerOptions struct {
	blockRecords int
	level        zstd.EncoderLevel
	manifest     bool
}

// DefaultBlockRecords is the default number of records per block. The
// sampler decompresses a whole block for each record it draws, so small
// blocks make random access fast (64: about 3 times as many samples a
// second as 256), while zstd still finds the repetition between a game's
// consecutive positions (64 costs about 3% more bytes than 1024).
const DefaultBlockRecords = 64

// WithBlockRecords sets the records per block (1 to 65536).
func WithBlockRecords(n int) Option {
	return func(o *writerOptions) error {
		if n < 1 || n > 1<<16 {
			return fmt.Errorf("datasets: %d records per block, want 1 to 65536", n)
		}
		o.blockRecords = n
		return nil
	}
}

// WithCompressionLevel sets the zstd level (1 to 22, as the zstd tool
// counts). Decompression speed hardly depends on it.
func WithCompressionLevel(level int) Option {
	return func(o *writerOptions) error {
		if level < 1 || level > 22 {
			return fmt.Errorf("datasets: zstd level %d, want 1 to 22", level)
		}
		o.level = zstd.EncoderLevelFromZstd(level)
		return nil
	}
}

// WithManifest makes Close list the shard in the manifest of its
// directory once it is in place.
func WithManifest() Option {
	return func(o *writerOptions) error {
		o.manifest = true
		return nil
	}
}

// Writer writes one shard. Records go to a temporary file in the shard's
// directory; Close completes it, fsyncs it and renames it to its name, so
// a writer killed at any point leaves no file under that name (only a
// hidden temporary one, which readers ignore). A Writer is not safe for
// concurrent use.
type Writer struct {
	path, tmp string
	f         *os.File
	bw        *bufio.Writer
	sum       hash.Hash
	off       int64
	opt       writerOptions
	enc       *zstd.Encoder
	raw       []byte // the current block's records
	comp      []byte
	n         int    // records in the current block
	first     uint64 // the current block's first game id
	blocks    []BlockInfo
	info      ShardInfo
	ruleSet   string
	err       error // sticky: after a failure only Abort is left
	done      bool
}

// NewWriter starts a shard at path, which must not exist yet.
func NewWriter(path string, hdr Header, opts ...Option) (*Writer, error) {
	o := writerOptions{blockRecords: DefaultBlockRecords, level: zstd.SpeedBetterCompression}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	if err := hdr.check(); err != nil {
		return nil, fmt.Errorf("datasets: header for %s: %w", path, err)
	}
	meta, err := json.Marshal(hdr)
	if err != nil {
		return nil, fmt.Errorf("datasets: header for %s: %w", path, err)
	}
	if len(meta) > maxMetadata {
		return nil, fmt.Errorf("datasets: header for %s: %d bytes of metadata, at most %d", path, len(meta), maxMetadata)
	}
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("datasets: %s already exists", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(o.level), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false))
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		enc.Close()
		return nil, fmt.Errorf("datasets: %w", err)
	}
	w := &Writer{path: path, tmp: f.Name(), f: f, bw: bufio.NewWriterSize(f, 1<<20), sum: sha256.New(), opt: o, enc: enc, ruleSet: hdr.RuleSet()}
	head := make([]byte, 0, fileHeaderFixed+len(meta)+4)
	head = append(head, shardMagic...)
	head = binary.LittleEndian.AppendUint32(head, FormatVersion)
	head = binary.LittleEndian.AppendUint32(head, uint32(len(meta)))
	head = append(head, meta...)
	head = binary.LittleEndian.AppendUint32(head, crc32.Checksum(head, crcTable))
	if err := w.write(head); err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

func (w *Writer) write(b []byte) error {
	if _, err := w.bw.Write(b); err != nil {
		return fmt.Errorf("datasets: writing %s: %w", w.tmp, err)
	}
	w.sum.Write(b)
	w.off += int64(len(b))
	return nil
}

// Write adds a record. A record that fails its checks is refused and
// leaves the shard as it was; a failure to write the file leaves the
// writer failed, to be Aborted (Close aborts too).
func (w *Writer) Write(rec *Record) error {
	if w.done {
		return fmt.Errorf("datasets: write to %s after Close or Abort", w.path)
	}
	if w.err != nil {
		return w.err
	}
	start := len(w.raw)
	var lenBuf [binary.MaxVarintLen64]byte
	body, err := appendRecord(w.raw, rec)
	if err != nil {
		w.raw = w.raw[:start]
		return fmt.Errorf("datasets: record of game %d ply %d: %v", rec.GameID, rec.Ply, err)
	}
	// Move the body up to make room for its length in front of it.
	n := binary.PutUvarint(lenBuf[:], uint64(len(body)-start))
	body = append(body, lenBuf[:n]...)
	copy(body[start+n:], body[start:len(body)-n])
	copy(body[start:], lenBuf[:n])
	w.raw = body
	if w.n == 0 {
		w.first = rec.GameID
	}
	w.n++
	if w.info.Records == 0 || rec.GameID != w.info.LastGame {
		w.info.Games++
	}
	if w.info.Records == 0 {
		w.info.FirstGame = rec.GameID
	}
	w.info.LastGame = rec.GameID
	w.info.Records++
	if w.n >= w.opt.blockRecords || len(w.raw) >= blockFlushBytes {
		if err := w.flushBlock(); err != nil {
			w.err = err
			return err
		}
	}
	return nil
}

func (w *Writer) flushBlock() error {
	if w.n == 0 {
		return nil
	}
	w.comp = w.enc.EncodeAll(w.raw, w.comp[:0])
	var h [blockHeaderLen]byte
	binary.LittleEndian.PutUint32(h[0:], uint32(w.n))
	binary.LittleEndian.PutUint32(h[4:], uint32(len(w.raw)))
	binary.LittleEndian.PutUint32(h[8:], uint32(len(w.comp)))
	crc := crc32.Update(crc32.Checksum(h[:12], crcTable), crcTable, w.comp)
	binary.LittleEndian.PutUint32(h[12:], crc)
	w.blocks = append(w.blocks, BlockInfo{Offset: w.off, Size: uint32(len(w.comp)), Raw: uint32(len(w.raw)), Records: uint32(w.n), FirstGame: w.first})
	if err := w.write(h[:]); err != nil {
		return err
	}
	if err := w.write(w.comp); err != nil {
		return err
	}
	w.raw, w.n = w.raw[:0], 0
	return nil
}

// Close completes the shard and puts it in place (and in the manifest,
// with WithManifest). On an error nothing is left under the shard's name,
// except when only listing it failed: then the complete shard stays,
// unlisted, and the error says so.
func (w *Writer) Close() (err error) {
	if w.done {
		return fmt.Errorf("datasets: %s closed twice", w.path)
	}
	if w.err != nil {
		w.Abort()
		return w.err
	}
	defer func() {
		if err != nil {
			w.Abort()
		}
	}()
	if err := w.flushBlock(); err != nil {
		return err
	}
	footerOff := w.off
	foot := make([]byte, 0, indexFixed+indexEntryLen*len(w.blocks))
	foot = append(foot, indexMagic...)
	foot = binary.LittleEndian.AppendUint32(foot, uint32(len(w.blocks)))
	foot = binary.LittleEndian.AppendUint64(foot, uint64(w.info.Records))
	for _, b := range w.blocks {
		foot = binary.LittleEndian.AppendUint64(foot, uint64(b.Offset))
		foot = binary.LittleEndian.AppendUint32(foot, b.Size)
		foot = binary.LittleEndian.AppendUint32(foot, b.Raw)
		foot = binary.LittleEndian.AppendUint32(foot, b.Records)
		foot = binary.LittleEndian.AppendUint64(foot, b.FirstGame)
	}
	foot = binary.LittleEndian.AppendUint32(foot, crc32.Checksum(foot, crcTable))
	trailer := make([]byte, 0, trailerLen)
	trailer = binary.LittleEndian.AppendUint64(trailer, uint64(footerOff))
	trailer = binary.LittleEndian.AppendUint32(trailer, uint32(len(foot)))
	trailer = binary.LittleEndian.AppendUint32(trailer, crc32.Checksum(trailer, crcTable))
	trailer = append(trailer, trailerMagic...)
	if err := w.write(foot); err != nil {
		return err
	}
	if err := w.write(trailer); err != nil {
		return err
	}
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("datasets: writing %s: %w", w.tmp, err)
	}
	if err := w.f.Chmod(0o644); err != nil {
		return fmt.Errorf("datasets: %w", err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("datasets: syncing %s: %w", w.tmp, err)
	}
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("datasets: %w", err)
	}
	w.f = nil
	// Rename replaces silently; a shard already listed must never be
	// replaced, so check once more just before.
	if _, err := os.Lstat(w.path); err == nil {
		return fmt.Errorf("datasets: %s appeared while it was written; not replacing it", w.path)
	}
	if err := os.Rename(w.tmp, w.path); err != nil {
		return fmt.Errorf("datasets: %w", err)
	}
	w.done = true
	w.enc.Close()
	dir := filepath.Dir(w.path)
	syncDir(dir)
	w.info.Name = filepath.Base(w.path)
	w.info.Bytes = w.off
	w.info.SHA256 = hex.EncodeToString(w.sum.Sum(nil))
	w.info.RuleSet = w.ruleSet
	w.info.Blocks = len(w.blocks)
	w.info.Added = time.Now().UTC()
	if w.opt.manifest {
		if err := AddShard(dir, w.info); err != nil {
			// The shard is complete but unlisted: readers ignore it and
			// Verify reports it. It stays, as its games are sound.
			return fmt.Errorf("datasets: %s is written but not listed: %w", w.path, err)
		}
	}
	return nil
}

// Abort stops the shard and removes its temporary file; nothing appears
// under the shard's name. It is a no-op after Close.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	os.Remove(w.tmp)
	w.enc.Close()
}

// Info describes the shard, complete after a successful Close: what the
// manifest lists for it.
func (w *Writer) Info() ShardInfo { return w.info }

// Records is the number of records written so far.
func (w *Writer) Records() int64 { return w.info.Records }

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync() // the rename must survive a crash; not every file system supports this
		d.Close()
	}
}
