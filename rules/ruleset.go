package rules

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/internal/yamlconf"
)

// GameKind selects the board geometry: how each piece type moves.
type GameKind uint8

const (
	Xiangqi GameKind = iota
	Janggi
)

func (k GameKind) String() string {
	if k == Janggi {
		return "janggi"
	}
	return "xiangqi"
}

// PassRule says when a side may pass.
type PassRule uint8

const (
	PassNever         PassRule = iota // no pass move exists
	PassUnlessInCheck                 // any time unless in check (in check too while in bikjang)
	PassWhenStuck                     // only when the side to move has no other legal move and is not in check
)

var passRuleNames = []string{"never", "unlessInCheck", "whenStuck"}

func (p PassRule) String() string { return passRuleNames[p] }

// FacingRule says what generals facing each other on an open file mean.
type FacingRule uint8

const (
	// FacingIllegal: no move may leave the generals facing (xiangqi).
	FacingIllegal FacingRule = iota
	// FacingBikjang: creating it is legal; the side in bikjang must break it
	// or pass, and a pass under bikjang ends the game (janggi).
	FacingBikjang
	// FacingMustBreak: creating it is legal; the side in bikjang must break
	// it, and a side that cannot is drawn (seed 000's classic rules).
	FacingMustBreak
	// FacingIgnored: facing generals mean nothing (janggimodern, janggicasual).
	FacingIgnored
)

var facingRuleNames = []string{"illegal", "bikjang", "mustBreak", "ignored"}

func (f FacingRule) String() string { return facingRuleNames[f] }

// bikjang reports whether facing generals are bikjang under this rule.
func (f FacingRule) bikjang() bool { return f == FacingBikjang || f == FacingMustBreak }

// RuleSet is one complete set of rules as data. The move generator reads
// Game, Pass and Facing; the rest decide how games end (see Game).
type RuleSet struct {
	Name   string     // stable name, recorded with every game
	Game   GameKind   // board geometry
	Pass   PassRule   // when a pass is legal
	Facing FacingRule // what facing generals mean
	// BikjangClaim lets the side in bikjang claim a draw instead of breaking it
	// (only with FacingMustBreak).
	BikjangClaim bool
	// Counting scores the ends that are not decisive by material counting
	// (janggi); without it they are draws.
	Counting bool
	// HanBonusHalves is Black's (Han's) counting bonus in half points (3 =
	// 1.5); odd, so that a count never ties.
	HanBonusHalves int
	// Repetition is the n of the n-fold repetition that ends the game.
	Repetition int
	// PerpetualCheckLoses: a side that checked on every move of a
	// repetition, while the other did not, loses.
	PerpetualCheckLoses bool
	// ChaseRule: xiangqi's one-sided perpetual chase loses (AXF, as
	// Fairy-Stockfish applies it).
	ChaseRule bool
	// ShuttleRule: janggimodern's rule that a side shuttling one piece back
	// and forth loses.
	ShuttleRule bool
	// MoveLimit is the number of plies without a capture that ends the game;
	// 0 means no limit.
	MoveLimit int
	// CheckExtension lengthens xiangqi's move limit by checks, as
	// Fairy-Stockfish does.
	CheckExtension bool
	// MaterialDraw: a game where neither side has more than its general and
	// palace-bound pieces is drawn at once.
	MaterialDraw bool
	// MaxPlies caps a game's length; the end is adjudicated by the rule set
	// (counting where on, else a draw). 0 means no cap.
	MaxPlies int
}

var presets = []RuleSet{
	{Name: "xiangqi", Game: Xiangqi, Pass: PassNever, Facing: FacingIllegal,
		Repetition: 3, PerpetualCheckLoses: true, ChaseRule: true, MoveLimit: 100, CheckExtension: true, MaterialDraw: true},
	{Name: "janggi", Game: Janggi, Pass: PassUnlessInCheck, Facing: FacingBikjang,
		Counting: true, HanBonusHalves: 3, Repetition: 3, PerpetualCheckLoses: true, MoveLimit: 100, MaterialDraw: true},
	{Name: "janggitraditional", Game: Janggi, Pass: PassUnlessInCheck, Facing: FacingBikjang,
		Repetition: 3, PerpetualCheckLoses: true, MoveLimit: 100, MaterialDraw: true},
	{Name: "janggimodern", Game: Janggi, Pass: PassUnlessInCheck, Facing: FacingIgnored,
		Counting: true, HanBonusHalves: 3, Repetition: 4, PerpetualCheckLoses: true, ShuttleRule: true, MoveLimit: 200, MaterialDraw: true},
	// Fairy-Stockfish's janggicasual keeps janggi's 3-fold repetition and
	// 100-ply limit (RULES.md's table says "as janggimodern"; the reference
	// results follow Fairy-Stockfish).
	{Name: "janggicasual", Game: Janggi, Pass: PassUnlessInCheck, Facing: FacingIgnored,
		Repetition: 3, PerpetualCheckLoses: true, MoveLimit: 100, MaterialDraw: true},
	{Name: "janggiclassic", Game: Janggi, Pass: PassWhenStuck, Facing: FacingMustBreak,
		HanBonusHalves: 3, Repetition: 3, MaterialDraw: true},
}

