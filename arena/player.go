// Package arena plays matches between players (a palace network with a
// search budget, a random mover, external engines over UCI or UCCI, each
// named by a player spec that ParsePlayer reads) and decides, with the
// statistics of package stats, which is stronger. Its Schedule is the one
// pool that plays many games at once, for matches and for the packages
// (experiment, cluster) that play games of their own.
//
// A match plays each opening twice, the players swapping colours, so that
// the two games of a pair cancel out the opening's bias; pairs are the unit
// of the pentanomial statistics and the sequential test (fishtest's GSPRT).
// Every game is appended to the match's record file as it finishes, fsynced,
// so a match killed at any moment resumes with the games it has and plays
// only the rest; the decision depends only on the recorded games, in the
// order of their pairs.
package arena

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

// Player is one side of a match. It must be safe for concurrent NewGame
// calls: a match plays many games at once.
type Player interface {
	// Name says who plays, for records and reports: it should change
	// whenever the player's strength can (network id, search budget).
	Name() string
	// NewGame starts a game; seed is the game's own, for any randomness.
	NewGame(seed uint64) (Mover, error)
}

// Mover plays one game's moves for one side.
type Mover interface {
	// Move returns the move to play in g's position: legal, with the game
	// not over. g must be left as it was found.
	Move(ctx context.Context, g *rules.Game) (rules.Move, error)
	// Close releases the game's resources.
	Close()
}

// A Scorer is a Mover that evaluates the positions it moves from: an
// engine's score, recorded beside each of its moves.
type Scorer interface {
	// LastScore is the score of the position of the last move returned
	// (the zero Score when the engine gave none).
	LastScore() gamerec.Score
}

// A Clocked is a Mover that plays on a clock of its own (an engine given
// tc): what its clock says at the game's end, recorded with the game, so
// that a match at a time control shows how the engine used its time.
type Clocked interface {
	// Clock is the clock now; false when the mover has none.
	Clock() (ClockUse, bool)
}

// ClockUse is one player's clock at a game's end.
type ClockUse struct {
	// LeftMS is the time left on it (0 when the player lost on time).
	LeftMS int64 `json:"left_ms"`
	// GivenMS is what the player was given: the base time and the
	// increment of every move it made.
	GivenMS int64 `json:"given_ms"`
	// Flagged says the player lost on time.
	Flagged bool `json:"flagged,omitempty"`
}

// Random plays a legal move uniformly at random: the floor every trained
// network must clear by far.
type Random struct{}

// Name is "random".
func (Random) Name() string { return "random" }

// NewGame returns a random mover seeded with seed.
func (Random) NewGame(seed uint64) (Mover, error) {
	return &randomMover{rng: rand.New(rand.NewPCG(seed, 0x72616e646f6d))}, nil
}

type randomMover struct {
	rng   *rand.Rand
	legal []rules.Move
}

func (r *randomMover) Move(_ context.Context, g *rules.Game) (rules.Move, error) {
	r.legal = g.LegalMoves(r.legal[:0])
	if len(r.legal) == 0 {
		return rules.NoMove, fmt.Errorf("arena: random player: no legal move in %s", g.Position().FEN())
	}
	return r.legal[r.rng.IntN(len(r.legal))], nil
}

func (r *randomMover) Close() {}

// Search plays with palace's search over a set of network backends, shared
// by all the games it plays at once through batchers and one cache.
type Search struct {
	name   string
	params mcts.Params
	batch  []*nn.Batcher
	cache  *nn.Cache
	mu     sync.Mutex
	next   int
}

// SearchOptions size a Search player's evaluation machinery.
type SearchOptions struct {
	// Evaluators is the number of backends (one batcher each); games are
	// spread over them.
	Evaluators int
	// BatchSize caps a batch (0: 64).
	BatchSize int
	// CacheEntries sizes the evaluation cache (0: none).
	CacheEntries int
}

