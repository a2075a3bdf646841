package arena

import (
	"flag"
	"fmt"
	"strings"
)

// Settings are the knobs of a series of game pairs that the gate, the
// ladder and an experiment share (embedded there), kept here so that
// their YAML keys, flags and bounds are one thing.
type Settings struct {
	// Pairs is the number of game pairs (at most, when a test stops the
	// match early; an experiment's game indices, each a game under either
	// rule set).
	Pairs int `yaml:"pairs"`
	// OpeningPlies random plies open each pair's opening.
	OpeningPlies int `yaml:"opening_plies"`
	// Concurrency is the number of games played at once.
	Concurrency int `yaml:"concurrent_games"`
}

// BoundError is a setting outside its bounds: its YAML key and its flag,
// so that a config and a command each name it their own way.
type BoundError struct {
	Key, Flag string
	Value     int
	// Min and Max bound Value; Max 0 leaves it unbounded above.
	Min, Max int
}

// Want says the bounds: "1 to 16384", "0 or more".
func (e *BoundError) Want() string {
	if e.Max > 0 {
		return fmt.Sprintf("%d to %d", e.Min, e.Max)
	}
	return fmt.Sprintf("%d or more", e.Min)
}

// Setting is the error without the package's name, for a config section
// that names itself: "pairs 0, want 1 to 1048576".
func (e *BoundError) Setting() string { return fmt.Sprintf("%s %d, want %s", e.Key, e.Value, e.Want()) }

func (e *BoundError) Error() string { return "arena: " + e.Setting() }

// BoundErrors are every setting outside its bounds, in the fields' order.
type BoundErrors []*BoundError

func (es BoundErrors) Error() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Setting()
	}
	return "arena: " + strings.Join(s, "; ")
}

// Validate reports every setting outside its bounds, as BoundErrors (nil
// when none): MaxPairs bounds the pairs since their games are listed up
// front, MaxConcurrency the games at once since each holds a search.
func (s *Settings) Validate() error {
	var errs BoundErrors
	for _, b := range []BoundError{
		{Key: "pairs", Flag: "pairs", Value: s.Pairs, Min: 1, Max: MaxPairs},
		{Key: "opening_plies", Flag: "opening-plies", Value: s.OpeningPlies},
		{Key: "concurrent_games", Flag: "concurrency", Value: s.Concurrency, Min: 1, Max: MaxConcurrency},
	} {
		if b.Value < b.Min || b.Max > 0 && b.Value > b.Max {
			errs = append(errs, &b)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// FlagHelp is a command's help for the settings' flags, each "" for the
// default text.
type FlagHelp struct {
	// PairsFlag names the pairs' flag ("": pairs): an experiment counts
	// games.
	PairsFlag                        string
	Pairs, OpeningPlies, Concurrency string
}

// AddFlags registers the settings' flags on fs, s's values their
// defaults: --pairs (or help.PairsFlag), --opening-plies and
// --concurrency (BoundError.Flag names them).
func (s *Settings) AddFlags(fs *flag.FlagSet, help FlagHelp) {
	or := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	fs.IntVar(&s.Pairs, or(help.PairsFlag, "pairs"), s.Pairs, or(help.Pairs, "game pairs to play (each opening twice, colours swapped)"))
	fs.IntVar(&s.OpeningPlies, "opening-plies", s.OpeningPlies, or(help.OpeningPlies, "random plies in each pair's opening"))
	fs.IntVar(&s.Concurrency, "concurrency", s.Concurrency, or(help.Concurrency, "games played at once"))
}