// Preset returns the named preset rule set.
func Preset(name string) (*RuleSet, error) {
	for i := range presets {
		if presets[i].Name == name {
			rs := presets[i]
			return &rs, nil
		}
	}
	return nil, fmt.Errorf("rules: unknown rule set %q (presets: %s)", name, strings.Join(PresetNames(), ", "))
}

// MustPreset is Preset for names known at compile time; it panics on a typo.
func MustPreset(name string) *RuleSet {
	rs, err := Preset(name)
	if err != nil {
		panic(err)
	}
	return rs
}

// PresetNames lists the presets in a stable order.
func PresetNames() []string {
	names := make([]string, len(presets))
	for i := range presets {
		names[i] = presets[i].Name
	}
	return names
}

// Validate reports every impossible combination of switches.
func (rs *RuleSet) Validate() error {
	if msg := rs.problems(); msg != "" {
		return fmt.Errorf("rules: rule set %q: %s", rs.Name, msg)
	}
	return nil
}

func (rs *RuleSet) problems() string {
	var errs []string
	if rs.Name == "" {
		errs = append(errs, "name is empty")
	}
	if rs.Game > Janggi {
		errs = append(errs, "unknown game")
	}
	if rs.Pass > PassWhenStuck {
		errs = append(errs, "unknown pass rule")
	}
	if rs.Facing > FacingIgnored {
		errs = append(errs, "unknown facingKings rule")
	}
	if rs.Repetition < 2 {
		errs = append(errs, fmt.Sprintf("repetition %d: a position must occur at least twice", rs.Repetition))
	}
	if rs.MoveLimit < 0 {
		errs = append(errs, fmt.Sprintf("moveLimit %d is negative", rs.MoveLimit))
	}
	if rs.MaxPlies < 0 {
		errs = append(errs, fmt.Sprintf("maxPlies %d is negative", rs.MaxPlies))
	}
	if rs.CheckExtension && rs.MoveLimit == 0 {
		errs = append(errs, "checkExtension needs a moveLimit")
	}
	if rs.Facing == FacingBikjang && rs.Pass == PassNever {
		errs = append(errs, "facingKings: bikjang needs a pass rule (the side in bikjang breaks it or passes); use mustBreak without passing")
	}
	if rs.BikjangClaim && rs.Facing != FacingMustBreak {
		errs = append(errs, "bikjangClaim needs facingKings: mustBreak")
	}
	if rs.ChaseRule && rs.Game != Xiangqi {
		errs = append(errs, "chaseRule is defined for xiangqi only")
	}
	if rs.Counting && rs.HanBonusHalves%2 == 0 {
		errs = append(errs, fmt.Sprintf("hanBonus %.1f: counting needs a half-point bonus (1.5, 0.5, ...) so that a count never ties", float64(rs.HanBonusHalves)/2))
	}
	return strings.Join(errs, "; ")
}

// canonical is the text the hash covers: every switch, not the name, so two
// rule sets that play alike hash alike. A switch added later must join this
// text only when it differs from its zero value, so that every hash already
// recorded in shards and checkpoints stays valid.
func (rs *RuleSet) canonical() string {
	return fmt.Sprintf("game=%s;pass=%s;facingKings=%s;bikjangClaim=%t;counting=%t;hanBonusHalves=%d;repetition=%d;"+
		"perpetualCheckLoses=%t;chaseRule=%t;shuttleRule=%t;moveLimit=%d;checkExtension=%t;materialDraw=%t;maxPlies=%d",
		rs.Game, rs.Pass, rs.Facing, rs.BikjangClaim, rs.Counting, rs.HanBonusHalves, rs.Repetition,
		rs.PerpetualCheckLoses, rs.ChaseRule, rs.ShuttleRule, rs.MoveLimit, rs.CheckExtension, rs.MaterialDraw, rs.MaxPlies)
}

// Hash is a stable 16-hex-digit digest of the rule set's switches.
func (rs *RuleSet) Hash() string {
	sum := sha256.Sum256([]byte(rs.canonical()))
	return hex.EncodeToString(sum[:8])
}

// String is the name and hash, as recorded in files.
func (rs *RuleSet) String() string { return rs.Name + "@" + rs.Hash() }

