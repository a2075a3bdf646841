package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/palace-chess/palace/nn/gnet"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/store"
	"github.com/palace-chess/palace/train"
)

// The train stage's metric is the whole generation's training: all its
// steps and their mean loss, however many times the stage was killed and
// resumed. train.Run reports the losses of the steps since its last save
// right after each save; the stage keeps them, save by save, in the
// store's train/losses.json (TrainLossesKey), and the metric is computed
// from that file alone, so that a resumed generation's line is the very
// line of one left alone.
//
// The trainer saves its state before it reports, so a kill between the
// two (the width of one small write) loses that save's losses: the next
// attempt finds the file behind the state, and the metric's Loss is then
// the mean over the steps whose losses are known, LossSteps saying how
// many. A file ahead of the state (a distributed trainer restarted from
// an older upload of it) is cut back to the state: those steps are taken
// again, with the same batches and so the same losses.

// TrainLossesKey is the train stage's record of its losses.
const TrainLossesKey = "train/losses.json"

// trainLosses is the losses of one generation's training so far.
type trainLosses struct {
	Version    int `json:"version"`
	Generation int `json:"generation"`
	// Start is the trainer's step when the generation's training began.
	Start  int64        `json:"start"`
	Chunks []trainChunk `json:"chunks"`
}

// trainChunk is the steps between two saves of the trainer.
type trainChunk struct {
	// From and To are the trainer's steps before and after them.
	From int64 `json:"from"`
	To   int64 `json:"to"`
	// Losses are their mean, Window the replay window they sampled.
	Losses gnet.Losses `json:"losses"`
	Window int64       `json:"window"`
	// Network is the trainer's network after them (CheckTrainer); absent
	// in an older palace's record.
	Network string `json:"network,omitempty"`
}

// readTrainLosses reads generation gen's losses, or starts them at step
// start when the store holds another generation's (or none).
func readTrainLosses(st store.Store, gen int, start int64) (*trainLosses, error) {
	data, err := st.Read(TrainLossesKey)
	if err != nil && !errors.Is(err, store.ErrNotExist) {
		return nil, fmt.Errorf("loop: %w", err)
	}
	var l trainLosses
	if err == nil {
		if err := json.Unmarshal(data, &l); err != nil || l.Version != 1 {
			return nil, fmt.Errorf("loop: %s: unreadable or of another version (%v); remove it (the generation's metric then counts only the steps trained from now on)", TrainLossesKey, err)
		}
	}
	if err != nil || l.Generation != gen {
		l = trainLosses{Version: 1, Generation: gen, Start: start}
	}
	return &l, nil
}

func (l *trainLosses) write(st store.Store) error {
	data, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("loop: %s: %w", TrainLossesKey, err)
	}
	if err := st.Write(TrainLossesKey, append(data, '\n')); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	return nil
}

// resume fits the losses to a trainer at step: chunks past it are
// dropped (they will be trained again); a start past it (the trainer's
// state replaced by an older one) starts the generation's losses over.
func (l *trainLosses) resume(step int64) {
	if l.Start > step {
		l.Start, l.Chunks = step, nil
		return
	}
	for len(l.Chunks) > 0 && l.Chunks[len(l.Chunks)-1].To > step {
		l.Chunks = l.Chunks[:len(l.Chunks)-1]
	}
}

// add records the report p of a save, the first since the trainer was at
// step from.
func (l *trainLosses) add(from int64, p train.Progress) {
	l.Chunks = append(l.Chunks, trainChunk{From: from, To: p.Step, Losses: p.Losses, Window: p.Window, Network: p.Network})
}

// fill sets m's training figures for a trainer now at step end: the
// generation's steps, the mean loss over those whose losses are known, the
// last save's losses and window.
func (l *trainLosses) fill(m *Metric, end int64) {
	m.Steps = end - l.Start
	var sum gnet.Losses
	var known int64
	at := l.Start
	for _, c := range l.Chunks {
		if c.From < at || c.To > end {
			continue // not of this training (never written so)
		}
		n := float64(c.To - c.From)
		sum.Policy += c.Losses.Policy * n
		sum.WDL += c.Losses.WDL * n
		sum.Reply += c.Losses.Reply * n
		sum.L2 += c.Losses.L2 * n
		sum.Total += c.Losses.Total * n
		known += c.To - c.From
		at = c.To
	}
	if known > 0 {
		f := 1 / float64(known)
		m.Loss = &gnet.Losses{Policy: sum.Policy * f, WDL: sum.WDL * f, Reply: sum.Reply * f, L2: sum.L2 * f, Total: sum.Total * f}
	}
	if known != m.Steps {
		m.LossSteps = known
	}
	if n := len(l.Chunks); n > 0 && l.Chunks[n-1].To == end {
		last := l.Chunks[n-1]
		m.LastLoss, m.Window = &last.Losses, last.Window
	}
}

// trainerStep is the step the trainer's state file is at: the initial
// network's when there is none yet.
func trainerStep(path string, init *model.Checkpoint) (int64, error) {
	ck, err := model.Load(path)
	if errors.Is(err, os.ErrNotExist) {
		return init.Steps, nil
	}
	if err != nil {
		return 0, fmt.Errorf("loop: the trainer's state: %w", err)
	}
	return ck.Steps, nil
}
