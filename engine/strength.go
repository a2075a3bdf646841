package engine

import (
	"fmt"
	"math"
	"strconv"

	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

// Strength levels (issue 50): Skill Level and UCI_LimitStrength with
// UCI_Elo, the Elo on palace's absolute scale (palace ladder: Fairy-Stockfish
// at fixed nodes, 1 node = 0).
//
// A skill x in [0, 20] is a search: up to skillMid the network's single
// look (one simulation) with its choice sampled at a temperature falling
// from maxSkillTemperature to 0 (the Gumbel noise's scale: at one
// simulation, Gumbel-max over the policy's logits scaled by 1/T, a draw from
// the policy at temperature T); from skillMid on the deterministic search at
// a budget rising geometrically from 1 to 800 simulations (palace uci's
// default budget). Skill Level 20 is full strength: no limit at all.
//
// UCI_Elo is turned into a fractional skill by the calibration below: each
// game's skills rated by palace ladder, the Elo of a skill in between read
// off the straight line between its rated neighbours.
const (
	maxSkill            = 20
	skillMid            = 10
	maxSkillTemperature = 2.0
	fullStrengthNodes   = defaultNodes
)

// skillSearch is the search skill x plays with: its simulations and the
// Gumbel noise's scale (0: deterministic).
func skillSearch(x float64) (nodes int, temperature float64) {
	x = min(max(x, 0), maxSkill)
	if x <= skillMid {
		return 1, maxSkillTemperature * (skillMid - x) / skillMid
	}
	return int(math.Round(math.Pow(fullStrengthNodes, (x-skillMid)/(maxSkill-skillMid)))), 0
}

// eloPoint is one skill rated on the ladder: palace uci with the built-in
// network at Skill Level skill, rated elo with the 95% interval [lo, hi].
type eloPoint struct{ skill, elo, lo, hi float64 }

// ratedSkills holds, per rule set the ladder has a built-in scale for, the
// skills rated, in rising skill. The games are in engine/testdata/strength/
// (docs/strength-levels.md has the commands); TestEloCalibrationMatchesGames
// refits them.
var ratedSkills = map[string][]eloPoint{
	"xiangqi": {
		{0, -147.0, -221.9, -72.1}, {4, -82.0, -134.3, -29.7}, {7, 1.6, -66.8, 69.9}, {10, 6.0, -36.6, 48.6},
		{12, 37.3, -25.0, 99.6}, {14, 19.3, -46.2, 84.8}, {16, 22.3, -31.7, 76.4}, {18, 129.3, 63.2, 195.5},
		{19, 170.9, 108.6, 233.1}, {20, 256.8, 187.0, 326.5},
	},
	"janggi": {
		{0, -558.3, -650.0, -466.7}, {4, -373.9, -461.8, -285.9}, {7, -244.1, -320.7, -167.6}, {10, -206.0, -276.4, -135.6},
		{12, -138.4, -231.0, -45.8}, {14, -79.5, -156.0, -3.0}, {16, 20.8, -37.5, 79.1}, {18, 190.5, 123.8, 257.1},
		{20, 411.6, 338.2, 485.0},
	},
}

// eloCalibration is ratedSkills made monotone: neighbouring skills whose
// ratings fall (the noise of a few hundred games, where the scale is flat)
// are pooled into one point, their mean skill at their mean rating
// weighted by precision (isotonic regression, pool-adjacent-violators).
// Skill and Elo both rise from one point to the next.
var eloCalibration = func() map[string][]eloPoint {
	out := map[string][]eloPoint{}
	for name, points := range ratedSkills {
		out[name] = monotone(points)
	}
	return out
}()

// monotone is the isotonic fit of points (rising skill) as described at
// eloCalibration.
func monotone(points []eloPoint) []eloPoint {
	type block struct{ skill, elo, weight float64 }
	var blocks []block
	for _, p := range points {
		sd := (p.hi - p.lo) / (2 * 1.96)
		w := 1 / max(sd*sd, 1)
		blocks = append(blocks, block{p.skill * w, p.elo * w, w})
		for n := len(blocks); n > 1 && blocks[n-1].elo/blocks[n-1].weight <= blocks[n-2].elo/blocks[n-2].weight; n = len(blocks) {
			a, b := blocks[n-2], blocks[n-1]
			blocks = append(blocks[:n-2], block{a.skill + b.skill, a.elo + b.elo, a.weight + b.weight})
		}
	}
	out := make([]eloPoint, len(blocks))
	for i, b := range blocks {
		out[i] = eloPoint{skill: b.skill / b.weight, elo: b.elo / b.weight}
	}
	return out
}

// calibrationFor is the calibration of variant's rule set: its own, else
// that of its game's standard rules (janggimodern plays by janggi's), said
// in approx.
func calibrationFor(rs *rules.RuleSet) (points []eloPoint, name string, approx bool) {
	if p := eloCalibration[rs.Name]; len(p) > 0 {
		return p, rs.Name, false
	}
	name = "xiangqi"
	if rs.Game == rules.Janggi {
		name = "janggi"
	}
	return eloCalibration[name], name, true
}

// skillForElo is the fractional skill whose rating is elo on points: read
// off the line between the rated skills around it, the lowest or the
// highest skill outside them.
func skillForElo(points []eloPoint, elo float64) float64 {
	if len(points) == 0 {
		return maxSkill
	}
	if elo <= points[0].elo {
		return points[0].skill
	}
	for i := 1; i < len(points); i++ {
		a, b := points[i-1], points[i]
		if elo <= b.elo {
			return a.skill + (b.skill-a.skill)*(elo-a.elo)/(b.elo-a.elo)
		}
	}
	return points[len(points)-1].skill
}

// eloRange is the lowest and highest UCI_Elo over every calibration: the
// option's bounds (a variant's own range is inside them; a value beyond it
// plays its nearest rated skill).
func eloRange() (lo, hi int) {
	lo, hi = math.MaxInt, math.MinInt
	for _, points := range eloCalibration {
		if len(points) == 0 {
			continue
		}
		lo = min(lo, int(math.Floor(points[0].elo)))
		hi = max(hi, int(math.Ceil(points[len(points)-1].elo)))
	}
	if lo > hi {
		return 0, 0
	}
	return lo, hi
}

// strengthLimit is what the strength options ask of the next search: the
// most simulations (0: no limit) and the Gumbel noise's scale, with a note
// for the client when the limit changed since the last one said.
type strengthLimit struct {
	nodes       int
	temperature float64
	skill       float64
	note        string
}

// strength is the limit the options set: UCI_LimitStrength's UCI_Elo, else
// Skill Level below 20, else none.
func (e *Engine) strength() strengthLimit {
	switch {
	case e.limitStrength:
		rs, err := e.ruleSet()
		if err != nil {
			return strengthLimit{}
		}
		points, table, approx := calibrationFor(rs)
		x := skillForElo(points, float64(e.elo))
		l := skillLimit(x)
		l.note = fmt.Sprintf("UCI_Elo %+d on the %s ladder scale: skill %.2f, %d simulations, temperature %.2f",
			e.elo, table, x, l.nodes, l.temperature)
		if approx {
			l.note += fmt.Sprintf(" (calibrated for %s's standard rules, not %s's)", table, rs.Name)
		}
		if e.network != model.Builtin {
			l.note += "; calibrated with the built-in network: another (WeightsFile) plays stronger or weaker at the same setting"
		}
		return l
	case e.skill < maxSkill:
		l := skillLimit(float64(e.skill))
		l.note = fmt.Sprintf("Skill Level %d: %d simulations, temperature %.2f", e.skill, l.nodes, l.temperature)
		return l
	}
	return strengthLimit{}
}

// defaultElo is UCI_Elo before any setoption: the top of its range.
func defaultElo() int { _, hi := eloRange(); return hi }

func skillLimit(x float64) strengthLimit {
	if x >= maxSkill {
		return strengthLimit{skill: x}
	}
	n, t := skillSearch(x)
	return strengthLimit{nodes: n, temperature: t, skill: x}
}

// strengthOptions are Skill Level, UCI_LimitStrength and UCI_Elo; each
// change makes the search stale, since the temperature is a search
// parameter.
func strengthOptions() []option {
	lo, hi := eloRange()
	return []option{
		{name: "Skill Level", ucci: "skilllevel", aliases: []string{"SkillLevel"}, kind: "spin", min: 0, max: maxSkill,
			def: func(*Engine) string { return strconv.Itoa(maxSkill) },
			set: func(e *Engine, v string) error {
				n, _ := strconv.Atoi(v)
				e.stale = e.stale || n != e.skill
				e.skill = n
				return nil
			}},
		{name: "UCI_LimitStrength", kind: "check", only: "uci",
			def: func(*Engine) string { return "false" },
			set: func(e *Engine, v string) error {
				was := e.limitStrength
				err := setBool(&e.limitStrength, v)
				e.stale = e.stale || was != e.limitStrength
				return err
			}},
		{name: "UCI_Elo", kind: "spin", only: "uci", min: lo, max: hi,
			def: func(*Engine) string { return strconv.Itoa(defaultElo()) },
			set: func(e *Engine, v string) error {
				n, _ := strconv.Atoi(v)
				e.stale = e.stale || n != e.elo
				e.elo = n
				return nil
			}},
	}
}

func init() { options = append(options, strengthOptions()...) }
