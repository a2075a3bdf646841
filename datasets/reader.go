package datasets

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"iter"
	"os"
	"sort"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Reader reads one shard: Open checks the header, the trailer and the
// block index; each block is checked (CRC, sizes, record count, every
// record's fields) when it is read. A Reader is not safe for concurrent
// use; open one per goroutine.
type Reader struct {
	path string
	ra   io.ReaderAt
	file *os.File
	size int64
	hdr  Header
	// version is the shard's format version: the record layout to decode.
	version int
	blocks  []BlockInfo
	starts  []int64 // starts[i]: records before block i; starts[B] is the total
	cbuf    []byte
	cur     decodedBlock // the block Record read last
}

// decodedBlock is one block's records, uncompressed, and where each
// record's body lies.
type decodedBlock struct {
	index int // -1: none
	buf   []byte
	data  []byte // buf[:U]
	spans []span
}

type span struct{ lo, hi uint32 }

// decoder is shared by every reader: DecodeAll is safe for concurrent use,
// and one decoder per reader would cost its buffers per open shard. It is
// made on first use, not when the package loads.
var decoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxBlockRaw), zstd.WithDecodeAllCapLimit(true))
})

// Open opens the shard at path. Errors name the file and wrap ErrNotShard,
// ErrCorrupt or ErrVersion.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("datasets: %w", err)
	}
	r, err := NewReader(f, st.Size(), path)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.file = f
	return r, nil
}

// NewReader reads a shard of size bytes from ra; name is what errors call
// it.
func NewReader(ra io.ReaderAt, size int64, name string) (*Reader, error) {
	r := &Reader{path: name, ra: ra, size: size, cur: decodedBlock{index: -1}}
	if err := r.open(); err != nil {
		return nil, &FileError{Path: name, Block: -1, Err: err}
	}
	return r, nil
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// readAt reads len(b) bytes at off; a short read is corruption, as Open
// has checked the size.
func (r *Reader) readAt(b []byte, off int64, what string) error {
	n, err := r.ra.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return corrupt("%s: %d of %d bytes at offset %d (truncated)", what, n, len(b), off)
	}
	return fmt.Errorf("reading %s: %w", what, err)
}

