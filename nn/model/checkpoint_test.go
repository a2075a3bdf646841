package model

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/rules"
)

var tinyConfig = Config{Planes: 3, PolicySize: 7, Blocks: 1, Filters: 4, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 5}

func tinyCheckpoint(t testing.TB) *Checkpoint {
	t.Helper()
	w, err := NewRandom(tinyConfig, 1)
	if err != nil {
		t.Fatal(err)
	}
	w.Tensors["stem.bn.mean"][2] = 0.25 // running statistics must survive too
	w.Tensors["stem.bn.var"][1] = 2.5
	return &Checkpoint{
		Weights: w, EncodingVersion: 1, RuleSets: []string{"xiangqi@28da3d27164cf76e"}, Games: []string{"xiangqi"}, Steps: 1234, Samples: 78976,
		Optimizer: &Optimizer{Name: "sgd-momentum", Params: map[string]float64{"lr": 0.02, "momentum": 0.9}, Step: 1234,
			Tensors: map[string][]float32{"velocity/stem.w": {1, 2, 3}, "velocity/policy.fc.b": {4}}},
		Provenance: Provenance{CodeVersion: "abc123", Seed: 42, Created: "2026-11-29T15:00:00Z", Parent: "0011223344556677"},
	}
}

func TestCheckpointRoundTrip(t *testing.T) {
	ck := tinyCheckpoint(t)
	path := filepath.Join(t.TempDir(), "net.ckpt")
	if err := ck.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, ck) {
		t.Errorf("round trip changed the checkpoint:\n got  %+v\n want %+v", got, ck)
	}
	if got.Weights.ID() != ck.Weights.ID() {
		t.Error("the network id changed")
	}
	ck.Optimizer = nil // inference-only
	data, err := ck.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := DecodeCheckpoint(data); err != nil || got.Optimizer != nil {
		t.Errorf("inference-only checkpoint: %v, optimizer %v", err, got.Optimizer)
	}
}

func TestCheckpointDamage(t *testing.T) {
	data, err := tinyCheckpoint(t).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeCheckpoint([]byte("PK\x03\x04 a zip file, not a network")); !errors.Is(err, ErrNotCheckpoint) {
		t.Errorf("foreign file: %v", err)
	}
	for _, n := range []int{len(data) - 1, len(data) / 2, 20} {
		if _, err := DecodeCheckpoint(data[:n]); !errors.Is(err, ErrCorrupt) {
			t.Errorf("truncated to %d bytes: %v", n, err)
		}
	}
	for _, at := range []int{13, 40, len(data) - 30, len(data) - 2} {
		bad := append([]byte(nil), data...)
		bad[at] ^= 0x10
		if _, err := DecodeCheckpoint(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("byte %d flipped: %v", at, err)
		}
	}
	future := append([]byte(nil), data...)
	future[8] = 99
	if _, err := DecodeCheckpoint(future); err == nil || errors.Is(err, ErrCorrupt) {
		t.Errorf("a future format version should be its own error, got %v", err)
	}
	path := filepath.Join(t.TempDir(), "bad.ckpt")
	os.WriteFile(path, data[:100], 0o644)
	if _, err := Load(path); err == nil || !errors.Is(err, ErrCorrupt) {
		t.Errorf("Load of a damaged file: %v", err)
	}
}

func TestWeightsCheck(t *testing.T) {
	w, _ := NewRandom(tinyConfig, 2)
	delete(w.Tensors, "value.fc2.b")
	if err := w.Check(); err == nil {
		t.Error("a missing tensor passed the check")
	}
	w, _ = NewRandom(tinyConfig, 2)
	w.Tensors["stem.w"] = w.Tensors["stem.w"][:3]
	if err := w.Check(); err == nil {
		t.Error("a short tensor passed the check")
	}
	if _, err := NewRandom(Config{}, 1); err == nil {
		t.Error("an empty config was accepted")
	}
}

