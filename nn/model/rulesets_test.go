package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/rules"
)

// withHeaderText re-encodes ck with old replaced by new in its JSON header
// (same length, so the tensor offsets stay) and the checksum redone: a
// checkpoint as another program, or an older palace, could have written.
func withHeaderText(t *testing.T, ck *Checkpoint, old, new string) []byte {
	t.Helper()
	if len(new) > len(old) {
		t.Fatalf("%q is longer than %q", new, old)
	}
	new += strings.Repeat(" ", len(old)-len(new))
	data, err := ck.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("no %q in the header", old)
	}
	data = bytes.Replace(data, []byte(old), []byte(new), 1)
	body := data[:len(data)-4]
	binary.LittleEndian.PutUint32(data[len(data)-4:], crc32Sum(body))
	return data
}

// A checkpoint names its rule sets as NAME@HASH and its games; what is
// not is a corrupt checkpoint (issue 25: rule_sets: ["chess@1"] loaded).
// One written before games were recorded gets them from its preset rule
// sets.
func TestCheckpointRuleSets(t *testing.T) {
	xiangqi, janggi := rules.MustPreset("xiangqi"), rules.MustPreset("janggi")
	ck := tinyCheckpoint(t)
	long, err := rules.ParseRuleSet([]byte("base: xiangqi\nname: xiangqi-long\nmaxPlies: 500\n"), "long.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ck.SetRuleSets(xiangqi, xiangqi, long)
	if len(ck.RuleSets) != 2 || !slices.Equal(ck.Games, []string{"xiangqi"}) {
		t.Fatalf("rule sets %v, games %v", ck.RuleSets, ck.Games)
	}
	quoted := `"` + xiangqi.String() + `"`
	for _, bad := range []struct{ old, new, want string }{
		{quoted, `"chess@1"`, `rule set "chess@1" is not NAME@HASH`},
		{quoted, `"xiangqi"`, `rule set "xiangqi" is not NAME@HASH`},
		{`"games":["xiangqi"]`, `"games":["chess"]`, `game "chess" is not xiangqi or janggi`},
	} {
		_, err := DecodeCheckpoint(withHeaderText(t, ck, bad.old, bad.new))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: got %v, want a corrupt checkpoint: %s", bad.new, err, bad.want)
		}
	}
	// An older checkpoint: no games field.
	ck.SetRuleSets(janggi)
	old, err := DecodeCheckpoint(withHeaderText(t, ck, `,"games":["janggi"]`, ``))
	if err != nil || !slices.Equal(old.Games, []string{"janggi"}) {
		t.Errorf("a checkpoint without games: %v, %v; want janggi from its rule set", old, err)
	}
	ck.RuleSets, ck.Games = []string{"janggi-custom@0123456789abcdef", "mine@0123456789abcdef"}, nil
	if old, err = DecodeCheckpoint(mustEncode(t, ck)); err != nil || !slices.Equal(old.Games, []string{"janggi"}) {
		t.Errorf("a custom janggi rule set: %v, %v", old.Games, err)
	}
	ck.RuleSets = []string{"mine@0123456789abcdef"}
	if old, err = DecodeCheckpoint(mustEncode(t, ck)); err != nil || len(old.Games) != 0 || old.CheckRuleSet(janggi) != nil || old.CheckRuleSet(xiangqi) != nil {
		t.Errorf("a rule set of unknown game: %v, %v; want no games and every game allowed", old.Games, err)
	}
}

func mustEncode(t *testing.T, ck *Checkpoint) []byte {
	t.Helper()
	data, err := ck.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A network plays its own game under any of its rule sets, and another
// game is refused, naming the file and both games.
func TestLoadPlayableFor(t *testing.T) {
	ck := tinyCheckpoint(t)
	ck.EncodingVersion = encode.Version
	ck.SetRuleSets(rules.MustPreset("xiangqi"))
	path := filepath.Join(t.TempDir(), "xiangqi.palnet")
	if err := ck.Save(path); err != nil {
		t.Fatal(err)
	}
	long, err := rules.ParseRuleSet([]byte("base: xiangqi\nmaxPlies: 500\n"), "long.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, ok := range []*rules.RuleSet{rules.MustPreset("xiangqi"), long} {
		if _, err := LoadPlayableFor(path, ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	if _, err := LoadPlayableFor(path, nil); err != nil {
		t.Errorf("any game: %v", err)
	}
	janggi := rules.MustPreset("janggimodern")
	_, err = LoadPlayableFor(path, janggi)
	if err == nil || !strings.Contains(err.Error(), "network "+path+" was made for xiangqi (xiangqi@") || !strings.Contains(err.Error(), "not janggi ("+janggi.String()+")") {
		t.Errorf("janggi: %v", err)
	}
	if _, _, err := OpenEvaluator(path, janggi, 2); err == nil {
		t.Error("OpenEvaluator: a xiangqi network opened for janggi")
	}
}
