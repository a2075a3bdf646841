// Package encode turns a rules.Game into a network's input planes and
// moves into policy slots, in the side to move's frame. Every shard and
// checkpoint records Version; a reader rejects a version it does not know.
package encode

import (
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/palace-chess/palace/rules"
)

// Version numbers the input and policy layout. Any change to the planes,
// their order or scaling, or the policy index makes a new version.
// Version 2 shows the material margin under every rule set (version 1:
// only where counting); the policy index is version 1's (SamePolicy).
const Version = 2

// SamePolicy reports whether encoding version v numbers policy slots as
// this one does, so that its shards' policy targets train this version's
// networks (shards hold positions, not planes).
func SamePolicy(v int) bool { return v == 1 || v == 2 }

// HistorySteps is how many positions (the current one and those before it)
// the piece planes show, so the network sees shuttles and repetitions.
const HistorySteps = 4

const piecePlanes = 14 // 7 piece types, own then opponent's

// The feature planes after the piece planes, each filled with one value.
const (
	featBlackToMove = iota
	featJanggi
	featPassLegal
	featLastWasPass
	featBikjang
	featInCheck
	featRepeatedOnce
	featRepeatedTwice
	featMoveClock   // half-move clock / move limit
	featGameLength  // ply / length cap
	featCounting    // counting decides undecided ends
	featCountMargin // own material count minus the opponent's (Han's bonus included where counting), / 40
	featPassUnlessInCheck
	featPassWhenStuck
	featFacingBikjang
	featFacingMustBreak
	featFacingIgnored
	featPerpetualCheckLoses
	featChaseRule
	featShuttleRule
	featFourfold
	featBikjangClaim
	featMaterialDraw
	featOnes // all ones: lets convolutions see the board's edge
	featureCount
)

// Planes is the number of input planes; each is 10 ranks × 9 files.
const Planes = HistorySteps*piecePlanes + featureCount

// InputSize is the number of floats in one encoded position.
const InputSize = Planes * rules.Squares

// State is everything the planes show: the boards of the current position
// and up to HistorySteps-1 before it, and the features. Encode fills one
// from a rules.Game; a training record fills one from what it stored
// (datasets.EncodeRecord), so both go through EncodeState.
type State struct {
	Rules         *rules.RuleSet
	Boards        [HistorySteps][rules.Squares]rules.Piece // [0] is the current position
	Steps         int                                      // boards present, 1..HistorySteps
	Side          rules.Color                              // the side to move
	PassLegal     bool
	LastWasPass   bool
	Bikjang       bool // the side to move faces bikjang
	InCheck       bool
	Repetitions   int // earlier occurrences of the position in the repetition window
	HalfmoveClock int
	Ply           int // plies since the game's root
}

// Encode writes the input planes of g's current position into dst (which
// must hold InputSize floats), plane by plane, rank by rank from the side
// to move's back rank, file by file. legal are the position's legal moves
// (history included), which the caller has anyway; they tell whether a
// pass is legal.
func Encode(g *rules.Game, legal []rules.Move, dst []float32) error {
	var st State
	st.fill(g, legal)
	return EncodeState(&st, dst)
}

// fill sets st, which must be zero, to g's position (legal as Encode's).
// Its boards past Steps stay empty.
func (st *State) fill(g *rules.Game, legal []rules.Move) {
	pos := g.Position()
	st.Rules, st.Side = g.Rules(), pos.SideToMove()
	st.Steps = g.Boards(st.Boards[:])
	for _, m := range legal {
		st.PassLegal = st.PassLegal || m.IsPass()
	}
	st.LastWasPass, st.Bikjang, st.InCheck = g.LastMoveWasPass(), pos.InBikjang(), g.InCheck()
	st.Repetitions, st.HalfmoveClock, st.Ply = g.Repetitions(), pos.HalfmoveClock(), g.Ply()
}

// Encoder is Encode for a caller that encodes position after position into
// one buffer, as a search does its leaves: it rewrites only what differs
// from the position it last wrote there, the same planes to the bit for a
// fraction of the memory written. A search's next leaf mostly shares its
// history boards with the last one (two root children share all but the
// newest), and most feature planes are the rule set's. Nothing else may
// write the buffer between its calls; another buffer is encoded whole. The
// zero Encoder is ready to use.
type Encoder struct {
	buf  *float32 // the buffer last written (its first float), or nil
	st   State    // the position it holds
	feat [featureCount]float32
}

