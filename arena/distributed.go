package arena

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/palace-chess/palace/internal/jsonlrec"
)

// What follows serves a match played across machines (package cluster's
// gate): its pairs played one by one on workers, exactly as Play would
// play them, and its record file assembled and read on one machine,
// through a store rather than a local file.

// Header is the header Play writes in m's record file (started now).
func (m *Match) Header() Header { return m.header() }

// PlayPair plays pair p of m, both games at once, and returns them
// unrecorded: the games Play plays for that pair (the same opening,
// colours and seeds), wherever it is called.
func (m *Match) PlayPair(ctx context.Context, p int) ([2]GameRecord, error) {
	probe := *m
	probe.Records = "(none: PlayPair records nothing)"
	if err := probe.check(); err != nil {
		return [2]GameRecord{}, err
	}
	if p < 0 || p >= m.Pairs {
		return [2]GameRecord{}, fmt.Errorf("arena: pair %d of a %d-pair match", p, m.Pairs)
	}
	var recs [2]GameRecord
	var errs [2]error
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs[g], errs[g] = m.playGame(ctx, p, g)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return [2]GameRecord{}, err
		}
	}
	return recs, nil
}

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

// Named is a player known only by its name: for describing a match (its
// record header, its standings) where none of its games is played.
type Named string

// Name is the player's name.
func (n Named) Name() string { return string(n) }

// NewGame refuses: a Named player plays no games.
func (n Named) NewGame(uint64) (Mover, error) {
	return nil, fmt.Errorf("arena: %s is only a name here and plays no games", string(n))
}
