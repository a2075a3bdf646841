// Package selfplay plays many games at once through mcts with one shared,
// batching evaluator and writes what training needs: shards of position
// records (datasets) and, beside each shard, the games themselves
// (gamerec games files), which palace replays to check them.
//
// # Durability
//
// Games are numbered 0 to Job.Games-1, and game i's randomness comes
// from (Job.Seed, i) alone. Completed games are gathered in memory in
// blocks of GamesPerShard consecutive indices (of those still missing), and
// each block, once all its games are finished, is written in index order
// as one shard in three steps:
//
//  1. the game-record file NAME.games.jsonl, crash-safely (temporary
//     file, fsync, rename);
//  2. the shard NAME.shard, the same way (datasets.Writer);
//  3. the shard's entry in the manifest, rewritten crash-safely.
//
// Step 3 is the commit point: a game is complete when a shard the
// manifest lists holds it. A run that starts in a directory with games
// reads the listed shards' game records to learn which indices are
// complete, removes the debris a crash may leave (temporary files, a
// game-record file or shard that is not listed), and plays the indices
// still missing. Games that were being played, or were finished but not
// yet committed (their block was incomplete), when the process died or
// the run was cancelled are played again from scratch; none is lost and
// none is written twice. A lock file keeps a second run out of a directory
// in use.
//
// # Reproducibility
//
// With the same configuration a game's moves depend only on the network's
// outputs, and the evaluation cache returns exactly what the network
// computed. So a resumed run plays the games an uninterrupted run would
// have played whenever the network's output for a position does not
// depend on the batch it was computed in: true of palace's own kernels
// (nn/model's bf16 and avx512 paths, for networks whose filters are a
// multiple of 32), of its Go kernel (PALACE_BLAS=off) and of the nn test
// evaluators, not of OpenBLAS, whose kernels round differently for
// different batch shapes. The paths differ from one another, so a run
// resumed on a CPU with other features (or another PALACE_KERNEL) is like
// one under OpenBLAS. Under OpenBLAS a
// game replayed after a crash is a valid game from the same seed, but its
// moves may drift from the uninterrupted run's after the first near tie;
// the set of game indices is exact either way. Because shards are whole
// blocks in index order, the shards themselves (and so any training on
// them) come out the same whenever the games do.
package selfplay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/internal/runlock"
	"github.com/palace-chess/palace/internal/splitmix"
	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

// Options are a run's settings beyond its Config and Job.
type Options struct {
	// Progress, when set, receives the run's reports (see EventKind),
	// one at a time; selfplay draws nothing itself.
	Progress func(Event)
	// Interval is the time between EventProgress reports (default 5 s).
	Interval time.Duration
	// CodeVersion is recorded in shard headers and game records.
	CodeVersion string
	// Evaluator, when set, replaces the network: each of Config.Evaluators
	// batchers gets the backend it returns, and networkID names it in
	// the files. For tests and benchmarks.
	Evaluator func() (ev nn.Evaluator, networkID string, err error)
}

// Stats describe a run: what the directory holds and what this run did.
type Stats struct {
	Target   int   // game indices the directory should hold: 0 to Target-1
	Before   int   // of them, complete when the run started
	Played   int   // games this run committed
	Finished int   // games this run finished (committed or gathered)
	Shards   int   // shards this run wrote
	Plies    int64 // plies of the finished games
	// Positions are the positions searched (one record each),
	// Evaluations the positions the searches evaluated (cache hits
	// included); Network and Cache are the batchers' and the cache's
	// counters.
	Positions   int64
	Evaluations int64
	Network     nn.BatcherStats
	Cache       nn.CacheStats
	Elapsed     time.Duration
	NetworkID   string
	RuleSet     string
	Resigns     Resignations
}

// Resignations are self-play's resignation counts (Config.Resign): the
// finished games a side resigned, the played-out games in which a side
// would have, and those of them that side did not lose.
type Resignations struct {
	Resigned int64 `json:"resigned,omitempty"`
	Would    int64 `json:"would,omitempty"`
	False    int64 `json:"false,omitempty"`
}

// Add adds o's counts to r's.
func (r *Resignations) Add(o Resignations) {
	r.Resigned += o.Resigned
	r.Would += o.Would
	r.False += o.False
}

// GamesPerHour is the rate of finished games.
func (s Stats) GamesPerHour() float64 { return rate(float64(s.Finished), s.Elapsed) * 3600 }

