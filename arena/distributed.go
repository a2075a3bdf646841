package arena

import (
	"slices"

	"github.com/palace-chess/palace/internal/jsonlrec"
)

// What follows serves a match played across machines (package cluster's
// gate): its pairs played on workers (PlayPairs), its record file
// assembled and read on one machine, through a store rather than a local
// file.

// Header is the header Play writes in m's record file (started now).
func (m *Match) Header() Header { return m.header() }

// EncodeRecords is the record file of a match with header h and games
// recs, in their order.
func EncodeRecords(h Header, recs []GameRecord) ([]byte, error) {
	return jsonlrec.Encode(&h, recs, &recordSpec)
}

// ParseRecords reads a match record file's bytes as ReadRecords reads the
// file: its header and games, in pair order. name says where the bytes
// came from, in errors.
func ParseRecords(name string, data []byte) (Header, []GameRecord, error) {
	h, recs, err := jsonlrec.Parse(name, data, &recordSpec)
	if err != nil {
		return h, nil, err
	}
	slices.SortFunc(recs, func(a, b GameRecord) int { return (a.Pair*2 + a.Game) - (b.Pair*2 + b.Game) })
	return h, recs, nil
}
