package ccbridge

import (
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"
)

// A test-only writer of CCBridge files, written from the format as the
// package documentation describes it (and independent of the reader's
// code), so that the tests need no sample files.

// node is a move of a record's tree; next holds the moves that may follow
// it, the first the line's continuation and the others its alternatives.
type node struct {
	move    string // ICCS, ranks 0 to 9 (h2e2)
	comment string
	next    []*node
}

// line is a chain of moves, each the only continuation of the one before.
func line(moves ...string) []*node {
	var first []*node
	var last *node
	for _, mv := range moves {
		n := &node{move: mv}
		if last == nil {
			first = []*node{n}
		} else {
			last.next = []*node{n}
		}
		last = n
	}
	return first
}

// iccsLine is line for a move list in PGN movetext (move numbers skipped).
func iccsLine(text string) []*node {
	var moves []string
	for _, f := range strings.Fields(text) {
		if !strings.HasSuffix(f, ".") {
			moves = append(moves, f)
		}
	}
	return line(moves...)
}

// cbrGame is what encodeRecord writes.
type cbrGame struct {
	tags         map[string]string // by the reader's tag names (recordFields), Red and Black included
	fen          string            // the start; "" for the standard one
	side         byte              // the side byte; 0: from the FEN
	result       byte
	version      byte // 0: 2
	startComment string
	moves        []*node
}

const standardFEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"

// testFields are the header's string fields as the format notes give them.
var testFields = map[string][2]int{
	"Title": {180, 128}, "Event": {692, 64}, "Round": {756, 64}, "Date": {884, 64}, "Site": {948, 64},
	"Red": {1076, 64}, "RedTeam": {1140, 64}, "Black": {1300, 64}, "BlackTeam": {1364, 64},
	"Annotator": {1652, 64}, "Author": {1780, 64},
}

func putUTF16(dst []byte, s string) []byte {
	for _, u := range utf16.Encode([]rune(s)) {
		dst = binary.LittleEndian.AppendUint16(dst, u)
	}
	return dst
}

// squareNumber is the record's number of an ICCS square: rows from Black's
// back rank (rank 9), file a first.
func squareNumber(t testing.TB, sq string) byte {
	t.Helper()
	if len(sq) != 2 || sq[0] < 'a' || sq[0] > 'i' || sq[1] < '0' || sq[1] > '9' {
		t.Fatalf("bad ICCS square %q", sq)
	}
	return byte((9-int(sq[1]-'0'))*9 + int(sq[0]-'a'))
}

// encodeRecord writes g as a .cbr file.
func encodeRecord(t testing.TB, g cbrGame) []byte {
	t.Helper()
	b := make([]byte, 2214)
	copy(b, "CCBridge Record\x00")
	b[19] = 2
	if g.version != 0 {
		b[19] = g.version
	}
	for tag, v := range g.tags {
		f, ok := testFields[tag]
		if !ok {
			t.Fatalf("encoder: no field for tag %q", tag)
		}
		enc := putUTF16(nil, v)
		if len(enc) > f[1]-2 {
			t.Fatalf("encoder: %q too long for its field", v)
		}
		copy(b[f[0]:], enc)
	}
	b[2076] = g.result
	fen := g.fen
	if fen == "" {
		fen = standardFEN
	}
	fields := strings.Fields(fen)
	side := byte(1)
	if len(fields) > 1 && fields[1] == "b" {
		side = 2
	}
	if g.side != 0 {
		side = g.side
	}
	b[2112] = side
	binary.LittleEndian.PutUint16(b[2116:], 1)
	for row, text := range strings.Split(fields[0], "/") {
		file := 0
		for _, ch := range text {
			if ch >= '1' && ch <= '9' {
				file += int(ch - '0')
				continue
			}
			code := byte(0x10)
			if ch >= 'a' && ch <= 'z' {
				code, ch = 0x20, ch-'a'+'A'
			}
			kind := strings.IndexRune("_RNBAKCP", ch)
			if kind < 1 {
				t.Fatalf("encoder: piece %q", ch)
			}
			b[2120+row*9+file] = code | byte(kind)
			file++
		}
	}
	// The start position's record, then the tree in pre-order.
	b = appendRecord(t, b, 0, 0, 0, g.startComment)
	return appendLine(t, b, g.moves)
}

func appendRecord(t testing.TB, b []byte, flags, from, to byte, comment string) []byte {
	if comment != "" {
		flags |= 0x04
	}
	b = append(b, flags, 0, from, to)
	if comment != "" {
		text := putUTF16(nil, comment)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(text)))
		b = append(b, text...)
	}
	return b
}

// appendLine writes alternatives (a move and the moves that may replace
// it), each followed by its own continuation.
func appendLine(t testing.TB, b []byte, alternatives []*node) []byte {
	for i, n := range alternatives {
		var flags byte
		if len(n.next) == 0 {
			flags |= 0x01
		}
		if i < len(alternatives)-1 {
			flags |= 0x02
		}
		if len(n.move) != 4 {
			t.Fatalf("encoder: move %q", n.move)
		}
		b = appendRecord(t, b, flags, squareNumber(t, n.move[:2]), squareNumber(t, n.move[2:]), n.comment)
		b = appendLine(t, b, n.next)
	}
	return b
}

// encodeLibrary writes records as a .cbl file whose index has entries
// entries, each record on its own 4096-byte slots.
func encodeLibrary(t testing.TB, name string, entries int, records ...[]byte) []byte {
	t.Helper()
	b := make([]byte, 66624+entries*276)
	copy(b, "CCBridgeLibrary\x00")
	binary.LittleEndian.PutUint32(b[52:], 0x7fffffff)
	binary.LittleEndian.PutUint32(b[60:], uint32(entries))
	copy(b[64:], putUTF16(nil, name))
	for i, rec := range records {
		if i < entries {
			e := b[66624+i*276:]
			binary.LittleEndian.PutUint32(e[0:], 1)
			binary.LittleEndian.PutUint32(e[4:], uint32(i))
		}
		b = append(b, rec...)
		if pad := len(rec) % 4096; pad != 0 {
			b = append(b, make([]byte, 4096-pad)...)
		}
	}
	return b
}
