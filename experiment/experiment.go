// Package experiment measures what a change of rules does to the game: one
// player (a network with its search) plays itself under two rule sets, A
// and B, in paired games, and the analysis reports the first mover's
// advantage, the draw rate, game length and how games end under each, with
// the differences B − A and whether they are significant.
//
// Game i under A and game i under B start from the same position (janggi's
// setups in turn, then the same random opening moves) and use the same seed
// for the search's random numbers, so the two games differ only through the
// rules and what they lead the search to. The per-pair differences are the
// observations, which removes the openings' and the seeds' share of the
// variance from the comparison.
//
// Every game is appended to the experiment's record file as it finishes,
// fsynced, so an experiment killed at any moment resumes with the games it
// has and plays only the rest; with a deterministic evaluator (the portable
// kernel, or the test evaluators) the resumed records equal an
// uninterrupted run's.
package experiment

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/internal/jsonlrec"
	"github.com/palace-chess/palace/internal/splitmix"
	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/rules"
)

// Config is one experiment.
type Config struct {
	// A and B are the rule sets compared: two rule sets of the same game.
	A, B *rules.RuleSet
	// Player plays both sides of every game (self-play). Its Name is
	// recorded and must change whenever its play can.
	Player arena.Player
	// PlayerB, when set, plays rule set B's games instead (Player then
	// plays A's): a player per rule set, each trained under its own rules.
	PlayerB arena.Player
	// Settings are a match's, read as an experiment's: Pairs is the
	// number of game indices, 0 to Pairs-1, each played once under A and
	// once under B (a record file holding fewer resumes; asking for more
	// later extends the experiment); OpeningPlies random moves (no passes)
	// open each game, the same under A and B (0 starts from the setup
	// itself); Concurrency games are played at once (0: 1).
	arena.Settings
	// Seed decides every game's opening and search seed.
	Seed uint64
	// Records is the record file: appended as games finish, read back to
	// resume.
	Records     string
	CodeVersion string
	// Progress, when set, is called after every recorded game (never
	// concurrently).
	Progress func(Status)
}

// Status is an experiment's progress.
type Status struct {
	// Recorded counts the games recorded of Target (2·Games); Played those
	// this run added.
	Recorded, Target, Played int
	// Tally holds the running counts under A and B.
	Tally [2]Tally
	Last  GameRecord
}

// Tally counts games from the first mover's view.
type Tally struct{ Games, Wins, Draws, Losses, Plies int }

// Score is the first mover's mean score (0.5 with no games).
func (t Tally) Score() float64 {
	if t.Games == 0 {
		return 0.5
	}
	return (float64(t.Wins) + float64(t.Draws)/2) / float64(t.Games)
}

func (t *Tally) add(r GameRecord) {
	t.Games++
	t.Plies += r.Plies
	switch r.FirstMoverScore() {
	case 1:
		t.Wins++
	case 0:
		t.Losses++
	default:
		t.Draws++
	}
}

// Outcome is what Run leaves: the records of game indices below Games.
type Outcome struct {
	Header Header
	// Records are ordered by index, A before B.
	Records []GameRecord
	// Before counts the records found at the start, Played those added.
	Before, Played int
	// Beyond counts records of indices at or past Games (an experiment
	// that once asked for more games): kept in the file, left out here.
	Beyond int
}

// maxGamePlies stops a game no rule set ends: a rule set without a move
// limit or length cap can let a search shuffle forever.
const maxGamePlies = 20000

// maxOpeningAttempts bounds the redraws of an opening that one rule set
// refuses.
const maxOpeningAttempts = 1000

// SearchParams are the search settings of an experiment's player: palace's
// self-play search (Gumbel, with its noise on every move so that games
// differ) with the full budget on every move, since no move is a training
// target and the rules should meet the player at one strength throughout.
func SearchParams(simulations int) mcts.Params {
	p := mcts.DefaultParams()
	p.Simulations = simulations
	p.CheapSimulations, p.FullFraction = 0, 1
	return p
}

