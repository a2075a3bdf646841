package arena

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/internal/jsonlrec"
	"github.com/palace-chess/palace/internal/splitmix"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
)

// Match is a match between players A (the candidate) and B (the
// baseline). Pair i plays opening i mod len(Openings) twice: game 0 with A
// as White (the side that moves first in the start position: red in
// xiangqi, Cho in janggi), game 1 with A as Black.
type Match struct {
	RuleSet  *rules.RuleSet
	Openings []Opening
	A, B     Player
	// Pairs is the most game pairs to play.
	Pairs int
	// SPRT, when set, stops the match as soon as the test decides (on
	// the pairs in order: the decision never depends on which game
	// happened to finish first).
	SPRT *stats.SPRT
	// Concurrency is the number of games played at once.
	Concurrency int
	// Records is the match's record file: appended as games finish and
	// read back to resume, every game replayed (CheckRecords).
	Records string
	// Seed decides each game's seeds.
	Seed        uint64
	CodeVersion string
	// Progress, when set, receives the standings after every game.
	Progress func(Summary)
}

// RecordsFormat and RecordsVersion identify a match record file.
const (
	RecordsFormat  = "palace-arena"
	RecordsVersion = 1
)

// Header is a record file's first line: what the match is, so that a
// resumed match with other players, rules or openings is refused.
type Header struct {
	jsonlrec.Kind
	RuleSet     string      `json:"rule_set"`
	A           string      `json:"a"`
	B           string      `json:"b"`
	Openings    int         `json:"openings"`
	OpeningsKey string      `json:"openings_key"` // digest of every opening
	Pairs       int         `json:"pairs"`
	SPRT        *stats.SPRT `json:"sprt,omitempty"`
	Seed        uint64      `json:"seed"`
	jsonlrec.Stamp
}

// GameRecord is one finished game of a match: the game's record
// (gamerec.Record: its end, plies after the opening, start, moves and the
// movers' scores for those plies) in the match's own fields.
type GameRecord struct {
	Pair    int    `json:"pair"`
	Game    int    `json:"game"` // 0: A is White; 1: A is Black
	Opening string `json:"opening"`
	// Score is A's: 1, 0.5 or 0.
	Score float64 `json:"score"`
	// The game's end's reason is "forfeit" when a player failed; its
	// Plies count the moves after the opening, and Scores, absent when
	// neither player gives any (only engines do: a Scorer), those moves'.
	gamerec.Record
	// Forfeit names the player that failed (an error instead of a
	// move), when one did.
	Forfeit string `json:"forfeit,omitempty"`
	// ClockA and ClockB are A's and B's clocks at the game's end, for a
	// player on a clock of its own (Clocked).
	ClockA *ClockUse `json:"clock_a,omitempty"`
	ClockB *ClockUse `json:"clock_b,omitempty"`
}

// Summary is a match's standing: counts from A's view and what the test
// says.
type Summary struct {
	A, B        string
	Games       int
	WDL         stats.WDL
	Pentanomial stats.Pentanomial
	// Elo is A's over B, from the pairs (the pentanomial estimate, which
	// accounts for the openings); EloGames is the per-game estimate.
	Elo, EloGames stats.EloEstimate
	LLR           float64
	Lower, Upper  float64 // the test's bounds (0 without a test)
	Decision      stats.Decision
	// Done says the match is over: decided, or every pair played.
	Done bool
	// WhiteScore is the first mover's score over all games.
	WhiteScore float64
	// Clocks are A's and B's use of their clocks, over the games where
	// they played on one.
	Clocks [2]ClockSummary
}

// ClockSummary is how a player on a clock used it over a match's games.
type ClockSummary struct {
	Games   int // games played on a clock
	Flagged int // of them lost on time
	// MeanLeft and MaxLeft are the time left at the games' ends; the
	// shares are of what each game gave (ClockUse.GivenMS).
	MeanLeft, MaxLeft           time.Duration
	MeanLeftShare, MaxLeftShare float64
}

func (c *ClockSummary) add(u *ClockUse) {
	if u == nil {
		return
	}
	left := time.Duration(u.LeftMS) * time.Millisecond
	share := 0.0
	if u.GivenMS > 0 {
		share = float64(u.LeftMS) / float64(u.GivenMS)
	}
	// Running means: the summary is folded game by game.
	c.Games++
	c.MeanLeft += (left - c.MeanLeft) / time.Duration(c.Games)
	c.MeanLeftShare += (share - c.MeanLeftShare) / float64(c.Games)
	c.MaxLeft, c.MaxLeftShare = max(c.MaxLeft, left), max(c.MaxLeftShare, share)
	if u.Flagged {
		c.Flagged++
	}
}

