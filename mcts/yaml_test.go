package mcts

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// Modes read back from their names, in flags and in configs; a search
// section decodes over the parameters it lands on.
func TestModeNames(t *testing.T) {
	for _, m := range []Mode{Gumbel, PUCT} {
		if got, err := ParseMode(m.String()); got != m || err != nil {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseMode("alphabeta"); err == nil {
		t.Error("ParseMode(alphabeta) accepted")
	}
	p := DefaultParams()
	if err := yaml.Unmarshal([]byte("mode: puct\nsimulations: 64\n"), &p); err != nil {
		t.Fatal(err)
	}
	want := DefaultParams()
	want.Mode, want.Simulations = PUCT, 64
	if p != want {
		t.Errorf("decoded %+v, want %+v", p, want)
	}
	if err := yaml.Unmarshal([]byte("simulations: 8\nmode: alphabeta\n"), &p); err == nil || !strings.Contains(err.Error(), `line 2: search: mode "alphabeta": want gumbel or puct`) {
		t.Errorf("a bad mode: %v", err)
	}
}
