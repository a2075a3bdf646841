package selfplay

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/internal/splitmix"
	"github.com/palace-chess/palace/mcts"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
)

// Reanalysis (MuZero Reanalyse; KataGo's and lc0's rescoring of old
// games): positions of games already played are searched again by a newer
// network at the full budget, and written as fresh training positions: a
// new policy target and root value for every one of them (self-play's
// cheap moves included), with the game's result as before. The positions
// are rebuilt by replaying each game's record from its start, so the
// search sees the whole history (repetitions, perpetual check and chase,
// the length cap) exactly as the game did.
//
// # Durability
//
// The positions to search are a pure function of the sources' games and
// the job's seed: a sample without replacement, in game order. They are
// committed in shards of reanalyseShard consecutive ones, each
// shard then its manifest entry, as self-play commits its games; a run
// that finds shards already listed searches only the positions after
// them, and removes a killed run's debris first. A directory holds one
// reanalysis: a shard of another job (other sources, network, search or
// seed) is refused.

// reanalyseShard is how many positions a reanalysis shard holds (its last
// may hold fewer): a killed run loses at most one shard's work. Tests make
// it smaller.
var reanalyseShard = 512

// ReanalyseJob is one reanalysis: which games, with which network, into
// which directory.
type ReanalyseJob struct {
	// Output is the reanalysis directory: shards and their manifest, no
	// games files (the games are the sources').
	Output string
	// Sources are self-play directories whose listed games are searched
	// again; every game must be under Rules.
	Sources []string
	// Rules is the games' rule set, capped as they were played.
	Rules *rules.RuleSet
	// Network is the checkpoint that searches (Options.Evaluator may stand
	// in for it).
	Network string
	// Positions is how many positions to search: a sample of the
	// sources' positions without replacement (all of them when they hold
	// fewer).
	Positions int
	// Simulations is each search's budget (0: the config's full one,
	// Search.Simulations).
	Simulations int
	// Seed determines the sample and every search's random numbers.
	Seed uint64
}

// ReanalyseStats describe a reanalysis.
type ReanalyseStats struct {
	Target int // positions the directory should hold
	Before int // of them, committed when the run started
	// Searched is the positions this run searched, Committed those it
	// wrote into committed shards.
	Searched, Committed int64
	Evaluations         int64 // the searches' evaluations (cache hits included)
	Network             nn.BatcherStats
	Elapsed             time.Duration
	NetworkID           string
}

// EvaluationsPerSecond is the rate of the network's evaluations (cache
// misses).
func (s ReanalyseStats) EvaluationsPerSecond() float64 {
	return rate(float64(s.Network.Positions), s.Elapsed)
}

// reanalysisTarget is a position to search again: ply Ply of the game
// games[Game].
type reanalysisTarget struct {
	Game int32
	Ply  int32
}

// sourceGame is a game of the sources, kept as its record until a worker
// replays it.
type sourceGame struct {
	rec *gamerec.Game
	rs  *rules.RuleSet
}

// Reanalyse searches job.Positions positions of the sources' games again
// with job's network and commits them as training shards in job.Output,
// resuming a reanalysis the directory holds; a cancelled run commits what
// whole shards it has and is not an error. opt.Progress is not called.
func Reanalyse(ctx context.Context, cfg Config, job ReanalyseJob, opt Options) (ReanalyseStats, error) {
	if err := checkReanalyse(&cfg, &job); err != nil {
		return ReanalyseStats{}, err
	}
	games, err := readSourceGames(job)
	if err != nil {
		return ReanalyseStats{}, err
	}
	targets := sampleTargets(games, job.Positions, job.Seed)
	if len(targets) == 0 {
		return ReanalyseStats{}, fmt.Errorf("selfplay: reanalysis: the sources (%s) hold no positions", strings.Join(job.Sources, ", "))
	}

	r := &runner{cfg: cfg, job: Job{Output: job.Output, Rules: job.Rules, Network: job.Network, Games: 1, Seed: job.Seed},
		opt: opt, dir: job.Output, rs: job.Rules}
	if err := r.setup(); err != nil {
		return ReanalyseStats{}, err
	}
	hash, err := reanalysisHash(&cfg, &job, r.netID)
	if err != nil {
		return ReanalyseStats{}, err
	}
	if err := os.MkdirAll(job.Output, 0o755); err != nil {
		return ReanalyseStats{}, fmt.Errorf("selfplay: %w", err)
	}
	if err := checkOwnDir(job.Output); err != nil {
		return ReanalyseStats{}, err
	}
	unlock, err := lockRun(job.Output)
	if err != nil {
		return ReanalyseStats{}, err
	}
	defer unlock()
	done, err := resumeReanalysis(job.Output, hash, len(targets))
	if err != nil {
		return ReanalyseStats{}, err
	}
	st := ReanalyseStats{Target: len(targets), Before: done, NetworkID: r.netID}
	start := time.Now()
	var searched, evals atomic.Int64
	for first := done; first < len(targets) && ctx.Err() == nil; first += reanalyseShard {
		chunk := targets[first:min(first+reanalyseShard, len(targets))]
		recs, err := r.searchTargets(ctx, games, chunk, first, job, &searched, &evals)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return st, err
		}
		if err := writeReanalysisShard(job, r.netID, hash, first/reanalyseShard, len(targets), recs, opt.CodeVersion); err != nil {
			return st, err
		}
		st.Committed += int64(len(recs))
	}
	st.Searched, st.Evaluations, st.Elapsed = searched.Load(), evals.Load(), time.Since(start)
	st.Network = r.networkStats()
	return st, nil
}

