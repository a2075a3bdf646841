package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/rules"
)

// Outcome is a game's result from one side's view.
type Outcome int8

const (
	Loss Outcome = -1
	Draw Outcome = 0
	Win  Outcome = 1
	// NoResult marks a position from a game whose result is not known (an
	// imported record without one): it trains the policy only. Shards
	// before version 3 cannot hold it.
	NoResult Outcome = 2
)

func (o Outcome) String() string {
	switch o {
	case Loss:
		return "loss"
	case Draw:
		return "draw"
	case Win:
		return "win"
	case NoResult:
		return "no result"
	}
	return fmt.Sprintf("Outcome(%d)", int8(o))
}

// HistoryMoves is how many past moves a record keeps: enough to rebuild
// every board the encoder shows by unmaking them from the current board.
const HistoryMoves = encode.HistorySteps - 1

// PastMove is one move before the record's position and the piece it
// captured (rules.NoPiece for none and for a pass), so that it can be
// unmade on a bare board.
type PastMove struct {
	Move     rules.Move
	Captured rules.Piece
}

// PolicyEntry is one slot of the sparse policy target: an encode policy
// index (in the side to move's frame) and its probability.
type PolicyEntry struct {
	Index uint16
	P     float32
}

// Record is one training position: what the encoder needs to rebuild its
// planes without replaying the game, the search's targets and the game's
// result.
//
// The format keeps probabilities and WDL to 1/65535 and the value to
// 1/32767; a record read back holds the quantised numbers, and writing it
// again gives the same bytes.
type Record struct {
	GameID uint64
	// Ply is the number of plies since the game's root (rules.Game.Ply),
	// which the encoder's game-length feature reads.
	Ply           int
	Board         [rules.Squares]rules.Piece
	Side          rules.Color
	HalfmoveClock int
	// History holds the last NumHistory moves, most recent first.
	// NumHistory is min(Ply, HistoryMoves): the encoder shows exactly the
	// positions back to the root or HistorySteps-1 plies, whichever is
	// nearer.
	History    [HistoryMoves]PastMove
	NumHistory int
	// Repetitions, InCheck and PassLegal are what the encoder reads of the
	// history and the legal moves (rules.Game.Repetitions, InCheck, and
	// whether a pass is among the legal moves). Repetitions is kept up to
	// 255.
	Repetitions int
	InCheck     bool
	PassLegal   bool
	// Move is the move played (rules.NoMove where none was).
	Move rules.Move
	// Policy is the training target over the legal moves, sorted by
	// Index with no index twice. Entries with P == 0 still mark a move
	// legal.
	Policy []PolicyEntry
	// Value (in [-1, 1]) and WDL (each in [0, 1]) are the root's search
	// estimates to the side to move.
	Value float32
	WDL   [3]float32
	// Result is the game's result to the side to move (NoResult: unknown).
	Result Outcome
	// FinalMaterial is the material balance where the game ended, to the
	// side to move: its rules.Position.MaterialCount less the opponent's.
	// It tells a trainer who was ahead in a game that ended undecided
	// (train.Config.DrawMaterialScale); 0 in version-1 shards.
	FinalMaterial int
	// Full says the move had a full search (playout-cap randomization);
	// only full searches make policy targets.
	Full bool
}

// Limits the format checks so that a reader can trust sizes.
const (
	maxCount   = math.MaxInt32 // ply and half-move clock
	maxRepeats = 255
)