// FuzzDecodeCheckpoint: no input panics the loader (CRCs are recomputed so
// that the fuzzer reaches the header and tensor checks).
func FuzzDecodeCheckpoint(f *testing.F) {
	data, err := tinyCheckpoint(f).Encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, true)
	f.Add(data[:60], false)
	f.Add([]byte("PALACENN"), false)
	f.Fuzz(func(t *testing.T, data []byte, fixCRC bool) {
		if fixCRC && len(data) >= 4 {
			data = append([]byte(nil), data...)
			sum := crc32Sum(data[:len(data)-4])
			data[len(data)-4], data[len(data)-3], data[len(data)-2], data[len(data)-1] = byte(sum), byte(sum>>8), byte(sum>>16), byte(sum>>24)
		}
		ck, err := DecodeCheckpoint(data)
		if err == nil {
			if _, err := ck.Encode(); err != nil {
				t.Fatalf("a checkpoint that loads does not encode: %v", err)
			}
		}
	})
}

// A network that reads another encoding is refused by LoadPlayable, with
// its file and both versions named; one that reads this build's loads.
func TestLoadPlayable(t *testing.T) {
	ck := tinyCheckpoint(t)
	dir := t.TempDir()
	old := filepath.Join(dir, "old.palnet")
	ck.EncodingVersion = encode.Version + 1
	if err := ck.Save(old); err != nil {
		t.Fatal(err)
	}
	_, err := LoadPlayable(old)
	if err == nil || !strings.Contains(err.Error(), "old.palnet") || !strings.Contains(err.Error(), fmt.Sprintf("encoding version %d", encode.Version+1)) {
		t.Errorf("another encoding: %v", err)
	}
	cur := filepath.Join(dir, "cur.palnet")
	ck.EncodingVersion = encode.Version
	if err := ck.Save(cur); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadPlayable(cur); err != nil || got.Weights.ID() != ck.Weights.ID() {
		t.Errorf("this encoding: %v", err)
	}
	if _, err := LoadPlayable(filepath.Join(dir, "missing.palnet")); err == nil {
		t.Error("a missing file loaded")
	}
}

// OpenEvaluator: no file is the uniform evaluator; a file is its network,
// in parallel copies when asked; CheckEncoding refuses another encoding.
func TestOpenEvaluator(t *testing.T) {
	ev, ck, err := OpenEvaluator("", nil, 4)
	if err != nil || ck != nil || ev.InputSize() != encode.InputSize || ev.PolicySize() != encode.PolicySize() {
		t.Errorf("no file: %T, %v, %v", ev, ck, err)
	}
	c := tinyCheckpoint(t)
	c.EncodingVersion = encode.Version
	path := filepath.Join(t.TempDir(), "net.palnet")
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	for copies, want := range map[int]string{1: "*model.Evaluator", 3: "*nn.Parallel"} {
		ev, ck, err := OpenEvaluator(path, nil, copies)
		if err != nil || ck.Weights.ID() != c.Weights.ID() || fmt.Sprintf("%T", ev) != want {
			t.Errorf("%d copies: %T, %v; want a %s of the network", copies, ev, err, want)
		}
	}
	if _, _, err := OpenEvaluator(path+".missing", nil, 1); err == nil {
		t.Error("a missing file opened")
	}
	c.EncodingVersion = encode.Version + 1
	if err := c.CheckEncoding(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("encoding version %d", encode.Version+1)) {
		t.Errorf("CheckEncoding of another encoding: %v", err)
	}
}

// A random checkpoint is the one palace net init and a run's generation 0
// built by hand before: NewRandom's weights under this build's encoding,
// untrained, with the provenance given (created now unless set).
func TestRandomCheckpoint(t *testing.T) {
	p := Provenance{CodeVersion: "v", Seed: 3, Created: "2026-11-29T15:00:00Z", Note: "n"}
	xiangqi := rules.MustPreset("xiangqi")
	ck, err := RandomCheckpoint(tinyConfig, []*rules.RuleSet{xiangqi}, p)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := NewRandom(tinyConfig, 3)
	want := &Checkpoint{Weights: w, EncodingVersion: encode.Version, RuleSets: []string{xiangqi.String()}, Games: []string{"xiangqi"}, Provenance: p}
	got, _ := ck.Encode()
	wantBytes, _ := want.Encode()
	if !reflect.DeepEqual(got, wantBytes) {
		t.Error("RandomCheckpoint's bytes differ from the hand-built checkpoint's")
	}
	p.Created = ""
	if ck, err = RandomCheckpoint(tinyConfig, nil, p); err != nil || ck.Provenance.Created == "" {
		t.Errorf("without a creation time: %+v, %v", ck.Provenance, err)
	}
	if _, err := RandomCheckpoint(Config{}, nil, p); err == nil {
		t.Error("a checkpoint of an invalid shape")
	}
}