// PositionsPerSecond is the rate of searched positions.
func (s Stats) PositionsPerSecond() float64 { return rate(float64(s.Positions), s.Elapsed) }

// EvaluationsPerSecond is the rate of the network's evaluations (cache
// misses).
func (s Stats) EvaluationsPerSecond() float64 { return rate(float64(s.Network.Positions), s.Elapsed) }

// MeanPlies is the finished games' mean length.
func (s Stats) MeanPlies() float64 {
	if s.Finished == 0 {
		return 0
	}
	return float64(s.Plies) / float64(s.Finished)
}

func rate(n float64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return n / d.Seconds()
}

// runner is one Run's state.
type runner struct {
	cfg     Config
	job     Job
	opt     Options
	dir     string
	rs      *rules.RuleSet
	netID   string
	hash    string
	backend []nn.Evaluator
	batch   []*nn.Batcher
	cache   *nn.Cache

	nextShard  int
	before     int
	start      time.Time
	progressMu sync.Mutex // the ticker and the shard writer both report

	finished, played, shards atomic.Int64
	plies, positions, evals  atomic.Int64
	// resigned counts the games a side resigned; wouldResign the
	// played-out games in which one would have, falseResign those of them
	// it did not lose.
	resigned, wouldResign, falseResign atomic.Int64
}

// finishedGame is a game waiting for its shard.
type finishedGame struct {
	rec     gamerec.Game
	records []datasets.Record
}

// Run plays the games job.Output is missing until it holds games 0 to
// job.Games-1, or until ctx is cancelled: then the complete blocks of
// finished games are committed and the rest dropped (a later run plays
// them).
// It returns the run's statistics; a cancelled run is not an error.
func Run(ctx context.Context, cfg Config, job Job, opt Options) (Stats, error) {
	r, unlock, err := openRunner(cfg, job, opt)
	if err != nil {
		return Stats{}, err
	}
	defer unlock()
	done, err := r.resume()
	if err != nil {
		return r.stats(), err
	}
	var todo []uint64
	for i := range uint64(job.Games) {
		if !done[i] {
			todo = append(todo, i)
		}
	}
	r.before = job.Games - len(todo)
	r.start = time.Now()
	r.reportStart(len(todo))
	if len(todo) == 0 {
		r.report(Event{Kind: EventDone})
		return r.stats(), nil
	}
	err = r.play(ctx, todo)
	r.report(Event{Kind: EventDone})
	return r.stats(), err
}

// openRunner validates cfg and job and readies a runner over job.Output,
// which it creates and locks: what Run and PlayBlock both start with. The
// caller calls unlock when done.
func openRunner(cfg Config, job Job, opt Options) (r *runner, unlock func(), err error) {
	if err := check(&cfg, &job, &opt); err != nil {
		return nil, nil, err
	}
	r = &runner{cfg: cfg, job: job, opt: opt, dir: job.Output, rs: job.Rules}
	if err := r.setup(); err != nil {
		return nil, nil, err
	}
	if err := checkOwnDir(r.dir); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("selfplay: %w", err)
	}
	if unlock, err = lockRun(r.dir); err != nil {
		return nil, nil, err
	}
	return r, unlock, nil
}

// setup readies the network, its batchers and the cache.
func (r *runner) setup() error {
	n := r.cfg.evaluators()
	if r.opt.Evaluator != nil {
		for range n {
			ev, id, err := r.opt.Evaluator()
			if err != nil {
				return fmt.Errorf("selfplay: evaluator: %w", err)
			}
			r.backend, r.netID = append(r.backend, ev), id
		}
	} else {
		var w *model.Weights
		var err error
		if r.job.Network != "" {
			ck, err := model.LoadPlayableFor(r.job.Network, r.rs)
			if err != nil {
				return fmt.Errorf("selfplay: %w", err)
			}
			w = ck.Weights
		} else if w, err = model.NewRandom(r.job.RandomNetwork.ModelConfig(), r.job.RandomNetwork.Seed); err != nil {
			return fmt.Errorf("selfplay: random network: %w", err)
		}
		r.netID = w.ID()
		ev, err := model.NewEvaluator(w)
		if err != nil {
			return fmt.Errorf("selfplay: %w", err)
		}
		r.backend = append(r.backend, ev)
		for range n - 1 {
			// One copy of the weights for every evaluator, so that they
			// share the CPU's caches.
			r.backend = append(r.backend, ev.Copy())
		}
	}
	for _, ev := range r.backend {
		r.batch = append(r.batch, nn.NewBatcher(ev, r.cfg.batchSize()))
	}
	if err := nn.CheckCacheMemory(r.cfg.CacheEntries); err != nil {
		return fmt.Errorf("selfplay: cache_entries: %w", err)
	}
	r.cache = nn.NewCache(nil, r.cfg.CacheEntries)
	r.cache.Prefault() // its page faults now, not in the games' first minute
	r.hash = gameHash(&r.cfg, &r.job, r.netID)
	return nil
}

