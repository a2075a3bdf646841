package datasets

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/rules"
)

// extremes are records at the edges of every field's range, from janggi
// positions (passes in the history among them).
func extremes(t testing.TB) []Record {
	t.Helper()
	base := makeRecords(rules.MustPreset("janggi"), 77, 400)
	var out []Record
	r := base[11].Clone()
	r.GameID, r.Ply, r.HalfmoveClock, r.Repetitions = math.MaxUint64, maxCount, maxCount, maxRepeats
	r.Value, r.WDL, r.Result, r.Full, r.InCheck, r.PassLegal = 1, [3]float32{1, 0, 1}, Win, true, true, true
	r.Move = rules.NoMove
	r.Policy = []PolicyEntry{{0, 1}, {uint16(encode.PolicySize() - 1), 0}}
	out = append(out, *r)
	r = base[0].Clone() // a root: no history
	r.GameID, r.Value, r.WDL, r.Result, r.Policy = 0, -1, [3]float32{0, 1, 0}, Loss, nil
	out = append(out, *r)
	r = base[5].Clone()
	r.Policy = nil
	for i := range encode.PolicySize() {
		r.Policy = append(r.Policy, PolicyEntry{uint16(i), float32(i%7) / 6})
	}
	r.Value = -0.99999
	out = append(out, *r)
	passes := 0
	for i := range base {
		for _, pm := range base[i].History[:base[i].NumHistory] {
			if pm.Move.IsPass() {
				passes++
				out = append(out, base[i])
				break
			}
		}
	}
	captures := 0
	for i := range base {
		if base[i].NumHistory > 0 && base[i].History[0].Captured != rules.NoPiece {
			captures++
			out = append(out, base[i])
		}
	}
	if passes == 0 || captures == 0 {
		t.Fatalf("the games gave %d positions after a pass and %d after a capture", passes, captures)
	}
	return out
}

// Records come back from a shard as they went in, quantised: read in
// order, by block, and one at a time in any order; the header too.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	var recs []Record
	for i, name := range []string{"xiangqi", "janggi", "janggimodern"} {
		recs = append(recs, makeRecords(rules.MustPreset(name), uint64(i+1), 300)...)
	}
	recs = append(recs, extremes(t)...)
	rs := rules.MustPreset("janggi")
	path := filepath.Join(dir, "a.shard")
	info := writeShard(t, path, rs, recs, WithBlockRecords(37))
	if info.Records != int64(len(recs)) || info.Blocks != (len(recs)+36)/37 {
		t.Fatalf("info %+v for %d records", info, len(recs))
	}
	want := make([]Record, len(recs))
	for i := range recs {
		want[i] = quantised(t, &recs[i])
		// Quantisation keeps every number within half a step.
		if math.Abs(float64(want[i].Value-recs[i].Value)) > 0.5/32767+1e-7 {
			t.Fatalf("value %v came back as %v", recs[i].Value, want[i].Value)
		}
		for k, e := range want[i].Policy {
			if math.Abs(float64(e.P-recs[i].Policy[k].P)) > 0.5/65535+1e-7 || e.Index != recs[i].Policy[k].Index {
				t.Fatalf("policy entry %v came back as %v", recs[i].Policy[k], e)
			}
		}
		// Writing what was read gives the same bytes.
		b1, _ := appendRecord(nil, &want[i])
		b2, _ := appendRecord(nil, &recs[i])
		if !bytes.Equal(b1, b2) {
			t.Fatalf("record %d: quantised record encodes differently", i)
		}
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h := r.Header()
	if h.RuleSet() != rs.String() || h.EncodingVersion != encode.Version || h.NetworkID != "net0" || h.Seeds[1] != math.MaxUint64 {
		t.Errorf("header came back as %+v", h)
	}
	if r.Len() != int64(len(recs)) {
		t.Fatalf("Len %d, wrote %d", r.Len(), len(recs))
	}
	i := 0
	for rec, err := range r.Records() {
		if err != nil {
			t.Fatal(err)
		}
		if d := sameRecord(rec, &want[i]); d != "" {
			t.Fatalf("record %d: %s", i, d)
		}
		i++
	}
	if i != len(recs) {
		t.Fatalf("read %d records, wrote %d", i, len(recs))
	}
	var blk []Record
	i = 0
	for b := range r.NumBlocks() {
		if blk, err = r.ReadBlock(b, blk); err != nil {
			t.Fatal(err)
		}
		if r.Block(b).FirstGame != want[i].GameID {
			t.Fatalf("block %d: index says first game %d, want %d", b, r.Block(b).FirstGame, want[i].GameID)
		}
		for k := range blk {
			if d := sameRecord(&blk[k], &want[i]); d != "" {
				t.Fatalf("block %d record %d: %s", b, k, d)
			}
			i++
		}
	}
	var rec Record
	for _, j := range []int64{int64(len(recs)) - 1, 0, 500, 36, 37, 38, 499, 1} {
		if err := r.Record(j, &rec); err != nil {
			t.Fatal(err)
		}
		if d := sameRecord(&rec, &want[j]); d != "" {
			t.Fatalf("record %d: %s", j, d)
		}
	}
	if err := r.Record(int64(len(recs)), &rec); err == nil {
		t.Error("record past the end read")
	}
}