// ruleSetFile is the YAML form: a base preset and the switches it changes.
type ruleSetFile struct {
	Base                string   `yaml:"base"`
	Name                *string  `yaml:"name"`
	Pass                *string  `yaml:"pass"`
	FacingKings         *string  `yaml:"facingKings"`
	BikjangClaim        *bool    `yaml:"bikjangClaim"`
	Counting            *bool    `yaml:"counting"`
	HanBonus            *float64 `yaml:"hanBonus"`
	Repetition          *int     `yaml:"repetition"`
	PerpetualCheckLoses *bool    `yaml:"perpetualCheckLoses"`
	ChaseRule           *bool    `yaml:"chaseRule"`
	ShuttleRule         *bool    `yaml:"shuttleRule"`
	MoveLimit           *int     `yaml:"moveLimit"`
	CheckExtension      *bool    `yaml:"checkExtension"`
	MaterialDraw        *bool    `yaml:"materialDraw"`
	MaxPlies            *int     `yaml:"maxPlies"`
}

func parseEnum(field, value string, names []string) (uint8, error) {
	for i, n := range names {
		if n == value {
			return uint8(i), nil
		}
	}
	return 0, fmt.Errorf("%s: %q is not one of %s", field, value, strings.Join(names, ", "))
}

// ParseRuleSet reads a YAML rule set: `base: PRESET` and any switches to
// change. Unknown keys and impossible combinations are errors; source names
// the input in messages.
func ParseRuleSet(data []byte, source string) (*RuleSet, error) {
	var f ruleSetFile
	if err := yamlconf.Decode(data, &f, map[string]string{"rules.ruleSetFile": "the rule set"}); err != nil {
		return nil, fmt.Errorf("rules: %s: %w", source, err)
	}
	if f.Base == "" {
		return nil, fmt.Errorf("rules: %s: missing `base:` (one of %s)", source, strings.Join(PresetNames(), ", "))
	}
	rs, err := Preset(f.Base)
	if err != nil {
		return nil, fmt.Errorf("rules: %s: base: %w", source, err)
	}
	rs.Name = f.Base + "-custom"
	if f.Name != nil {
		rs.Name = *f.Name
	}
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	setInt := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	if f.Pass != nil {
		v, err := parseEnum("pass", *f.Pass, passRuleNames)
		if err != nil {
			return nil, fmt.Errorf("rules: %s: %w", source, err)
		}
		rs.Pass = PassRule(v)
	}
	if f.FacingKings != nil {
		v, err := parseEnum("facingKings", *f.FacingKings, facingRuleNames)
		if err != nil {
			return nil, fmt.Errorf("rules: %s: %w", source, err)
		}
		rs.Facing = FacingRule(v)
	}
	if f.HanBonus != nil {
		halves := *f.HanBonus * 2
		if halves != float64(int(halves)) || halves < 0 {
			return nil, fmt.Errorf("rules: %s: hanBonus %v is not a non-negative multiple of 0.5", source, *f.HanBonus)
		}
		rs.HanBonusHalves = int(halves)
	}
	set(&rs.BikjangClaim, f.BikjangClaim)
	set(&rs.Counting, f.Counting)
	setInt(&rs.Repetition, f.Repetition)
	set(&rs.PerpetualCheckLoses, f.PerpetualCheckLoses)
	set(&rs.ChaseRule, f.ChaseRule)
	set(&rs.ShuttleRule, f.ShuttleRule)
	setInt(&rs.MoveLimit, f.MoveLimit)
	set(&rs.CheckExtension, f.CheckExtension)
	set(&rs.MaterialDraw, f.MaterialDraw)
	setInt(&rs.MaxPlies, f.MaxPlies)
	if msg := rs.problems(); msg != "" {
		return nil, fmt.Errorf("rules: %s: %s", source, msg)
	}
	return rs, nil
}

// WithMaxPlies is rs with its games capped at n plies, on a copy (the cap
// is part of the rule set: it changes how games end, and so the hash); n
// ≤ 0 is rs itself. Every cap palace puts on a loaded rule set is made
// here.
func (rs *RuleSet) WithMaxPlies(n int) *RuleSet {
	if n <= 0 {
		return rs
	}
	c := *rs
	c.MaxPlies = n
	return &c
}

// LoadRuleSet resolves a --rules argument: a preset name, or a YAML file.
func LoadRuleSet(arg string) (*RuleSet, error) {
	if rs, err := Preset(arg); err == nil {
		return rs, nil
	}
	if !strings.HasSuffix(arg, ".yaml") && !strings.HasSuffix(arg, ".yml") && !strings.ContainsRune(arg, os.PathSeparator) {
		return nil, fmt.Errorf("rules: unknown rule set %q: not a preset (%s) nor a .yaml file", arg, strings.Join(PresetNames(), ", "))
	}
	data, err := atomicfile.ReadFile(arg, atomicfile.MaxConfigBytes)
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	return ParseRuleSet(data, arg)
}
