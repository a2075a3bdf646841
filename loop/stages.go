package loop

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/internal/splitmix"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/selfplay"
	"github.com/palace-chess/palace/store"
	"github.com/palace-chess/palace/train"
)

// The stages as functions of a run's store, shared by the two drivers: the
// local loop (Run) and the distributed one (package cluster), so that both
// train the same networks and play the same gate games from one config.
// Each stage finds the work a killed attempt left and does only the rest;
// it returns its metric, and the driver (which knows where games are
// played, how the best pointer moves and how state advances) records it.

// Stages are one run's stages: its store, config and rule sets.
type Stages struct {
	Store  store.Store
	Config Config
	// Rules is self-play's rule set (with its length cap), ArenaRules the
	// gate's.
	Rules, ArenaRules *rules.RuleSet
	// CodeVersion goes into every artifact.
	CodeVersion string
}

// NewStages are the stages of the run in st under cfg.
func NewStages(st store.Store, cfg Config, codeVersion string) (*Stages, error) {
	if cfg.Rules == nil {
		return nil, errors.New("loop: the config has no rule set")
	}
	sp, ar := RuleSets(cfg)
	return &Stages{Store: st, Config: cfg, Rules: sp, ArenaRules: ar, CodeVersion: codeVersion}, nil
}

// Next is the state after s's stage is done: a generation's self-play,
// its reanalysis (with one in the config), training, its candidate's match
// (none with gating off), the gate, the ladder (with a ladder in the
// config; it rates only when due), then the next generation.
func (s *Stages) Next(st State) State {
	gen := st.Generation
	switch st.Stage {
	case StageSelfplay:
		if s.Config.Reanalysis.Positions > 0 {
			return State{Generation: gen, Stage: StageReanalyse}
		}
		return State{Generation: gen, Stage: StageTrain}
	case StageReanalyse:
		return State{Generation: gen, Stage: StageTrain}
	case StageTrain:
		if !s.Gated(gen + 1) {
			return State{Generation: gen, Stage: StageGate}
		}
		return State{Generation: gen, Stage: StageArena}
	case StageArena:
		return State{Generation: gen, Stage: StageGate}
	case StageGate:
		if s.Config.Ladder.Every > 0 {
			return State{Generation: gen, Stage: StageLadder}
		}
	}
	return State{Generation: gen + 1, Stage: StageSelfplay}
}

// Gated says whether candidate cand plays a gate match: with gating on,
// every Gate.Every-th candidate.
func (s *Stages) Gated(cand int) bool {
	return s.Config.Gating && cand%max(s.Config.Gate.Every, 1) == 0
}

// SaveNet writes checkpoint ck at key.
func SaveNet(st store.Store, key string, ck *model.Checkpoint) error {
	data, err := ck.Encode()
	if err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	if err := st.Write(key, data); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	return nil
}

// LoadNet reads the checkpoint at key.
func LoadNet(st store.Store, key string) (*model.Checkpoint, error) {
	data, err := st.Read(key)
	if err != nil {
		return nil, fmt.Errorf("loop: %w", err)
	}
	ck, err := model.DecodeCheckpoint(data)
	if err != nil {
		return nil, fmt.Errorf("loop: %s: %w", key, err)
	}
	return ck, nil
}

// WriteState writes s as the run's state.json.
func WriteState(st store.Store, s State) error {
	s.Version = 1
	b, _ := json.Marshal(s)
	if err := st.Write(StateKey, append(b, '\n')); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	return nil
}

// SetBest writes b as the run's best.json.
func SetBest(st store.Store, b Best) error {
	data, _ := json.Marshal(b)
	if err := st.Write(BestKey, append(data, '\n')); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	return nil
}

// WriteInitialNetwork writes generation 0's network, the run's first best,
// and returns that best. It is a pure function of the config: two writes
// (a start redone, two roles starting at once) write the same network.
func (s *Stages) WriteInitialNetwork() (Best, error) {
	ck, err := InitialNetwork(s.Config, s.Rules, s.CodeVersion)
	if err != nil {
		return Best{}, err
	}
	if err := SaveNet(s.Store, NetKey(0), ck); err != nil {
		return Best{}, err
	}
	return Best{Generation: 0, Key: NetKey(0), NetworkID: ck.Weights.ID()}, nil
}