// shardNumber reads NNNNNN from "shard-NNNNNN.shard" (or its game-record
// file's name); false for other names.
func shardNumber(name string) (int, bool) {
	base, ok := strings.CutPrefix(name, "shard-")
	if !ok {
		return 0, false
	}
	if s, ok := strings.CutSuffix(base, ShardSuffix); ok {
		base = s
	} else if s, ok := strings.CutSuffix(base, GamesSuffix); ok {
		base = s
	} else {
		return 0, false
	}
	n, err := strconv.Atoi(base)
	if err != nil || n < 0 || len(base) < 6 {
		return 0, false
	}
	return n, true
}

func shardName(n int) string { return fmt.Sprintf("shard-%06d%s", n, ShardSuffix) }

// isDebris reports whether name is a temporary file a killed writer of
// this package (or of the manifest) left: never a committed file.
func isDebris(name string) bool {
	if !strings.Contains(name, ".tmp-") {
		return false
	}
	return strings.HasPrefix(name, ".shard-") || strings.HasPrefix(name, "."+datasets.ManifestName+".")
}

// resume reads which games the directory holds, removing a crash's debris
// first: temporary files, and shards and game records the manifest does
// not list (their games were never committed and will be played again).
func (r *runner) resume() (map[uint64]bool, error) {
	m, err := datasets.ReadManifest(r.dir)
	if err != nil {
		return nil, fmt.Errorf("selfplay: %w", err)
	}
	for _, s := range m.Shards {
		if n, ok := shardNumber(s.Name); ok {
			r.nextShard = max(r.nextShard, n+1)
		}
	}
	if err := removeUnlisted(r.dir, m); err != nil {
		return nil, err
	}
	done := map[uint64]bool{}
	where := map[uint64]string{}
	for _, s := range m.Shards {
		gpath := GamesPath(filepath.Join(r.dir, s.Name))
		if !strings.HasSuffix(s.Name, ShardSuffix) {
			return nil, fmt.Errorf("selfplay: %s lists %s, which self-play did not write; give self-play a directory of its own", filepath.Join(r.dir, datasets.ManifestName), s.Name)
		}
		// A listed shard's games count as played: a shard lost, cut
		// short or changed since would lose them without a word (its size
		// here, its SHA-256 below).
		if info, err := os.Stat(filepath.Join(r.dir, s.Name)); err != nil || info.Size() != s.Bytes {
			what := "is missing"
			if err == nil {
				what = fmt.Sprintf("has %d bytes, the manifest says %d", info.Size(), s.Bytes)
			}
			return nil, fmt.Errorf("selfplay: shard %s %s: the directory is damaged (palace shard verify %s says more); restore it, or use a new directory",
				filepath.Join(r.dir, s.Name), what, r.dir)
		}
		gf, err := gamerec.Read(gpath)
		if err != nil {
			return nil, fmt.Errorf("selfplay: shard %s is listed but its game records are unreadable: %w", s.Name, err)
		}
		if h := gf.Header; h.GameHash != r.hash {
			return nil, fmt.Errorf("selfplay: %s holds games of another configuration (%s, network %s, game hash %s; this run: %s, network %s, game hash %s): keep the rule set, network, search, setups, max_plies and seed, or use a new directory",
				r.dir, ruleSetName(gf), h.NetworkID, h.GameHash, r.rs, r.netID, r.hash)
		}
		if int64(len(gf.Games)) != s.Games {
			return nil, fmt.Errorf("selfplay: %s has %d games, the manifest says its shard has %d", gpath, len(gf.Games), s.Games)
		}
		for _, g := range gf.Games {
			if prev, dup := where[g.ID]; dup {
				return nil, fmt.Errorf("selfplay: game %d is in both %s and %s", g.ID, prev, s.Name)
			}
			where[g.ID] = s.Name
			done[g.ID] = true
		}
	}
	if err := m.CheckSums(); err != nil {
		return nil, fmt.Errorf("selfplay: %s is damaged (palace shard verify %s says more); restore it, or use a new directory: %w", r.dir, r.dir, err)
	}
	return done, nil
}

