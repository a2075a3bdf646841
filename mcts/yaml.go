package mcts

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// ParseMode reads a mode by its name (Mode.String: gumbel or puct).
func ParseMode(name string) (Mode, error) {
	for _, m := range []Mode{Gumbel, PUCT} {
		if name == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("mcts: mode %q: want gumbel or puct", name)
}

// UnmarshalYAML reads a mode by name, as configs give it. A bad name is
// reported as a type error, with its line, beside the config's other
// problems.
func (m *Mode) UnmarshalYAML(n *yaml.Node) error {
	var name string
	if err := n.Decode(&name); err != nil {
		return err
	}
	mode, err := ParseMode(name)
	if err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: search: mode %q: want gumbel or puct", n.Line, name)}}
	}
	*m = mode
	return nil
}