func (r *Reader) open() error {
	size := r.size
	if size < fileHeaderFixed {
		head := make([]byte, max(size, 0))
		if err := r.readAt(head, 0, "header"); err != nil {
			return err
		}
		if len(head) > 0 && bytes.HasPrefix(shardMagic, head[:min(len(head), len(shardMagic))]) {
			return corrupt("%d bytes: truncated in the header", size)
		}
		return ErrNotShard
	}
	var fixed [fileHeaderFixed]byte
	if err := r.readAt(fixed[:], 0, "header"); err != nil {
		return err
	}
	if !bytes.Equal(fixed[:8], shardMagic) {
		return ErrNotShard
	}
	v := binary.LittleEndian.Uint32(fixed[8:])
	if v < OldestFormatVersion || v > FormatVersion {
		return fmt.Errorf("%w: shard format version %d; this palace reads versions %d to %d", ErrVersion, v, OldestFormatVersion, FormatVersion)
	}
	r.version = int(v)
	mlen := int64(binary.LittleEndian.Uint32(fixed[12:]))
	headEnd := fileHeaderFixed + mlen + 4
	if mlen > maxMetadata || headEnd > size {
		return corrupt("metadata length %d does not fit a %d-byte file (truncated?)", mlen, size)
	}
	head := make([]byte, headEnd)
	if err := r.readAt(head, 0, "header"); err != nil {
		return err
	}
	if crc32.Checksum(head[:headEnd-4], crcTable) != binary.LittleEndian.Uint32(head[headEnd-4:]) {
		return corrupt("header checksum mismatch")
	}
	// Unknown metadata fields are allowed: FormatVersion guards the
	// layout, and a field a later writer adds must not make this reader
	// refuse records it reads perfectly.
	if err := json.Unmarshal(head[fileHeaderFixed:headEnd-4], &r.hdr); err != nil {
		return corrupt("metadata: %v", err)
	}
	if err := r.hdr.check(); err != nil {
		if errors.Is(err, ErrVersion) {
			return err
		}
		return corrupt("metadata: %v", err)
	}
	if size < headEnd+indexFixed+trailerLen {
		return corrupt("%d bytes: truncated after the header (no footer)", size)
	}
	var tr [trailerLen]byte
	if err := r.readAt(tr[:], size-trailerLen, "trailer"); err != nil {
		return err
	}
	if !bytes.Equal(tr[16:], trailerMagic) {
		return corrupt("no trailer at the end of %d bytes (truncated, or never closed)", size)
	}
	if crc32.Checksum(tr[:12], crcTable) != binary.LittleEndian.Uint32(tr[12:]) {
		return corrupt("trailer checksum mismatch")
	}
	footOff := int64(binary.LittleEndian.Uint64(tr[:]))
	footLen := int64(binary.LittleEndian.Uint32(tr[8:]))
	if footOff < headEnd || footLen < indexFixed || footOff > size || footOff+footLen != size-trailerLen || (footLen-indexFixed)%indexEntryLen != 0 {
		return corrupt("footer at %d, %d bytes, does not fit a %d-byte file", footOff, footLen, size)
	}
	foot := make([]byte, footLen)
	if err := r.readAt(foot, footOff, "footer"); err != nil {
		return err
	}
	if crc32.Checksum(foot[:footLen-4], crcTable) != binary.LittleEndian.Uint32(foot[footLen-4:]) {
		return corrupt("footer checksum mismatch")
	}
	if !bytes.Equal(foot[:8], indexMagic) {
		return corrupt("footer magic %q", foot[:8])
	}
	nb := int64(binary.LittleEndian.Uint32(foot[8:]))
	total := binary.LittleEndian.Uint64(foot[12:])
	if nb != (footLen-indexFixed)/indexEntryLen {
		return corrupt("footer lists %d blocks in %d bytes", nb, footLen)
	}
	r.blocks = make([]BlockInfo, nb)
	r.starts = make([]int64, nb+1)
	next := headEnd
	var count uint64
	for i := range r.blocks {
		e := foot[20+indexEntryLen*i:]
		b := BlockInfo{
			Offset:    int64(binary.LittleEndian.Uint64(e)),
			Size:      binary.LittleEndian.Uint32(e[8:]),
			Raw:       binary.LittleEndian.Uint32(e[12:]),
			Records:   binary.LittleEndian.Uint32(e[16:]),
			FirstGame: binary.LittleEndian.Uint64(e[20:]),
		}
		// The blocks must tile the file from the header to the footer:
		// then no byte escapes a checksum and no block is skipped.
		if b.Offset != next || b.Records == 0 || b.Raw > maxBlockRaw || int64(b.Records)*(minRecordLen+1) > int64(b.Raw) ||
			int64(b.Size) > footOff-next-blockHeaderLen {
			return corrupt("index entry %d (offset %d, %d bytes, %d raw, %d records) does not fit the file", i, b.Offset, b.Size, b.Raw, b.Records)
		}
		next += blockHeaderLen + int64(b.Size)
		r.blocks[i] = b
		r.starts[i] = int64(count)
		count += uint64(b.Records)
	}
	r.starts[nb] = int64(count)
	if next != footOff {
		return corrupt("blocks end at %d, the footer starts at %d", next, footOff)
	}
	if count != total {
		return corrupt("blocks hold %d records, the footer says %d", count, total)
	}
	return nil
}

// Path is the name errors give the shard.
func (r *Reader) Path() string { return r.path }

// Header is the shard's metadata.
func (r *Reader) Header() Header { return r.hdr }

// Len is the number of records.
func (r *Reader) Len() int64 { return r.starts[len(r.blocks)] }

// NumBlocks is the number of blocks.
func (r *Reader) NumBlocks() int { return len(r.blocks) }

// Block is block i's index entry.
func (r *Reader) Block(i int) BlockInfo { return r.blocks[i] }

// Close closes the file Open opened.
func (r *Reader) Close() error {
	if r.file == nil {
		return nil
	}
	err := r.file.Close()
	r.file = nil
	return err
}

func (r *Reader) blockErr(i int, err error) error {
	return &FileError{Path: r.path, Block: i, Err: err}
}

