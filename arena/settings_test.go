package arena_test

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/palace-chess/palace/arena"
	"gopkg.in/yaml.v3"
)

// The settings' bounds are checked once, here: every setting out of them
// is reported, named by its YAML key and its flag.
func TestSettingsValidate(t *testing.T) {
	ok := arena.Settings{Pairs: 1, Concurrency: 1}
	if err := ok.Validate(); err != nil {
		t.Fatalf("%+v: %v", ok, err)
	}
	bad := arena.Settings{Pairs: arena.MaxPairs + 1, OpeningPlies: -1, Concurrency: 0}
	err := bad.Validate()
	var bounds arena.BoundErrors
	if !errors.As(err, &bounds) || len(bounds) != 3 {
		t.Fatalf("%+v: %v, want three bound errors", bad, err)
	}
	want := "arena: pairs 1048577, want 1 to 1048576; opening_plies -1, want 0 or more; concurrent_games 0, want 1 to 16384"
	if err.Error() != want {
		t.Errorf("%v, want %s", err, want)
	}
	if bounds[2].Flag != "concurrency" || bounds[1].Flag != "opening-plies" {
		t.Errorf("flags %s, %s", bounds[1].Flag, bounds[2].Flag)
	}
}

// The YAML keys are the config sections' (concurrent_games), and the
// flags take their defaults from the settings given.
func TestSettingsKeysAndFlags(t *testing.T) {
	var s arena.Settings
	if err := yaml.Unmarshal([]byte("{pairs: 3, opening_plies: 4, concurrent_games: 5}"), &s); err != nil ||
		s != (arena.Settings{Pairs: 3, OpeningPlies: 4, Concurrency: 5}) {
		t.Fatalf("%+v, %v", s, err)
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s = arena.Settings{Pairs: 50, OpeningPlies: 2, Concurrency: 8}
	s.AddFlags(fs, arena.FlagHelp{PairsFlag: "games", Pairs: "game indices"})
	if f := fs.Lookup("games"); f == nil || f.DefValue != "50" || f.Usage != "game indices" || fs.Lookup("pairs") != nil {
		t.Fatalf("--games: %+v", f)
	}
	if err := fs.Parse(strings.Fields("--games 7 --concurrency 3")); err != nil {
		t.Fatal(err)
	}
	if s != (arena.Settings{Pairs: 7, OpeningPlies: 2, Concurrency: 3}) {
		t.Errorf("parsed %+v", s)
	}
}