// SetPosition fills the record's position from g's current position;
// legal are its legal moves (history included), which tell whether a pass
// is legal. The targets, game id and result are left as they are.
func (r *Record) SetPosition(g *rules.Game, legal []rules.Move) {
	pos := g.Position()
	for s := range r.Board {
		r.Board[s] = pos.Board(rules.Square(s))
	}
	r.Side = pos.SideToMove()
	r.HalfmoveClock = pos.HalfmoveClock()
	r.Ply = g.Ply()
	r.NumHistory = min(r.Ply, HistoryMoves)
	r.History = [HistoryMoves]PastMove{}
	for i := 0; i < r.NumHistory; i++ {
		m, captured, _ := g.MoveBack(i)
		r.History[i] = PastMove{Move: m, Captured: captured}
	}
	r.Repetitions = min(g.Repetitions(), maxRepeats)
	r.InCheck = g.InCheck()
	r.PassLegal = false
	for _, m := range legal {
		r.PassLegal = r.PassLegal || m.IsPass()
	}
}

// SetPolicy sets the policy target from moves (legal in the record's
// position, played by r.Side) and their probabilities, sorted by index.
func (r *Record) SetPolicy(moves []rules.Move, probs []float32) error {
	if len(moves) != len(probs) {
		return fmt.Errorf("datasets: %d moves but %d probabilities", len(moves), len(probs))
	}
	// One allocation of the right size, where appending to a new record's
	// empty policy grew it seven times for a middlegame's moves.
	r.Policy = slices.Grow(r.Policy[:0], len(moves))
	for i, m := range moves {
		idx := encode.MoveIndex(m, r.Side)
		if idx < 0 {
			return fmt.Errorf("datasets: move %s has no policy slot", m)
		}
		r.Policy = append(r.Policy, PolicyEntry{Index: uint16(idx), P: probs[i]})
	}
	sortPolicy(r.Policy)
	return nil
}

// PolicyTarget writes the dense policy target (encode.PolicySize floats,
// zero off the listed moves) into dst, normalised to sum to 1 where it
// sums to anything, as quantisation leaves the sum a little off 1.
func (r *Record) PolicyTarget(dst []float32) error {
	n := encode.PolicySize()
	if len(dst) < n {
		return fmt.Errorf("datasets: policy target needs %d floats, got %d", n, len(dst))
	}
	dst = dst[:n]
	clear(dst)
	var sum float64
	for _, e := range r.Policy {
		if int(e.Index) >= n {
			return fmt.Errorf("datasets: policy index %d out of range [0, %d)", e.Index, n)
		}
		dst[e.Index] = e.P
		sum += float64(e.P)
	}
	if sum > 0 {
		inv := float32(1 / sum)
		for _, e := range r.Policy {
			dst[e.Index] *= inv
		}
	}
	return nil
}

func mirrorSquare(s rules.Square) rules.Square {
	return rules.SquareAt(rules.Files-1-s.File(), s.Rank())
}

func mirrorMove(m rules.Move) rules.Move {
	if m == rules.NoMove {
		return m
	}
	return rules.NewMove(mirrorSquare(m.From()), mirrorSquare(m.To()))
}

// Mirror turns the record into its left–right mirror image: board, moves
// and policy. Both games' rules are symmetric under it, so the planes of
// the mirrored record are encode.MirrorPlanes of the original's and its
// policy is the original's through encode.MirrorIndex. Mirroring the
// record (90 bytes and a few indices) is cheaper than mirroring 7,200
// floats of planes.
func (r *Record) Mirror() {
	for rank := 0; rank < rules.Ranks; rank++ {
		row := r.Board[rank*rules.Files:][:rules.Files]
		for a, b := 0, rules.Files-1; a < b; a, b = a+1, b-1 {
			row[a], row[b] = row[b], row[a]
		}
	}
	for i := range r.History[:min(max(r.NumHistory, 0), HistoryMoves)] {
		r.History[i].Move = mirrorMove(r.History[i].Move)
	}
	r.Move = mirrorMove(r.Move)
	size := encode.PolicySize()
	for i := range r.Policy {
		if int(r.Policy[i].Index) < size {
			r.Policy[i].Index = uint16(encode.MirrorIndex(int(r.Policy[i].Index)))
		}
	}
	sortPolicy(r.Policy)
}