// ManifestKey is generation gen's self-play manifest, its commit point.
func ManifestKey(gen int) string { return SelfplayKey(gen) + "/" + datasets.ManifestName }

// ReadManifest reads generation gen's self-play manifest from st, and the
// bytes it was read from (for a copy).
func ReadManifest(st store.Store, gen int) (*datasets.Manifest, []byte, error) {
	data, err := st.Read(ManifestKey(gen))
	if err != nil {
		return nil, nil, fmt.Errorf("loop: %w", err)
	}
	m, err := decodeManifest(data, fmt.Sprintf("generation %d's manifest", gen))
	return m, data, err
}

// ReanalysisManifestKey is generation gen's reanalysis manifest.
func ReanalysisManifestKey(gen int) string { return ReanalysisKey(gen) + "/" + datasets.ManifestName }

// decodeManifest decodes a manifest's bytes; what names it in errors.
func decodeManifest(data []byte, what string) (*datasets.Manifest, error) {
	var m datasets.Manifest
	if err := json.Unmarshal(data, &m); err != nil || m.Version != datasets.ManifestVersion {
		return nil, fmt.Errorf("loop: %s: unreadable or of another version (%v)", what, err)
	}
	return &m, nil
}

// Positions counts the positions the self-play manifests of generations
// from to to list.
func Positions(st store.Store, from, to int) (int64, error) {
	var n int64
	for g := from; g <= to; g++ {
		m, _, err := ReadManifest(st, g)
		if err != nil {
			return 0, err
		}
		n += m.Records()
	}
	return n, nil
}

// ReanalysedPositions counts the positions the reanalysis manifests of
// generations from to to list (none where a generation has none).
func ReanalysedPositions(st store.Store, from, to int) (int64, error) {
	var n int64
	for g := from; g <= to; g++ {
		data, err := st.Read(ReanalysisManifestKey(g))
		if errors.Is(err, store.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("loop: %w", err)
		}
		m, err := decodeManifest(data, fmt.Sprintf("generation %d's reanalysis manifest", g))
		if err != nil {
			return 0, err
		}
		n += m.Records()
	}
	return n, nil
}

// ReanalysisSources are the earlier generations whose games generation
// gen's reanalysis draws from: those the replay window still holds, at
// least in part, once generation gen's self-play is in (self-play's
// positions counted), newest first; none for generation 0.
func (s *Stages) ReanalysisSources(gen int) ([]int, error) {
	counts := make([]int64, gen+1) // each generation's self-play positions, each manifest read once
	var total int64
	for g := range counts {
		n, err := Positions(s.Store, g, g)
		if err != nil {
			return nil, err
		}
		counts[g], total = n, total+n
	}
	c := s.Config.Train
	window := int64(datasets.WindowSize(int(total), c.MinRows, c.WindowExponent, c.WindowExpansion))
	if c.MaxRows > 0 {
		window = min(window, int64(c.MaxRows))
	}
	var gens []int
	for g, held := gen-1, counts[gen]; g >= 0 && held < window; g-- {
		gens = append(gens, g)
		held += counts[g]
	}
	return gens, nil
}

// ReanalyseJob is generation gen's reanalysis of the sources' games (the
// local directories of sourceDirs, generation by generation) into output,
// with the network file at network ("" for a caller that gives selfplay
// its evaluator).
func (s *Stages) ReanalyseJob(gen int, sourceDirs []string, output, network string) selfplay.ReanalyseJob {
	return selfplay.ReanalyseJob{Output: output, Sources: sourceDirs, Rules: s.Rules, Network: network,
		Positions: s.Config.Reanalysis.Positions, Simulations: s.Config.Reanalysis.Simulations,
		Seed: splitmix.Mix(generationSeed(s.Config, gen), 0x7265616e616c79)} // "reanaly"
}

