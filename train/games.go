package train

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/internal/splitmix"
	"github.com/palace-chess/palace/rules"
)

// GameFilter says which recorded games become training positions, and
// which of them are held out. Its zero value keeps every game once, all
// of it, with none held out.
type GameFilter struct {
	// RuleSets keeps the games under these rule sets: a name (xiangqi,
	// janggi, ...) or a name@hash; empty keeps every rule set.
	RuleSets []string `json:"rule_sets,omitempty"`
	// MinPlies drops games shorter than this.
	MinPlies int `json:"min_plies,omitempty"`
	// After and Before (YYYY, YYYY.MM or YYYY.MM.DD, inclusive) keep the
	// games played in that range; with either set, a game whose date is
	// not known well enough to tell is dropped.
	After  string `json:"after,omitempty"`
	Before string `json:"before,omitempty"`
	// KeepDuplicates keeps games whose rule set, start and moves equal an
	// earlier game's; by default each is counted once, as a collection
	// that holds a game under several events would otherwise weigh it
	// twice and could put its copies on both sides of the split.
	KeepDuplicates bool `json:"keep_duplicates,omitempty"`
	// OpeningPlies keeps the positions of the first OpeningPlies plies of
	// each game only (0: all of them).
	OpeningPlies int `json:"opening_plies,omitempty"`
	// PolicyFrom says whose moves are policy targets; the other side's
	// positions train the value only. Empty or "all": both sides';
	// "winner": a decided game's winner's (both sides' in a draw or a
	// game without a result), so that a collection of one strong player's
	// wins over a weak one teaches the strong player's moves and what
	// losing looks like; "player:NAME": the moves of the side whose
	// recorded name (White or Black) contains NAME.
	PolicyFrom string `json:"policy_from,omitempty"`
	// ScoreScale, where > 0, makes an engine's score of a position
	// (gamerec.Game.Scores: a match's records) its WDL estimate, the
	// search estimate a trainer mixes into the value target by its
	// SearchValueWeight: a win with probability 1/(1+exp(−cp/ScoreScale))
	// to the side that moved, else a loss (a mate is certain). Positions
	// without a score keep the game's result there. 0: scores unused.
	ScoreScale float64 `json:"score_scale,omitempty"`
	// HeldOut is the share of games held out of training, for measuring.
	// The split is by game, decided by the game's moves and Seed, so a
	// game falls on the same side whatever else the collection holds.
	HeldOut float64 `json:"held_out"`
	Seed    uint64  `json:"seed"`
}