// sortPolicy sorts by index: insertion sort, as targets are short and
// usually almost sorted, and it allocates nothing.
func sortPolicy(p []PolicyEntry) {
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && p[j].Index < p[j-1].Index; j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}

// validPiece reports whether a piece value is one the board can hold
// (NoPiece or a coloured piece type); it also fits in a nibble.
func validPiece(p rules.Piece) bool {
	return p < 16 && (p == rules.NoPiece || p.Type() != rules.NoPieceType)
}

func validSquare(s rules.Square) bool { return s >= 0 && s < rules.Squares }

// validMove reports whether m's squares are on the board and its spare
// bits clear, so that it has one encoding.
func validMove(m rules.Move) bool {
	return m>>14 == 0 && validSquare(m.From()) && validSquare(m.To())
}

// checkPosition checks what the encoder relies on: pieces, one general of
// each colour, moves on the board, a history as long as the ply says.
func (r *Record) checkPosition() error {
	if r.Side != rules.White && r.Side != rules.Black {
		return fmt.Errorf("side to move %d", r.Side)
	}
	if r.Ply < 0 || r.Ply > maxCount {
		return fmt.Errorf("ply %d out of range", r.Ply)
	}
	if r.HalfmoveClock < 0 || r.HalfmoveClock > maxCount {
		return fmt.Errorf("half-move clock %d out of range", r.HalfmoveClock)
	}
	if r.NumHistory != min(r.Ply, HistoryMoves) {
		return fmt.Errorf("%d history moves at ply %d, want %d", r.NumHistory, r.Ply, min(r.Ply, HistoryMoves))
	}
	if r.Repetitions < 0 || r.Repetitions > maxRepeats {
		return fmt.Errorf("repetition count %d out of range [0, %d]", r.Repetitions, maxRepeats)
	}
	var kings [2]int
	for s, p := range r.Board {
		if !validPiece(p) {
			return fmt.Errorf("square %s holds piece value %d", rules.Square(s), p)
		}
		if p != rules.NoPiece && p.Type() == rules.King {
			kings[p.Color()]++
		}
	}
	if kings[0] != 1 || kings[1] != 1 {
		return fmt.Errorf("%d white and %d black generals, want one each", kings[0], kings[1])
	}
	for i, pm := range r.History[:r.NumHistory] {
		if pm.Move == rules.NoMove || !validMove(pm.Move) {
			return fmt.Errorf("history move %d is %#x, not a move on the board", i, uint16(pm.Move))
		}
		if !validPiece(pm.Captured) || (pm.Move.IsPass() && pm.Captured != rules.NoPiece) {
			return fmt.Errorf("history move %d (%s) captured piece value %d", i, pm.Move, pm.Captured)
		}
	}
	if r.Move != rules.NoMove && !validMove(r.Move) {
		return fmt.Errorf("move played is %#x, not a move on the board", uint16(r.Move))
	}
	return nil
}

// The record body, little-endian (each record in a block is preceded by
// its body length as a uvarint):
//
//	uint64     game id
//	uvarint    ply
//	uvarint    half-move clock
//	byte       flags: bit 0 Black to move, 1 in check, 2 pass legal, 3 full
//	           search, bits 4–5 result + 1 (0 loss, 1 draw, 2 win), bits
//	           6–7 the number of history moves
//	byte       repetitions
//	45 bytes   board, two squares a byte, square 2i in the low nibble
//	3 bytes    per history move, most recent first: uint16 move, byte
//	           captured piece
//	uint16     move played
//	int16      value × 32767
//	3 × uint16 WDL × 65535
//	int16      final material balance (from format version 2)
//	uvarint    policy entries k
//	k × uvarint     index steps (the first absolute; then each > 0)
//	k × uint16      probabilities × 65535
//
// Indices and probabilities lie apart because consecutive positions of a
// game share most of their legal moves: zstd then finds the run of index
// steps whole, and the fixed-width probabilities decode without a branch.
const (
	boardBytes = rules.Squares / 2
	// minRecordLen is version 1's shortest record (a later version's
	// is longer).
	minRecordLen = 8 + 1 + 1 + 1 + 1 + boardBytes + 2 + 2 + 6 + 1
	// maxRecordLen bounds one record: the fixed part with the longest
	// counts and history, the final material, and every policy slot (fewer
	// than 4096) at its longest, a two-byte step and a probability.
	maxRecordLen = minRecordLen + 2*(binary.MaxVarintLen32-1) + 3*HistoryMoves + 2 + 1 + 4*4096
	// maxMaterial bounds |FinalMaterial|; the int16 field holds it.
	maxMaterial = math.MaxInt16
)

