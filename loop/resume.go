package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/store"
)

// What a resumed run checks before it trusts its files: that the state
// agrees with the artifacts it implies, that the best network pointer
// names the network its file holds, and (locally) that no temporary file
// of a killed write is left behind. A match's records are replayed where
// they are read (arena.CheckRecords), the trainer's losses kept beside its
// state (losses.go).

// stageIndex is a stage's place in a generation, -1 for no stage.
func stageIndex(stage string) int {
	switch stage {
	case StageSelfplay:
		return 0
	case StageReanalyse:
		return 1
	case StageTrain:
		return 2
	case StageArena:
		return 3
	case StageGate:
		return 4
	case StageLadder:
		return 5
	}
	return -1
}

// keyGeneration is the generation in key under prefix ("nets/gen-",
// "selfplay/gen-", "reanalysis/gen-", "arena/gen-"): the digits that follow it.
func keyGeneration(key, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(key, prefix)
	if !ok {
		return 0, false
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	g, err := strconv.Atoi(rest[:end])
	return g, err == nil
}

// CheckState checks that the run's state at (generation at.Generation's
// stage at.Stage is next) and best, its best network pointer, agree with
// the artifacts in the store, as far as one listing of the store and the
// metrics tell: the stage is one of this config's; every finished
// generation left what it leaves (its self-play manifest, its metrics
// lines for self-play, training and the gate, and when it was gated its
// match record file and arena line); this generation holds what its
// stages still to run need (the networks of every generation so far, the
// candidate once trained, the match record file at the gate, the gate's
// line at the ladder); nothing of a stage still to come is there (a
// network, self-play directory, match record file or metrics line); and
// best is the network the gates in the metrics promoted. A state or best
// pointer that was edited, or copied from another run, is refused here
// with what does not agree, rather than played on. It reads nothing big:
// CheckBest reads the best network.
func (s *Stages) CheckState(at State, best Best) error {
	gen, idx := at.Generation, stageIndex(at.Stage)
	fail := func(format string, a ...any) error {
		return fmt.Errorf("loop: %s says generation %d's %s is next, but %s; restore %s (or what the run lacks), or start a new run directory",
			StateKey, gen, at.Stage, fmt.Sprintf(format, a...), StateKey)
	}
	if gen < 0 || idx < 0 {
		return fail("there is no such generation or stage")
	}
	// The stage must be one of this config's.
	for st := (State{Generation: gen, Stage: StageSelfplay}); st.Stage != at.Stage; st = s.Next(st) {
		if st.Generation != gen {
			return fail("this run's config (gating %v, gate every %d, reanalysis positions %d, ladder every %d) has no %s stage",
				s.Config.Gating, s.Config.Gate.Every, s.Config.Reanalysis.Positions, s.Config.Ladder.Every, at.Stage)
		}
	}
	trained := idx >= stageIndex(StageArena) // the candidate, generation gen+1's network, is written

	keys, err := s.Store.List("")
	if err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	has := make(map[string]bool, len(keys))
	lastNet := -1
	for _, k := range keys {
		has[k] = true
		if g, ok := keyGeneration(k, "nets/gen-"); ok && k == NetKey(g) {
			lastNet = max(lastNet, g)
		}
	}
	need := gen
	if trained {
		need = gen + 1
	}
	for g := 0; g <= need; g++ {
		if !has[NetKey(g)] {
			held := "the run holds no network"
			if lastNet >= 0 {
				held = fmt.Sprintf("the run's networks go to generation %d", lastNet)
			}
			return fail("%s is missing (%s)", NetKey(g), held)
		}
	}
	for _, k := range keys {
		allowed, what := gen, ""
		if g, ok := keyGeneration(k, "nets/gen-"); ok && k == NetKey(g) {
			// Training writes the candidate before the state moves on.
			if idx >= stageIndex(StageTrain) {
				allowed = gen + 1
			}
			if g > allowed {
				what = k
			}
		} else if g, ok := keyGeneration(k, "selfplay/gen-"); ok && g > gen {
			what = SelfplayKey(g)
		} else if g, ok := keyGeneration(k, "reanalysis/gen-"); ok && (g > gen || g == gen && idx < stageIndex(StageReanalyse)) {
			what = ReanalysisKey(g)
		} else if g, ok := keyGeneration(k, "arena/gen-"); ok && g > gen+1 {
			what = k
		}
		if what != "" {
			return fail("%s exists, which only a later stage makes", what)
		}
	}
	for g := 0; g < gen; g++ {
		if !has[ManifestKey(g)] {
			return fail("generation %d's self-play manifest %s is missing", g, ManifestKey(g))
		}
	}

	ms, err := ReadMetrics(s.Store)
	if err != nil {
		return err
	}
	type stageKey struct {
		gen   int
		stage string
	}
	lines := map[stageKey]Metric{}
	for _, m := range ms {
		if m.Generation > gen || (m.Generation == gen && stageIndex(m.Stage) > idx) {
			return fail("%s has a line for generation %d's %s, which comes later", MetricsKey, m.Generation, m.Stage)
		}
		lines[stageKey{m.Generation, m.Stage}] = m
	}
	requireLine := func(g int, stage string) error {
		if _, ok := lines[stageKey{g, stage}]; !ok {
			return fail("%s has no line for generation %d's %s", MetricsKey, g, stage)
		}
		return nil
	}
	done := []string{StageSelfplay, StageTrain, StageGate}
	if s.Config.Reanalysis.Positions > 0 {
		done = append(done, StageReanalyse)
	}
	for g := 0; g < gen; g++ {
		for _, stage := range done {
			if err := requireLine(g, stage); err != nil {
				return err
			}
		}
		if lines[stageKey{g, StageGate}].Match != nil {
			if err := requireLine(g, StageArena); err != nil {
				return err
			}
			if !has[ArenaKey(g+1)] {
				return fail("candidate %d's match record file %s is missing", g+1, ArenaKey(g+1))
			}
		}
	}
	if at.Stage == StageGate && s.Gated(gen+1) && !has[ArenaKey(gen+1)] {
		return fail("candidate %d's match record file %s, which the gate decides from, is missing", gen+1, ArenaKey(gen+1))
	}
	if at.Stage == StageLadder {
		// The ladder counts the promotions.
		if err := requireLine(gen, StageGate); err != nil {
			return err
		}
	}

	// The best is the last candidate a gate promoted; a gate killed after
	// promoting and before its metric leaves the candidate best already.
	want := 0
	for g := 0; g <= gen; g++ {
		if m, ok := lines[stageKey{g, StageGate}]; ok && m.Promoted {
			want = g + 1
		}
	}
	_, gated := lines[stageKey{gen, StageGate}]
	promoting := at.Stage == StageGate && !gated && best.Generation == gen+1
	if best.Key != NetKey(best.Generation) || (best.Generation != want && !promoting) {
		return fmt.Errorf("loop: %s names generation %d (%s), but the gates in %s make generation %d the best; restore %s, or start a new run directory",
			BestKey, best.Generation, best.Key, MetricsKey, want, BestKey)
	}
	return nil
}

// CheckBest checks that the network file best names exists and holds the
// network best says (its id).
func (s *Stages) CheckBest(best Best) error {
	data, err := s.Store.Read(best.Key)
	if errors.Is(err, store.ErrNotExist) {
		return fmt.Errorf("loop: %s names %s, which is missing; restore it (or %s), or start a new run directory", BestKey, best.Key, BestKey)
	}
	if err != nil {
		return fmt.Errorf("loop: %s names %s: %w", BestKey, best.Key, err)
	}
	ck, err := model.DecodeCheckpoint(data)
	if err != nil {
		return fmt.Errorf("loop: %s names %s: %w", BestKey, best.Key, err)
	}
	if id := ck.Weights.ID(); id != best.NetworkID {
		return fmt.Errorf("loop: %s says %s is network %s, but %s holds network %s; restore %s (or the network file), or start a new run directory",
			BestKey, best.Key, best.NetworkID, best.Key, id, BestKey)
	}
	return nil
}

// CheckTrainer checks that the trainer's state file (stateFile, the
// local copy of TrainKey) is this run's trainer where the run at state at
// has left it, as far as the metrics, the networks and the record of the
// training's saves tell: none before any training, since a missing one
// would silently start training over from step 0 (issue 47); at the
// steps of the last finished training, that training's candidate's
// weights; past them, only in the training under way, at a save its
// record names (with that save's network), or the one save after it that
// a kill kept from being recorded. A network copied in from elsewhere is
// refused rather than trained on.
func (s *Stages) CheckTrainer(at State, stateFile string) error {
	ms, err := ReadMetrics(s.Store)
	if err != nil {
		return err
	}
	// The last finished training: its steps and its candidate.
	refKey, refSteps, trained := NetKey(0), int64(0), -1
	for _, m := range ms {
		if m.Stage == StageTrain && m.Generation > trained {
			refKey, refSteps, trained = m.Network, m.TotalSteps, m.Generation
		}
	}
	var losses *trainLosses
	if data, err := s.Store.Read(TrainLossesKey); err == nil {
		var l trainLosses
		if json.Unmarshal(data, &l) == nil && l.Generation == at.Generation && at.Stage == StageTrain && trained < at.Generation {
			losses = &l // the training under way
		}
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("loop: %s %s; training on it would not be this run's: restore the trainer's state, or start a new run directory",
			TrainKey, fmt.Sprintf(format, a...))
	}
	ck, err := model.Load(stateFile)
	if errors.Is(err, os.ErrNotExist) {
		if refSteps > 0 {
			return fail("is missing, but the run's training reached step %d (generation %d's, %s)", refSteps, trained, MetricsKey)
		}
		if losses != nil && len(losses.Chunks) > 0 {
			return fail("is missing, but generation %d's training saved it at step %d (%s)", at.Generation, losses.Chunks[len(losses.Chunks)-1].To, TrainLossesKey)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("loop: the trainer's state: %w", err)
	}
	id := ck.Weights.ID()
	switch {
	case ck.Steps == refSteps:
		ref, err := LoadNet(s.Store, refKey)
		if err != nil {
			return err
		}
		// With train.weight_average the candidate is the state's
		// average, not its weights.
		if rid, cid := ref.Weights.ID(), candidateWeights(ck).ID(); rid != cid {
			return fail("holds network %s at step %d, but the run's training reached step %d with network %s (%s)", cid, ck.Steps, refSteps, rid, refKey)
		}
	case ck.Steps > refSteps && losses != nil:
		last := losses.Start
		for _, c := range losses.Chunks {
			if c.To == ck.Steps && c.Network != "" && c.Network != id {
				return fail("holds network %s at step %d, but generation %d's training saved network %s there (%s)", id, ck.Steps, at.Generation, c.Network, TrainLossesKey)
			}
			last = max(last, c.To)
		}
		if ck.Steps > last+int64(s.Config.Train.CheckpointEvery) {
			return fail("is at step %d, but generation %d's training saved it last at step %d (%s), %d steps a save", ck.Steps, at.Generation, last, TrainLossesKey, s.Config.Train.CheckpointEvery)
		}
	case ck.Steps > refSteps && at.Stage == StageTrain && trained < at.Generation:
		// Training under way without a record of its saves (an older
		// palace's run): its steps are all there is to go by.
	default:
		return fail("is at step %d, but the run's training reached step %d (generation %d's, %s)", ck.Steps, refSteps, trained, MetricsKey)
	}
	return nil
}

// candidateWeights is the network that a training left in trainer state
// ck makes its candidate: the state's weights with the weight average
// (train.weight_average, kept as the optimizer's "average/NAME" tensors)
// in place of the parameters it covers, as gnet's AveragedWeights makes
// it; the weights themselves without one.
func candidateWeights(ck *model.Checkpoint) *model.Weights {
	if ck.Optimizer == nil {
		return ck.Weights
	}
	var w *model.Weights
	for name, avg := range ck.Optimizer.Tensors {
		param, ok := strings.CutPrefix(name, "average/")
		if !ok {
			continue
		}
		if w == nil {
			w = &model.Weights{Config: ck.Weights.Config, Tensors: maps.Clone(ck.Weights.Tensors)}
		}
		w.Tensors[param] = avg
	}
	if w == nil {
		return ck.Weights
	}
	return w
}

// checkLinks refuses symbolic links in the run directory st (root, its
// path with links resolved) that lead out of it, or nowhere: palace reads
// and writes through such a link as if it were the run's own file, and
// would append to, or overwrite, a file elsewhere (issue 47). Links that
// stay inside are the user's arrangement and are left alone.
func checkLinks(st store.Store, root string) error {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		name := st.Local(filepath.ToSlash(rel))
		target, err := filepath.EvalSymlinks(p)
		if err != nil {
			return fmt.Errorf("%s is a symbolic link that leads nowhere (%w); a run directory holds its own files: remove the link, or put the file there", name, err)
		}
		if in, err := filepath.Rel(root, target); err != nil || in == ".." || strings.HasPrefix(in, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%s is a symbolic link to %s, outside the run directory; palace writes only inside it: replace the link with a copy of the file", name, target)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	return nil
}

// removeDebris removes the temporary files that killed writes left in the
// run directory root (regular files named as atomicfile.IsTemp says, nothing else)
// and returns how many it removed. The caller holds the run's lock: no
// write of this run is in progress.
func removeDebris(root string) (int, error) {
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || !atomicfile.IsTemp(d.Name()) {
			return nil
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("loop: removing temporary files left in %s: %w", root, err)
	}
	return n, nil
}