// Play plays the match's missing games until the test decides or every
// pair is played, or ctx is cancelled (then the games in progress are
// dropped, to be played again on resume, and ctx's error is returned with
// the standings so far).
func Play(ctx context.Context, m Match) (Summary, error) {
	if err := m.check(); err != nil {
		return Summary{}, err
	}
	hdr := m.Header()
	rf, recs, err := jsonlrec.Open(m.Records, hdr, &recordSpec)
	if err != nil {
		return Summary{}, err
	}
	defer rf.Close()
	// Resumed games count only as their moves say.
	if err := CheckRecords(m.Records, m.RuleSet, m.Openings, recs); err != nil {
		return Summary{}, err
	}
	sum := summarize(&m, recs)
	if sum.Done {
		return sum, nil
	}
	played := map[PairGame]bool{}
	for _, r := range recs {
		played[PairGame{r.Pair, r.Game}] = true
	}
	err = PlayRecorded(ctx, rf, m.Pairs, m.Concurrency, played,
		func(ctx context.Context, job PairGame) (GameRecord, error) {
			return m.playGame(ctx, job.Pair, job.Game)
		},
		func(_ PairGame, rec GameRecord) bool {
			recs = append(recs, rec)
			sum = summarize(&m, recs)
			if m.Progress != nil {
				m.Progress(sum)
			}
			return sum.Done
		})
	return sum, err
}

// PlayPairs plays the games of the match's pairs pairs, Concurrency at a
// time, without the record file: their records, two a pair (A as White,
// then as Black), in the order of pairs. A cluster worker plays its jobs'
// pairs so, the gatekeeper recording them.
func PlayPairs(ctx context.Context, m Match, pairs []int) ([]GameRecord, error) {
	if err := m.checkGames(); err != nil {
		return nil, err
	}
	type slot struct {
		PairGame
		i int
	}
	jobs := make([]slot, 0, 2*len(pairs))
	for i, p := range pairs {
		if p < 0 || p >= m.Pairs {
			return nil, fmt.Errorf("arena: pair %d of a %d-pair match", p, m.Pairs)
		}
		jobs = append(jobs, slot{PairGame{p, 0}, 2 * i}, slot{PairGame{p, 1}, 2*i + 1})
	}
	recs := make([]GameRecord, len(jobs))
	sched := Schedule[slot, GameRecord]{
		Jobs: jobs, Workers: m.Concurrency,
		Play: func(ctx context.Context, job slot) (GameRecord, error) { return m.playGame(ctx, job.Pair, job.Game) },
		Record: func(job slot, rec GameRecord) (bool, error) {
			recs[job.i] = rec
			return false, nil
		},
	}
	if err := sched.Run(ctx); err != nil {
		return nil, err
	}
	return recs, nil
}

func (m *Match) check() error {
	if err := m.checkGames(); err != nil {
		return err
	}
	if m.Records == "" {
		return errors.New("arena: no record file")
	}
	if m.SPRT != nil {
		if err := m.SPRT.Validate(); err != nil {
			return fmt.Errorf("arena: %w", err)
		}
	}
	return nil
}

// checkGames checks what playing the match's games needs.
func (m *Match) checkGames() error {
	switch {
	case m.RuleSet == nil:
		return errors.New("arena: no rule set")
	case len(m.Openings) == 0:
		return errors.New("arena: no openings")
	case m.A == nil || m.B == nil:
		return errors.New("arena: a player is missing")
	}
	// The match's openings are made already; its concurrency 0 is 1.
	s := Settings{Pairs: m.Pairs, Concurrency: max(m.Concurrency, 1)}
	return s.Validate()
}

// Header is the header Play writes in m's record file (started now): for
// a match played across machines (package cluster's gate), its pairs on
// workers (PlayPairs) and its record file kept in a store by one machine
// (WriteRecords, ParseRecords).
func (m *Match) Header() Header {
	return NewHeader(m.RuleSet, m.A.Name(), m.B.Name(), m.Openings, m.Pairs, m.SPRT, m.Seed, m.CodeVersion)
}

// NewHeader is the record file header of a match between players named a
// and b, started now: what Play writes, for a driver that plays a match's
// games elsewhere and keeps its record file itself (the cluster's
// gatekeeper).
func NewHeader(rs *rules.RuleSet, a, b string, openings []Opening, pairs int, sprt *stats.SPRT, seed uint64, codeVersion string) Header {
	var key bytes.Buffer
	for _, o := range openings {
		key.WriteString(o.FEN + "|" + o.MovesText() + "\n")
	}
	return Header{Kind: recordSpec.Kind, RuleSet: rs.String(),
		A: a, B: b, Openings: len(openings), OpeningsKey: digest(key.Bytes()),
		Pairs: pairs, SPRT: sprt, Seed: seed, Stamp: jsonlrec.NewStamp(codeVersion)}
}