// NewSearch is a player searching with params over backends made by
// newBackend (called opt.Evaluators times; each backend is used by one
// goroutine at a time). name should identify the network and budget.
func NewSearch(name string, params mcts.Params, newBackend func() (nn.Evaluator, error), opt SearchOptions) (*Search, error) {
	if err := params.Validate(); err != nil {
		return nil, fmt.Errorf("arena: %s: %w", name, err)
	}
	if opt.Evaluators > MaxEvaluators || opt.CacheEntries > nn.MaxCacheEntries {
		return nil, fmt.Errorf("arena: %s: %d evaluators, %d cache entries: want at most %d and %d",
			name, opt.Evaluators, opt.CacheEntries, MaxEvaluators, nn.MaxCacheEntries)
	}
	n := max(opt.Evaluators, 1)
	bs := opt.BatchSize
	if bs <= 0 {
		bs = 64
	}
	p := &Search{name: name, params: params}
	for range n {
		ev, err := newBackend()
		if err != nil {
			return nil, fmt.Errorf("arena: %s: %w", name, err)
		}
		p.batch = append(p.batch, nn.NewBatcher(ev, bs))
	}
	if opt.CacheEntries > 0 {
		if err := nn.CheckCacheMemory(opt.CacheEntries); err != nil {
			return nil, fmt.Errorf("arena: %s: %w", name, err)
		}
		p.cache = nn.NewCache(nil, opt.CacheEntries)
	}
	return p, nil
}

// NewNetwork is a Search player over copies of network w.
func NewNetwork(name string, w *model.Weights, params mcts.Params, opt SearchOptions) (*Search, error) {
	return NewSearch(name, params, func() (nn.Evaluator, error) { return model.NewEvaluator(w) }, opt)
}

// SearchLabel names a search's settings in a player's name: its
// simulations, its draw score unless that is 0 (so names from before the
// draw score still match their records), and lookahead=0 or matecheck=0
// when the root lookahead or the mate check is off, and mode=puct for
// AlphaZero's search (Gumbel's is the default).
func SearchLabel(p mcts.Params) string {
	label := fmt.Sprintf("sims=%d", p.Simulations)
	if p.Mode != mcts.Gumbel {
		label += ",mode=" + p.Mode.String()
	}
	if p.DrawScore != 0 {
		label += fmt.Sprintf(",draw=%g", p.DrawScore)
	}
	if !p.RootLookahead {
		label += ",lookahead=0"
	}
	if !p.MateCheck {
		label += ",matecheck=0"
	}
	return label
}

// Name is the player's name.
func (p *Search) Name() string { return p.name }

// NewGame starts a search for one game, on the next batcher in turn.
func (p *Search) NewGame(seed uint64) (Mover, error) {
	p.mu.Lock()
	b := p.batch[p.next%len(p.batch)]
	p.next++
	p.mu.Unlock()
	ev := &perMove{batcher: b}
	var eval nn.Evaluator = ev
	if p.cache != nil {
		eval = p.cache.WithBackend(ev)
	}
	params := p.params
	params.Seed = seed
	s, err := mcts.New(params, eval)
	if err != nil {
		return nil, fmt.Errorf("arena: %s: %w", p.name, err)
	}
	return &searchMover{s: s, ev: ev}, nil
}

// perMove is a batcher client that exists only while its side is thinking:
// a client left open while the opponent moves would hold back every other
// game's batches.
type perMove struct {
	batcher *nn.Batcher
	client  *nn.Client
}

func (e *perMove) Evaluate(in []nn.Input, out []nn.Output) error {
	return e.client.Evaluate(in, out)
}

func (e *perMove) InputSize() int  { return encode.InputSize }
func (e *perMove) PolicySize() int { return encode.PolicySize() }

type searchMover struct {
	s   *mcts.Search
	ev  *perMove
	res mcts.Result
}

func (m *searchMover) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	m.ev.client = m.ev.batcher.NewClient()
	defer func() {
		m.ev.client.Close()
		m.ev.client = nil
	}()
	if err := m.s.RunWith(g, mcts.RunOptions{Stop: ctx.Done()}, &m.res); err != nil {
		return rules.NoMove, err
	}
	if err := ctx.Err(); err != nil { // a search cut short is not this player's move
		return rules.NoMove, err
	}
	return m.res.Best, nil
}

func (m *searchMover) Close() {}