// ReanalysisMetric is the reanalyse stage's metric: what generation gen's
// reanalysis manifest lists, searched by best from sources, in a stage
// that took elapsed.
func (s *Stages) ReanalysisMetric(gen int, best Best, sources []int, st selfplay.ReanalyseStats, elapsed time.Duration) (Metric, error) {
	n, err := ReanalysedPositions(s.Store, gen, gen)
	if err != nil {
		return Metric{}, err
	}
	return Metric{Generation: gen, Stage: StageReanalyse, Network: best.Key, Positions: n, SourceGenerations: sources,
		EvalsPerSecond: st.EvaluationsPerSecond(), Seconds: elapsed.Seconds()}, nil
}

// SelfplayPlan is generation Generation's self-play as far as its first
// Rounds rounds, each Config.Selfplay.Games more game indices, played with
// the best network under the generation's seed. Until the run holds the
// window's minimum of positions, a generation plays more rounds (training
// waits for data, as KataGo's does): see MoreSelfplay.
type SelfplayPlan struct {
	Generation int
	Best       Best
	Seed       uint64
	Rounds     int
	// perRound and perShard are the config's games a round and a shard.
	perRound, perShard int
}

// SelfplayPlan is generation gen's self-play with best, in its first
// rounds rounds.
func (s *Stages) SelfplayPlan(gen int, best Best, rounds int) SelfplayPlan {
	return SelfplayPlan{Generation: gen, Best: best, Seed: SelfplaySeed(s.Config, gen), Rounds: rounds,
		perRound: s.Config.Selfplay.Games, perShard: s.Config.Selfplay.GamesPerShard}
}

// Games is the number of game indices the plan plays: 0 to Games-1.
func (p SelfplayPlan) Games() int { return p.Rounds * p.perRound }

// SelfplayBlock is a block of consecutive game indices, committed as
// shard number Shard.
type SelfplayBlock struct {
	Shard int
	First uint64
	Games int
}

// Blocks are the plan's games in the shards selfplay.Run commits them in:
// each round's game indices, numbered on from the previous round's, in
// blocks of GamesPerShard (a round's last block may be shorter).
func (p SelfplayPlan) Blocks() []SelfplayBlock {
	var blocks []SelfplayBlock
	for round := range p.Rounds {
		end := uint64((round + 1) * p.perRound)
		for first := uint64(round * p.perRound); first < end; first += uint64(p.perShard) {
			blocks = append(blocks, SelfplayBlock{Shard: len(blocks), First: first, Games: int(min(uint64(p.perShard), end-first))})
		}
	}
	return blocks
}

// SelfplayJob is the run's self-play of games 0 to games-1 under seed,
// into output, with the network file at network ("" for a caller that
// gives selfplay its evaluator), played under Config.Selfplay.Config.
func (s *Stages) SelfplayJob(seed uint64, games int, output, network string) selfplay.Job {
	return selfplay.Job{Output: output, Rules: s.Rules, Network: network, Games: games,
		JanggiSetups: s.Config.Selfplay.JanggiSetups, Seed: seed}
}

// SelfplayRound is why self-play plays another round: the run holds
// Positions, fewer than the MinRows training starts at, so generation
// Generation plays Games more.
type SelfplayRound struct {
	Generation int
	Positions  int64
	MinRows    int
	Games      int
}

// MoreSelfplay decides whether the plan, whose rounds left the run total
// positions, needs another round: training starts at Train.MinRows. When it
// does, it returns the plan with that round and why, for the drivers to
// report.
func (s *Stages) MoreSelfplay(p SelfplayPlan, total int64) (next SelfplayPlan, why SelfplayRound, more bool) {
	if total >= int64(s.Config.Train.MinRows) {
		return p, SelfplayRound{}, false
	}
	p.Rounds++
	return p, SelfplayRound{Generation: p.Generation, Positions: total, MinRows: s.Config.Train.MinRows, Games: s.Config.Selfplay.Games}, true
}

// SelfplayCounts are what a generation's self-play played, as its driver
// counted them.
type SelfplayCounts struct {
	Games       int   // games finished
	Plies       int64 // their plies
	Evaluations int64 // the network's evaluations (cache misses)
	// Playing is the time the games took, the evaluation rate's
	// denominator.
	Playing time.Duration
	Resigns selfplay.Resignations
}