// An empty shard is valid and holds no records.
func TestEmptyShard(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.shard")
	writeShard(t, path, rules.MustPreset("xiangqi"), nil)
	n, err := readAll(mustRead(t, path), path)
	if err != nil || n != 0 {
		t.Fatalf("empty shard: %d records, %v", n, err)
	}
}

// smallShard is a few hundred records in small blocks, and where each
// block lies.
func smallShard(t testing.TB) ([]byte, []BlockInfo, int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "small.shard")
	recs := makeRecords(rules.MustPreset("janggi"), 42, 200)
	writeShard(t, path, rules.MustPreset("janggi"), recs, WithBlockRecords(16))
	data := mustRead(t, path)
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []BlockInfo
	for i := range r.NumBlocks() {
		blocks = append(blocks, r.Block(i))
	}
	return data, blocks, len(recs)
}

// checkDetected fails unless err is a clear error about the file name,
// and about the block that holds byte at where (if any).
func checkDetected(t *testing.T, err error, name string, blocks []BlockInfo, at int, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: not detected", what)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "datasets: ") || !strings.Contains(msg, name) {
		t.Fatalf("%s: error %q does not name the file", what, msg)
	}
	if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNotShard) && !errors.Is(err, ErrVersion) {
		t.Fatalf("%s: error %q wraps no sentinel", what, msg)
	}
	for i, b := range blocks {
		if int64(at) >= b.Offset && int64(at) < b.Offset+blockHeaderLen+int64(b.Size) {
			if !strings.Contains(msg, fmt.Sprintf("block %d:", i)) {
				t.Fatalf("%s: error %q does not name block %d", what, msg, i)
			}
		}
	}
}

// Every single-byte change anywhere in a shard is detected, with an error
// naming the file (and the block, inside a block): never a panic, never
// silently fewer records.
func TestEveryByteFlipDetected(t *testing.T) {
	data, blocks, n := smallShard(t)
	if got, err := readAll(data, "x"); err != nil || got != n {
		t.Fatalf("intact shard: %d records, %v", got, err)
	}
	step := 1
	if testing.Short() {
		step = 7
	}
	const name = "flipped.shard"
	buf := make([]byte, len(data))
	for i := 0; i < len(data); i += step {
		for _, mask := range []byte{0x01, 0xff} {
			copy(buf, data)
			buf[i] ^= mask
			got, err := readAll(buf, name)
			if err == nil && got == n {
				t.Fatalf("byte %d of %d xor %#x: not detected", i, len(data), mask)
			}
			checkDetected(t, err, name, blocks, i, fmt.Sprintf("byte %d xor %#x", i, mask))
		}
	}
	t.Logf("%d bytes, %d blocks, %d records", len(data), len(blocks), n)
}

// Every truncation of a shard is detected when it is opened.
func TestEveryTruncationDetected(t *testing.T) {
	data, _, _ := smallShard(t)
	const name = "short.shard"
	for l := 0; l < len(data); l++ {
		_, err := readAll(data[:l], name)
		checkDetected(t, err, name, nil, -1, fmt.Sprintf("truncated to %d of %d bytes", l, len(data)))
	}
	// Bytes appended after a complete shard are detected too.
	_, err := readAll(append(data[:len(data):len(data)], 0), name)
	checkDetected(t, err, name, nil, -1, "one byte appended")
}

// rewriteHeader replaces a shard's metadata and fixes its checksum and
// the offsets after it, as a writer of another version would have.
func rewriteHeader(t *testing.T, data []byte, edit func(meta string) string) []byte {
	t.Helper()
	mlen := int(binary.LittleEndian.Uint32(data[12:]))
	meta := edit(string(data[16 : 16+mlen]))
	if len(meta) != mlen {
		t.Fatalf("edit changed the metadata length")
	}
	out := bytes.Clone(data)
	copy(out[16:], meta)
	binary.LittleEndian.PutUint32(out[16+mlen:], crc32.Checksum(out[:16+mlen], crcTable))
	return out
}

