package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/rules"
)

// option is one setting the engine advertises and setoption changes.
type option struct {
	name     string
	ucci     string   // the name UCCI declares, when not name (UCCI's names have no spaces)
	aliases  []string // other names setoption accepts
	kind     string   // check, spin, combo, string, button
	only     string   // "": every protocol offers it; else the one that does ("uci", "ucci")
	min, max int      // spin
	vars     func() []string
	def      func(e *Engine) string // the value before any setoption
	set      func(e *Engine, v string) error
}

var options = []option{
	{name: "UCI_Variant", kind: "combo", vars: rules.PresetNames,
		def: func(*Engine) string { return "xiangqi" },
		set: func(e *Engine, v string) error {
			if e.variant != v {
				// Another game may need another evaluator (the network
				// is checked against the variant's game).
				e.variant, e.game, e.stale, e.reload = v, nil, true, true
			}
			e.variantSet, e.hasDetected = true, false
			return nil
		}},
	{name: "MoveNotation", kind: "combo", vars: func() []string { return []string{"auto", "ranks1", "ranks0"} },
		def: func(*Engine) string { return "auto" },
		set: func(e *Engine, v string) error { e.notation, e.hasDetected = v, false; return nil }},
	{name: "UCI_ShowWDL", kind: "check", only: "uci",
		def: func(*Engine) string { return "false" },
		set: func(e *Engine, v string) error { return setBool(&e.showWDL, v) }},
	{name: "usemillisec", kind: "check", only: "ucci",
		def: func(*Engine) string { return "false" },
		set: func(e *Engine, v string) error { return setBool(&e.milli, v) }},
	{name: "Threads", kind: "spin", min: 1, max: maxThreads,
		def: func(e *Engine) string { return strconv.Itoa(e.opts.Threads) },
		set: func(e *Engine, v string) error {
			n, _ := strconv.Atoi(v)
			if n != e.threads {
				e.threads, e.params.LeavesPerEval, e.stale, e.reload = n, threadLeaves(n), true, true
			}
			return nil
		}},
	{name: "Nodes", kind: "spin", min: 1, max: maxNodes,
		def: func(e *Engine) string { return strconv.Itoa(e.opts.Nodes) },
		set: func(e *Engine, v string) error { e.params.Simulations, _ = strconv.Atoi(v); return nil }},
	// A search knob is an option that sets e.params and marks the search
	// stale, as DrawScore (hundredths of a win) does.
	{name: "DrawScore", kind: "spin", min: -100, max: 100,
		def: func(*Engine) string { return "0" },
		set: func(e *Engine, v string) error {
			n, _ := strconv.Atoi(v)
			if d := float64(n) / 100; d != e.params.DrawScore {
				e.params.DrawScore, e.stale = d, true
			}
			return nil
		}},
	{name: "Move Overhead", ucci: "MoveOverhead", aliases: []string{"MoveOverhead"}, kind: "spin", min: 0, max: 10000,
		def: func(*Engine) string { return strconv.Itoa(defaultOverhead) },
		set: func(e *Engine, v string) error { e.overhead, _ = strconv.Atoi(v); return nil }},
	{name: "MultiPV", only: "uci", kind: "spin", min: 1, max: maxMultiPV,
		def: func(*Engine) string { return "1" },
		set: func(e *Engine, v string) error { e.multiPV, _ = strconv.Atoi(v); return nil }},
	{name: "Ponder", ucci: "ponder", kind: "check",
		def: func(*Engine) string { return "false" },
		set: func(e *Engine, v string) error { return setBool(&e.ponder, v) }},
	// Hash is the evaluation cache's size in MB (0: none); the tree is
	// Tree Memory's, apart.
	{name: "Hash", ucci: "hashsize", kind: "spin", min: 0, max: maxHashMB,
		def: func(*Engine) string { return strconv.Itoa(defaultHashMB) },
		set: func(e *Engine, v string) error {
			n, _ := strconv.Atoi(v)
			if n == e.hashMB {
				return nil
			}
			// Sized against the memory the process may take, refused
			// with the numbers, not a fatal out of memory (issue 47).
			if err := nn.CheckCacheMemory(n << 20 / cacheEntryBytes); n > 0 && err != nil {
				return err
			}
			e.hashMB, e.stale = n, true
			return nil
		}},
	{name: "Clear Hash", ucci: "clearhash", kind: "button",
		set: func(e *Engine, _ string) error { e.clearHash(); return nil }},
	{name: "WeightsFile", kind: "string",
		def: func(e *Engine) string {
			if e.opts.Network == "" {
				return "<empty>"
			}
			return e.opts.Network
		},
		set: func(e *Engine, v string) error {
			if v == "<empty>" {
				v = ""
			}
			e.network, e.stale, e.reload = v, true, true
			return nil
		}},
	// Tree Memory (issue 50): the search tree's cap in MB, apart from Hash.
	// The tree grows as a search needs it up to the cap, where the search
	// stops with a note naming this option.
	{name: "Tree Memory", ucci: "treememory", aliases: []string{"TreeMemory"}, kind: "spin", min: 1, max: maxTreeMB,
		def: func(*Engine) string { return strconv.Itoa(defaultTreeMB) },
		set: func(e *Engine, v string) error {
			if n, _ := strconv.Atoi(v); n != e.treeMB {
				e.treeMB, e.params.MaxNodes, e.stale = n, treeNodes(n), true
			}
			return nil
		}},
	// End of Tree Memory.
	// UCI_AnalyseMode and Debug Log File (issue 50).
	{name: "UCI_AnalyseMode", kind: "check", only: "uci",
		def: func(*Engine) string { return "false" },
		set: func(e *Engine, v string) error {
			was := e.analyse
			err := setBool(&e.analyse, v)
			e.stale = e.stale || e.analyse != was
			return err
		}},
	{name: "Debug Log File", ucci: "debuglogfile", aliases: []string{"DebugLogFile"}, kind: "string",
		def: func(*Engine) string { return "<empty>" },
		set: func(e *Engine, v string) error {
			if v == "<empty>" {
				v = ""
			}
			if err := e.out.setLog(v); err != nil {
				return fmt.Errorf("uci: option Debug Log File: value %q: %w", v, err)
			}
			return nil
		}},
	// End of UCI_AnalyseMode and Debug Log File.
}