// SelfplayMetric is the self-play stage's metric: the plan's games, all
// committed (the positions are read from the manifests), as counts counted
// them, in a stage that took elapsed.
func (s *Stages) SelfplayMetric(p SelfplayPlan, c SelfplayCounts, elapsed time.Duration) (Metric, error) {
	gen := p.Generation
	own, err := Positions(s.Store, gen, gen)
	if err != nil {
		return Metric{}, err
	}
	before, err := Positions(s.Store, 0, gen-1)
	if err != nil {
		return Metric{}, err
	}
	m := Metric{Generation: gen, Stage: StageSelfplay, Network: p.Best.Key, Games: p.Games(), Positions: own,
		TotalPositions: before + own, Seconds: elapsed.Seconds(), Resigns: c.Resigns}
	if c.Games > 0 {
		m.MeanPlies = float64(c.Plies) / float64(c.Games)
	}
	if c.Playing > 0 {
		m.EvalsPerSecond = float64(c.Evaluations) / c.Playing.Seconds()
	}
	return m, nil
}

// TrainJob is the train stage's work beyond the run's: where this machine
// holds the data and the trainer's state, and who hears how it goes.
type TrainJob struct {
	// Generation is the last generation trained on; the candidate is
	// generation Generation+1.
	Generation int
	// Dirs are local directories of generations 0 to Generation's
	// self-play: the run's own, or copies of them.
	Dirs []string
	// ReanalysisDirs are the local directories of the generations'
	// reanalyses, one a generation as Dirs ("" for a generation without
	// one); nil in a run without reanalysis.
	ReanalysisDirs []string
	// State is the trainer's local state file, resumed when it exists.
	State string
	// TargetSteps, when set, is the trainer's step count to stop at, in
	// place of the config's for the positions (the asynchronous loop's,
	// AsyncTarget).
	TargetSteps int64
	// Parent, when set, is the key of the trainer's last candidate, the
	// new one's parent (default: generation Generation's network; the
	// asynchronous loop skips generations).
	Parent string
	// Started, when set, hears the positions trained on and the step
	// training goes to, before the first step.
	Started func(positions, target int64)
	// Progress, when set, receives the trainer's reports (after every save
	// and at the end).
	Progress func(train.Progress)
	// Finished, when set, runs after the last step and before the
	// candidate is written (a trainer whose state lives in the store copies
	// it there); its error fails the stage.
	Finished func() error
}