// removeUnlisted removes from dir what a crash left: temporary files, and
// shards and game records that manifest m does not list (never
// committed).
func removeUnlisted(dir string, m *datasets.Manifest) error {
	listed := map[string]bool{}
	for _, s := range m.Shards {
		listed[s.Name] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("selfplay: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() {
			continue
		}
		shard := name
		if s, ok := strings.CutSuffix(name, GamesSuffix); ok {
			shard = s + ShardSuffix
		}
		_, ours := shardNumber(name)
		if isDebris(name) || (ours && !listed[shard]) {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("selfplay: removing a crashed run's %s: %w", name, err)
			}
		}
	}
	return nil
}

// play runs the workers, the shard writer and the progress display until
// todo is played or ctx is cancelled.
func (r *runner) play(parent context.Context, todo []uint64) error {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	workers := min(r.cfg.ConcurrentGames, len(todo))
	// Every client is registered before any plays, so that the first
	// batches wait for all the games instead of going out one by one.
	clients := make([]*nn.Client, workers)
	for w := range clients {
		clients[w] = r.batch[w%len(r.batch)].NewClient()
	}
	finished := make(chan *finishedGame, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer clients[w].Close() // a worker gone must not hold back the batches
			// One search for all the worker's games, restarted with each
			// game's seed: its node pools grow once, not once a game.
			s, err := mcts.New(r.cfg.Search, r.cache.WithBackend(clients[w]))
			if err != nil {
				cancel(fmt.Errorf("selfplay: %w", err))
				return
			}
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(len(todo)) {
					return
				}
				fg, err := r.playGame(ctx, s, todo[i])
				if err != nil {
					if ctx.Err() == nil {
						cancel(err)
					}
					return
				}
				finished <- fg // drained to the end, whatever happens
			}
		}()
	}
	go func() {
		wg.Wait()
		close(finished)
	}()

	stopTicker := r.tick()
	// Shards are written by a goroutine of their own, so that a worker
	// handing over a game never waits for a disk: while it waited, its
	// batcher client would hold back every other game's batches.
	shards := make(chan []*finishedGame, 1024)
	written := make(chan error, 1)
	go func() {
		var err error
		for games := range shards {
			if err == nil {
				if err = r.writeShard(games); err != nil {
					cancel(err)
				}
			}
		}
		written <- err
	}()
	// Shards hold blocks of GamesPerShard consecutive game indices (of
	// todo), committed in order: a block waits for its slowest game. So a
	// directory's shards, and the order of its positions, are the same
	// however the games' finishing order or the run's interruptions fell,
	// and training on them is reproducible.
	waiting := map[uint64]*finishedGame{}
	block := 0 // todo[block:] are not yet sent to the shard writer
	for fg := range finished {
		waiting[fg.rec.ID] = fg
		for block < len(todo) {
			end := min(block+r.cfg.GamesPerShard, len(todo))
			games := make([]*finishedGame, 0, end-block)
			for _, id := range todo[block:end] {
				if waiting[id] == nil {
					break
				}
				games = append(games, waiting[id])
			}
			if len(games) < end-block {
				break
			}
			for _, id := range todo[block:end] {
				delete(waiting, id)
			}
			shards <- games
			block = end
		}
	}
	// Finished games of an incomplete block are dropped when the run
	// stops: the next run plays them again, in their block.
	close(shards)
	writeErr := <-written
	stopTicker()
	if err := context.Cause(ctx); writeErr == nil && err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return writeErr
}

// checkOwnDir refuses a directory that is not yet a self-play directory
// (no manifest) but holds what a run killed before its first shard would
// not have left: another job's files, which self-play's would mix with.
func checkOwnDir(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, datasets.ManifestName)); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		if _, ours := shardNumber(name); !ours && !isDebris(name) && name != lockName {
			return fmt.Errorf("selfplay: %s is not a self-play directory (no %s) and holds other files (%s); give self-play a new or empty directory",
				dir, datasets.ManifestName, name)
		}
	}
	return nil
}

// lockName is the file a run holds locked for its life, so that two runs
// never play into one directory: each would replay the other's games.
const lockName = ".selfplay.lock"

