package gnet

import (
	"fmt"
	"strings"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
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
	// tasks keeps the sum's parallel loop's arguments.
	tasks taskSlots
	// sum marks Gorgonia's elementwise a + b (the cost, and the gradients
	// of a node read twice, such as a block's skip input), which the
	// executor adds itself into buf: Gorgonia's add allocates a dozen
	// objects a call around the same loop.
	sum bool
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
			e.steps = append(e.steps, execStep{op: op, out: i, args: args, sum: isSum(op, len(args))})
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

// isSum reports whether op is Gorgonia's elementwise addition of two
// values.
func isSum(op G.Op, args int) bool {
	return args == 2 && fmt.Sprintf("%T", op) == "gorgonia.elemBinOp" && strings.HasPrefix(op.String(), "+ ")
}

// sum2 sets s.buf to a + b (of one size and dtype) and returns it.
func (s *execStep) sum2(a, b G.Value) (G.Value, error) {
	switch a := a.(type) { // the cost: the two losses, scalars
	case *G.F32:
		if b, ok := b.(*G.F32); ok {
			return addScalars(&s.buf, a, b), nil
		}
	case *G.F64:
		if b, ok := b.(*G.F64); ok {
			return addScalars(&s.buf, a, b), nil
		}
	}
	x, okx := a.(*tensor.Dense)
	y, oky := b.(*tensor.Dense)
	if !okx || !oky || x.Dtype() != y.Dtype() || x.Shape().TotalSize() != y.Shape().TotalSize() {
		return nil, fmt.Errorf("gnet: adding %v and %v", a.Shape(), b.Shape())
	}
	var buf any = s.buf
	out, err := output(&buf, x.Dtype(), x.Shape())
	if err != nil {
		return nil, err
	}
	s.buf = out
	switch x.Dtype() {
	case tensor.Float32:
		addParallel(&s.tasks, floats[float32](out), floats[float32](x), floats[float32](y))
	case tensor.Float64:
		addParallel(&s.tasks, floats[float64](out), floats[float64](x), floats[float64](y))
	default:
		return nil, fmt.Errorf("gnet: adding %v values", x.Dtype())
	}
	return out, nil
}

// addScalars sets *buf (made the first time) to a + b and returns it.
func addScalars[V G.F32 | G.F64](buf *G.Value, a, b *V) G.Value {
	out, ok := any(*buf).(*V)
	if !ok {
		out = new(V)
		*buf = any(out).(G.Value)
	}
	*out = *a + *b
	return *buf
}

// addParallel is addInto in bands over the cores (a serial part of a
// two-core step: a block's skip input takes its two gradients' sum).
func addParallel[T float](slots *taskSlots, z, x, y []T) {
	t := slotFor[addTask[T]](slots)
	*t = addTask[T]{z: z, x: x, y: y}
	parallel(len(x), len(x), t)
	*t = addTask[T]{}
}

type addTask[T float] struct{ z, x, y []T }

func (t *addTask[T]) run(lo, hi int) { addInto(t.z[lo:hi], t.x[lo:hi], t.y[lo:hi]) }

func addInto[T float](z, x, y []T) {
	y = y[:len(x)]
	z = z[:len(x)]
	for i, v := range x {
		z[i] = v + y[i]
	}
}

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
		if s.sum {
			v, err = s.sum2(args[0], args[1])
		} else if pd, ok := s.op.(G.UsePreallocDoer); ok && s.buf != nil {
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