// GameSeed is game index i's seed, shared by its games under A and B.
func GameSeed(seed uint64, i int) uint64 { return splitmix.Mix(seed, uint64(i)) }

// Seeds derived from a game's seed, one per use.
const (
	moverSeed   = 1
	openingSeed = 2
)

// Run plays the experiment's missing games, or until ctx is cancelled:
// then the games in progress are dropped, to be played again on resume,
// and ctx's error is returned with what is recorded.
func Run(ctx context.Context, c Config) (Outcome, error) {
	c.Concurrency = max(c.Concurrency, 1)
	if err := c.check(); err != nil {
		return Outcome{}, err
	}
	hdr := c.header()
	rf, recs, err := openRecords(c.Records, hdr)
	if err != nil {
		return Outcome{}, err
	}
	defer rf.Close()

	out := Outcome{Header: hdr}
	played := map[arena.PairGame]bool{}
	st := Status{Target: 2 * c.Pairs}
	for _, r := range recs {
		if r.Index >= c.Pairs {
			out.Beyond++
			continue
		}
		played[arena.PairGame{Pair: r.Index, Game: r.side()}] = true
		out.Records = append(out.Records, r)
		st.Tally[r.side()].add(r)
	}
	out.Before = len(out.Records)
	st.Recorded = out.Before
	// Game 0 of pair i is index i under A, game 1 under B.
	err = arena.PlayRecorded(ctx, rf, c.Pairs, c.Concurrency, played,
		func(ctx context.Context, job arena.PairGame) (GameRecord, error) {
			return c.playGame(ctx, job.Pair, job.Game)
		},
		func(job arena.PairGame, rec GameRecord) bool {
			out.Records = append(out.Records, rec)
			out.Played++
			st.Recorded++
			st.Played++
			st.Tally[job.Game].add(rec)
			st.Last = rec
			if c.Progress != nil {
				c.Progress(st)
			}
			return false
		})
	sortRecords(out.Records)
	return out, err
}

func (c *Config) check() error {
	switch {
	case c.A == nil || c.B == nil:
		return errors.New("experiment: a rule set is missing (want A and B)")
	case c.Player == nil:
		return errors.New("experiment: no player")
	}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("experiment: %s", strings.TrimPrefix(err.Error(), "arena: "))
	}
	if c.Records == "" {
		return errors.New("experiment: no record file")
	}
	for _, rs := range []*rules.RuleSet{c.A, c.B} {
		if err := rs.Validate(); err != nil {
			return fmt.Errorf("experiment: %w", err)
		}
	}
	return SameGame(c.A, c.B)
}

// SameGame reports, as an error, rule sets of two different games: their
// positions and moves have nothing in common to pair.
func SameGame(a, b *rules.RuleSet) error {
	if a.Game != b.Game {
		return fmt.Errorf("experiment: rule set %s is for %s and %s for %s; an experiment compares two rule sets of the same game",
			a.Name, a.Game, b.Name, b.Game)
	}
	return nil
}

func (c *Config) header() Header {
	h := Header{Kind: recordSpec.Kind, A: c.A, B: c.B, Player: c.Player.Name(), OpeningPlies: c.OpeningPlies,
		Seed: c.Seed, Stamp: jsonlrec.NewStamp(c.CodeVersion)}
	if c.PlayerB != nil {
		h.PlayerB = c.PlayerB.Name()
	}
	return h
}

