package cluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/store"
)

// Gatekeeper plays each candidate's match through the workers, decides
// and promotes. One per run.
type Gatekeeper struct{ *role }

// NewGatekeeper is the run's gatekeeper; cfg is the run's config (Start).
func NewGatekeeper(c *Conn, st store.Store, cfg loop.Config, opt RoleOptions) (*Gatekeeper, error) {
	r, err := newRole(c, st, cfg, opt, "gatekeeper")
	if err != nil {
		return nil, err
	}
	return &Gatekeeper{r}, nil
}

// Run runs the arena and gate stages until the run's generations are done
// or ctx is cancelled (not an error); between them it waits for the
// trainer.
func (g *Gatekeeper) Run(ctx context.Context) error {
	return g.run(ctx, func(ctx context.Context, s State, rev uint64) (State, uint64, bool, error) {
		switch s.Stage {
		case loop.StageArena:
			next, err := g.arena(ctx, s)
			return next, rev, true, err
		case loop.StageGate:
			next, err := g.gate(ctx, s)
			return next, rev, true, err
		}
		return s, rev, false, nil // the trainer's stages
	})
}

func (g *Gatekeeper) loadNet(key string) (*model.Checkpoint, error) {
	data, err := g.st.Read(key)
	if err != nil {
		return nil, err
	}
	ck, err := model.DecodeCheckpoint(data)
	if err != nil {
		return nil, fmt.Errorf("cluster: %s: %w", key, err)
	}
	return ck, nil
}

// header is the match record file's first line, as a local match writes
// it.
func (g *Gatekeeper) header(cand int, candW, bestW *model.Weights, bestGen int, ops []arena.Opening) arena.Header {
	var key bytes.Buffer
	for _, o := range ops {
		key.WriteString(o.FEN + "|" + o.MovesText() + "\n")
	}
	sum := sha256.Sum256(key.Bytes())
	sprt := g.cfg.Arena.SPRT
	return arena.Header{Format: arena.RecordsFormat, Version: arena.RecordsVersion, RuleSet: g.ar.String(),
		A: loop.PlayerName(g.cfg, cand, candW), B: loop.PlayerName(g.cfg, bestGen, bestW), Openings: len(ops),
		OpeningsKey: hex.EncodeToString(sum[:8]), Pairs: g.cfg.Arena.Pairs, SPRT: &sprt, Seed: loop.MatchSeed(g.cfg, cand),
		CodeVersion: g.opt.CodeVersion, Started: time.Now().UTC()}
}

// arena enqueues candidate gen+1's pairs, folds their results in pair
// order until the test decides or every pair is in, then drops the pairs
// still queued.
func (g *Gatekeeper) arena(ctx context.Context, s State) (State, error) {
	gen := s.Generation
	cand := gen + 1
	start := time.Now()
	best, _, err := g.c.Best(ctx)
	if err != nil {
		return s, err
	}
	cck, err := g.loadNet(loop.NetKey(cand))
	if err != nil {
		return s, err
	}
	bck, err := g.loadNet(best.Key)
	if err != nil {
		return s, err
	}
	ops, err := loop.Openings(g.cfg, g.ar)
	if err != nil {
		return s, fmt.Errorf("cluster: %w", err)
	}
	h := g.header(cand, cck.Weights, bck.Weights, best.Generation, ops)
	jobs := make([]Job, g.cfg.Arena.Pairs)
	for p := range jobs {
		jobs[p] = Job{Kind: KindArena, Generation: gen, Pair: p, Candidate: loop.NetKey(cand), Best: best.Key, BestGeneration: best.Generation}
	}
	g.logf("gen %d: match of %s against %s: up to %d pairs", gen, h.A, h.B, len(jobs))
	if err := g.c.enqueue(ctx, jobs); err != nil {
		return s, err
	}
	have := map[[2]int]arena.GameRecord{}
	var sum arena.Summary
	err = g.c.followResults(ctx, KindArena, gen, func(r *Result) (bool, error) {
		if r.Job.Pair < 0 || r.Job.Pair >= len(jobs) || r.Job != jobs[r.Job.Pair] || len(r.Records) != 2 {
			return false, nil // another best's pair (a gate redone after a crash), or a malformed one
		}
		for _, rec := range r.Records {
			if rec.Pair != r.Job.Pair || rec.Game < 0 || rec.Game > 1 {
				return false, fmt.Errorf("cluster: the result of %s holds pair %d game %d", r.Job.ID(), rec.Pair, rec.Game)
			}
			k := [2]int{rec.Pair, rec.Game}
			if _, dup := have[k]; !dup {
				have[k] = rec
			}
		}
		recs := sortedRecords(have)
		sum = arena.Summarize(h, recs)
		if err := g.writeRecords(cand, h, recs); err != nil {
			return false, err
		}
		return sum.Done, nil
	})
	if err != nil {
		return s, err
	}
	if err := g.c.purge(ctx, KindArena, gen); err != nil {
		return s, err
	}
	g.logf("gen %d: match over: %d games W/D/L %d/%d/%d Elo %s LLR %.2f", gen, sum.Games, sum.WDL.Wins, sum.WDL.Draws, sum.WDL.Losses, sum.Elo, sum.LLR)
	m := loop.Metric{Generation: gen, Stage: loop.StageArena, Network: loop.NetKey(cand), Best: h.B, Games: sum.Games,
		Seconds: time.Since(start).Seconds()}
	if err := loop.RecordMetric(g.st, m); err != nil {
		return s, err
	}
	return State{State: loop.State{Generation: gen, Stage: loop.StageGate}}, nil
}