const (
	flagBlack = 1 << iota
	flagInCheck
	flagPassLegal
	flagFull
	resultShift  = 4
	historyShift = 6
)

// quantise maps x in [lo, 1] to round(x·scale), refusing what lies
// outside by more than a rounding error: a producer sending 1.2 has a bug
// that a clamp would hide.
func quantise(x float32, lo float32, scale float64, what string) (int, error) {
	const slack = 1e-3
	if x != x || x < lo-slack || x > 1+slack {
		return 0, fmt.Errorf("%s %v outside [%v, 1]", what, x, lo)
	}
	x = min(max(x, lo), 1)
	return int(math.Round(float64(x) * scale)), nil
}

// appendRecord appends r's body to dst; on an error dst is unchanged.
func appendRecord(dst []byte, r *Record) ([]byte, error) {
	if err := r.checkPosition(); err != nil {
		return dst, err
	}
	if r.Result < Loss || r.Result > NoResult {
		return dst, fmt.Errorf("result %d is not -1, 0, 1 or 2 (none)", r.Result)
	}
	if r.FinalMaterial < -maxMaterial || r.FinalMaterial > maxMaterial {
		return dst, fmt.Errorf("final material %d outside ±%d", r.FinalMaterial, maxMaterial)
	}
	size := encode.PolicySize()
	if len(r.Policy) > size {
		return dst, fmt.Errorf("%d policy entries, more than the %d slots", len(r.Policy), size)
	}
	for i, e := range r.Policy {
		if int(e.Index) >= size {
			return dst, fmt.Errorf("policy index %d out of range [0, %d)", e.Index, size)
		}
		if i > 0 && e.Index <= r.Policy[i-1].Index {
			return dst, fmt.Errorf("policy indices not strictly increasing (%d after %d): sort them, once each", e.Index, r.Policy[i-1].Index)
		}
		if _, err := quantise(e.P, 0, 65535, "policy probability"); err != nil {
			return dst, err
		}
	}
	value, err := quantise(r.Value, -1, 32767, "value")
	if err != nil {
		return dst, err
	}
	var wdl [3]int
	for i, x := range r.WDL {
		if wdl[i], err = quantise(x, 0, 65535, "WDL"); err != nil {
			return dst, err
		}
	}
	dst = binary.LittleEndian.AppendUint64(dst, r.GameID)
	dst = binary.AppendUvarint(dst, uint64(r.Ply))
	dst = binary.AppendUvarint(dst, uint64(r.HalfmoveClock))
	flags := byte(r.Side) | byte(int(r.Result)+1)<<resultShift | byte(r.NumHistory)<<historyShift
	if r.InCheck {
		flags |= flagInCheck
	}
	if r.PassLegal {
		flags |= flagPassLegal
	}
	if r.Full {
		flags |= flagFull
	}
	dst = append(dst, flags, byte(r.Repetitions))
	for s := 0; s < rules.Squares; s += 2 {
		dst = append(dst, byte(r.Board[s])|byte(r.Board[s+1])<<4)
	}
	for _, pm := range r.History[:r.NumHistory] {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(pm.Move))
		dst = append(dst, byte(pm.Captured))
	}
	dst = binary.LittleEndian.AppendUint16(dst, uint16(r.Move))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(int16(value)))
	for _, w := range wdl {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(w))
	}
	dst = binary.LittleEndian.AppendUint16(dst, uint16(int16(r.FinalMaterial)))
	dst = binary.AppendUvarint(dst, uint64(len(r.Policy)))
	prev := 0
	for _, e := range r.Policy {
		dst = binary.AppendUvarint(dst, uint64(int(e.Index)-prev))
		prev = int(e.Index)
	}
	for _, e := range r.Policy {
		q, _ := quantise(e.P, 0, 65535, "policy probability") // checked above
		dst = binary.LittleEndian.AppendUint16(dst, uint16(q))
	}
	return dst, nil
}

