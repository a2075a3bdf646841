package gnet

import (
	"fmt"

	G "gorgonia.org/gorgonia"
)

// executor runs a graph's ops in dependency order on values it keeps
// itself, where Gorgonia's tape machine allocates a few thousand objects
// a step around the same calls (its instructions, registers and type
// checks). Gorgonia still builds the graph and differentiates it: the
// executor only calls each op's Do (UsePreallocDo, with the op's last
// output, for Gorgonia's own ops that take one), and a parameter's
// gradient is its gradient node's value, not accumulated into the
// parameter's dual value.
type executor struct {
	nodes  []*G.Node
	index  map[*G.Node]int
	vals   []G.Value
	leaves []int // nodes without an op, read where they are bound
	steps  []execStep
	args   []G.Value // the arguments of the step being run
}

type execStep struct {
	op   G.Op
	out  int   // the node's index in nodes
	args []int // its children's indexes, in argument order
	buf  G.Value
}

// newExecutor orders g's ops so that each runs after its arguments. A
// node without an op (a parameter, an input) is read where it is bound;
// G.Read's ops are left out: their nodes' values are read directly.
func newExecutor(g *G.ExprGraph) (*executor, error) {
	e := &executor{nodes: g.AllNodes()}
	index := make(map[*G.Node]int, len(e.nodes))
	for i, n := range e.nodes {
		index[n] = i
	}
	e.index = index
	e.vals = make([]G.Value, len(e.nodes))
	const (
		unseen = iota
		visiting
		done
	)
	mark := make([]uint8, len(e.nodes))
	var visit func(i int) error
	visit = func(i int) error {
		switch mark[i] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("gnet: the graph has a cycle through %v", e.nodes[i])
		}
		mark[i] = visiting
		n := e.nodes[i]
		var args []int
		for it := g.From(n.ID()); it.Next(); {
			c := it.Node().(*G.Node)
			j, ok := index[c]
			if !ok {
				return fmt.Errorf("gnet: %v's argument %v is not in the graph", n, c)
			}
			if err := visit(j); err != nil {
				return err
			}
			args = append(args, j)
		}
		mark[i] = done
		if op := n.Op(); op != nil && !isRead(op) {
			e.steps = append(e.steps, execStep{op: op, out: i, args: args})
			if len(args) > cap(e.args) {
				e.args = make([]G.Value, 0, len(args))
			}
		}
		return nil
	}
	for i, n := range e.nodes {
		if err := visit(i); err != nil {
			return nil, err
		}
		if n.Op() == nil {
			e.leaves = append(e.leaves, i)
		}
	}
	return e, nil
}

// isRead reports whether op is G.Read's, which only copies its argument
// out.
func isRead(op G.Op) bool { return fmt.Sprintf("%T", op) == "gorgonia.readOp" }

// run executes every step once.
func (e *executor) run() error {
	for _, i := range e.leaves {
		e.vals[i] = e.nodes[i].Value()
	}
	for k := range e.steps {
		s := &e.steps[k]
		args := e.args[:0]
		for _, a := range s.args {
			args = append(args, e.vals[a])
		}
		var v G.Value
		var err error
		if pd, ok := s.op.(G.UsePreallocDoer); ok && s.buf != nil {
			v, err = pd.UsePreallocDo(s.buf, args...)
		} else {
			v, err = s.op.Do(args...)
			if _, ok := s.op.(G.UsePreallocDoer); ok {
				s.buf = v
			}
		}
		if err != nil {
			return fmt.Errorf("gnet: %v: %w", s.op, err)
		}
		e.vals[s.out] = v
	}
	return nil
}

// value is node n's value after the last run (nil before the first).
func (e *executor) value(n *G.Node) G.Value {
	if i, ok := e.index[n]; ok {
		return e.vals[i]
	}
	return nil
}
