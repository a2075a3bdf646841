package model_test

import (
	"strings"
	"testing"

	"github.com/palace-chess/palace/nn/model"
	"github.com/palace-chess/palace/rules"
)

// The built-in networks load for every preset of their game, are the
// files under nets/, play through OpenEvaluator's "builtin", and a
// network of the other game is refused with a message naming both.
func TestBuiltinNetworks(t *testing.T) {
	for _, preset := range rules.PresetNames() {
		rs := rules.MustPreset(preset)
		ck, err := model.LoadBuiltin(rs)
		if err != nil {
			t.Fatalf("%s: %v", preset, err)
		}
		file, err := model.LoadPlayable("../../nets/" + rs.Game.String() + ".palnet")
		if err != nil {
			t.Fatal(err)
		}
		if ck.Weights.ID() != file.Weights.ID() {
			t.Errorf("%s: built-in network %s, nets/ holds %s", preset, ck.Weights.ID(), file.Weights.ID())
		}
		ev, got, err := model.OpenEvaluator(model.Builtin, rs, 1)
		if err != nil || got == nil || got.Weights.ID() != ck.Weights.ID() || ev == nil {
			t.Errorf("%s: OpenEvaluator(builtin): %v", preset, err)
		}
	}
	if _, err := model.LoadBuiltin(nil); err == nil || !strings.Contains(err.Error(), "which game") {
		t.Errorf("no rule set: %v", err)
	}
	if _, ck, err := model.OpenEvaluator(model.NoNetwork, rules.MustPreset("xiangqi"), 1); err != nil || ck != nil {
		t.Errorf("none: %v, %v", ck, err)
	}
	_, err := model.LoadPlayableFor("../../nets/janggi.palnet", rules.MustPreset("xiangqi"))
	if err == nil || !strings.Contains(err.Error(), "made for janggi") || !strings.Contains(err.Error(), "not xiangqi") {
		t.Errorf("a janggi network for xiangqi: %v", err)
	}
}
