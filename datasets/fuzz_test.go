package datasets

import (
	"bytes"
	"strings"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/rules"
)

// Opening and reading arbitrary bytes as a shard never panics, and every
// error names the file. (go test runs the seeds; go test -fuzz FuzzOpen
// -fuzztime 1000x explores further.)
func FuzzOpen(f *testing.F) {
	data, blocks, _ := smallShard(f)
	f.Add(data)
	f.Add(data[:blocks[1].Offset])
	f.Add(data[len(data)-200:])
	f.Add([]byte{})
	f.Add([]byte("PALSHARD\x01\x00\x00\x00"))
	rs := rules.MustPreset("janggi")
	planes := make([]float32, encode.InputSize)
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), int64(len(b)), "fuzz.shard")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.shard") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for rec, err := range r.Records() {
			if err != nil {
				if !strings.Contains(err.Error(), "fuzz.shard") {
					t.Fatalf("error does not name the file: %v", err)
				}
				break
			}
			EncodeRecord(rec, rs, planes)
			rec.Mirror()
		}
		var rec Record
		if r.Len() > 0 {
			r.Record(r.Len()-1, &rec)
		}
	})
}

// Decoding arbitrary bytes as a record never panics; a record that decodes
// and passes the writer's checks encodes back to a record that decodes to
// the same thing.
func FuzzDecodeRecord(f *testing.F) {
	for _, r := range makeRecords(rules.MustPreset("janggi"), 5, 30) {
		b, err := appendRecord(nil, &r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	rs := rules.MustPreset("janggimodern")
	planes := make([]float32, encode.InputSize)
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Record
		if decodeRecord(b, &r, FormatVersion) != nil {
			return
		}
		EncodeRecord(&r, rs, planes)
		again, err := appendRecord(nil, &r)
		if err != nil {
			return // a record the format can hold but no game can reach
		}
		var r2 Record
		if err := decodeRecord(again, &r2, FormatVersion); err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		if d := sameRecord(&r, &r2); d != "" {
			t.Fatalf("re-encoded record differs: %s", d)
		}
		r.Mirror()
		EncodeRecord(&r, rs, planes)
	})
}