// playGame plays game index i under rule set side (0: A, 1: B).
func (c *Config) playGame(ctx context.Context, i, side int) (GameRecord, error) {
	rs, player := c.A, c.Player
	if side == 1 {
		rs = c.B
		if c.PlayerB != nil {
			player = c.PlayerB
		}
	}
	o, err := OpeningFor(c.A, c.B, c.OpeningPlies, c.Seed, i)
	if err != nil {
		return GameRecord{}, err
	}
	g, err := o.Game(rs)
	if err != nil {
		return GameRecord{}, fmt.Errorf("experiment: game %d: %w", i, err)
	}
	seed := GameSeed(c.Seed, i)
	// One mover plays both sides: self-play, with one search tree reused
	// across both sides' moves.
	mv, err := player.NewGame(splitmix.Mix(seed, moverSeed))
	if err != nil {
		return GameRecord{}, fmt.Errorf("experiment: game %d: %w", i, err)
	}
	defer mv.Close()
	var res rules.Result
	for {
		if res = g.Result(); res.Over() {
			break
		}
		if g.Ply() >= maxGamePlies {
			return GameRecord{}, fmt.Errorf("experiment: game %d under %s passed %d plies without ending; give the rule sets a length cap (maxPlies)", i, rs.Name, maxGamePlies)
		}
		m, err := mv.Move(ctx, g)
		if ctx.Err() != nil {
			return GameRecord{}, ctx.Err()
		}
		if err != nil {
			return GameRecord{}, fmt.Errorf("experiment: game %d under %s, ply %d: %w", i, rs.Name, g.Ply()+1, err)
		}
		if !g.IsLegal(m) {
			return GameRecord{}, fmt.Errorf("experiment: game %d under %s: %s played the illegal move %s in %s", i, rs.Name, player.Name(), m, g.Position().FEN())
		}
		g.Play(m)
	}
	passes := 0
	for _, m := range g.Moves(nil) {
		if m.IsPass() {
			passes++
		}
	}
	return GameRecord{Index: i, Rules: sideNames[side], Seed: seed, Opening: o.Name,
		Record: gamerec.Record{End: gamerec.EndOf(res), Plies: g.Ply(), Line: gamerec.LineOf(g)}, Passes: passes}, nil
}

// OpeningFor is game index i's opening, the same under a and b: for
// janggi the setups in turn (i mod 16: Cho's setup i/4 mod 4, Han's i mod
// 4, as arena.RandomOpenings cycles them), then plies random legal moves
// other than passes, drawn from seed and i. A move one rule set refuses,
// or an opening after which either rule set ends the game, is redrawn
// whole, for both: the pair must start alike.
func OpeningFor(a, b *rules.RuleSet, plies int, seed uint64, i int) (arena.Opening, error) {
	if err := SameGame(a, b); err != nil {
		return arena.Opening{}, err
	}
	fen, name := a.StartFEN(), a.Game.String()
	if a.Game == rules.Janggi {
		k := i % 16
		cho, han := rules.JanggiSetup(k/4), rules.JanggiSetup(k%4)
		fen, name = rules.JanggiSetupFEN(cho, han), "janggi "+cho.String()+","+han.String()
	}
	gs := [2]*rules.Game{}
	for s, rs := range []*rules.RuleSet{a, b} {
		g, err := rules.NewGame(rs, fen)
		if err != nil {
			return arena.Opening{}, fmt.Errorf("experiment: %w", err)
		}
		gs[s] = g
	}
	over := func() bool { return gs[0].Result().Over() || gs[1].Result().Over() }
	seed = splitmix.Mix(GameSeed(seed, i), openingSeed)
	var legal []rules.Move
	for attempt := range maxOpeningAttempts {
		rng := rand.New(rand.NewPCG(seed, uint64(attempt)))
		for _, g := range gs {
			g.Reset()
		}
		var moves []rules.Move
		for len(moves) < plies && !over() {
			legal = gs[0].LegalMoves(legal[:0])
			n := 0
			for _, m := range legal {
				if !m.IsPass() { // a pass would only waste the opening
					legal[n] = m
					n++
				}
			}
			if n == 0 {
				break
			}
			m := legal[rng.IntN(n)]
			if !gs[1].IsLegal(m) {
				break
			}
			gs[0].Play(m)
			gs[1].Play(m)
			moves = append(moves, m)
		}
		if len(moves) == plies && !over() {
			o := arena.Opening{FEN: fen, Moves: moves}
			o.Name = strings.TrimSpace(name + " " + o.MovesText())
			return o, nil
		}
		if plies == 0 {
			break // nothing to redraw
		}
	}
	return arena.Opening{}, fmt.Errorf("experiment: no opening of %d plies for game %d is playable under both %s and %s", plies, i, a.Name, b.Name)
}