// lockRun takes dir's run lock without waiting.
func lockRun(dir string) (unlock func(), err error) {
	unlock, err = runlock.Lock(filepath.Join(dir, lockName))
	if errors.Is(err, runlock.ErrLocked) {
		return nil, fmt.Errorf("selfplay: another self-play run is writing to %s", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("selfplay: run lock: %w", err)
	}
	return unlock, nil
}

// gameSeed is game id's seed under the run's seed (splitmix64 mixing), so
// that every game's randomness is its own and the same in every run.
func gameSeed(seed, id uint64) uint64 {
	return splitmix.Finalize(seed ^ splitmix.Finalize(id+splitmix.Golden))
}

// playGame plays game id to its end and returns its records.
func (r *runner) playGame(ctx context.Context, s *mcts.Search, id uint64) (*finishedGame, error) {
	seed := gameSeed(r.job.Seed, id)
	fen, setup := r.rs.StartFEN(), ""
	if r.rs.Game == rules.Janggi {
		rng := rand.New(rand.NewPCG(seed, 0x7365747570)) // "setup"
		cho, han := r.job.JanggiSetups.pick(rng.Float64())
		fen, setup = rules.JanggiSetupFEN(cho, han), cho.String()+","+han.String()
	}
	g, err := rules.NewGame(r.rs, fen)
	if err != nil {
		return nil, fmt.Errorf("selfplay: game %d: %w", id, err)
	}
	s.Restart(seed)
	var res mcts.Result
	legal := make([]rules.Move, 0, rules.MaxMoves)
	records := make([]datasets.Record, 0, 160)
	full := 0
	resign := newResignation(r.cfg.Resign, seed)
	for !g.Result().Over() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		legal = g.LegalMoves(legal[:0])
		if err := s.RunWith(g, mcts.RunOptions{}, &res); err != nil {
			return nil, fmt.Errorf("selfplay: game %d ply %d: %w", id, g.Ply(), err)
		}
		if !slices.Contains(legal, res.Best) {
			return nil, fmt.Errorf("selfplay: game %d ply %d: the search chose %s, not a legal move in %s", id, g.Ply(), res.Best, g.Position().FEN())
		}
		records = append(records, datasets.Record{GameID: id})
		rec := &records[len(records)-1]
		rec.SetPosition(g, legal)
		// Cheap searches keep their policy too (it marks the legal moves);
		// Full says whether training may use it as a target.
		if err := rec.SetPolicy(res.Moves, res.Policy); err != nil {
			return nil, fmt.Errorf("selfplay: game %d ply %d: %w", id, g.Ply(), err)
		}
		rec.Move, rec.Value, rec.WDL, rec.Full = res.Best, res.Value, res.WDL, res.Full
		if res.Full {
			full++
		}
		r.evals.Add(int64(res.Evaluations))
		if resign.sees(rec.Side, res.Value) {
			// The game ends before this position's move: a record is a
			// position and the move the game played there.
			records = records[:len(records)-1]
			if res.Full {
				full--
			}
			break
		}
		r.positions.Add(1)
		g.Play(res.Best)
	}
	outcome := g.Result().Outcome
	if resign.resigned {
		outcome = resign.outcome()
		r.resigned.Add(1)
	} else if resign.would {
		r.wouldResign.Add(1)
		if outcome != resign.outcome() {
			r.falseResign.Add(1)
		}
	}
	end := g.Position()
	for i := range records {
		records[i].Result = outcomeFor(outcome, records[i].Side)
		records[i].FinalMaterial = end.MaterialBalance(records[i].Side)
	}
	r.finished.Add(1)
	r.plies.Add(int64(len(records)))
	rec := newGameRecord(id, seed, setup, r.netID, g, full)
	if resign.resigned {
		rec.End = gamerec.End{Result: rules.Result{Outcome: outcome}.Score(), Reason: gamerec.ReasonResignation}
	}
	return &finishedGame{rec: rec, records: records}, nil
}

// resignation follows one game's root values for Config.Resign: a side
// resigns at its Moves-th search in a row at or below Value, unless the
// game is one of those played out, which only notes that it would have.
type resignation struct {
	cfg      Resign
	playout  bool        // this game never resigns
	low      [2]int      // each side's searches in a row at or below Value
	side     rules.Color // the side that resigned, or would have
	resigned bool
	would    bool
}

// newResignation is game seed's resignation under cfg; the playthrough
// draw has a stream of its own, so the game's other randomness is as
// without resignation.
func newResignation(cfg Resign, seed uint64) *resignation {
	r := &resignation{cfg: cfg}
	if cfg.On() {
		rng := rand.New(rand.NewPCG(seed, 0x726573696e6e)) // "resign"
		r.playout = rng.Float64() < cfg.Playthrough
	}
	return r
}

