// Package xqf reads XQStudio's (象棋演播室) binary .xqf xiangqi game
// records into palace's game records (gamerec.Game), so that collections
// kept in that format can join the research and training data.
//
// An .xqf file holds one game: a 1024-byte header (signature "XQ", the
// format version, key bytes, where each of the 32 pieces starts, side to
// move, result, and GBK text fields stored as Delphi short strings),
// then the move tree, depth first: a record for the start position,
// then each move followed by the line it continues into and then the
// alternative to it. Versions 10 and below are plain; from version 11
// (XQStudio's "加密" files) the tree's bytes are offset by a rolling
// 32-byte key, its squares and comment sizes by keys derived from the
// header, and the start position's bytes likewise (rotated as well from
// version 12: XQStudio's own reader, xqbase's notes and most ports do not
// rotate version 11, one web viewer does). Import undoes all of that;
// what it keeps is the main line (the first move of every branch point),
// since a games file holds one line: variations and comments are counted
// in notices.
//
// Writers differ in details a reader must tolerate: a piece off the board
// is any position byte from 90 on (XQStudio writes random ones), the side
// to move may be left unset when Black starts (the first move's piece
// decides), and a move's record may be repeated to hold its comment.
package xqf

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// ErrRecord is wrapped by every error Import returns, beside the gamerec
// refusal reason (gamerec.ErrRecordSyntax…) that says why.
var ErrRecord = errors.New("xqf: bad record")

// Error is why a file was refused.
type Error struct {
	Source string
	// Kind is the gamerec refusal reason (gamerec.ErrRecordMove…).
	Kind error
	Msg  string
}

func (e *Error) Error() string { return "xqf: " + e.Source + ": " + e.Msg }

// Unwrap makes an Error match both ErrRecord and its Kind (errors.Is).
func (e *Error) Unwrap() []error { return []error{ErrRecord, e.Kind} }

// Layout of the header; offsets of the text fields are those of their
// length bytes, capacities the most text bytes each holds.
const (
	headerSize = 1024
	// maxVersion is the newest version XQStudio writes (1.8); a later
	// one would be a format this reader does not know.
	maxVersion = 18
	// lastPlainVersion is the last version without encryption.
	lastPlainVersion = 10
	// firstRotatedVersion is the first that also rotates the start
	// position's 32 bytes.
	firstRotatedVersion = 12

	offVersion  = 2
	offKeyMask  = 3
	offKeyOr    = 8  // 4 bytes: KeyOrA..D
	offKeySum   = 12 // then KeyXY, KeyXYf, KeyXYt
	offPieces   = 16 // 32 bytes
	offWhoPlays = 50
	offResult   = 51
	offType     = 64

	recordSize = 4 // from, to, flags, reserved
	lengthSize = 4 // a comment's size, little-endian
	// Squares in move records are stored offset by these (and by keys
	// from version 11).
	fromBias = 0x18
	toBias   = 0x20
	// offBoard: square bytes from here on mean "not on the board".
	offBoard = 90
)

// Tree record flags as versions 11 and later write them; older versions'
// are mapped onto these (any bit of the high nibble: a continuation, of
// the low nibble: an alternative, and a comment size always present).
const (
	flagNext    = 0x80 // the line continues: the next record is its next move
	flagSibling = 0x40 // an alternative to this move follows its subtree
	flagComment = 0x20 // a comment size (and comment) follows
)

// pieceOrder is the piece in each of the header's 32 position slots.
const pieceOrder = "RNBAKABNRCCPPPPPrnbakabnrccppppp"

// keyStream is the text every version derives its 32-byte stream key from.
const keyStream = "[(C) Copyright Mr. Dong Shiwei.]"

// textField is one of the header's text fields and the tag it becomes.
type textField struct {
	off, capacity int
	tag           string
}

// textFields are the header's text fields, in file order; Red and Black
// become the game's players and Date its date, the rest tags.
var textFields = []textField{
	{80, 63, "Title"},
	{144, 63, "Subtitle"},
	{208, 63, "Event"},
	{272, 15, "Date"},
	{288, 15, "Site"},
	{304, 15, "Red"},
	{320, 15, "Black"},
	{336, 63, "TimeRule"},
	{400, 15, "RedTime"},
	{416, 15, "BlackTime"},
	{464, 15, "Annotator"},
	{480, 15, "Author"},
}

