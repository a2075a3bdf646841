package mcts

import (
	"fmt"
	"math"
)

// Mode selects the search algorithm.
type Mode uint8

const (
	// Gumbel is Gumbel AlphaZero's search (Danihelka et al., ICLR 2022):
	// Gumbel-top-k root sampling, sequential halving, completed Q-values and
	// the improved policy as the training target. It improves the policy
	// with as few as 8–32 simulations.
	Gumbel Mode = iota
	// PUCT is AlphaZero's search: PUCT selection with root Dirichlet noise,
	// the visit distribution as the training target and a temperature over
	// visits to choose the move.
	PUCT
)

func (m Mode) String() string {
	switch m {
	case Gumbel:
		return "gumbel"
	case PUCT:
		return "puct"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Params are a search's knobs. DefaultParams gives working values; Validate
// reports what cannot work. The yaml keys are those of a config's search
// section (configs/selfplay.yaml), decoded over the values already there
// (yaml.go); Seed is never a config's: each game or match derives its own.
// A new knob is a field here with its key, its default and its check, and
// `json:",omitempty"` unless it is on in every existing config: self-play's
// game hash (selfplay/config.go) marshals Params, so a field that marshals
// at its off value changes every old run directory's hash, and their resume
// is refused. Its off value must be its zero value for the same reason.
type Params struct {
	Mode Mode `yaml:"mode"`

	// Simulations is the full budget: leaves visited below the root per
	// move. The root's own evaluation is not counted.
	Simulations int `yaml:"simulations"`
	// CheapSimulations and FullFraction are KataGo's playout-cap
	// randomization: each move is searched with the full budget with
	// probability FullFraction (the Result says Full, and only those moves
	// make policy targets), else with CheapSimulations and no root noise.
	// CheapSimulations 0 or FullFraction 1 turns it off (always full).
	CheapSimulations int     `yaml:"cheap_simulations"`
	FullFraction     float64 `yaml:"full_fraction"`

	// PUCT's exploration constant, AlphaZero's schedule:
	// c(N) = CPuctInit + log((N + CPuctBase + 1) / CPuctBase).
	CPuctInit float64 `yaml:"cpuct_init"`
	CPuctBase float64 `yaml:"cpuct_base"`
	// First-play urgency: an unvisited child is valued at the parent's mean
	// value minus FPUReduction × sqrt(sum of the visited children's priors)
	// (lc0 and KataGo); RootFPUReduction applies at the root.
	FPUReduction     float64 `yaml:"fpu_reduction"`
	RootFPUReduction float64 `yaml:"root_fpu_reduction"`

	// Root Dirichlet noise (PUCT, full searches only): priors become
	// (1-NoiseFraction)·P + NoiseFraction·Dir(α) with α = DirichletTotal /
	// (legal moves), so the noise's total concentration is the same in a
	// position of 5 moves and of 90 (KataGo's scaling; AlphaZero's α = 0.3
	// for chess's ~35 moves is a total of about 10). NoiseFraction 0 turns
	// it off.
	NoiseFraction  float64 `yaml:"noise_fraction"`
	DirichletTotal float64 `yaml:"dirichlet_total"`

	// Gumbel root search: GumbelK actions are sampled (Gumbel-top-k) and
	// halved over the budget; completed Q-values q̂ ∈ [0, 1] are scaled by
	// σ(q̂) = (CVisit + max visits) · CScale · q̂. GumbelScale multiplies the
	// Gumbel noise: 1 for self-play, 0 for a deterministic, strongest move.
	GumbelK     int     `yaml:"gumbel_k"`
	CVisit      float64 `yaml:"c_visit"`
	CScale      float64 `yaml:"c_scale"`
	GumbelScale float64 `yaml:"gumbel_scale"`

	// Move-selection temperature (PUCT; Gumbel's move is the sequential
	// halving's winner and its randomness comes from GumbelScale). The
	// temperature at game ply p is Temperature decaying towards
	// TemperatureFinal with a half-life of TemperatureHalfLife plies (0: no
	// decay), and TemperatureFinal from ply TemperaturePlies on (0: never).
	// AlphaZero's schedule is 1 for 30 plies then 0.
	Temperature         float64 `yaml:"temperature"`
	TemperatureFinal    float64 `yaml:"temperature_final"`
	TemperatureHalfLife float64 `yaml:"temperature_half_life"`
	TemperaturePlies    int     `yaml:"temperature_plies"`

	// LeavesPerEval is how many leaves one tree gathers, under virtual
	// loss, for each Evaluate call. 1 is exact sequential search; more
	// fills batches when there are fewer concurrent games than the
	// network's batch size. VirtualLoss is the value, in [-1, 1] units, an
	// in-flight visit counts as losing.
	LeavesPerEval int     `yaml:"leaves_per_eval"`
	VirtualLoss   float64 `yaml:"virtual_loss"`

	// DrawScore is what a draw is worth, in value units, to the side
	// choosing a move (lc0's draw score): selection reads a child as its
	// win − loss plus DrawScore × its draw probability, a proven draw as
	// DrawScore. It is the same for both sides, so a negative one makes
	// each side play on rather than repeat or shuffle to a draw unless it
	// is behind by more than |DrawScore|. It changes which moves are
	// searched and played, never the values and WDL a Result reports. 0:
	// draws are worth 0. (Left out of JSON when 0, so the digests of
	// settings from before it existed still match.)
	DrawScore float64 `json:",omitempty" yaml:"draw_score"`

	// RootLookahead plays every root move and every reply to it before a
	// root is first searched: a move that ends the game is proven at once,
	// and a move after which the opponent can end the game in its favour
	// (a mate in one, in xiangqi a stalemate too) is proven lost. A small
	// budget spreads its visits thinly over the root's moves (Gumbel's 32
	// simulations give most of 16 sampled moves one or two), too few to
	// see a mating reply; the lookahead costs a few hundred move
	// generations a root and no evaluations. (Left out of JSON when off,
	// as in settings from before it existed.)
	RootLookahead bool `json:",omitempty" yaml:"root_lookahead"`
	// MateCheck looks, in each position the search expands, for a checking
	// move that ends the game in the mover's favour (a mate in one), and if
	// there is one proves the position won without evaluating it. A mate
	// in two whose defences are few (as after a check) is then proven in as
	// many visits as it has defences, and a proven win's policy target is
	// its mating moves, so self-play teaches the network to mate. It costs
	// a make and unmake a move for each expansion. (Left out of JSON when
	// off, as RootLookahead.)
	MateCheck bool `json:",omitempty" yaml:"mate_check"`

	// MaxNodes caps the tree (48 bytes a node, and as many again for the
	// pool compaction copies into); a search that fills it stops early.
	MaxNodes int `yaml:"max_nodes"`

	// Seed seeds the search's random numbers (noise, playout cap,
	// temperature, Gumbel): the same seed, evaluator and positions give the
	// same results.
	Seed uint64 `yaml:"-"`
}

// DefaultParams are Gumbel search with 32 simulations a full move and 8 a
// cheap one, a quarter of moves full: settings for self-play on a small
// machine. PUCT's knobs are AlphaZero's and KataGo's.
func DefaultParams() Params {
	return Params{
		Mode:             Gumbel,
		Simulations:      32,
		CheapSimulations: 8,
		FullFraction:     0.25,
		CPuctInit:        1.25,
		CPuctBase:        19652,
		FPUReduction:     0.2,
		RootFPUReduction: 0.1,
		NoiseFraction:    0.25,
		DirichletTotal:   10.83,
		GumbelK:          16,
		CVisit:           50,
		CScale:           1,
		GumbelScale:      1,
		Temperature:      1,
		TemperatureFinal: 0,
		TemperaturePlies: 30,
		LeavesPerEval:    1,
		VirtualLoss:      1,
		RootLookahead:    true,
		MateCheck:        true,
		MaxNodes:         1 << 21,
	}
}

// MaxLeavesPerEval is the most leaves one evaluation may gather.
const MaxLeavesPerEval = 1024

// Limits on Params that keep indices in int32 and buffers sane.
const (
	maxSimulations   = 1 << 24
	maxLeavesPerEval = MaxLeavesPerEval
	minNodes         = 1 << 10
	maxNodes         = 1 << 30
)

// Validate reports the first knob that cannot work, naming it.
func (p Params) Validate() error {
	bad := func(name string, v any, want string) error {
		return fmt.Errorf("mcts: %s = %v, want %s", name, v, want)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	nonneg := func(x float64) bool { return finite(x) && x >= 0 }
	switch {
	case p.Mode != Gumbel && p.Mode != PUCT:
		return bad("Mode", p.Mode, "Gumbel or PUCT")
	case p.Simulations < 1 || p.Simulations > maxSimulations:
		return bad("Simulations", p.Simulations, fmt.Sprintf("1–%d", maxSimulations))
	case p.CheapSimulations < 0 || p.CheapSimulations > p.Simulations:
		return bad("CheapSimulations", p.CheapSimulations, fmt.Sprintf("0–Simulations (%d)", p.Simulations))
	case !nonneg(p.FullFraction) || p.FullFraction > 1:
		return bad("FullFraction", p.FullFraction, "in [0, 1]")
	case !finite(p.CPuctInit) || p.CPuctInit <= 0:
		return bad("CPuctInit", p.CPuctInit, "> 0")
	case !finite(p.CPuctBase) || p.CPuctBase <= 0:
		return bad("CPuctBase", p.CPuctBase, "> 0")
	case !nonneg(p.FPUReduction):
		return bad("FPUReduction", p.FPUReduction, ">= 0")
	case !nonneg(p.RootFPUReduction):
		return bad("RootFPUReduction", p.RootFPUReduction, ">= 0")
	case !nonneg(p.NoiseFraction) || p.NoiseFraction > 1:
		return bad("NoiseFraction", p.NoiseFraction, "in [0, 1]")
	case p.NoiseFraction > 0 && (!finite(p.DirichletTotal) || p.DirichletTotal <= 0):
		return bad("DirichletTotal", p.DirichletTotal, "> 0 when NoiseFraction > 0")
	case p.GumbelK < 1:
		return bad("GumbelK", p.GumbelK, ">= 1")
	case !nonneg(p.CVisit):
		return bad("CVisit", p.CVisit, ">= 0")
	case !finite(p.CScale) || p.CScale <= 0:
		return bad("CScale", p.CScale, "> 0")
	case !nonneg(p.GumbelScale):
		return bad("GumbelScale", p.GumbelScale, ">= 0")
	case !nonneg(p.Temperature):
		return bad("Temperature", p.Temperature, ">= 0")
	case !nonneg(p.TemperatureFinal):
		return bad("TemperatureFinal", p.TemperatureFinal, ">= 0")
	case !nonneg(p.TemperatureHalfLife):
		return bad("TemperatureHalfLife", p.TemperatureHalfLife, ">= 0")
	case p.TemperaturePlies < 0:
		return bad("TemperaturePlies", p.TemperaturePlies, ">= 0")
	case p.LeavesPerEval < 1 || p.LeavesPerEval > maxLeavesPerEval:
		return bad("LeavesPerEval", p.LeavesPerEval, fmt.Sprintf("1–%d", maxLeavesPerEval))
	case !nonneg(p.VirtualLoss) || p.VirtualLoss > 1:
		return bad("VirtualLoss", p.VirtualLoss, "in [0, 1]")
	case !finite(p.DrawScore) || p.DrawScore < -1 || p.DrawScore > 1:
		return bad("DrawScore", p.DrawScore, "in [-1, 1]")
	case p.MaxNodes < minNodes || p.MaxNodes > maxNodes:
		return bad("MaxNodes", p.MaxNodes, fmt.Sprintf("%d–%d", minNodes, maxNodes))
	}
	return nil
}

// TemperatureAt is the move-selection temperature at game ply ply.
func (p Params) TemperatureAt(ply int) float64 {
	if p.TemperaturePlies > 0 && ply >= p.TemperaturePlies {
		return p.TemperatureFinal
	}
	if p.TemperatureHalfLife > 0 {
		return p.TemperatureFinal + (p.Temperature-p.TemperatureFinal)*math.Exp2(-float64(ply)/p.TemperatureHalfLife)
	}
	return p.Temperature
}
