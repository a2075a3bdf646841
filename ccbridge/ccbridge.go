// Package ccbridge reads the xiangqi game records of CCBridge (象棋桥):
// single games (.cbr, "CCBridge Record") and libraries of games (.cbl,
// "CCBridgeLibrary") into gamerec games, replayed under the xiangqi rules.
//
// The format is binary, little-endian and unencrypted. What this reader
// relies on was cross-checked between several independent open readers
// and format notes; where they disagree, the choice is said at the
// constant concerned.
//
// A record (layout version 2, byte 19) is a 2214-byte header and then a
// move tree:
//
//   - strings in fixed UTF-16LE fields, NUL-terminated: title at 180, event
//     at 692, round, group, table, date at 884, site, time control, Red's
//     player at 1076 with team, time and rating, Black's at 1300 likewise,
//     referee, recorder, annotator, author (see recordFields);
//   - the result at 2076 (0 unknown, 1 Red won, 2 Black won, 3 a draw),
//     the side to move at 2112 (1 Red, 2 Black), the board at 2120: 90
//     bytes, row by row from Black's back rank, file a first; a piece is
//     its colour in the high nibble (1 Red, 2 Black) and its kind in the
//     low one (1 chariot, 2 horse, 3 elephant, 4 advisor, 5 general, 6
//     cannon, 7 soldier), 0 an empty square;
//   - the move tree from 2214, in pre-order: 4-byte records of flags, a
//     spare byte, the from-square and the to-square (numbered as the
//     board's bytes). Flag 1 ends the line after the move, flag 2 says an
//     alternative to the move follows once the move's own line and its
//     branches are done, flag 4 says a comment follows: a 32-bit length in
//     bytes, then UTF-16LE text. A first record whose squares are equal is
//     not a move but carries the comment on the start position.
//
// The main line is the first move and its first continuations down to the
// first record that ends a line; everything after it is variations. A
// games file holds neither variations nor comments: both are counted and
// reported as notices.
//
// A library is a header (its name and such, and at byte 60 the number of
// entries of the index that follows it, 276 bytes each from byte 66624),
// then the records, each starting on a 4096-byte slot boundary counted
// from the end of the index; a record longer than a slot runs on into the
// next slots. Records are found by their signature at slot starts; the
// index itself is not trusted, as the format notes find its entries
// largely uninitialised. A library without records imports nothing, and
// no error.
package ccbridge

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf16"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// Signatures: the first 15 bytes of a file (the 16th is a NUL, not
// checked, as the C reader examined does not either).
const (
	recordSignature  = "CCBridge Record"
	librarySignature = "CCBridgeLibrary"
)

// Record layout. The side to move is the byte at 2112 and the start's move
// number the 16-bit word at 2116, as three readers and a format note have
// it (one reader swaps the two; for ordinary games both read Red).
const (
	offVersion   = 19
	offResult    = 2076
	offSide      = 2112
	offBoard     = 2120
	headerSize   = 2214
	layoutV2     = 2 // the only layout read: version 1 files place every field elsewhere
	sideRed      = 1
	sideBlack    = 2
	recordLength = 4
	flagEnd      = 0x01 // the line ends after this move
	flagAlt      = 0x02 // an alternative to this move follows its subtree
	flagComment  = 0x04 // a comment follows the record
	knownFlags   = flagEnd | flagAlt | flagComment
)

// Library layout: the header up to the index, the index entry size and
// the slot size records are aligned to.
const (
	offIndexCount = 60
	indexStart    = 66624
	indexEntry    = 276
	slotSize      = 4096
)

// Results as the record codes them. 4 is read by one note as "several"
// and by two readers as a draw; it is taken as unknown, as the record does
// not say one result.
var resultCodes = [...]string{gamerec.Unknown, gamerec.WhiteWins, gamerec.BlackWins, gamerec.Draw, gamerec.Unknown}