// Train trains on the window until the steps the run's positions allow,
// resuming from the state file, then writes the candidate, generation
// job.Generation+1's network. Its metric is the whole generation's
// training, however often it was resumed: the losses of every save are
// kept in the store (TrainLossesKey, losses.go).
func (s *Stages) Train(ctx context.Context, job TrainJob) (Metric, error) {
	gen := job.Generation
	if err := s.checkShards(job.Dirs, job.ReanalysisDirs); err != nil {
		return Metric{}, err
	}
	total, err := Positions(s.Store, 0, gen)
	if err != nil {
		return Metric{}, err
	}
	reanalysed, err := ReanalysedPositions(s.Store, 0, gen)
	if err != nil {
		return Metric{}, err
	}
	// A reanalysed position is trained on as a self-play one is: it adds
	// to the window and to the steps.
	total += reanalysed
	dirs := job.Dirs
	if len(job.ReanalysisDirs) > 0 {
		// Each generation's reanalysis after its self-play: the window
		// takes the newest positions, and a reanalysis is newer than the
		// games it searched again.
		dirs = nil
		for g, d := range job.Dirs {
			dirs = append(dirs, d)
			if g < len(job.ReanalysisDirs) && job.ReanalysisDirs[g] != "" {
				dirs = append(dirs, job.ReanalysisDirs[g])
			}
		}
	}
	init, err := LoadNet(s.Store, NetKey(0))
	if err != nil {
		return Metric{}, err
	}
	if err := os.MkdirAll(filepath.Dir(job.State), 0o755); err != nil {
		return Metric{}, fmt.Errorf("loop: %w", err)
	}
	target := s.Config.Train.Steps(total)
	if job.TargetSteps > 0 {
		target = job.TargetSteps
	}
	if job.Started != nil {
		job.Started(total, target)
	}
	var records *train.GameSet
	if c := s.Config.Train; c.RecordsShare > 0 && gen < c.RecordsGenerations {
		if records, err = train.ReadGameSet(c.Records); err != nil {
			return Metric{}, fmt.Errorf("loop: train: records: %w", err)
		}
	}
	// The generation's losses so far (losses.go), fitted to the trainer.
	step, err := trainerStep(job.State, init)
	if err != nil {
		return Metric{}, err
	}
	start, err := s.trainStart(gen, init, step)
	if err != nil {
		return Metric{}, err
	}
	losses, err := readTrainLosses(s.Store, gen, start)
	if err != nil {
		return Metric{}, err
	}
	losses.resume(step)
	if err := losses.write(s.Store); err != nil {
		return Metric{}, err
	}
	var lossErr error
	res, err := train.Run(ctx, s.Config.Train, train.Job{Dirs: dirs, RuleSets: []*rules.RuleSet{s.Rules}, State: job.State,
		Init: init, TargetSteps: target, Seed: s.Config.Seed, CodeVersion: s.CodeVersion, Records: records,
		Progress: func(p train.Progress) {
			// Recorded before anyone hears of the save (a distributed
			// trainer uploads its state then): a record ahead of the
			// state is cut back on resume, one behind loses losses.
			losses.add(step, p)
			step = p.Step
			if lossErr == nil {
				lossErr = losses.write(s.Store)
			}
			if job.Progress != nil {
				job.Progress(p)
			}
		}})
	if err != nil {
		return Metric{}, err
	}
	if lossErr != nil {
		return Metric{}, lossErr
	}
	if job.Finished != nil {
		if err := job.Finished(); err != nil {
			return Metric{}, err
		}
	}
	ck := res.Checkpoint
	ck.Optimizer = nil // the candidate is for playing; the trainer keeps its own state
	ck.Provenance.Note = fmt.Sprintf("candidate of generation %d: trained on generations 0-%d", gen+1, gen)
	if res.Averaged != nil {
		ck.Weights = res.Averaged // train.weight_average: the candidate is the average
		ck.Provenance.Note += fmt.Sprintf(" (the weights' moving average, decay %g a step)", s.Config.Train.WeightAverage)
	}
	// The trainer goes on from its own last candidate, generation gen's
	// network, whatever the gate made of it: that is the parent.
	parent := init
	if key := cmp.Or(job.Parent, NetKey(gen)); gen > 0 || job.Parent != "" {
		if parent, err = LoadNet(s.Store, key); err != nil {
			return Metric{}, err
		}
	}
	ck.Provenance.Run, ck.Provenance.Generation = s.Store.String(), gen+1
	ck.Provenance.Parent = parent.Weights.ID()
	ck.Provenance.Lineage = append(parent.Ancestry(), parent.Weights.ID())
	if err := SaveNet(s.Store, NetKey(gen+1), ck); err != nil {
		return Metric{}, err
	}
	m := Metric{Generation: gen, Stage: StageTrain, Network: NetKey(gen + 1), TotalSteps: ck.Steps,
		TotalPositions: total, Seconds: res.Elapsed.Seconds()}
	losses.fill(&m, ck.Steps)
	if res.Steps > 0 {
		m.SamplesPerSecond = float64(res.Steps*int64(s.Config.Train.Batch)) / res.Elapsed.Seconds()
	}
	return m, nil
}

// AsyncTarget is the trainer's step count to train the candidate of
// generation gen+1 to in the asynchronous loop, from its last candidate,
// made at step last on generations up to lastGen (-1: none yet): the
// config's steps for the positions of at most Async.CatchUp of the newest
// generations since lastGen, and never beyond the config's steps for all
// positions up to gen (so a trainer that keeps up trains as the exact loop
// does). 0 means the run has too few positions to train yet.
func (s *Stages) AsyncTarget(last int64, lastGen, gen int) (int64, error) {
	total, err := Positions(s.Store, 0, gen)
	if err != nil {
		return 0, err
	}
	full := s.Config.Train.Steps(total)
	if full == 0 || lastGen < 0 {
		return full, nil
	}
	recent, err := Positions(s.Store, max(lastGen+1, gen-s.Config.Async.CatchUp+1), gen)
	if err != nil {
		return 0, err
	}
	c := s.Config.Train
	return min(full, last+int64(float64(recent)*c.SamplesPerPosition/float64(c.Batch))), nil
}