// load reads, checks and decompresses block i into blk.
func (r *Reader) load(i int, blk *decodedBlock) error {
	if i < 0 || i >= len(r.blocks) {
		return fmt.Errorf("datasets: %s: block %d of %d", r.path, i, len(r.blocks))
	}
	blk.index = -1
	b := r.blocks[i]
	need := blockHeaderLen + int(b.Size)
	if cap(r.cbuf) < need {
		r.cbuf = make([]byte, need+need/2) // blocks vary in size: grow with room to spare
	}
	c := r.cbuf[:need]
	if err := r.readAt(c, b.Offset, "block"); err != nil {
		return r.blockErr(i, err)
	}
	n, raw, size := binary.LittleEndian.Uint32(c), binary.LittleEndian.Uint32(c[4:]), binary.LittleEndian.Uint32(c[8:])
	if n != b.Records || raw != b.Raw || size != b.Size {
		return r.blockErr(i, corrupt("block header (%d records, %d/%d bytes) disagrees with the index (%d records, %d/%d bytes)", n, raw, size, b.Records, b.Raw, b.Size))
	}
	if crc32.Update(crc32.Checksum(c[:12], crcTable), crcTable, c[blockHeaderLen:]) != binary.LittleEndian.Uint32(c[12:]) {
		return r.blockErr(i, corrupt("checksum mismatch"))
	}
	dec, err := decoder()
	if err != nil {
		return fmt.Errorf("datasets: zstd: %w", err)
	}
	if cap(blk.buf) < int(raw) {
		blk.buf = make([]byte, 0, int(raw)+int(raw)/2)
	}
	// The capacity given is the limit DecodeAll decodes to.
	out, err := dec.DecodeAll(c[blockHeaderLen:], blk.buf[:0:raw])
	if err != nil {
		return r.blockErr(i, corrupt("zstd: %v", err))
	}
	if len(out) != int(raw) {
		return r.blockErr(i, corrupt("%d bytes decompressed, the header says %d", len(out), raw))
	}
	blk.data = out
	blk.spans = blk.spans[:0]
	pos := 0
	for j := 0; j < int(n); j++ {
		var l uint64
		l, pos = uvarint(out, pos)
		if pos < 0 || l < minRecordLen || l > uint64(len(out)-pos) {
			return r.blockErr(i, corrupt("record %d: bad length", j))
		}
		blk.spans = append(blk.spans, span{uint32(pos), uint32(pos + int(l))})
		pos += int(l)
	}
	if pos != len(out) {
		return r.blockErr(i, corrupt("%d bytes after the last record", len(out)-pos))
	}
	if id := binary.LittleEndian.Uint64(out[blk.spans[0].lo:]); id != b.FirstGame {
		return r.blockErr(i, corrupt("first record's game id %d, the index says %d", id, b.FirstGame))
	}
	blk.index = i
	return nil
}

// parse decodes record j of the loaded block into rec.
func (r *Reader) parse(blk *decodedBlock, j int, rec *Record) error {
	s := blk.spans[j]
	if err := decodeRecord(blk.data[s.lo:s.hi], rec, r.version); err != nil {
		return r.blockErr(blk.index, fmt.Errorf("%w: record %d: %v", ErrCorrupt, j, err))
	}
	return nil
}

// ReadBlock decodes block i's records into dst (reusing its elements'
// storage) and returns it.
func (r *Reader) ReadBlock(i int, dst []Record) ([]Record, error) {
	var blk decodedBlock
	if err := r.load(i, &blk); err != nil {
		return dst[:0], err
	}
	n := len(blk.spans)
	if cap(dst) < n {
		dst = append(dst[:cap(dst)], make([]Record, n-cap(dst))...)
	}
	dst = dst[:n]
	for j := range dst {
		if err := r.parse(&blk, j, &dst[j]); err != nil {
			return dst[:0], err
		}
	}
	return dst, nil
}

// Records iterates over every record in order. The *Record is reused:
// copy (Clone) what must outlive an iteration. It stops at the first
// error, which it yields with a nil record.
func (r *Reader) Records() iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		var rec Record
		blk := decodedBlock{index: -1}
		for i := range r.blocks {
			if err := r.load(i, &blk); err != nil {
				yield(nil, err)
				return
			}
			for j := range blk.spans {
				if err := r.parse(&blk, j, &rec); err != nil {
					yield(nil, err)
					return
				}
				if !yield(&rec, nil) {
					return
				}
			}
		}
	}
}

// locate is the block holding record i and the record's place in it.
func (r *Reader) locate(i int64) (block, j int) {
	b := sort.Search(len(r.blocks), func(k int) bool { return r.starts[k+1] > i })
	return b, int(i - r.starts[b])
}

// Record decodes record i (0 ≤ i < Len) into dst, decompressing only its
// block; the last block read is kept, so records read in order cost one
// decompression per block.
func (r *Reader) Record(i int64, dst *Record) error {
	if i < 0 || i >= r.Len() {
		return fmt.Errorf("datasets: %s: record %d of %d", r.path, i, r.Len())
	}
	b, j := r.locate(i)
	if r.cur.index != b {
		if err := r.load(b, &r.cur); err != nil {
			return err
		}
	}
	return r.parse(&r.cur, j, dst)
}