// playGame plays game g of pair p.
func (m *Match) playGame(ctx context.Context, p, gi int) (GameRecord, error) {
	o := m.Openings[p%len(m.Openings)]
	g, err := o.Game(m.RuleSet)
	if err != nil {
		return GameRecord{}, err
	}
	// Colour by colour: players[rules.White] moves White's moves.
	var players [2]Player
	if gi == 0 {
		players[rules.White], players[rules.Black] = m.A, m.B
	} else {
		players[rules.White], players[rules.Black] = m.B, m.A
	}
	var movers [2]Mover
	for c := range 2 {
		seed := splitmix.Mix(m.Seed, uint64(p)<<2|uint64(gi)<<1|uint64(c))
		mv, err := players[c].NewGame(seed)
		if err != nil {
			return GameRecord{}, err
		}
		defer mv.Close()
		movers[c] = mv
	}
	start := g.Ply()
	forfeit := ""
	var res rules.Result
	reason := ""
	var scores []gamerec.Score
	for {
		if res = g.Result(); res.Over() {
			break
		}
		side := g.Position().SideToMove()
		mv, err := movers[side].Move(ctx, g)
		if ctx.Err() != nil {
			return GameRecord{}, ctx.Err()
		}
		if err == nil && !g.IsLegal(mv) {
			err = fmt.Errorf("illegal move %s in %s", mv, g.Position().FEN())
		}
		if err != nil {
			// The game is lost on forfeit; the match goes on.
			forfeit = fmt.Sprintf("%s: %v", players[side].Name(), err)
			res, reason = rules.Result{Outcome: rules.WhiteWins}, "forfeit"
			if side == rules.White {
				res.Outcome = rules.BlackWins
			}
			break
		}
		var sc gamerec.Score
		if s, ok := movers[side].(Scorer); ok {
			sc = s.LastScore()
		}
		scores = append(scores, sc)
		g.Play(mv)
	}
	if !slices.ContainsFunc(scores, gamerec.Score.Given) {
		scores = nil // no player gave a score: none recorded
	}
	if reason == "" {
		reason = res.Reason.String()
	}
	score := 0.5
	switch {
	case res.Outcome == rules.WhiteWins:
		score = 1
	case res.Outcome == rules.BlackWins:
		score = 0
	}
	a := rules.White
	if gi == 1 {
		score = 1 - score
		a = rules.Black
	}
	return GameRecord{Pair: p, Game: gi, Opening: o.Name, Score: score, Record: gamerec.Record{
		End: gamerec.End{Result: res.Score(), Reason: reason}, Plies: g.Ply() - start, Line: gamerec.LineOf(g), Scores: scores},
		Forfeit: forfeit, ClockA: clockOf(movers[a]), ClockB: clockOf(movers[a.Other()])}, nil
}

// clockOf is mv's clock, nil when it plays without one.
func clockOf(mv Mover) *ClockUse {
	if c, ok := mv.(Clocked); ok {
		if u, ok := c.Clock(); ok {
			return &u
		}
	}
	return nil
}

// summarize folds the records, pair by pair in order, into the standings;
// with a test, it stops at the first pair where the test decides.
func summarize(m *Match, recs []GameRecord) Summary {
	return summarizeRecords(m.A.Name(), m.B.Name(), m.Pairs, m.SPRT, recs)
}

// Summarize is the standings of a record file's games under its header's
// settings: what Play reported when it wrote them.
func Summarize(h Header, recs []GameRecord) Summary {
	return summarizeRecords(h.A, h.B, h.Pairs, h.SPRT, recs)
}

// PairUp groups a match's records by pair, for the paired statistics:
// key gives a record's pair and its game in the pair (0 or 1). A pair
// still missing a game has nil in its place.
func PairUp[R any](recs []R, key func(*R) (pair, game int)) map[int]*[2]*R {
	pairs := make(map[int]*[2]*R, len(recs)/2+1)
	for i := range recs {
		r := &recs[i]
		p, g := key(r)
		pr := pairs[p]
		if pr == nil {
			pr = new([2]*R)
			pairs[p] = pr
		}
		pr[g] = r
	}
	return pairs
}

