package train_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/nn/gnet"
	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/train"
)

var tinyNet = model.Config{Planes: encode.Planes, PolicySize: encode.PolicySize(), Blocks: 1, Filters: 8,
	PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}

// shards plays a few short xiangqi games into a shard directory.
func shards(t *testing.T, games int) (string, *rules.RuleSet) {
	t.Helper()
	return train.PlayTiny(t, train.TinyGames{Rules: "xiangqi", Games: games, MaxPlies: 40, GamesPerShard: 4, ConcurrentGames: 4, Seed: 3, EvaluatorSeed: 5})
}

func initial(t *testing.T) *model.Checkpoint {
	t.Helper()
	w, err := model.NewRandom(tinyNet, 1)
	if err != nil {
		t.Fatal(err)
	}
	return &model.Checkpoint{Weights: w, EncodingVersion: encode.Version}
}

func testConfig() train.Config {
	c := train.DefaultConfig()
	c.Batch, c.MinRows, c.CheckpointEvery = 32, 100, 5
	c.Schedule = gnet.Schedule{Kind: gnet.Constant, Rate: 0.05}
	return c
}

func TestLossFalls(t *testing.T) {
	dir, rs := shards(t, 12)
	var reports []train.Progress
	job := train.Job{Dirs: []string{dir}, RuleSets: []*rules.RuleSet{rs}, State: filepath.Join(t.TempDir(), "state.palnet"),
		Init: initial(t), TargetSteps: 60, Seed: 1, Progress: func(p train.Progress) { reports = append(reports, p) }}
	res, err := train.Run(context.Background(), testConfig(), job)
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps != 60 || res.Checkpoint.Steps != 60 || len(reports) != 12 {
		t.Fatalf("took %d steps, checkpoint says %d, %d reports; want 60, 60, 12", res.Steps, res.Checkpoint.Steps, len(reports))
	}
	first, last := reports[0].Losses, reports[len(reports)-1].Losses
	t.Logf("loss %.3f (policy %.3f wdl %.3f) → %.3f (policy %.3f wdl %.3f)", first.Total, first.Policy, first.WDL, last.Total, last.Policy, last.WDL)
	if !(last.Total < 0.8*first.Total && last.Policy < 0.85*first.Policy) {
		t.Errorf("loss went from %.3f to %.3f, want it well down", first.Total, last.Total)
	}
	ck, err := model.Load(job.State)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Steps != 60 || ck.Optimizer == nil || len(ck.RuleSets) != 1 || ck.RuleSets[0] != rs.String() {
		t.Errorf("state: steps %d, optimizer %v, rule sets %v", ck.Steps, ck.Optimizer != nil, ck.RuleSets)
	}
	// Asking again for what is done does nothing.
	res, err = train.Run(context.Background(), testConfig(), job)
	if err != nil || res.Steps != 0 || res.Checkpoint.Steps != 60 {
		t.Errorf("second call: %d steps, %v", res.Steps, err)
	}
}

// A run cancelled in the middle and resumed takes exactly the steps an
// uninterrupted run takes.
func TestResumeIsExact(t *testing.T) {
	dir, rs := shards(t, 8)
	base := train.Job{Dirs: []string{dir}, RuleSets: []*rules.RuleSet{rs}, Init: initial(t), TargetSteps: 17, Seed: 9}

	whole := base
	whole.State = filepath.Join(t.TempDir(), "whole.palnet")
	want, err := train.Run(context.Background(), testConfig(), whole)
	if err != nil {
		t.Fatal(err)
	}

	cut := base
	cut.State = filepath.Join(t.TempDir(), "cut.palnet")
	ctx, cancel := context.WithCancel(context.Background())
	cut.Progress = func(p train.Progress) {
		if p.Step >= 10 {
			cancel()
		}
	}
	_, err = train.Run(ctx, testConfig(), cut)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	ck, err := model.Load(cut.State)
	if err != nil || ck.Steps != 10 {
		t.Fatalf("after the cut: %v, steps %d, want 10", err, ck.Steps)
	}
	cut.Progress = nil
	got, err := train.Run(context.Background(), testConfig(), cut)
	if err != nil {
		t.Fatal(err)
	}
	if got.Steps != 7 || got.Checkpoint.Steps != 17 {
		t.Fatalf("resumed run took %d steps to %d, want 7 to 17", got.Steps, got.Checkpoint.Steps)
	}
	if a, b := want.Checkpoint.Weights.ID(), got.Checkpoint.Weights.ID(); a != b {
		t.Errorf("resumed weights %s, uninterrupted %s", b, a)
	}
}

func TestErrors(t *testing.T) {
	dir, _ := shards(t, 4)
	other, _ := rules.Preset("janggi")
	job := train.Job{Dirs: []string{dir}, RuleSets: []*rules.RuleSet{other}, State: filepath.Join(t.TempDir(), "s.palnet"),
		Init: initial(t), TargetSteps: 3}
	c := testConfig()
	c.MinRows = 10
	if _, err := train.Run(context.Background(), c, job); err == nil {
		t.Error("shards under a rule set the job does not name were accepted")
	}
	bad := testConfig()
	bad.Batch, bad.Optimizer = 0, "lion"
	if err := bad.Validate(); err == nil {
		t.Error("batch 0 and optimizer lion validated")
	}
	for _, spp := range []float64{0, -1, 1e300, math.Inf(1), math.NaN(), train.MaxSamplesPerPosition + 1} {
		bad := testConfig()
		bad.SamplesPerPosition = spp
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "samples_per_position") {
			t.Errorf("samples_per_position %v: %v", spp, err)
		}
	}
	edge := testConfig()
	edge.SamplesPerPosition = train.MaxSamplesPerPosition
	if err := edge.Validate(); err != nil {
		t.Errorf("samples_per_position at its maximum: %v", err)
	}
	job.Init = nil
	if _, err := train.Run(context.Background(), c, job); err == nil {
		t.Error("no state and no initial network was accepted")
	}
}

func TestSteps(t *testing.T) {
	c := train.DefaultConfig()
	c.Batch, c.MinRows, c.SamplesPerPosition = 100, 1000, 4
	for _, tc := range []struct{ positions, want int64 }{{0, 0}, {999, 0}, {1000, 40}, {2550, 102}} {
		if got := c.Steps(tc.positions); got != tc.want {
			t.Errorf("Steps(%d) = %d, want %d", tc.positions, got, tc.want)
		}
	}
}