// A version-1 record body (no final material) decodes to the same record
// with FinalMaterial 0, and a version-2 body read as version 1 or a
// version-1 body read as version 2 is refused, not misread.
func TestVersion1Records(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	recs := makeRecords(rs, 7, 200)
	seen := false
	for i := range recs {
		r := quantised(t, &recs[i])
		seen = seen || r.FinalMaterial != 0
		v2, err := appendRecord(nil, &r)
		if err != nil {
			t.Fatal(err)
		}
		at := 8 + uvarintLen(uint64(r.Ply)) + uvarintLen(uint64(r.HalfmoveClock)) + 2 + boardBytes + 3*r.NumHistory + 2 + 2 + 6
		if got := int(int16(binary.LittleEndian.Uint16(v2[at:]))); got != r.FinalMaterial {
			t.Fatalf("record %d: final material %d at byte %d, want %d", i, got, at, r.FinalMaterial)
		}
		v1 := append(bytes.Clone(v2[:at]), v2[at+2:]...)
		var got Record
		if err := decodeRecord(v1, &got, 1); err != nil {
			t.Fatalf("record %d as version 1: %v", i, err)
		}
		want := r
		want.FinalMaterial = 0
		if d := sameRecord(&got, &want); d != "" {
			t.Fatalf("record %d as version 1: %s", i, d)
		}
		if decodeRecord(v2, &got, 1) == nil || decodeRecord(v1, &got, 2) == nil {
			t.Fatalf("record %d: a body of one version read as the other without an error", i)
		}
	}
	if !seen {
		t.Fatal("no record had a final material balance: the test shows nothing")
	}
}

func uvarintLen(v uint64) int { return len(binary.AppendUvarint(nil, v)) }

// Shards of a version this code does not know are refused with a clear
// error, and so are files that are not shards.
func TestVersionsRejected(t *testing.T) {
	data, _, _ := smallShard(t)
	future := bytes.Clone(data)
	binary.LittleEndian.PutUint32(future[8:], FormatVersion+1)
	_, err := readAll(future, "future.shard")
	if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "future.shard") ||
		!strings.Contains(err.Error(), fmt.Sprintf("format version %d; this palace reads versions 1 to %d", FormatVersion+1, FormatVersion)) {
		t.Errorf("format version %d: %v", FormatVersion+1, err)
	}
	enc := rewriteHeader(t, data, func(m string) string {
		return strings.Replace(m, fmt.Sprintf(`"encoding_version":%d`, encode.Version), fmt.Sprintf(`"encoding_version":%d`, encode.Version+1), 1)
	})
	_, err = readAll(enc, "enc.shard")
	if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "enc.shard") || !strings.Contains(err.Error(), fmt.Sprintf("encoding version %d", encode.Version+1)) {
		t.Errorf("encoding version %d: %v", encode.Version+1, err)
	}
	// Encoding version 1 numbers policy slots as this one does (only the
	// planes differ, and shards hold positions), so its shards still train.
	v1 := rewriteHeader(t, data, func(m string) string {
		return strings.Replace(m, fmt.Sprintf(`"encoding_version":%d`, encode.Version), `"encoding_version":1`, 1)
	})
	if _, err := readAll(v1, "v1.shard"); err != nil {
		t.Errorf("encoding version 1: %v", err)
	}
	_, err = readAll([]byte("PK\x03\x04 certainly a zip file, not a shard"), "z.zip")
	if !errors.Is(err, ErrNotShard) || !strings.Contains(err.Error(), "z.zip") {
		t.Errorf("zip file: %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.shard")); err == nil || !strings.Contains(err.Error(), "missing.shard") {
		t.Errorf("missing file: %v", err)
	}
	// A writer refuses to label records with an encoding it does not write.
	h := testHeader(rules.MustPreset("xiangqi"))
	h.EncodingVersion++
	if _, err := NewWriter(filepath.Join(t.TempDir(), "x.shard"), h); !errors.Is(err, ErrVersion) {
		t.Errorf("writer with encoding version %d: %v", h.EncodingVersion, err)
	}
}

// Errors from a shard on disk name its path, and block errors the block.
func TestOpenErrorsNameThePath(t *testing.T) {
	data, blocks, _ := smallShard(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.shard")
	bad := bytes.Clone(data)
	bad[blocks[3].Offset+blockHeaderLen+5] ^= 0x10
	writeFile(t, path, bad)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rec Record
	err = r.Record(int64(3*16+2), &rec)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != path || fe.Block != 3 || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("damaged block 3: %v", err)
	}
	if err := r.Record(0, &rec); err != nil {
		t.Fatalf("intact block 0: %v", err)
	}
}