// Encode is the package's Encode into dst.
func (e *Encoder) Encode(g *rules.Game, legal []rules.Move, dst []float32) error {
	var st State
	st.fill(g, legal)
	if len(dst) < InputSize || e.buf != &dst[0] {
		e.buf = nil
		if err := EncodeState(&st, dst); err != nil {
			return err
		}
		e.buf, e.st, e.feat = &dst[0], st, features(&st)
		return nil
	}
	dst = dst[:InputSize]
	old := &e.st
	oldAt, newAt := &pieceAt[old.Side&1], &pieceAt[st.Side&1]
	oldSq, newSq := &frameOf[old.Side&1], &frameOf[st.Side&1]
	for step := range HistorySteps {
		planes := dst[step*piecePlanes*rules.Squares:][:piecePlanes*rules.Squares]
		ob, nb := &old.Boards[step], &st.Boards[step]
		if old.Side == st.Side {
			if *ob == *nb {
				continue // a history board both leaves share
			}
			// The squares that changed: the old piece off, the new one
			// on. With one view of the board, two squares' pieces never
			// share a float.
			for s, pc := range ob {
				if npc := nb[s]; pc != npc {
					if pc != rules.NoPiece {
						planes[oldAt[pc&15]+int(oldSq[s])] = 0
					}
					if npc != rules.NoPiece {
						planes[newAt[npc&15]+int(newSq[s])] = pieceOne[npc&15]
					}
				}
			}
			continue
		}
		// The other side's view moves every piece: all off, all on,
		// without a branch (an empty square writes 0 where no piece of
		// its board can be, as in EncodeState).
		for s, pc := range ob {
			planes[oldAt[pc&15]+int(oldSq[s])] = 0
		}
		for s, pc := range nb {
			planes[newAt[pc&15]+int(newSq[s])] = pieceOne[pc&15]
		}
	}
	feat := features(&st)
	for i, v := range feat {
		if math.Float32bits(v) != math.Float32bits(e.feat[i]) {
			fillPlane(dst[(HistorySteps*piecePlanes+i)*rules.Squares:][:rules.Squares], v)
		}
	}
	e.st, e.feat = st, feat
	return nil
}

// whiteValues are janggi's material values by piece (colour and type), as
// rules.Position.MaterialCount counts them, positive for White's pieces
// and negative for Black's; 0 for an empty square.
var whiteValues = func() (v [16]int) {
	types := [8]int{rules.Chariot: 13, rules.Cannon: 7, rules.Horse: 5, rules.Elephant: 3, rules.Advisor: 3, rules.Soldier: 2}
	for t, n := range types {
		if t != int(rules.NoPieceType) {
			v[rules.MakePiece(rules.White, rules.PieceType(t))&15] = n
			v[rules.MakePiece(rules.Black, rules.PieceType(t))&15] = -n
		}
	}
	return v
}()

// materialMargin is side's material count less the other side's: one sum
// without branches, since a board's pieces fall unpredictably.
func materialMargin(board *[rules.Squares]rules.Piece, side rules.Color) int {
	n := 0
	for _, pc := range board {
		n += whiteValues[pc&15]
	}
	if side == rules.Black {
		return -n
	}
	return n
}

// pieceAt is where a piece's plane starts in a board's planes, by the side
// to move and the piece (own pieces' planes first); pieceOne is what a
// piece writes there. An empty square points at the first plane and writes
// 0, so the loop over the board needs no branch.
var pieceAt, pieceOne, frameOf = func() (at [2][16]int, one [16]float32, fr [2][rules.Squares]uint8) {
	for _, side := range []rules.Color{rules.White, rules.Black} {
		for pc := rules.Piece(0); pc < 16; pc++ {
			if pc.Type() == rules.NoPieceType || pc.Type() > 7 {
				continue
			}
			plane := int(pc.Type()) - 1
			if pc.Color() != side {
				plane += 7
			}
			at[side][pc] = plane * rules.Squares
			one[pc] = 1
		}
		for s := range rules.Squares {
			fr[side][s] = uint8(frame(rules.Square(s), side))
		}
	}
	return at, one, fr
}()

// EncodeState writes the planes of st into dst (InputSize floats).
func EncodeState(st *State, dst []float32) error {
	if len(dst) < InputSize {
		return fmt.Errorf("encode: destination holds %d floats, want %d", len(dst), InputSize)
	}
	if st.Rules == nil || st.Steps < 1 || st.Steps > HistorySteps {
		return fmt.Errorf("encode: state without a rule set or with %d boards", st.Steps)
	}
	dst = dst[:InputSize]
	// Every float is written once: the piece planes cleared and their
	// pieces set, each feature plane filled (a feature's 0 too), rather
	// than all cleared and the features written over.
	clear(dst[:HistorySteps*piecePlanes*rules.Squares])
	side := st.Side
	at, one := &pieceAt[side&1], &pieceOne
	squares := &frameOf[side&1]
	for step := 0; step < st.Steps; step++ {
		planes := dst[step*piecePlanes*rules.Squares:][:piecePlanes*rules.Squares]
		for s, pc := range &st.Boards[step] {
			// An empty square writes its 0 over the 0 already there.
			planes[at[pc&15]+int(squares[s])] = one[pc&15]
		}
	}
	for i, v := range features(st) {
		fillPlane(dst[(HistorySteps*piecePlanes+i)*rules.Squares:][:rules.Squares], v)
	}
	return nil
}

