package jsonlrec

import (
	"encoding/json"
	"fmt"
)

// What follows is the record file as bytes, for files kept where Open
// cannot reach (an object store): a job assembled on one machine from
// records played on many is written whole, and read back, in the very
// format Open and Append write.

// Encode is the record file holding hdr and recs, in that order.
func Encode[H, R any](hdr *H, recs []R, s *Spec[H, R]) ([]byte, error) {
	line, err := json.Marshal(hdr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Pkg, err)
	}
	out := append(line, '\n')
	for i := range recs {
		line, err := json.Marshal(&recs[i])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Pkg, err)
		}
		out = append(append(out, line...), '\n')
	}
	return out, nil
}

// Parse reads a record file's bytes as Read reads the file: its header
// and records, a torn last line ignored. name says where the bytes came
// from, in errors.
func Parse[H, R any](name string, data []byte, s *Spec[H, R]) (H, []R, error) {
	return parse(name, completeLines(data), s)
}