// recordFields are the header's strings: the tag each goes into, its
// offset and its size in bytes. Red's and Black's players and the date
// have fields of their own in gamerec.Game.
var recordFields = [...]struct {
	tag       string
	off, size int
}{
	{"Title", 180, 128},
	{"Category", 308, 256},
	{"From", 564, 64},
	{"EventClass", 628, 64},
	{"Event", 692, 64},
	{"Round", 756, 64},
	{"Group", 820, 32},
	{"Table", 852, 32},
	{tagDate, 884, 64},
	{"Site", 948, 64},
	{"TimeControl", 1012, 64},
	{tagRed, 1076, 64},
	{"RedTeam", 1140, 64},
	{"RedTime", 1204, 64},
	{"RedRating", 1268, 32},
	{tagBlack, 1300, 64},
	{"BlackTeam", 1364, 64},
	{"BlackTime", 1428, 64},
	{"BlackRating", 1492, 32},
	{"Referee", 1524, 64},
	{"Recorder", 1588, 64},
	{"Annotator", 1652, 64},
	{"AnnotatorEmail", 1716, 64},
	{"Author", 1780, 64},
	{"AuthorEmail", 1844, 64},
	{"Created", 1908, 40},
	{"Modified", 1972, 40},
	{"Property", 2044, 32},
	{"Ending", 2080, 32},
}

const (
	tagDate  = "Date"
	tagRed   = "Red"
	tagBlack = "Black"
)

// Error is what is wrong with a file, or with one game of it, and wraps
// the gamerec refusal kind (errors.Is(err, gamerec.ErrRecordMove) and the
// like), so that palace import can count refusals by reason.
type Error struct {
	Source string
	Game   int // 1-based index of the game in the file; 0: the file as a whole
	Kind   error
	Msg    string
}

func (e *Error) Error() string {
	if e.Game > 0 {
		return fmt.Sprintf("ccbridge: %s game %d: %s", e.Source, e.Game, e.Msg)
	}
	return fmt.Sprintf("ccbridge: %s: %s", e.Source, e.Msg)
}

// Unwrap is the refusal kind.
func (e *Error) Unwrap() error { return e.Kind }

// Is reports whether data starts with a CCBridge record's or library's
// signature, for a file whose name does not say.
func Is(data []byte) bool {
	return bytes.HasPrefix(data, []byte(recordSignature)) || bytes.HasPrefix(data, []byte(librarySignature))
}