// gameTypes names the header's game type byte (全局, 开局, 中局, 残局).
var gameTypes = []string{"full game", "opening", "middlegame", "endgame"}

// keys are what version 11 and later encrypt with; all zero before.
type keys struct {
	xy, from, to byte     // start position, move origins, move targets
	remark       int      // added to every comment size
	stream       [32]byte // subtracted from the tree's bytes, by file offset mod 32
	encrypted    bool
}

// deriveKey is XQStudio's key schedule step: (54·k²+221)·seed mod 256.
func deriveKey(k, seed byte) byte {
	return byte((54*int(k)*int(k) + 221) * int(seed))
}

// headerKeys derives the keys of a file of the given version from its
// header; it refuses key bytes whose checksum (they sum to 0 mod 256)
// fails, which marks a corrupt file.
func headerKeys(h []byte, version byte) (keys, error) {
	var k keys
	if version <= lastPlainVersion {
		return k, nil
	}
	sum, xy, xyf, xyt := h[offKeySum], h[offKeySum+1], h[offKeySum+2], h[offKeySum+3]
	if s := sum + xy + xyf + xyt; s != 0 {
		return k, fmt.Errorf("key bytes %02x %02x %02x %02x sum to %d mod 256, not 0", sum, xy, xyf, xyt, s)
	}
	k.encrypted = true
	k.xy = deriveKey(xy, xy)
	k.from = deriveKey(xyf, k.xy)
	k.to = deriveKey(xyt, k.from)
	k.remark = (int(sum)*256+int(xy))%32000 + 767
	mask := h[offKeyMask]
	b := [4]byte{
		sum&mask | h[offKeyOr],
		xy&mask | h[offKeyOr+1],
		xyf&mask | h[offKeyOr+2],
		xyt&mask | h[offKeyOr+3],
	}
	for i := range k.stream {
		k.stream[i] = keyStream[i] & b[i%4]
	}
	return k, nil
}

// startSquares decodes the header's 32 piece positions, slot by slot as
// pieceOrder names them: x*10+y (file x 0–8 from a, rank y 0–9 from
// Red's back rank), offBoard or above for a piece not on the board.
func startSquares(h []byte, version byte, k keys) [32]byte {
	var sq [32]byte
	raw := h[offPieces : offPieces+32]
	for i, b := range raw {
		j := i
		if version >= firstRotatedVersion {
			j = (i + 1 + int(k.xy)) % 32
		}
		sq[j] = b - k.xy
	}
	return sq
}

// node is one record of the move tree.
type node struct {
	from, to byte // decoded square bytes
	flags    byte // flagNext | flagSibling | flagComment, decoded
	comment  bool // a non-empty comment
}

// treeReader reads the move tree, decrypting as it goes.
type treeReader struct {
	data    []byte
	pos     int
	version byte
	k       *keys
}

// at is the decrypted byte at file offset i (i < len(data)).
func (r *treeReader) at(i int) byte {
	if r.k.encrypted {
		return r.data[i] - r.k.stream[i%32]
	}
	return r.data[i]
}

// next reads one record, its comment size and skips its comment.
func (r *treeReader) next() (node, error) {
	var n node
	if len(r.data)-r.pos < recordSize {
		return n, fmt.Errorf("truncated: a move record at offset %d needs %d bytes, %d left", r.pos, recordSize, len(r.data)-r.pos)
	}
	n.from = r.at(r.pos) - fromBias - r.k.from
	n.to = r.at(r.pos+1) - toBias - r.k.to
	flags := r.at(r.pos + 2)
	at := r.pos
	r.pos += recordSize
	hasSize := true
	if r.version <= lastPlainVersion {
		if flags&0xf0 != 0 {
			n.flags |= flagNext
		}
		if flags&0x0f != 0 {
			n.flags |= flagSibling
		}
	} else {
		n.flags = flags & (flagNext | flagSibling | flagComment)
		hasSize = n.flags&flagComment != 0
	}
	if !hasSize {
		return n, nil
	}
	if len(r.data)-r.pos < lengthSize {
		return n, fmt.Errorf("truncated: the comment size of the record at offset %d", at)
	}
	size := int64(int32(uint32(r.at(r.pos)) | uint32(r.at(r.pos+1))<<8 | uint32(r.at(r.pos+2))<<16 | uint32(r.at(r.pos+3))<<24))
	size -= int64(r.k.remark)
	r.pos += lengthSize
	if size < 0 {
		return n, fmt.Errorf("the record at offset %d gives a comment size of %d", at, size)
	}
	if size > int64(len(r.data)-r.pos) {
		return n, fmt.Errorf("truncated: the record at offset %d gives a %d-byte comment, %d bytes left", at, size, len(r.data)-r.pos)
	}
	r.pos += int(size)
	n.comment = size > 0
	return n, nil
}