// sees takes side's root value and reports whether side resigns now.
func (r *resignation) sees(side rules.Color, value float32) bool {
	if !r.cfg.On() || r.resigned {
		return false
	}
	i := 0
	if side == rules.Black {
		i = 1
	}
	if float64(value) > r.cfg.Value {
		r.low[i] = 0
		return false
	}
	r.low[i]++
	if r.low[i] < r.cfg.Moves || r.would {
		return false
	}
	r.side = side
	if r.playout {
		r.would = true
		return false
	}
	r.resigned = true
	return true
}

// outcome is the game's result when r.side resigns.
func (r *resignation) outcome() rules.Outcome {
	if r.side == rules.White {
		return rules.BlackWins
	}
	return rules.WhiteWins
}

// outcomeFor is a finished game's result from side's view.
func outcomeFor(o rules.Outcome, side rules.Color) datasets.Outcome {
	switch {
	case o == rules.WhiteWins && side == rules.White, o == rules.BlackWins && side == rules.Black:
		return datasets.Win
	case o == rules.WhiteWins, o == rules.BlackWins:
		return datasets.Loss
	}
	return datasets.Draw
}

// writeShard commits games: their game records, then the shard, then its
// manifest entry (the commit point; see the package doc).
func (r *runner) writeShard(games []*finishedGame) error {
	slices.SortFunc(games, func(a, b *finishedGame) int { return cmp.Compare(a.rec.ID, b.rec.ID) })
	name := shardName(r.nextShard)
	r.nextShard++
	path := filepath.Join(r.dir, name)
	hdr := datasets.NewHeader(r.rs)
	hdr.NetworkID, hdr.ConfigHash, hdr.CodeVersion = r.netID, r.hash, r.opt.CodeVersion
	hdr.Seeds = []uint64{r.job.Seed}
	hdr.Note = fmt.Sprintf("palace selfplay: %d games", len(games))
	w, err := datasets.NewWriter(path, hdr, datasets.WithManifest())
	if err != nil {
		return fmt.Errorf("selfplay: %w", err)
	}
	recs := make([]gamerec.Game, len(games))
	for i, fg := range games {
		recs[i] = fg.rec
		for j := range fg.records {
			if err := w.Write(&fg.records[j]); err != nil {
				w.Abort()
				return fmt.Errorf("selfplay: %w", err)
			}
		}
	}
	gh := gamerec.Header{Rules: []*rules.RuleSet{r.rs}, Shard: name, NetworkID: r.netID, GameHash: r.hash,
		Seed: r.job.Seed, CodeVersion: r.opt.CodeVersion}
	if err := gamerec.Write(GamesPath(path), gh, recs); err != nil {
		w.Abort()
		return fmt.Errorf("selfplay: %w", err)
	}
	if err := w.Close(); err != nil {
		// The game records stay without a listed shard: the next run
		// removes them, and plays these games again.
		return fmt.Errorf("selfplay: %w", err)
	}
	r.played.Add(int64(len(games)))
	r.shards.Add(1)
	info := w.Info()
	r.reportShard(name, len(games), info.Records, info.FirstGame, info.LastGame)
	return nil
}

// networkStats sums the batchers' counters.
func (r *runner) networkStats() nn.BatcherStats {
	var n nn.BatcherStats
	for _, b := range r.batch {
		st := b.Stats()
		n.Batches += st.Batches
		n.Positions += st.Positions
		n.FullBatches += st.FullBatches
		n.Errors += st.Errors
	}
	return n
}

// stats is a snapshot of the run's counters.
func (r *runner) stats() Stats {
	s := Stats{
		Target: r.job.Games, Before: r.before, Played: int(r.played.Load()), Finished: int(r.finished.Load()),
		Shards: int(r.shards.Load()), Plies: r.plies.Load(), Positions: r.positions.Load(), Evaluations: r.evals.Load(),
		NetworkID: r.netID, Resigns: Resignations{Resigned: r.resigned.Load(), Would: r.wouldResign.Load(), False: r.falseResign.Load()},
	}
	if r.rs != nil {
		s.RuleSet = r.rs.String()
	}
	if !r.start.IsZero() {
		s.Elapsed = time.Since(r.start)
	}
	s.Network = r.networkStats()
	if r.cache != nil {
		s.Cache = r.cache.Stats()
	}
	return s
}