// features is the value of each feature plane of st.
func features(st *State) (f [featureCount]float32) {
	rs := st.Rules
	side := st.Side
	b := func(x bool) float32 {
		if x {
			return 1
		}
		return 0
	}
	f[featBlackToMove] = b(side == rules.Black)
	f[featJanggi] = b(rs.Game == rules.Janggi)
	f[featPassLegal] = b(st.PassLegal)
	f[featLastWasPass] = b(st.LastWasPass)
	f[featBikjang] = b(st.Bikjang)
	f[featInCheck] = b(st.InCheck)
	f[featRepeatedOnce] = b(st.Repetitions >= 1)
	f[featRepeatedTwice] = b(st.Repetitions >= 2)
	if rs.MoveLimit > 0 {
		f[featMoveClock] = min(float32(st.HalfmoveClock)/float32(rs.MoveLimit), 1)
	}
	if rs.MaxPlies > 0 {
		f[featGameLength] = min(float32(st.Ply)/float32(rs.MaxPlies), 1)
	}
	// The material margin, for every rule set: where counting decides it
	// is the count a capped game would end on; elsewhere it is what a
	// value head most needs and a small tower computes slowly from the
	// piece planes (KataGo feeds its nets such features too).
	margin := float32(materialMargin(&st.Boards[0], side))
	if rs.Counting {
		f[featCounting] = 1
		bonus := float32(rs.HanBonusHalves) / 2 // Han's (Black's) bonus
		if side == rules.White {
			bonus = -bonus
		}
		margin += bonus
	}
	f[featCountMargin] = margin / 40
	f[featPassUnlessInCheck] = b(rs.Pass == rules.PassUnlessInCheck)
	f[featPassWhenStuck] = b(rs.Pass == rules.PassWhenStuck)
	f[featFacingBikjang] = b(rs.Facing == rules.FacingBikjang)
	f[featFacingMustBreak] = b(rs.Facing == rules.FacingMustBreak)
	f[featFacingIgnored] = b(rs.Facing == rules.FacingIgnored)
	f[featPerpetualCheckLoses] = b(rs.PerpetualCheckLoses)
	f[featChaseRule] = b(rs.ChaseRule)
	f[featShuttleRule] = b(rs.ShuttleRule)
	f[featFourfold] = b(rs.Repetition >= 4)
	f[featBikjangClaim] = b(rs.BikjangClaim)
	f[featMaterialDraw] = b(rs.MaterialDraw)
	f[featOnes] = 1
	return f
}

// onesPlane is a plane of ones, copied into a feature plane that is 1.
var onesPlane = func() (p [rules.Squares]float32) {
	for i := range p {
		p[i] = 1
	}
	return p
}()

// fillPlane sets every float of p to v: a 0 or a 1 (most features) by one
// clear or copy, another value by doubling copies of it, where a loop of
// single stores took a tenth of a microsecond a plane.
func fillPlane(p []float32, v float32) {
	switch v {
	case 0:
		clear(p)
	case 1:
		copy(p, onesPlane[:])
	default:
		p[0] = v
		for n := 1; n < len(p); n *= 2 {
			copy(p[n:], p[:n])
		}
	}
}

// MirrorPlanes writes the left–right mirror image of src (one encoded
// position) into dst, which may be src itself. Both games' rules are
// symmetric under it, so a mirrored position with the mirrored policy is
// another valid sample.
func MirrorPlanes(src, dst []float32) error {
	if len(src) < InputSize || len(dst) < InputSize {
		return fmt.Errorf("encode: mirror needs %d floats, got source %d and destination %d", InputSize, len(src), len(dst))
	}
	for p := 0; p < Planes; p++ {
		for r := 0; r < rules.Ranks; r++ {
			row := (p*rules.Ranks + r) * rules.Files
			for f := 0; f <= (rules.Files-1)/2; f++ {
				a, b := src[row+f], src[row+rules.Files-1-f]
				dst[row+f], dst[row+rules.Files-1-f] = b, a
			}
		}
	}
	return nil
}

// Key is a 64-bit digest of everything Encode reads from g: the positions
// it shows, the repetition count, the clocks and the rule set. Two game
// states with the same Key encode to the same planes (barring a hash
// collision), so an evaluation cache can be keyed by it.
func Key(g *rules.Game) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	mix := func(v uint64) {
		h ^= v
		h *= 0xbf58476d1ce4e5b9
		h ^= h >> 31
	}
	for step := 0; step < HistorySteps; step++ {
		k, ok := g.KeyBack(step)
		if !ok {
			break
		}
		mix(k + uint64(step))
	}
	pos := g.Position()
	rs := g.Rules()
	mix(uint64(g.Repetitions()))
	if g.LastMoveWasPass() {
		mix(1)
	}
	if rs.MoveLimit > 0 {
		mix(uint64(pos.HalfmoveClock()) << 8)
	}
	if rs.MaxPlies > 0 {
		mix(uint64(g.Ply()) << 16)
	}
	mix(ruleSetKey(rs))
	return h
}

// ruleKeys remembers each rule set's hash as a number: RuleSet.Hash costs
// a SHA-256 and a string, too much for every evaluated position. A rule set
// does not change once games are played under it.
var ruleKeys sync.Map // *rules.RuleSet → uint64

func ruleSetKey(rs *rules.RuleSet) uint64 {
	if k, ok := ruleKeys.Load(rs); ok {
		return k.(uint64)
	}
	k, _ := strconv.ParseUint(rs.Hash(), 16, 64)
	ruleKeys.Store(rs, k)
	return k
}