// tree is what Import keeps of the move tree.
type tree struct {
	main       []node // the main line's moves, in order
	variations int    // alternatives to moves, anywhere in the tree
	comments   int    // non-empty comments, the start position's included
	stray      int    // bytes after the tree
}

// readTree reads the whole move tree after the header. Records come
// depth first, so the main line is the records from the second on, up
// to the first that does not continue; the rest are alternatives and
// their lines, counted only. Every record takes at least 4 bytes, so
// the loop and the main line are bounded by the file's size.
func readTree(data []byte, version byte, k *keys) (tree, error) {
	var t tree
	r := treeReader{data: data, pos: headerSize, version: version, k: k}
	root, err := r.next()
	if err != nil {
		return t, err
	}
	if root.comment {
		t.comments++
	}
	// pending counts the records announced and not yet read; the start
	// position's record has no alternative, whatever its flags say.
	pending := 0
	inMain := root.flags&flagNext != 0
	if inMain {
		pending = 1
	}
	for pending > 0 {
		n, err := r.next()
		if err != nil {
			return t, err
		}
		pending--
		if n.flags&flagNext != 0 {
			pending++
		}
		if n.flags&flagSibling != 0 {
			pending++
			t.variations++
		}
		if n.comment {
			t.comments++
		}
		if inMain {
			t.main = append(t.main, n)
			inMain = n.flags&flagNext != 0
		}
	}
	t.stray = len(data) - r.pos
	return t, nil
}

