package mcts

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// UnmarshalYAML reads a mode by name (gumbel or puct), as configs give it.
// A bad name is reported as a type error, with its line, beside the
// config's other problems.
func (m *Mode) UnmarshalYAML(n *yaml.Node) error {
	var name string
	if err := n.Decode(&name); err != nil {
		return err
	}
	switch name {
	case "gumbel":
		*m = Gumbel
	case "puct":
		*m = PUCT
	default:
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: search: mode %q: want gumbel or puct", n.Line, name)}}
	}
	return nil
}
