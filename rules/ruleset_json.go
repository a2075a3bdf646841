package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ruleSetJSON is a rule set's JSON form: its name@hash, then every switch
// under the key a rule-set YAML file gives it, so that a record names the
// rules it was played under in full and readably.
type ruleSetJSON struct {
	ID                  string  `json:"id"`
	Game                string  `json:"game"`
	Name                string  `json:"name"`
	Pass                string  `json:"pass"`
	FacingKings         string  `json:"facingKings"`
	BikjangClaim        bool    `json:"bikjangClaim"`
	Counting            bool    `json:"counting"`
	HanBonus            float64 `json:"hanBonus"`
	Repetition          int     `json:"repetition"`
	PerpetualCheckLoses bool    `json:"perpetualCheckLoses"`
	ChaseRule           bool    `json:"chaseRule"`
	ShuttleRule         bool    `json:"shuttleRule"`
	MoveLimit           int     `json:"moveLimit"`
	CheckExtension      bool    `json:"checkExtension"`
	MaterialDraw        bool    `json:"materialDraw"`
	MaxPlies            int     `json:"maxPlies"`
}

var gameKindNames = []string{"xiangqi", "janggi"}

// MarshalJSON writes the rule set in full: its name@hash as "id", then
// every switch.
func (rs RuleSet) MarshalJSON() ([]byte, error) {
	if err := rs.Validate(); err != nil {
		return nil, err
	}
	return json.Marshal(ruleSetJSON{
		ID: rs.String(), Game: rs.Game.String(), Name: rs.Name, Pass: rs.Pass.String(), FacingKings: rs.Facing.String(),
		BikjangClaim: rs.BikjangClaim, Counting: rs.Counting, HanBonus: float64(rs.HanBonusHalves) / 2,
		Repetition: rs.Repetition, PerpetualCheckLoses: rs.PerpetualCheckLoses, ChaseRule: rs.ChaseRule,
		ShuttleRule: rs.ShuttleRule, MoveLimit: rs.MoveLimit, CheckExtension: rs.CheckExtension,
		MaterialDraw: rs.MaterialDraw, MaxPlies: rs.MaxPlies,
	})
}

// UnmarshalJSON reads MarshalJSON's form, checking the switches against the
// id's hash when it is given, and the form games files of palace before it
// wrote (Go's field names, enums as numbers). Unknown keys and impossible
// combinations are errors.
func (rs *RuleSet) UnmarshalJSON(data []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return fmt.Errorf("rules: rule set: %w", err)
	}
	// Field-name matching is case-insensitive, so the two forms are told
	// apart by a key only the old one has, spelt exactly.
	if _, old := keys["Game"]; old {
		type goFields RuleSet // without these methods
		var f goFields
		if err := strictJSON(data, &f); err != nil {
			return fmt.Errorf("rules: rule set: %w", err)
		}
		*rs = RuleSet(f)
		return rs.Validate()
	}
	var f ruleSetJSON
	if err := strictJSON(data, &f); err != nil {
		return fmt.Errorf("rules: rule set: %w", err)
	}
	out := RuleSet{Name: f.Name, BikjangClaim: f.BikjangClaim, Counting: f.Counting, Repetition: f.Repetition,
		PerpetualCheckLoses: f.PerpetualCheckLoses, ChaseRule: f.ChaseRule, ShuttleRule: f.ShuttleRule,
		MoveLimit: f.MoveLimit, CheckExtension: f.CheckExtension, MaterialDraw: f.MaterialDraw, MaxPlies: f.MaxPlies}
	for _, e := range []struct {
		field, value string
		names        []string
		dst          *uint8
	}{
		{"game", f.Game, gameKindNames, (*uint8)(&out.Game)},
		{"pass", f.Pass, passRuleNames, (*uint8)(&out.Pass)},
		{"facingKings", f.FacingKings, facingRuleNames, (*uint8)(&out.Facing)},
	} {
		v, err := parseEnum(e.field, e.value, e.names)
		if err != nil {
			return fmt.Errorf("rules: rule set %s: %w", f.ID, err)
		}
		*e.dst = v
	}
	halves := f.HanBonus * 2
	if halves != float64(int(halves)) || halves < 0 {
		return fmt.Errorf("rules: rule set %s: hanBonus %v is not a non-negative multiple of 0.5", f.ID, f.HanBonus)
	}
	out.HanBonusHalves = int(halves)
	if err := out.Validate(); err != nil {
		return err
	}
	if f.ID != "" && out.String() != f.ID {
		return fmt.Errorf("rules: rule set %s: its switches hash to %s", f.ID, out.String())
	}
	*rs = out
	return nil
}

func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