func sortedRecords(have map[[2]int]arena.GameRecord) []arena.GameRecord {
	recs := make([]arena.GameRecord, 0, len(have))
	for _, r := range have {
		recs = append(recs, r)
	}
	slices.SortFunc(recs, func(a, b arena.GameRecord) int { return (a.Pair*2 + a.Game) - (b.Pair*2 + b.Game) })
	return recs
}

// writeRecords rewrites the match's record file (header, then the games in
// pair order): the file a local match would hold.
func (g *Gatekeeper) writeRecords(cand int, h arena.Header, recs []arena.GameRecord) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(h); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return fmt.Errorf("cluster: %w", err)
		}
	}
	return g.st.Write(loop.ArenaKey(cand), buf.Bytes())
}

// readRecords reads the match's record file back through arena's own
// reader (which wants a file).
func (g *Gatekeeper) readRecords(cand int) (arena.Header, []arena.GameRecord, error) {
	data, err := g.st.Read(loop.ArenaKey(cand))
	if err != nil {
		return arena.Header{}, nil, err
	}
	dir, err := os.MkdirTemp("", "palace-gate-")
	if err != nil {
		return arena.Header{}, nil, fmt.Errorf("cluster: %w", err)
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, filepath.Base(loop.ArenaKey(cand)))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return arena.Header{}, nil, fmt.Errorf("cluster: %w", err)
	}
	return arena.ReadRecords(p)
}

// gate promotes candidate gen+1 or keeps the best, as the local loop's
// gate does, with the best pointer moved by compare-and-swap.
func (g *Gatekeeper) gate(ctx context.Context, s State) (State, error) {
	gen := s.Generation
	cand := gen + 1
	best, bestRev, err := g.c.Best(ctx)
	if err != nil {
		return s, err
	}
	cck, err := g.loadNet(loop.NetKey(cand))
	if err != nil {
		return s, err
	}
	m := loop.Metric{Generation: gen, Stage: loop.StageGate, Network: loop.NetKey(cand), Best: best.Key}
	promote := true
	if g.cfg.Gating {
		h, recs, err := g.readRecords(cand)
		if err != nil {
			return s, err
		}
		sum := arena.Summarize(h, recs)
		if !sum.Done {
			return s, fmt.Errorf("cluster: gate of generation %d: the match is not over (%d games)", cand, sum.Games)
		}
		promote, m.Reason = loop.Decide(g.cfg, sum)
		m.Match = &sum
		if best.Key == loop.NetKey(cand) {
			m.Best = h.B // promoted before a crash: the match was against the best before
		}
	} else {
		m.Reason = "gating off"
	}
	m.Promoted = promote
	if promote && best.Key != loop.NetKey(cand) {
		nb := loop.Best{Generation: cand, Key: loop.NetKey(cand), NetworkID: cck.Weights.ID()}
		if _, err := g.c.casJSON(ctx, keyBest, nb, bestRev); err != nil {
			return s, err
		}
		best = nb
	}
	if err := g.mirror(s, &best); err != nil {
		return s, err
	}
	if err := loop.RecordMetric(g.st, m); err != nil {
		return s, err
	}
	verdict := "kept the best"
	if promote {
		verdict = "promoted"
	}
	g.logf("gen %d gate: %s (%s)", cand, verdict, m.Reason)
	return State{State: loop.State{Generation: gen + 1, Stage: loop.StageSelfplay}}, nil
}