// startFEN builds the start position from the decoded piece squares,
// checking what the rules' FEN reader does not: one piece per square,
// advisors, elephants and soldiers only where they can stand.
func startFEN(sq [32]byte, black bool) (string, error) {
	var board [rules.Squares]byte
	for i, v := range sq {
		if v >= offBoard {
			continue
		}
		pc := pieceOrder[i]
		file, rank := int(v)/10, int(v)%10
		s := rules.SquareAt(file, rank)
		if other := board[s]; other != 0 {
			return "", fmt.Errorf("%c and %c both start on %s", other, pc, iccsSquare(file, rank))
		}
		if !canStand(pc, file, rank) {
			return "", fmt.Errorf("%c starts on %s, where it cannot stand", pc, iccsSquare(file, rank))
		}
		board[s] = pc
	}
	var b strings.Builder
	for rank := rules.Ranks - 1; rank >= 0; rank-- {
		empty := 0
		for file := 0; file < rules.Files; file++ {
			pc := board[rules.SquareAt(file, rank)]
			if pc == 0 {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteByte(pc)
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if rank > 0 {
			b.WriteByte('/')
		}
	}
	if black {
		b.WriteString(" b - - 0 1")
	} else {
		b.WriteString(" w - - 0 1")
	}
	return b.String(), nil
}

// iccsSquare names a square as ICCS does (a0–i9, ranks from Red's side).
func iccsSquare(file, rank int) string {
	return string([]byte{byte('a' + file), byte('0' + rank)})
}

// canStand reports whether the piece (FEN letter) may stand on the
// square: advisors on their palace's five points, elephants on their
// seven, soldiers not behind their first rank nor beside it before they
// cross the river. Generals are the FEN reader's to check.
func canStand(pc byte, file, rank int) bool {
	if pc >= 'a' { // Black: mirror the rank to Red's view
		pc -= 'a' - 'A'
		rank = rules.Ranks - 1 - rank
	}
	switch pc {
	case 'A':
		return (file == 3 || file == 5) && (rank == 0 || rank == 2) || file == 4 && rank == 1
	case 'B':
		return (rank == 0 || rank == 4) && (file == 2 || file == 6) || rank == 2 && file%4 == 0
	case 'P':
		return rank >= 5 || (rank == 3 || rank == 4) && file%2 == 0
	}
	return true
}

// Import reads one .xqf file (data: its bytes; source: its name for
// records and messages). A file holds one game: games has one entry, or
// errs one *Error saying why the file was refused. The game's moves are
// the record's main line, checked against opt.RuleSet (nil: the xiangqi
// preset; janggi's are refused); notices count the variations and
// comments left out and say what else was changed or skipped.
func Import(data []byte, source string, opt gamerec.ImportOptions) (games []gamerec.Game, errs []error, notices []gamerec.Notice) {
	g, notices, err := importGame(data, source, opt)
	if err != nil {
		return nil, []error{err}, nil
	}
	return []gamerec.Game{g}, nil, notices
}

// Is reports whether data looks like an .xqf file (its signature and a
// version this reader knows), for a file whose name does not say.
func Is(data []byte) bool {
	return len(data) >= headerSize && data[0] == 'X' && data[1] == 'Q' && data[offVersion] <= maxVersion
}

func importGame(data []byte, source string, opt gamerec.ImportOptions) (gamerec.Game, []gamerec.Notice, error) {
	var g gamerec.Game
	fail := func(kind error, format string, args ...any) (gamerec.Game, []gamerec.Notice, error) {
		return g, nil, &Error{Source: source, Kind: kind, Msg: fmt.Sprintf(format, args...)}
	}
	rs := opt.RuleSet
	if rs == nil {
		rs = rules.MustPreset("xiangqi")
	}
	if rs.Game != rules.Xiangqi {
		return fail(gamerec.ErrRecordSetup, "rule set %s is for %s; .xqf records are xiangqi", rs.Name, rs.Game)
	}
	if len(data) < 2 || data[0] != 'X' || data[1] != 'Q' {
		return fail(gamerec.ErrRecordSyntax, "no XQ signature: not an .xqf file")
	}
	if len(data) < headerSize+recordSize {
		return fail(gamerec.ErrRecordSyntax, "truncated: %d bytes, a record takes at least %d", len(data), headerSize+recordSize)
	}
	h := data[:headerSize]
	version := h[offVersion]
	if version > maxVersion {
		return fail(gamerec.ErrRecordSyntax, "version %d; XQStudio writes versions up to %d", version, maxVersion)
	}
	k, err := headerKeys(h, version)
	if err != nil {
		return fail(gamerec.ErrRecordSyntax, "bad key: %v", err)
	}
	t, err := readTree(data, version, &k)
	if err != nil {
		return fail(gamerec.ErrRecordSyntax, "move tree: %v", err)
	}
	result, ok := resultOf(h[offResult])
	if !ok {
		return fail(gamerec.ErrRecordResult, "result byte %d (want 0 unknown, 1 Red wins, 2 Black wins, 3 draw)", h[offResult])
	}
	if len(t.main) == 0 {
		return fail(gamerec.ErrRecordNoMoves, "no moves")
	}
	sq := startSquares(h, version, k)
	black := h[offWhoPlays] == 1
	// Some writers leave the side to move unset in positions Black
	// starts: the first move's piece then says whose move it is.
	if f := t.main[0].from; f < offBoard {
		for i, v := range sq {
			if v == f {
				black = pieceOrder[i] >= 'a'
				break
			}
		}
	}
	fen, err := startFEN(sq, black)
	if err != nil {
		return fail(gamerec.ErrRecordSetup, "start position: %v", err)
	}
	game, err := rules.NewGame(rs, fen)
	if err != nil {
		return fail(gamerec.ErrRecordSetup, "start position: %v", err)
	}
	var buf [rules.MaxMoves]rules.Move
	ply := 0
	var prev rules.Move
	for _, n := range t.main {
		if n.from >= offBoard || n.to >= offBoard {
			return fail(gamerec.ErrRecordMove, "ply %d: square bytes %d, %d are off the board", ply+1, n.from, n.to)
		}
		m := rules.NewMove(rules.SquareAt(int(n.from)/10, int(n.from)%10), rules.SquareAt(int(n.to)/10, int(n.to)%10))
		// Some writers repeat a move's record to hold its comment: a
		// move equal to the one before cannot be legal, so it is skipped.
		if ply > 0 && m == prev {
			continue
		}
		ply++
		if r := game.ImmediateResult(); r.Over() {
			return fail(gamerec.ErrRecordMove, "ply %d %s: the game was over before it (%s after ply %d)", ply, m.Text(rules.Ranks0), r, ply-1)
		}
		if !contains(game.LegalMoves(buf[:0]), m) {
			return fail(gamerec.ErrRecordMove, "ply %d %s is not legal in %s", ply, m.Text(rules.Ranks0), game.Position().FEN())
		}
		game.Play(m)
		prev = m
	}
	g.SetMoves(game)
	g.Source, g.Index = source, 1
	var notices []gamerec.Notice
	notice := func(kind, format string, args ...any) {
		notices = append(notices, gamerec.Notice{Source: source, Game: 1, Kind: kind, Msg: fmt.Sprintf(format, args...)})
	}
	reason := gamerec.ReasonRecorded
	if result == gamerec.Unknown {
		reason = ""
	}
	corrected, err := g.SettleImport(game, result, reason, opt)
	if err != nil {
		return fail(gamerec.ErrRecordResult, "%v", err)
	}
	if corrected != "" {
		notice(gamerec.NoticeResultCorrected, "%s", corrected)
	}
	if t.variations > 0 {
		notice(gamerec.NoticeVariations, "%d", t.variations)
	}
	if t.comments > 0 {
		notice(gamerec.NoticeComments, "%d", t.comments)
	}
	if t.stray > 0 {
		notice(gamerec.NoticeStrayBytes, "%d bytes after the move tree", t.stray)
	}
	setTags(&g, h, version)
	return g, notices, nil
}

// contains reports whether m is one of moves.
func contains(moves []rules.Move, m rules.Move) bool {
	for _, x := range moves {
		if x == m {
			return true
		}
	}
	return false
}

// resultOf maps the header's result byte to a gamerec result.
func resultOf(b byte) (string, bool) {
	switch b {
	case 0:
		return gamerec.Unknown, true
	case 1:
		return gamerec.WhiteWins, true
	case 2:
		return gamerec.BlackWins, true
	case 3:
		return gamerec.Draw, true
	}
	return "", false
}

// setTags fills in the players, date and tags from the header's text.
func setTags(g *gamerec.Game, h []byte, version byte) {
	tags := map[string]string{}
	for _, f := range textFields {
		v := shortString(h, f.off, f.capacity)
		if v == "" {
			continue
		}
		switch f.tag {
		case "Red":
			g.White = v
		case "Black":
			g.Black = v
		case "Date":
			if g.Date = normDate(v); g.Date == "" {
				tags[f.tag] = v
			}
		default:
			tags[f.tag] = v
		}
	}
	if t := int(h[offType]); t < len(gameTypes) {
		tags["Type"] = gameTypes[t]
	}
	tags["XQFVersion"] = fmt.Sprint(version)
	g.Tags = tags
}

// shortString reads the Delphi short string at off (a length byte, then
// GBK text) as trimmed UTF-8; a length beyond the field's capacity is cut
// to it.
func shortString(h []byte, off, capacity int) string {
	n := min(int(h[off]), capacity)
	b := h[off+1 : off+1+n]
	ascii := true
	for _, c := range b {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	var s string
	if ascii {
		s = string(b)
	} else {
		// GB18030 reads every GBK text (and the rest of GB18030).
		d, err := simplifiedchinese.GB18030.NewDecoder().Bytes(b)
		if err != nil {
			return ""
		}
		s = string(d)
	}
	return strings.TrimFunc(s, func(r rune) bool { return r == 0 || r == ' ' || r == '\u3000' || r < ' ' })
}

// normDate writes a date as YYYY.MM.DD with ?? for an unknown month or
// day ("1997-12-05", "1997年12月5日", "1997.12", "19971205"); "" when it
// has no four-digit year first.
func normDate(v string) string {
	var nums []string
	cur := ""
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			cur += string(r)
		case r >= '０' && r <= '９':
			cur += string('0' + (r - '０'))
		default:
			if cur != "" {
				nums, cur = append(nums, cur), ""
			}
		}
	}
	if cur != "" {
		nums = append(nums, cur)
	}
	if len(nums) == 1 && len(nums[0]) == 8 {
		nums = []string{nums[0][:4], nums[0][4:6], nums[0][6:]}
	}
	if len(nums) == 0 || len(nums[0]) != 4 || nums[0][0] == '0' {
		return ""
	}
	out := nums[0]
	for i, limit := range [2]int{12, 31} {
		part := "??"
		if i+1 < len(nums) && len(nums[i+1]) <= 2 {
			if n := atoi(nums[i+1]); n >= 1 && n <= limit {
				part = fmt.Sprintf("%02d", n)
			}
		}
		out += "." + part
	}
	return out
}

// atoi reads a short run of ASCII digits.
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}