// checkShards checks, before training on them, that the self-play
// directories dirs (generation g's at dirs[g]) and the reanalysis
// directories reDirs (the same, "" for none) hold what their stages
// committed (issue 47): every manifest's positions the count its
// generation's metric recorded (a removed entry would drop its shard
// unseen), and every shard the size and SHA-256 its manifest gives (a
// shard swapped for another is caught). The cost is a read of each shard.
func (s *Stages) checkShards(dirs, reDirs []string) error {
	ms, err := ReadMetrics(s.Store)
	if err != nil {
		return err
	}
	type stageKey struct {
		gen   int
		stage string
	}
	recorded := map[stageKey]int64{}
	for _, m := range ms {
		if m.Stage == StageSelfplay || m.Stage == StageReanalyse {
			recorded[stageKey{m.Generation, m.Stage}] = m.Positions
		}
	}
	check := func(g int, dir, stage, what, key string) error {
		m, err := datasets.ReadManifest(dir)
		if err != nil {
			return fmt.Errorf("loop: generation %d's %s: %w", g, what, err)
		}
		if want, ok := recorded[stageKey{g, stage}]; ok && m.Records() != want {
			return fmt.Errorf("loop: %s lists %d positions, but %s says generation %d's %s made %d; restore the manifest (or its shards), or start a new run directory",
				key, m.Records(), MetricsKey, g, what, want)
		}
		if err := m.CheckSums(); err != nil {
			return fmt.Errorf("loop: generation %d's %s: %w; restore the shard, or start a new run directory", g, what, err)
		}
		return nil
	}
	for g, dir := range dirs {
		if err := check(g, dir, StageSelfplay, "self-play", ManifestKey(g)); err != nil {
			return err
		}
	}
	for g, dir := range reDirs {
		if dir == "" {
			continue
		}
		if err := check(g, dir, StageReanalyse, "reanalysis", ReanalysisManifestKey(g)); err != nil {
			return err
		}
	}
	return nil
}

// trainStart is the trainer's step when generation gen's training began,
// for a generation whose losses were never recorded (a run of an older
// palace): generation gen-1's last step as its metric says (the initial
// network's for generation 0), or, without one, step, where the trainer
// is now.
func (s *Stages) trainStart(gen int, init *model.Checkpoint, step int64) (int64, error) {
	if gen == 0 {
		return min(init.Steps, step), nil
	}
	ms, err := ReadMetrics(s.Store)
	if err != nil {
		return 0, err
	}
	for _, m := range ms {
		if m.Generation == gen-1 && m.Stage == StageTrain && m.TotalSteps <= step {
			return m.TotalSteps, nil
		}
	}
	return step, nil
}

// GateMatch is candidate cand's gating match against best: the players,
// openings, pairs, test, concurrency and seed both drivers play, and no
// record file (the caller's).
func (s *Stages) GateMatch(cand int, best Best) (*arena.Match, error) {
	a := s.Config.Gate
	opt := arena.SearchOptions{Evaluators: a.Evaluators, CacheEntries: 1 << 16}
	return s.gateMatch(cand, best, func(name string, w *model.Weights) (arena.Player, error) {
		return arena.NewNetwork(name, w, a.Search, opt)
	})
}

// GateHeader is the header of candidate cand's gating match record file,
// as a local match writes it, for a machine that plays none of its games.
func (s *Stages) GateHeader(cand int, best Best) (arena.Header, error) {
	m, err := s.gateMatch(cand, best, func(name string, _ *model.Weights) (arena.Player, error) {
		return namedPlayer(name), nil
	})
	if err != nil {
		return arena.Header{}, err
	}
	return m.Header(), nil
}