// checkReanalyse validates a reanalysis's config and job.
func checkReanalyse(c *Config, j *ReanalyseJob) error {
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if j.Output == "" {
		add("output: missing (the reanalysis directory)")
	}
	if len(j.Sources) == 0 {
		add("sources: none (self-play directories to draw positions from)")
	}
	if j.Rules == nil {
		add("rules: missing")
	}
	if j.Positions < 1 || j.Positions > MaxReanalysePositions {
		add("positions: %d, want 1 to %d", j.Positions, MaxReanalysePositions)
	}
	if j.Simulations < 0 {
		add("simulations: %d, want ≥ 0 (0: the search's full budget)", j.Simulations)
	}
	return problems("selfplay: reanalysis", append(errs, c.problems()...))
}

// MaxReanalysePositions bounds a reanalysis: the sample is held in memory.
const MaxReanalysePositions = 1 << 24

// readSourceGames reads the games the sources' manifests list, in order,
// each under the job's rule set.
func readSourceGames(job ReanalyseJob) ([]sourceGame, error) {
	var games []sourceGame
	want := job.Rules.String()
	for _, dir := range job.Sources {
		if !IsDir(dir) {
			return nil, fmt.Errorf("selfplay: reanalysis: %s is not a self-play directory (no %s)", dir, datasets.ManifestName)
		}
		err := ReadGames(dir, func(g *gamerec.Game, rs *rules.RuleSet) error {
			if rs == nil || rs.String() != want {
				return fmt.Errorf("selfplay: reanalysis: %s: game %d is played under %s, the reanalysis under %s",
					dir, g.ID, g.RuleSet, want)
			}
			games = append(games, sourceGame{rec: g, rs: rs})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return games, nil
}

// sampleTargets draws n of the games' positions without replacement under
// seed (all of them when they hold fewer), in game order.
func sampleTargets(games []sourceGame, n int, seed uint64) []reanalysisTarget {
	var all []reanalysisTarget
	for i, g := range games {
		for ply := range g.rec.Plies {
			all = append(all, reanalysisTarget{Game: int32(i), Ply: int32(ply)})
		}
	}
	if n < len(all) {
		// A partial Fisher–Yates shuffle: the first n are the sample.
		rng := rand.New(rand.NewPCG(seed, 0x7265616e616c7973)) // "reanalys"
		for i := range n {
			j := i + rng.IntN(len(all)-i)
			all[i], all[j] = all[j], all[i]
		}
		all = all[:n]
	}
	slices.SortFunc(all, func(a, b reanalysisTarget) int {
		return cmp.Or(cmp.Compare(a.Game, b.Game), cmp.Compare(a.Ply, b.Ply))
	})
	return all
}

// reanalysisHash digests what a reanalysis's positions depend on: the
// search, the network, the sample and the sources' manifests (their
// shards' checksums), so that a directory is resumed only by the same job.
func reanalysisHash(c *Config, j *ReanalyseJob, networkID string) (string, error) {
	p := c.Search
	p.Seed = 0
	var sources []string
	for _, dir := range j.Sources {
		m, err := datasets.ReadManifest(dir)
		if err != nil {
			return "", fmt.Errorf("selfplay: reanalysis: %w", err)
		}
		for _, s := range m.Shards {
			sources = append(sources, s.Name+":"+s.SHA256)
		}
	}
	b, _ := json.Marshal(struct {
		RuleSet     string
		Network     string
		Search      mcts.Params
		Simulations int
		Positions   int
		Seed        uint64
		Sources     []string
	}{j.Rules.String(), networkID, p, j.Simulations, j.Positions, j.Seed, sources})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
}

// resumeReanalysis removes a killed run's debris from dir and returns how
// many positions its listed shards hold, which must be whole shards of
// this job (hash) in order.
func resumeReanalysis(dir, hash string, target int) (int, error) {
	m, err := datasets.ReadManifest(dir)
	if err != nil {
		return 0, fmt.Errorf("selfplay: %w", err)
	}
	if err := removeUnlisted(dir, m); err != nil {
		return 0, err
	}
	if err := m.CheckSums(); err != nil {
		return 0, fmt.Errorf("selfplay: %s is damaged (palace shard verify %s says more); restore it, or use a new directory: %w", dir, dir, err)
	}
	done := 0
	for i, s := range m.Shards {
		path := filepath.Join(dir, s.Name)
		if s.Name != shardName(i) {
			return 0, fmt.Errorf("selfplay: %s lists %s where reanalysis writes %s; give reanalysis a directory of its own", filepath.Join(dir, datasets.ManifestName), s.Name, shardName(i))
		}
		rd, err := datasets.Open(path)
		if err != nil {
			return 0, fmt.Errorf("selfplay: %w", err)
		}
		h := rd.Header()
		rd.Close()
		if h.ConfigHash != hash {
			return 0, fmt.Errorf("selfplay: %s holds the reanalysis of another job (hash %s, this one %s: other sources, network, search, positions or seed); use a new directory",
				dir, h.ConfigHash, hash)
		}
		want := min(reanalyseShard, target-done)
		if s.Records != int64(want) {
			return 0, fmt.Errorf("selfplay: %s has %d positions where its place in the reanalysis holds %d", path, s.Records, want)
		}
		done += want
	}
	return done, nil
}

// searchTargets searches targets (the sample's positions first to
// first+len-1) on the runner's workers and returns their records in order.
func (r *runner) searchTargets(parent context.Context, games []sourceGame, targets []reanalysisTarget, first int,
	job ReanalyseJob, searched, evals *atomic.Int64) ([]datasets.Record, error) {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	recs := make([]datasets.Record, len(targets))
	workers := min(r.cfg.ConcurrentGames, len(targets))
	clients := make([]*nn.Client, workers)
	for w := range clients {
		clients[w] = r.batch[w%len(r.batch)].NewClient()
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer clients[w].Close()
			s, err := mcts.New(r.cfg.Search, r.cache.WithBackend(clients[w]))
			if err != nil {
				cancel(fmt.Errorf("selfplay: %w", err))
				return
			}
			var res mcts.Result
			legal := make([]rules.Move, 0, rules.MaxMoves)
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(targets) {
					return
				}
				t := targets[i]
				seed := splitmix.Finalize(job.Seed ^ splitmix.Finalize(uint64(first+i)+splitmix.Golden))
				if err := reanalysePosition(s, &games[t.Game], int(t.Ply), seed, job.Simulations, &res, legal, &recs[i]); err != nil {
					cancel(err)
					return
				}
				searched.Add(1)
				evals.Add(int64(res.Evaluations))
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return nil, err
	}
	if err := parent.Err(); err != nil {
		return nil, err
	}
	return recs, nil
}

// reanalysePosition replays game g to ply, searches it with s at the full
// budget and fills rec.
func reanalysePosition(s *mcts.Search, g *sourceGame, ply int, seed uint64, sims int, res *mcts.Result, legal []rules.Move, rec *datasets.Record) error {
	where := func() string { return fmt.Sprintf("%s game %d ply %d", g.rec.Source, g.rec.ID, ply) }
	game, err := g.rec.Replay(g.rs)
	if err != nil {
		return fmt.Errorf("selfplay: reanalysis: %s: %w", where(), err)
	}
	// The record's result, not the replay's: a resigned game's rules
	// have not ended it.
	outcome, end := scoreOutcome(g.rec.Result), *game.Position()
	all := game.Moves(nil)
	if ply >= len(all) {
		return fmt.Errorf("selfplay: reanalysis: %s: the game has %d plies", where(), len(all))
	}
	for game.Ply() > ply {
		game.Undo()
	}
	legal = game.LegalMoves(legal[:0])
	*rec = datasets.Record{GameID: g.rec.ID}
	rec.SetPosition(game, legal)
	s.Restart(seed)
	if err := s.RunWith(game, mcts.RunOptions{Budget: mcts.BudgetFull, Simulations: sims}, res); err != nil {
		return fmt.Errorf("selfplay: reanalysis: %s: %w", where(), err)
	}
	if err := rec.SetPolicy(res.Moves, res.Policy); err != nil {
		return fmt.Errorf("selfplay: reanalysis: %s: %w", where(), err)
	}
	// Move is the move the game played here, as in self-play's record.
	rec.Move, rec.Value, rec.WDL, rec.Full = all[ply], res.Value, res.WDL, res.Full
	rec.Result = outcomeFor(outcome, rec.Side)
	rec.FinalMaterial = end.MaterialBalance(rec.Side)
	return nil
}

// writeReanalysisShard commits shard number n of a reanalysis: the shard,
// then its manifest entry.
func writeReanalysisShard(job ReanalyseJob, networkID, hash string, n, total int, recs []datasets.Record, codeVersion string) error {
	hdr := datasets.NewHeader(job.Rules)
	hdr.NetworkID, hdr.ConfigHash, hdr.CodeVersion = networkID, hash, codeVersion
	hdr.Seeds = []uint64{job.Seed}
	hdr.Note = fmt.Sprintf("palace reanalysis: positions %d-%d of %d, searched again by network %s", n*reanalyseShard,
		n*reanalyseShard+len(recs)-1, total, networkID)
	w, err := datasets.NewWriter(filepath.Join(job.Output, shardName(n)), hdr, datasets.WithManifest())
	if err != nil {
		return fmt.Errorf("selfplay: %w", err)
	}
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			w.Abort()
			return fmt.Errorf("selfplay: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("selfplay: %w", err)
	}
	return nil
}