// Validate reports every setting that cannot work.
func (f *GameFilter) Validate() error {
	var errs []string
	if f.MinPlies < 0 || f.OpeningPlies < 0 {
		errs = append(errs, fmt.Sprintf("min plies %d, opening plies %d: want ≥ 0", f.MinPlies, f.OpeningPlies))
	}
	if !(f.HeldOut >= 0 && f.HeldOut < 1) {
		errs = append(errs, fmt.Sprintf("held-out share %v: want 0 ≤ share < 1", f.HeldOut))
	}
	for _, d := range []struct{ name, value string }{{"after", f.After}, {"before", f.Before}} {
		if d.value != "" && !validBound(d.value) {
			errs = append(errs, fmt.Sprintf("%s %q: want YYYY, YYYY.MM or YYYY.MM.DD, a day that exists", d.name, d.value))
		}
	}
	if !(f.ScoreScale >= 0 && f.ScoreScale <= 1e6) {
		errs = append(errs, fmt.Sprintf("score scale %v: want 0 (scores unused) or a positive number of centipawns", f.ScoreScale))
	}
	switch {
	case f.PolicyFrom == "", f.PolicyFrom == "all", f.PolicyFrom == "winner":
	case strings.HasPrefix(f.PolicyFrom, "player:") && len(f.PolicyFrom) > len("player:"):
	default:
		errs = append(errs, fmt.Sprintf("policy from %q: want all, winner or player:NAME", f.PolicyFrom))
	}
	for _, rs := range f.RuleSets {
		if rs == "" {
			errs = append(errs, "an empty rule-set name")
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("train: games: %s", strings.Join(errs, "; "))
	}
	return nil
}

var datePattern = regexp.MustCompile(`^\d{4}(\.\d{2}(\.\d{2})?)?$`)

// validBound reports a date bound of datePattern's form that exists
// (time.Parse refuses month 13 and February 30).
func validBound(s string) bool {
	if !datePattern.MatchString(s) {
		return false
	}
	_, err := time.Parse("2006.01.02"[:len(s)], s)
	return err == nil
}

// Dropped counts the games a GameSelector left out, by reason.
type Dropped struct {
	RuleSet    int64 `json:"rule_set"`
	Short      int64 `json:"short"`
	Date       int64 `json:"date"`
	Duplicates int64 `json:"duplicates"`
}

// Total is the number of games dropped.
func (d Dropped) Total() int64 { return d.RuleSet + d.Short + d.Date + d.Duplicates }

// GameSelector applies a GameFilter to games one at a time, remembering
// the games it has seen for duplicates.
type GameSelector struct {
	f       GameFilter
	seen    map[[32]byte]bool
	Dropped Dropped
}

// NewSelector returns a selector for f, which must be valid.
func NewSelector(f GameFilter) (*GameSelector, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &GameSelector{f: f, seen: map[[32]byte]bool{}}, nil
}

// Select says whether g is kept and, if so, whether it is held out.
func (s *GameSelector) Select(g *gamerec.Game) (keep, heldOut bool) {
	if len(s.f.RuleSets) > 0 && !matchRuleSet(s.f.RuleSets, g.RuleSet) {
		s.Dropped.RuleSet++
		return false, false
	}
	if g.Plies < s.f.MinPlies {
		s.Dropped.Short++
		return false, false
	}
	if (s.f.After != "" || s.f.Before != "") && !inDateRange(g.Date, s.f.After, s.f.Before) {
		s.Dropped.Date++
		return false, false
	}
	key := GameKey(g)
	if !s.f.KeepDuplicates {
		if s.seen[key] {
			s.Dropped.Duplicates++
			return false, false
		}
		s.seen[key] = true
	}
	return true, IsHeldOut(key, s.f.HeldOut, s.f.Seed)
}

// matchRuleSet reports whether id (name@hash) is among want (names or ids).
func matchRuleSet(want []string, id string) bool {
	name, _, _ := strings.Cut(id, "@")
	for _, w := range want {
		if w == id || w == name {
			return true
		}
	}
	return false
}

// inDateRange reports whether a record's date (YYYY.MM.DD, ?? for an
// unknown part) lies within [after, before], each a prefix form of the
// same layout: a date known only to the year is in range when that whole
// year is, and one not known to the precision a bound needs is not.
func inDateRange(date, after, before string) bool {
	known := date
	if i := strings.Index(date, "?"); i >= 0 {
		known = date[:i]
	}
	known = strings.TrimRight(known, ".")
	if !datePattern.MatchString(known) {
		return false
	}
	// Compared at the bound's precision: "2004.11" is on or after "2004"
	// and on or before "2004".
	cmp := func(bound string) (int, bool) {
		if len(known) < len(bound) {
			return 0, false
		}
		return strings.Compare(known[:len(bound)], bound), true
	}
	if after != "" {
		c, ok := cmp(after)
		if !ok || c < 0 {
			return false
		}
	}
	if before != "" {
		c, ok := cmp(before)
		if !ok || c > 0 {
			return false
		}
	}
	return true
}

// GameKey is a digest of what makes two records the same game: rule set,
// start and moves.
func GameKey(g *gamerec.Game) [32]byte {
	h := sha256.New()
	h.Write([]byte(g.RuleSet))
	h.Write([]byte{0})
	h.Write([]byte(g.StartFEN))
	h.Write([]byte{0})
	h.Write([]byte(strings.Join(strings.Fields(g.Moves), " ")))
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// GameID is the record's game id for a game with key k.
func GameID(k [32]byte) uint64 { return binary.LittleEndian.Uint64(k[:8]) }

// IsHeldOut decides a game's side of the split from its key: the share
// heldOut of all games, the same game always on the same side for a seed.
func IsHeldOut(k [32]byte, heldOut float64, seed uint64) bool {
	if heldOut <= 0 {
		return false
	}
	u := float64(splitmix.Mix(seed, GameID(k))>>11) / (1 << 53)
	return u < heldOut
}

// GamePositions appends to dst the training positions of a recorded game
// under rs (the game's own rule set): one a ply, each with a one-hot
// policy target on the move played (every legal move listed, the others
// at 0, so that training can mask the illegal ones), the game's result to
// the side to move (NoResult where the record has none: those positions
// train the policy only), and the material balance where the game ended.
// The value and WDL fields, a search's estimates in self-play, hold the
// result (a third each where there is none). openingPlies > 0 keeps the
// first openingPlies positions only. The game is checked by
// gamerec.Game.Replay first; its error names the game and ply.
func GamePositions(dst []datasets.Record, g *gamerec.Game, rs *rules.RuleSet, openingPlies int) ([]datasets.Record, error) {
	game, err := g.Replay(rs)
	if err != nil {
		return dst, fmt.Errorf("train: %w", err)
	}
	// The replayed game is walked back to its start and forward again,
	// its moves already resolved: no move text is read twice.
	var finalMaterial [2]int
	for _, c := range []rules.Color{rules.White, rules.Black} {
		finalMaterial[c] = game.Position().MaterialBalance(c)
	}
	moves := game.Moves(nil)
	for game.Undo() {
	}
	id := GameID(GameKey(g))
	var legalBuf [256]rules.Move
	probs := make([]float32, 0, 128)
	for i, m := range moves {
		if openingPlies > 0 && i >= openingPlies {
			break
		}
		legal := game.LegalMoves(legalBuf[:0])
		n := len(dst)
		if n < cap(dst) {
			dst = dst[:n+1]
		} else {
			dst = append(dst, datasets.Record{})
		}
		rec := &dst[n]
		policy := rec.Policy[:0]
		*rec = datasets.Record{GameID: id, Policy: policy, Full: true}
		rec.SetPosition(game, legal)
		game.Play(m)
		probs = probs[:0]
		for _, l := range legal {
			p := float32(0)
			if l == m {
				p = 1
			}
			probs = append(probs, p)
		}
		if err := rec.SetPolicy(legal, probs); err != nil {
			return dst[:n], fmt.Errorf("train: %s ply %d: %w", g.Where(), i+1, err)
		}
		rec.Move = m
		rec.Result = outcomeOf(g.Result, rec.Side)
		rec.FinalMaterial = finalMaterial[rec.Side]
		switch rec.Result {
		case datasets.Win:
			rec.Value, rec.WDL = 1, [3]float32{1, 0, 0}
		case datasets.Draw:
			rec.WDL = [3]float32{0, 1, 0}
		case datasets.Loss:
			rec.Value, rec.WDL = -1, [3]float32{0, 0, 1}
		default:
			rec.WDL = [3]float32{1. / 3, 1. / 3, 1. / 3}
		}
	}
	return dst, nil
}

// Positions appends to dst the training positions of g as GamePositions
// builds them, up to f's opening plies, the policy targets on the moves of
// the sides f's PolicyFrom names (Full false on the others'), and with a
// ScoreScale each scored position's WDL estimate its engine's score.
func (f *GameFilter) Positions(dst []datasets.Record, g *gamerec.Game, rs *rules.RuleSet) ([]datasets.Record, error) {
	n := len(dst)
	dst, err := GamePositions(dst, g, rs, f.OpeningPlies)
	if err != nil {
		return dst, err
	}
	sides := f.policySides(g)
	if sides != [2]bool{true, true} {
		for i := n; i < len(dst); i++ {
			dst[i].Full = sides[dst[i].Side]
		}
	}
	if f.ScoreScale > 0 && len(g.Scores) > 0 {
		for i := n; i < len(dst); i++ {
			if k := i - n; k < len(g.Scores) {
				if p, ok := winProbability(g.Scores[k], f.ScoreScale); ok {
					dst[i].WDL = [3]float32{float32(p), 0, float32(1 - p)}
					dst[i].Value = float32(2*p - 1)
				}
			}
		}
	}
	return dst, nil
}

// winProbability is an engine score's chance of a win to the side it
// scores: logistic in centipawns over scale, certain for a mate; ok is
// false for no score.
func winProbability(s gamerec.Score, scale float64) (p float64, ok bool) {
	switch s.Kind {
	case gamerec.Centipawns:
		return 1 / (1 + math.Exp(-float64(s.Value)/scale)), true
	case gamerec.MateIn:
		if s.Value > 0 {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// policySides says, by colour, whose moves in g are policy targets.
func (f *GameFilter) policySides(g *gamerec.Game) [2]bool {
	var sides [2]bool
	switch {
	case f.PolicyFrom == "winner" && g.Result == gamerec.WhiteWins:
		sides[rules.White] = true
	case f.PolicyFrom == "winner" && g.Result == gamerec.BlackWins:
		sides[rules.Black] = true
	case strings.HasPrefix(f.PolicyFrom, "player:"):
		name := f.PolicyFrom[len("player:"):]
		sides[rules.White] = strings.Contains(g.White, name)
		sides[rules.Black] = strings.Contains(g.Black, name)
	default:
		sides = [2]bool{true, true}
	}
	return sides
}

// outcomeOf is a recorded result (gamerec's 1-0, 0-1, 1/2-1/2 or *) to
// side.
func outcomeOf(result string, side rules.Color) datasets.Outcome {
	switch result {
	case gamerec.WhiteWins:
		if side == rules.White {
			return datasets.Win
		}
		return datasets.Loss
	case gamerec.BlackWins:
		if side == rules.Black {
			return datasets.Win
		}
		return datasets.Loss
	case gamerec.Draw:
		return datasets.Draw
	}
	return datasets.NoResult
}
