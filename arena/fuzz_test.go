package arena

import (
	"errors"
	"testing"

	"github.com/palace-chess/palace/nn"
)

// FuzzParsePlayer: any spec is a player whose every count that reaches an
// allocation or a clock is within its bounds, or a *SpecError; never a
// panic (issue 25: cache=100000000000 and evaluators=100000000 ran out of
// memory or hung).
func FuzzParsePlayer(f *testing.F) {
	for _, seed := range []string{
		"random", "uniform,sims=8", "net:x.palnet,sims=800,draw=-0.1,lookahead=0,matecheck=1,evaluators=2,cache=4096",
		"net:x,cache=100000000000", "net:x,evaluators=100000000", "net:x,sims=0", "uniform,draw=NaN",
		"uniform,nodes=8,draw-score=-0.1", "net:x,nodes=0", "uniform,draw-score=NaN", "uniform,sims=8,nodes=8",
		"uci:/usr/games/fairy-stockfish,nodes=1000", "uci:fsf,movetime=9223372036854775807", "uci:fsf,tc=10+0.1,timeout=30s",
		"uci:fsf,option.Threads=2,arg=-x,protocol=ucci,notation=ranks0", "uci:,nodes=1", "net:", ",", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		ps, err := ParsePlayer(spec)
		if err != nil {
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("%q: %T %v, want a *SpecError", spec, err, err)
			}
			return
		}
		switch ps.Kind {
		case KindRandom:
		case KindUniform, KindNet:
			if err := ps.Search.Validate(); err != nil {
				t.Fatalf("%q: search %v", spec, err)
			}
			if ps.Evaluators < 1 || ps.Evaluators > MaxEvaluators || ps.Cache < 0 || ps.Cache > nn.MaxCacheEntries {
				t.Fatalf("%q: evaluators %d, cache %d", spec, ps.Evaluators, ps.Cache)
			}
			if ps.Kind == KindNet && ps.Path == "" {
				t.Fatalf("%q: a net player without a path", spec)
			}
		case KindUCI:
			e := ps.UCI
			if e == nil || e.Path == "" {
				t.Fatalf("%q: %+v", spec, e)
			}
			l := e.Limits
			if l.Nodes < 0 || l.Depth < 0 || l.MoveTime < 0 || e.ClockBase < 0 || e.ClockIncrement < 0 || e.Timeout < 0 {
				t.Fatalf("%q: limits %+v, clock %v+%v, timeout %v", spec, l, e.ClockBase, e.ClockIncrement, e.Timeout)
			}
		default:
			t.Fatalf("%q: kind %q", spec, ps.Kind)
		}
	})
}