func (s *Stages) gateMatch(cand int, best Best, player func(name string, w *model.Weights) (arena.Player, error)) (*arena.Match, error) {
	cck, err := LoadNet(s.Store, NetKey(cand))
	if err != nil {
		return nil, err
	}
	bck, err := LoadNet(s.Store, best.Key)
	if err != nil {
		return nil, err
	}
	pa, err := player(PlayerName(s.Config, cand, cck.Weights), cck.Weights)
	if err != nil {
		return nil, err
	}
	pb, err := player(PlayerName(s.Config, best.Generation, bck.Weights), bck.Weights)
	if err != nil {
		return nil, err
	}
	ops, err := Openings(s.Config, s.ArenaRules)
	if err != nil {
		return nil, err
	}
	a := s.Config.Gate
	sprt := a.SPRT
	return &arena.Match{RuleSet: s.ArenaRules, Openings: ops, A: pa, B: pb, Pairs: a.Pairs, SPRT: &sprt,
		Concurrency: a.Concurrency, Seed: MatchSeed(s.Config, cand), CodeVersion: s.CodeVersion}, nil
}

// namedPlayer is a player known only by its name: a match described (its
// record header) where none of its games is played.
type namedPlayer string

func (n namedPlayer) Name() string { return string(n) }

func (n namedPlayer) NewGame(uint64) (arena.Mover, error) {
	return nil, fmt.Errorf("loop: %s is only a name here and plays no games", string(n))
}

// ArenaMetric is the arena stage's metric: candidate cand's match, over.
func ArenaMetric(cand int, s arena.Summary, elapsed time.Duration) Metric {
	return Metric{Generation: cand - 1, Stage: StageArena, Network: NetKey(cand), Best: s.B, Games: s.Games,
		Seconds: elapsed.Seconds()}
}

// ErrMatchNotOver is Gate's error for a match whose records do not decide
// it yet.
var ErrMatchNotOver = errors.New("loop: the match is not over")

// Gate decides whether candidate cand replaces best: from its match's
// records in the store, or at once with gating off. It returns the stage's
// metric and, when the candidate is promoted and not yet the best, the new
// best, which the driver installs before recording the metric.
func (s *Stages) Gate(cand int, best Best) (Metric, *Best, error) {
	ck, err := LoadNet(s.Store, NetKey(cand))
	if err != nil {
		return Metric{}, nil, err
	}
	m := Metric{Generation: cand - 1, Stage: StageGate, Network: NetKey(cand), Best: best.Key}
	promote := true
	switch {
	case s.Config.Gating && !s.Gated(cand):
		promote, m.Reason = false, fmt.Sprintf("not gated (gate every %d candidates)", s.Config.Gate.Every)
	case s.Config.Gating:
		// The records decide, every game replayed so that only what its
		// moves say counts, and a gate redone after a crash decides the
		// same.
		key := ArenaKey(cand)
		data, err := s.Store.Read(key)
		if err != nil {
			return Metric{}, nil, fmt.Errorf("loop: %w", err)
		}
		h, recs, err := arena.ParseRecords(key, data)
		if err != nil {
			return Metric{}, nil, err
		}
		ops, err := Openings(s.Config, s.ArenaRules)
		if err != nil {
			return Metric{}, nil, err
		}
		if err := arena.CheckRecords(key, s.ArenaRules, ops, recs); err != nil {
			return Metric{}, nil, err
		}
		sum := arena.Summarize(h, recs)
		if !sum.Done {
			return Metric{}, nil, fmt.Errorf("%w: gate of generation %d: the match in %s has %d games", ErrMatchNotOver, cand, key, sum.Games)
		}
		promote, m.Reason = Decide(s.Config, sum)
		m.Match = &sum
		if best.Key == NetKey(cand) {
			// Killed after promoting, before the state moved on: the
			// match was against the best before this one.
			m.Best = h.B
		}
	default:
		m.Reason = "gating off"
	}
	m.Promoted = promote
	if !promote || best.Key == NetKey(cand) {
		return m, nil, nil
	}
	return m, &Best{Generation: cand, Key: NetKey(cand), NetworkID: ck.Weights.ID()}, nil
}