// declared is the name the option is declared under: UCCI's, or UCI's.
func (o *option) declared(ucci bool) string {
	if ucci && o.ucci != "" {
		return o.ucci
	}
	return o.name
}

// named reports whether setoption's name (any case) names o.
func (o *option) named(name string) bool {
	if strings.EqualFold(o.name, name) || o.ucci != "" && strings.EqualFold(o.ucci, name) {
		return true
	}
	for _, a := range o.aliases {
		if strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}

func setBool(dst *bool, v string) error {
	switch strings.ToLower(v) {
	case "true", "on":
		*dst = true
	case "false", "off":
		*dst = false
	default:
		return fmt.Errorf("want true or false")
	}
	return nil
}

// setOption sets the option named name (any case) that the protocol
// offers to value.
func (e *Engine) setOption(name, value string) error {
	for i := range options {
		o := &options[i]
		if !o.named(name) || !e.proto.offers(o) {
			continue
		}
		v, err := o.check(value)
		if err != nil {
			return fmt.Errorf("uci: option %s: value %q: %w", o.name, value, err)
		}
		return o.set(e, v)
	}
	return fmt.Errorf("uci: unknown option %s", name)
}

// check validates a value against the option's type and returns it in
// canonical form.
func (o *option) check(v string) (string, error) {
	switch o.kind {
	case "spin":
		n, err := strconv.Atoi(v)
		if err != nil || n < o.min || n > o.max {
			return "", fmt.Errorf("want an integer in %d–%d", o.min, o.max)
		}
		return strconv.Itoa(n), nil
	case "combo":
		for _, c := range o.vars() {
			if strings.EqualFold(c, v) {
				return c, nil
			}
		}
		return "", fmt.Errorf("want one of %s", strings.Join(o.vars(), ", "))
	case "check":
		var b bool
		if err := setBool(&b, v); err != nil {
			return "", err
		}
		return strconv.FormatBool(b), nil
	case "button":
		return "", nil
	}
	return v, nil
}