// Import reads one .cbr record or .cbl library (data: the file's bytes;
// source: its name for records and messages); the signature tells which.
// Each game that cannot be imported (unreadable, no moves, a bad board, an
// illegal move, a result the rules contradict under opt.Strict) is
// reported as an *Error naming its index, and the other games still
// import; a library cut short imports the games before the cut. Every
// game returned replays under the rule set (gamerec.Game.Replay):
// opt.RuleSet, else the xiangqi preset; a janggi rule set is refused.
// notices say what was dropped (variations, comments) or corrected (a
// result the rules' forced end contradicts).
func Import(data []byte, source string, opt gamerec.ImportOptions) (games []gamerec.Game, errs []error, notices []gamerec.Notice) {
	fileErr := func(kind error, format string, args ...any) ([]gamerec.Game, []error, []gamerec.Notice) {
		return nil, []error{&Error{Source: source, Kind: kind, Msg: fmt.Sprintf(format, args...)}}, nil
	}
	rs := opt.RuleSet
	if rs == nil {
		rs = rules.MustPreset("xiangqi")
	}
	if rs.Game != rules.Xiangqi {
		return fileErr(gamerec.ErrRecordSetup, "rule set %s is for %s; CCBridge records are xiangqi", rs.Name, rs.Game)
	}
	var spans [][]byte
	switch {
	case bytes.HasPrefix(data, []byte(recordSignature)):
		spans = [][]byte{data}
	case bytes.HasPrefix(data, []byte(librarySignature)):
		var err error
		if spans, err = librarySpans(data); err != nil {
			return fileErr(gamerec.ErrRecordSyntax, "%v", err)
		}
	default:
		return fileErr(gamerec.ErrRecordSyntax, "not a CCBridge file (no %q or %q signature)", recordSignature, librarySignature)
	}

	type outcome struct {
		game    gamerec.Game
		notices []gamerec.Notice
		err     *Error
	}
	out := make([]outcome, len(spans))
	// Games are independent and their replay is most of the time: share
	// them out over the CPUs, each into its own slot, so the order and the
	// output are as one by one.
	var next atomic.Int64
	work := func() {
		for i := int(next.Add(1)) - 1; i < len(spans); i = int(next.Add(1)) - 1 {
			out[i].game, out[i].notices, out[i].err = importRecord(rs, spans[i], opt)
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(spans)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()

	for i := range out {
		if err := out[i].err; err != nil {
			err.Source, err.Game = source, i+1
			errs = append(errs, err)
			continue
		}
		g := out[i].game
		g.Source, g.Index = source, i+1
		games = append(games, g)
		for _, n := range out[i].notices {
			n.Source, n.Game = source, i+1
			notices = append(notices, n)
		}
	}
	return games, errs, notices
}

// librarySpans finds a library's records: the bytes of each, from its
// signature up to the next record's or the end of the file.
func librarySpans(data []byte) ([][]byte, error) {
	if len(data) < indexStart {
		return nil, fmt.Errorf("library header truncated: %d bytes, the header alone takes %d", len(data), indexStart)
	}
	entries := uint64(binary.LittleEndian.Uint32(data[offIndexCount:]))
	if entries > uint64(len(data)-indexStart)/indexEntry {
		return nil, fmt.Errorf("library index of %d entries runs past the end of the file (%d bytes)", entries, len(data))
	}
	start := indexStart + int(entries)*indexEntry
	// The first record is where the index ends; a reader examined looks
	// for it further on, which costs nothing when it is where it should be.
	first := bytes.Index(data[start:], []byte(recordSignature))
	if first < 0 {
		return nil, nil
	}
	var starts []int
	for at := start + first; at < len(data); at += slotSize {
		if bytes.HasPrefix(data[at:], []byte(recordSignature)) {
			starts = append(starts, at)
		}
	}
	spans := make([][]byte, len(starts))
	for i, at := range starts {
		end := len(data)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		spans[i] = data[at:end:end]
	}
	return spans, nil
}

// record is what a record holds that a games file keeps, or counts.
type record struct {
	strings    map[string]string
	result     byte
	side       byte
	board      [rules.Squares]byte // as the file orders it: Black's back rank first
	main       []rules.Move
	variations int
	comments   int
}

// importRecord reads one record and replays its main line under rs.
func importRecord(rs *rules.RuleSet, data []byte, opt gamerec.ImportOptions) (gamerec.Game, []gamerec.Notice, *Error) {
	var g gamerec.Game
	rec, fail := parseRecord(data)
	if fail != nil {
		return g, nil, fail
	}
	if int(rec.result) >= len(resultCodes) {
		return g, nil, &Error{Kind: gamerec.ErrRecordResult, Msg: fmt.Sprintf("result code %d (want 0 to %d)", rec.result, len(resultCodes)-1)}
	}
	result := resultCodes[rec.result]
	if len(rec.main) == 0 {
		return g, nil, &Error{Kind: gamerec.ErrRecordNoMoves, Msg: "no moves"}
	}
	fen, fail := startFEN(rs, &rec)
	if fail != nil {
		return g, nil, fail
	}
	game, err := rules.NewGame(rs, fen)
	if err != nil {
		return g, nil, &Error{Kind: gamerec.ErrRecordSetup, Msg: fmt.Sprintf("start position: %v", err)}
	}
	for i, m := range rec.main {
		// Only a forced end stops play: players may play on past an end
		// the rules give on a claim (gamerec.Game.Settle).
		if r := game.ImmediateResult(); r.Over() {
			return g, nil, &Error{Kind: gamerec.ErrRecordMove, Msg: fmt.Sprintf("move %d %s: the game is over after move %d (%s)", i+1, m.Text(rules.Ranks0), i, r)}
		}
		if !game.IsLegal(m) {
			return g, nil, &Error{Kind: gamerec.ErrRecordMove, Msg: fmt.Sprintf("move %d %s is illegal in %s", i+1, m.Text(rules.Ranks0), game.Position().FEN())}
		}
		game.Play(m)
	}
	g.SetMoves(game)
	var notices []gamerec.Notice
	corrected, err := g.SettleImport(game, result, gamerec.ReasonRecorded, opt)
	if err != nil {
		return g, nil, &Error{Kind: gamerec.ErrRecordResult, Msg: err.Error()}
	}
	if corrected != "" {
		notices = append(notices, gamerec.Notice{Kind: gamerec.NoticeResultCorrected, Msg: corrected})
	}
	if rec.variations > 0 {
		notices = append(notices, gamerec.Notice{Kind: gamerec.NoticeVariations, Msg: plural(rec.variations, "variation")})
	}
	if rec.comments > 0 {
		notices = append(notices, gamerec.Notice{Kind: gamerec.NoticeComments, Msg: plural(rec.comments, "comment")})
	}
	for tag, v := range rec.strings {
		switch tag {
		case tagRed:
			g.White = v
		case tagBlack:
			g.Black = v
		default:
			// A date is kept as written only when it has no year to
			// normalise.
			if tag == tagDate {
				if g.Date = gamerec.RecordDate(v); g.Date != "" {
					continue
				}
			}
			if g.Tags == nil {
				g.Tags = make(map[string]string, len(rec.strings))
			}
			g.Tags[tag] = v
		}
	}
	return g, notices, nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// parseRecord reads a record's header and move tree.
func parseRecord(data []byte) (record, *Error) {
	var rec record
	syntax := func(format string, args ...any) (record, *Error) {
		return record{}, &Error{Kind: gamerec.ErrRecordSyntax, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) < headerSize {
		return syntax("truncated: %d bytes, the record header alone takes %d", len(data), headerSize)
	}
	switch v := data[offVersion]; v {
	case layoutV2:
	case 1:
		return syntax("record layout version 1 (an early CCBridge's), which this reader does not read")
	default:
		return syntax("record layout version %d (want %d)", v, layoutV2)
	}
	for _, f := range recordFields {
		if s := utf16String(data[f.off : f.off+f.size]); s != "" {
			if rec.strings == nil {
				rec.strings = make(map[string]string, len(recordFields))
			}
			rec.strings[f.tag] = s
		}
	}
	rec.result, rec.side = data[offResult], data[offSide]
	copy(rec.board[:], data[offBoard:])
	if fail := parseMoves(&rec, data); fail != nil {
		return record{}, fail
	}
	return rec, nil
}

// parseMoves reads the move tree after the header: the main line's moves,
// and how many variations and comments the tree holds. The tree must be
// whole: a record cut inside it is refused rather than imported short.
func parseMoves(rec *record, data []byte) *Error {
	at := headerSize
	fail := func(kind error, format string, args ...any) *Error {
		return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
	}
	// readComment skips the comment after the record at at (flags given),
	// counting it; it returns the offset after it.
	readComment := func(flags byte, at int) (int, *Error) {
		if flags&flagComment == 0 {
			return at, nil
		}
		if len(data)-at < 4 {
			return 0, fail(gamerec.ErrRecordSyntax, "truncated: the comment length at byte %d is cut off", at)
		}
		n := binary.LittleEndian.Uint32(data[at:])
		at += 4
		if uint64(n) > uint64(len(data)-at) {
			return 0, fail(gamerec.ErrRecordSyntax, "comment of %d bytes at byte %d runs past the end of the record (%d bytes)", n, at, len(data))
		}
		if n > 0 {
			rec.comments++
		}
		return at + int(n), nil
	}
	if len(data)-at >= recordLength && data[at+2] == data[at+3] {
		// The start position's record: only its comment counts.
		if flags := data[at]; flags&^knownFlags != 0 {
			return fail(gamerec.ErrRecordSyntax, "start record at byte %d: unknown flags %#02x", at, flags)
		}
		var err *Error
		if at, err = readComment(data[at], at+recordLength); err != nil {
			return err
		}
	}
	pending, inMain, n := 0, true, 0
	for {
		if len(data)-at < recordLength || data[at+2] == data[at+3] {
			// The end of the data, or of what the writer wrote (a slot's
			// padding): fine before the first move, a cut tree after it.
			if n == 0 {
				return nil
			}
			if len(data)-at < recordLength {
				return fail(gamerec.ErrRecordSyntax, "truncated: the move tree is cut off after %d moves, at byte %d", n, at)
			}
			return fail(gamerec.ErrRecordSyntax, "the move tree stops at byte %d, after %d moves, before its lines end", at, n)
		}
		flags, from, to := data[at], data[at+2], data[at+3]
		n++
		if flags&^knownFlags != 0 {
			return fail(gamerec.ErrRecordSyntax, "move record %d at byte %d: unknown flags %#02x", n, at, flags)
		}
		if from >= rules.Squares || to >= rules.Squares {
			return fail(gamerec.ErrRecordMove, "move record %d at byte %d: square %d off the board (0 to 89)", n, at, max(from, to))
		}
		var err *Error
		if at, err = readComment(flags, at+recordLength); err != nil {
			return err
		}
		if inMain {
			rec.main = append(rec.main, rules.NewMove(square(from), square(to)))
		}
		if flags&flagAlt != 0 {
			pending++
			rec.variations++
		}
		if flags&flagEnd != 0 {
			inMain = false
			if pending == 0 {
				return nil
			}
			// The next record is the alternative most recently promised.
			pending--
		}
	}
}

// square is the palace square of a record's square number: row by row
// from Black's back rank (rank 10), file a first.
func square(n byte) rules.Square {
	return rules.SquareAt(int(n)%rules.Files, rules.Ranks-1-int(n)/rules.Files)
}

// pieceLetters are the FEN letters of the low nibble's piece kinds (Red's;
// Black's are lower case).
const pieceLetters = "_RNBAKCP"

// pieceLimits are the most of each kind one side may have, by the letter's
// index in pieceLetters.
var pieceLimits = [...]int{0, 2, 2, 2, 2, 1, 2, 5}

// startFEN is the start position of the record as a FEN, checked: known
// piece codes, no more pieces of a kind than a side starts with. The side
// to move is the record's, unless the first move moves the other side's
// piece: the readers examined all follow the moving piece, as the field is
// not reliable in the files they read.
func startFEN(rs *rules.RuleSet, rec *record) (string, *Error) {
	var counts [2][len(pieceLetters)]int
	var b strings.Builder
	b.Grow(96)
	for row := range rules.Ranks {
		empty := 0
		for file := range rules.Files {
			i := row*rules.Files + file
			code := rec.board[i]
			if code == 0 {
				empty++
				continue
			}
			color, kind := int(code>>4)-1, int(code&0x0f)
			if color < 0 || color > 1 || kind < 1 || kind >= len(pieceLetters) {
				return "", &Error{Kind: gamerec.ErrRecordSetup, Msg: fmt.Sprintf("board square %s holds piece code %#02x (want 0x11 to 0x17 or 0x21 to 0x27)", iccsSquare(square(byte(i))), code)}
			}
			if counts[color][kind]++; counts[color][kind] > pieceLimits[kind] {
				return "", &Error{Kind: gamerec.ErrRecordSetup, Msg: fmt.Sprintf("board has more than %d %s %s pieces", pieceLimits[kind], sideNames[color], pieceTypes[kind])}
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			letter := pieceLetters[kind]
			if color == 1 {
				letter += 'a' - 'A'
			}
			b.WriteByte(letter)
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if row < rules.Ranks-1 {
			b.WriteByte('/')
		}
	}
	black := rec.side == sideBlack
	if code := rec.board[boardIndex(rec.main[0].From())]; code != 0 {
		black = code>>4 == sideBlack // the code is known good by now
	}
	side := " w - - 0 1"
	if black {
		side = " b - - 0 1"
	}
	fen := b.String() + side
	if fen == rs.StartFEN() {
		return rs.StartFEN(), nil
	}
	return fen, nil
}

// pieceTypes maps the low nibble's kinds to the rules' piece types.
var pieceTypes = [...]rules.PieceType{rules.NoPieceType, rules.Chariot, rules.Horse, rules.Elephant, rules.Advisor, rules.King, rules.Cannon, rules.Soldier}

var sideNames = [2]string{"Red", "Black"}

// iccsSquare names a square as ICCS does (ranks 0 to 9).
func iccsSquare(s rules.Square) string {
	return string([]byte{byte('a' + s.File()), byte('0' + s.Rank())})
}

// boardIndex is the record's square number of a palace square.
func boardIndex(s rules.Square) int {
	return (rules.Ranks-1-s.Rank())*rules.Files + s.File()
}

// utf16String decodes a NUL-terminated UTF-16LE field, spaces trimmed.
func utf16String(field []byte) string {
	units := make([]uint16, 0, len(field)/2)
	for i := 0; i+1 < len(field); i += 2 {
		u := binary.LittleEndian.Uint16(field[i:])
		if u == 0 {
			break
		}
		units = append(units, u)
	}
	if len(units) == 0 {
		return ""
	}
	return strings.TrimSpace(string(utf16.Decode(units)))
}