func summarizeRecords(a, b string, npairs int, sprt *stats.SPRT, recs []GameRecord) Summary {
	s := Summary{A: a, B: b, Decision: stats.Continue}
	if sprt != nil {
		s.Lower, s.Upper = sprt.Bounds()
	}
	pairs := PairUp(recs, func(r *GameRecord) (int, int) { return r.Pair, r.Game })
	var white float64
	add := func(r *GameRecord) {
		s.Games++
		switch r.Score {
		case 1:
			s.WDL.Wins++
		case 0:
			s.WDL.Losses++
		default:
			s.WDL.Draws++
		}
		if r.Game == 0 {
			white += r.Score
		} else {
			white += 1 - r.Score
		}
		s.Clocks[0].add(r.ClockA)
		s.Clocks[1].add(r.ClockB)
	}
	complete := 0
	for p := 0; p < npairs; p++ {
		pr := pairs[p]
		if pr == nil || pr[0] == nil || pr[1] == nil {
			// A pair still missing a game: the games after it wait, so
			// that the test sees pairs in order.
			break
		}
		add(pr[0])
		add(pr[1])
		if k, err := stats.PairIndex(pr[0].Score, pr[1].Score); err == nil {
			s.Pentanomial[k]++
		}
		complete++
		if sprt != nil {
			s.LLR = sprt.LLRPentanomial(s.Pentanomial)
			if s.Decision = sprt.Decide(s.LLR); s.Decision != stats.Continue {
				s.Done = true
				break
			}
		}
	}
	if complete == npairs {
		s.Done = true
	}
	// Games of pairs not yet complete count in the per-game figures.
	if !s.Done {
		for p, pr := range pairs {
			if p < complete {
				continue
			}
			for _, r := range pr {
				if r != nil {
					add(r)
				}
			}
		}
	}
	if s.Games > 0 {
		s.WhiteScore = white / float64(s.Games)
	}
	s.Elo = s.Pentanomial.Elo()
	s.EloGames = s.WDL.Elo()
	return s
}

// recordSpec is the match record file: a Header line, then a GameRecord
// a line as each game finishes.
var recordSpec = jsonlrec.Spec[Header, GameRecord]{
	Pkg: "arena", What: "match", Kind: jsonlrec.Kind{Format: RecordsFormat, Version: RecordsVersion},
	Same: func(got, want *Header) error { return sameMatch(*got, *want) },
	Check: func(h *Header, r *GameRecord) error {
		if r.Pair < 0 || r.Pair >= h.Pairs || r.Game < 0 || r.Game > 1 || !(r.Score == 0 || r.Score == 0.5 || r.Score == 1) {
			return fmt.Errorf("pair %d game %d score %v out of range", r.Pair, r.Game, r.Score)
		}
		for i, c := range [2]*ClockUse{r.ClockA, r.ClockB} {
			if c != nil && (c.LeftMS < 0 || c.GivenMS <= 0 || c.LeftMS > c.GivenMS) {
				return fmt.Errorf("pair %d game %d: %s's clock %d ms left of %d given: out of range", r.Pair, r.Game, "AB"[i:i+1], c.LeftMS, c.GivenMS)
			}
		}
		return nil
	},
	Key: func(r *GameRecord) string { return fmt.Sprintf("pair %d game %d", r.Pair, r.Game) },
}

// sameMatch compares everything but the start time and code version.
func sameMatch(got, want Header) error {
	var diffs []string
	if got.RuleSet != want.RuleSet {
		diffs = append(diffs, fmt.Sprintf("rule set %s, not %s", got.RuleSet, want.RuleSet))
	}
	if got.A != want.A || got.B != want.B {
		diffs = append(diffs, fmt.Sprintf("players %s vs %s, not %s vs %s", got.A, got.B, want.A, want.B))
	}
	if got.OpeningsKey != want.OpeningsKey || got.Pairs != want.Pairs || got.Seed != want.Seed {
		diffs = append(diffs, "other openings, pairs or seed")
	}
	if (got.SPRT == nil) != (want.SPRT == nil) || (got.SPRT != nil && *got.SPRT != *want.SPRT) {
		diffs = append(diffs, "another sequential test")
	}
	if len(diffs) > 0 {
		return errors.New(strings.Join(diffs, "; "))
	}
	return nil
}

// ReadRecords reads a match record file: its header and games, in pair
// order. A torn last line (a match still being written, or killed) is left
// alone and ignored.
func ReadRecords(path string) (Header, []GameRecord, error) {
	h, recs, err := jsonlrec.Read(path, &recordSpec)
	return h, sortRecords(recs), err
}

// ParseRecords is ReadRecords on a record file's contents (held in a
// store, say); name names it in errors.
func ParseRecords(name string, data []byte) (Header, []GameRecord, error) {
	h, recs, err := jsonlrec.Parse(name, data, &recordSpec)
	return h, sortRecords(recs), err
}

// WriteRecords writes a whole match record file to w: h, then recs in
// pair order, as Play would have written them.
func WriteRecords(w io.Writer, h Header, recs []GameRecord) error {
	return jsonlrec.Encode(w, h, sortRecords(slices.Clone(recs)), &recordSpec)
}

// sortRecords puts recs in pair order, A's White game first.
func sortRecords(recs []GameRecord) []GameRecord {
	slices.SortFunc(recs, func(a, b GameRecord) int { return (a.Pair*2 + a.Game) - (b.Pair*2 + b.Game) })
	return recs
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}