var errRecord = errors.New("bad record")

// uvarint reads the uvarint at b[i] and returns it and the index after
// it, or next < 0 where b holds none. The one-byte case, almost every
// number in a record, takes the short path.
func uvarint(b []byte, i int) (v uint64, next int) {
	if i < len(b) && b[i] < 0x80 {
		return uint64(b[i]), i + 1
	}
	return uvarintSlow(b, i)
}

func uvarintSlow(b []byte, i int) (uint64, int) {
	if i < 0 || i >= len(b) {
		return 0, -1
	}
	v, n := binary.Uvarint(b[i:])
	if n <= 0 {
		return 0, -1
	}
	return v, i + n
}

// pieceOK[n] says whether nibble n is a piece value the board can hold.
var pieceOK = [16]bool{true, true, true, true, true, true, true, true, false, true, true, true, true, true, true, true}

// decodeRecord reads one record body (all of b) of shard format version
// into r, reusing r.Policy's storage. It checks every field's range but
// not whether the position is one the rules can reach; EncodeRecord
// checks what it needs.
func decodeRecord(b []byte, r *Record, version int) error {
	if len(b) < minRecordLen {
		return fmt.Errorf("%w: %d bytes, shorter than any record", errRecord, len(b))
	}
	r.GameID = binary.LittleEndian.Uint64(b)
	i := 8
	ply, i := uvarint(b, i)
	if i < 0 || ply > maxCount {
		return fmt.Errorf("%w: ply", errRecord)
	}
	hm, i := uvarint(b, i)
	if i < 0 || hm > maxCount {
		return fmt.Errorf("%w: half-move clock", errRecord)
	}
	r.Ply, r.HalfmoveClock = int(ply), int(hm)
	// The fixed part follows; the length check covers it and the rest of
	// the minimum so that the reads below need no checks of their own.
	if len(b)-i < 2+boardBytes+2+2+6+1 {
		return fmt.Errorf("%w: truncated", errRecord)
	}
	flags := b[i]
	r.Repetitions = int(b[i+1])
	i += 2
	r.Side = rules.Color(flags & flagBlack)
	r.InCheck = flags&flagInCheck != 0
	r.PassLegal = flags&flagPassLegal != 0
	r.Full = flags&flagFull != 0
	res := flags >> resultShift & 3
	if res == 3 && version < 3 {
		return fmt.Errorf("%w: result field 3", errRecord)
	}
	r.Result = Outcome(int(res) - 1)
	r.NumHistory = int(flags >> historyShift)
	if r.NumHistory != min(r.Ply, HistoryMoves) {
		return fmt.Errorf("%w: %d history moves at ply %d", errRecord, r.NumHistory, r.Ply)
	}
	board := b[i : i+boardBytes]
	for k, v := range board {
		lo, hi := v&15, v>>4
		if !pieceOK[lo] || !pieceOK[hi] {
			return fmt.Errorf("%w: board byte %d is %#x", errRecord, k, v)
		}
		r.Board[2*k] = rules.Piece(lo)
		r.Board[2*k+1] = rules.Piece(hi)
	}
	i += boardBytes
	if len(b)-i < 3*r.NumHistory+2+2+6+1 {
		return fmt.Errorf("%w: truncated history", errRecord)
	}
	r.History = [HistoryMoves]PastMove{}
	for k := 0; k < r.NumHistory; k++ {
		m := rules.Move(binary.LittleEndian.Uint16(b[i:]))
		c := rules.Piece(b[i+2])
		i += 3
		if m == rules.NoMove || !validMove(m) {
			return fmt.Errorf("%w: history move %#x", errRecord, uint16(m))
		}
		if c >= 16 || !pieceOK[c] || (m.IsPass() && c != rules.NoPiece) {
			return fmt.Errorf("%w: captured piece %d", errRecord, c)
		}
		r.History[k] = PastMove{Move: m, Captured: c}
	}
	r.Move = rules.Move(binary.LittleEndian.Uint16(b[i:]))
	if r.Move != rules.NoMove && !validMove(r.Move) {
		return fmt.Errorf("%w: move %#x", errRecord, uint16(r.Move))
	}
	v := int16(binary.LittleEndian.Uint16(b[i+2:]))
	if v < -32767 {
		return fmt.Errorf("%w: value %d", errRecord, v)
	}
	r.Value = float32(v) / 32767
	for k := range r.WDL {
		r.WDL[k] = float32(binary.LittleEndian.Uint16(b[i+4+2*k:])) / 65535
	}
	i += 10
	r.FinalMaterial = 0
	if version >= 2 {
		if len(b)-i < 2+1 {
			return fmt.Errorf("%w: truncated before the final material", errRecord)
		}
		m := int16(binary.LittleEndian.Uint16(b[i:]))
		if m < -maxMaterial {
			return fmt.Errorf("%w: final material %d", errRecord, m)
		}
		r.FinalMaterial = int(m)
		i += 2
	}
	size := uint64(encode.PolicySize())
	n, i := uvarint(b, i)
	if i < 0 || n > size {
		return fmt.Errorf("%w: policy length", errRecord)
	}
	// Every entry takes at least three bytes: refuse a count the bytes
	// left cannot hold before growing the slice for it.
	if int(n) > (len(b)-i)/3 {
		return fmt.Errorf("%w: %d policy entries in %d bytes", errRecord, n, len(b)-i)
	}
	if cap(r.Policy) < int(n) {
		r.Policy = make([]PolicyEntry, 0, max(int(n), 64))
	}
	pol := r.Policy[:n]
	idx := uint64(0)
	for k := range pol {
		// Index steps are almost always one byte: decoded here by hand,
		// as this loop and the next are most of a record's decoding time.
		var d uint64
		if i < len(b) && b[i] < 0x80 {
			d = uint64(b[i])
			i++
		} else if d, i = uvarintSlow(b, i); i < 0 {
			return fmt.Errorf("%w: policy index step", errRecord)
		}
		if (k > 0 && d == 0) || d >= size {
			return fmt.Errorf("%w: policy index step %d", errRecord, d)
		}
		idx += d
		if idx >= size {
			return fmt.Errorf("%w: policy index %d out of range", errRecord, idx)
		}
		pol[k].Index = uint16(idx)
	}
	if len(b)-i != 2*len(pol) {
		return fmt.Errorf("%w: %d bytes for %d policy probabilities", errRecord, len(b)-i, len(pol))
	}
	qs := b[i:]
	for k := range pol {
		pol[k].P = float32(binary.LittleEndian.Uint16(qs[2*k:])) * (1.0 / 65535)
	}
	i += 2 * len(pol)
	r.Policy = pol
	if i != len(b) {
		return fmt.Errorf("%w: %d bytes left after the record", errRecord, len(b)-i)
	}
	return nil
}

// Clone returns a deep copy of r (its own Policy storage).
func (r *Record) Clone() *Record {
	c := *r
	c.Policy = slices.Clone(r.Policy)
	return &c
}
