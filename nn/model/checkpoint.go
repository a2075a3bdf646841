package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/nets"
	"github.com/palace-chess/palace/rules"
)

// A checkpoint file, little-endian:
//
//	"PALACENN"            magic, 8 bytes
//	uint32                format version (FormatVersion)
//	uint32                header length H
//	H bytes               header: JSON (metadata and the tensor directory)
//	tensor data           float32s of every tensor, in directory order
//	uint32                CRC-32C of everything before it
//
// The header names every tensor with its shape, so a reader checks sizes
// before it reads data; the CRC catches bit rot and torn copies.

// FormatVersion is the checkpoint format this code writes and reads.
const FormatVersion = 1

var magic = []byte("PALACENN")

// ErrNotCheckpoint is returned for a file that is not a palace checkpoint.
var ErrNotCheckpoint = errors.New("model: not a palace checkpoint")

// ErrCorrupt is returned for a checkpoint whose bytes do not check out.
var ErrCorrupt = errors.New("model: corrupt checkpoint")

const maxHeader = 16 << 20

// Optimizer is the training state a checkpoint carries so that training
// resumes exactly: the solver's name and hyperparameters, its step count and
// its per-parameter tensors (momentum velocities, Adam moments), named
// "<kind>/<parameter>".
type Optimizer struct {
	Name    string               `json:"name"`
	Params  map[string]float64   `json:"params,omitempty"`
	Step    int64                `json:"step"`
	Tensors map[string][]float32 `json:"-"`
}

// Provenance says where a checkpoint came from.
type Provenance struct {
	CodeVersion string `json:"code_version"`
	Seed        uint64 `json:"seed"`
	Created     string `json:"created"` // RFC 3339
	Parent      string `json:"parent,omitempty"`
	Note        string `json:"note,omitempty"`
	// Run and Generation name the run (its directory or bucket) and the
	// generation a loop's network is; Lineage is the network ids it
	// descends from, oldest first, its parent last (issue 43: a shipped
	// network names where it came from).
	Run        string   `json:"run,omitempty"`
	Generation int      `json:"generation,omitempty"`
	Lineage    []string `json:"lineage,omitempty"`
}

// Ancestry is the network ids ck descends from, oldest first: its
// Lineage, else its Parent when that is another network (a network copied
// unchanged names itself as parent).
func (ck *Checkpoint) Ancestry() []string {
	p := ck.Provenance
	if len(p.Lineage) > 0 {
		return slices.Clone(p.Lineage)
	}
	if p.Parent != "" && (ck.Weights == nil || p.Parent != ck.Weights.ID()) {
		return []string{p.Parent}
	}
	return nil
}

// Checkpoint is a network with what it was trained on and how far.
type Checkpoint struct {
	Weights         *Weights
	EncodingVersion int        // encode.Version the network reads
	RuleSets        []string   // name@hash of the rule sets trained on
	Games           []string   // their games (rules.GameKind names): what the network may play
	Steps           int64      // training steps taken
	Samples         int64      // training samples seen
	Optimizer       *Optimizer // nil for an inference-only checkpoint
	Provenance      Provenance
}

type tensorEntry struct {
	Name  string `json:"name"`
	Shape []int  `json:"shape"`
}

type header struct {
	Config          Config        `json:"config"`
	EncodingVersion int           `json:"encoding_version"`
	RuleSets        []string      `json:"rule_sets"`
	Games           []string      `json:"games,omitempty"`
	Steps           int64         `json:"steps"`
	Samples         int64         `json:"samples"`
	Optimizer       *Optimizer    `json:"optimizer,omitempty"`
	Provenance      Provenance    `json:"provenance"`
	Tensors         []tensorEntry `json:"tensors"`
	OptTensors      []tensorEntry `json:"optimizer_tensors,omitempty"`
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// ID is a short digest of the network's shape and weights: the network id
// that shards and reports record.
func (w *Weights) ID() string {
	h := sha256.New()
	cfg, _ := json.Marshal(w.Config)
	h.Write(cfg)
	var b [4]byte
	for _, t := range w.Config.Tensors() {
		h.Write([]byte(t.Name))
		for _, v := range w.Tensors[t.Name] {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
			h.Write(b[:])
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Encode writes the checkpoint in the file format.
func (ck *Checkpoint) Encode() ([]byte, error) {
	if ck.Weights == nil {
		return nil, fmt.Errorf("model: checkpoint without weights")
	}
	if err := ck.Weights.Check(); err != nil {
		return nil, err
	}
	hd := header{
		Config: ck.Weights.Config, EncodingVersion: ck.EncodingVersion, RuleSets: ck.RuleSets, Games: ck.Games,
		Steps: ck.Steps, Samples: ck.Samples, Optimizer: ck.Optimizer, Provenance: ck.Provenance,
	}
	specs := ck.Weights.Config.Tensors()
	for _, t := range specs {
		hd.Tensors = append(hd.Tensors, tensorEntry{t.Name, t.Shape})
	}
	var optNames []string
	if ck.Optimizer != nil {
		for name := range ck.Optimizer.Tensors {
			optNames = append(optNames, name)
		}
		sort.Strings(optNames)
		for _, name := range optNames {
			hd.OptTensors = append(hd.OptTensors, tensorEntry{name, []int{len(ck.Optimizer.Tensors[name])}})
		}
	}
	hj, err := json.Marshal(hd)
	if err != nil {
		return nil, fmt.Errorf("model: encoding checkpoint header: %w", err)
	}
	var buf bytes.Buffer
	buf.Write(magic)
	binary.Write(&buf, binary.LittleEndian, uint32(FormatVersion))
	binary.Write(&buf, binary.LittleEndian, uint32(len(hj)))
	buf.Write(hj)
	writeFloats := func(data []float32) {
		var b [4]byte
		for _, v := range data {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
			buf.Write(b[:])
		}
	}
	for _, t := range specs {
		writeFloats(ck.Weights.Tensors[t.Name])
	}
	for _, name := range optNames {
		writeFloats(ck.Optimizer.Tensors[name])
	}
	binary.Write(&buf, binary.LittleEndian, crc32Sum(buf.Bytes()))
	return buf.Bytes(), nil
}

// DecodeCheckpoint reads a checkpoint from its file bytes. It never
// panics: a foreign file is ErrNotCheckpoint, a damaged one ErrCorrupt,
// each wrapped with what is wrong.
func DecodeCheckpoint(data []byte) (*Checkpoint, error) {
	if len(data) < len(magic) || !bytes.Equal(data[:len(magic)], magic) {
		return nil, ErrNotCheckpoint
	}
	if len(data) < len(magic)+12 {
		return nil, fmt.Errorf("%w: %d bytes, too short for a header", ErrCorrupt, len(data))
	}
	version := binary.LittleEndian.Uint32(data[8:])
	if version != FormatVersion {
		return nil, fmt.Errorf("model: checkpoint format version %d, this palace reads %d", version, FormatVersion)
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32Sum(body) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch (truncated or damaged file)", ErrCorrupt)
	}
	hlen := int(binary.LittleEndian.Uint32(data[12:]))
	if hlen > maxHeader || 16+hlen > len(body) {
		return nil, fmt.Errorf("%w: header length %d does not fit the file", ErrCorrupt, hlen)
	}
	var hd header
	dec := json.NewDecoder(bytes.NewReader(data[16 : 16+hlen]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&hd); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrCorrupt, err)
	}
	if err := hd.Config.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if err := checkRuleSets(&hd); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	specs := hd.Config.Tensors()
	if len(hd.Tensors) != len(specs) {
		return nil, fmt.Errorf("%w: %d tensors listed, the config has %d", ErrCorrupt, len(hd.Tensors), len(specs))
	}
	rest := body[16+hlen:]
	take := func(name string, n int) ([]float32, error) {
		if n < 0 || n > len(rest)/4 {
			return nil, fmt.Errorf("%w: tensor %s needs %d values, %d bytes are left", ErrCorrupt, name, n, len(rest))
		}
		out := make([]float32, n)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(rest[4*i:]))
		}
		rest = rest[4*n:]
		return out, nil
	}
	w := &Weights{Config: hd.Config, Tensors: map[string][]float32{}}
	for i, t := range specs {
		e := hd.Tensors[i]
		if e.Name != t.Name || !slices.Equal(e.Shape, t.Shape) {
			return nil, fmt.Errorf("%w: tensor %d is %s %v, the config says %s %v", ErrCorrupt, i, e.Name, e.Shape, t.Name, t.Shape)
		}
		v, err := take(t.Name, t.Size())
		if err != nil {
			return nil, err
		}
		w.Tensors[t.Name] = v
	}
	if hd.Optimizer != nil {
		hd.Optimizer.Tensors = map[string][]float32{}
		for _, e := range hd.OptTensors {
			if len(e.Shape) != 1 {
				return nil, fmt.Errorf("%w: optimizer tensor %s has shape %v", ErrCorrupt, e.Name, e.Shape)
			}
			v, err := take(e.Name, e.Shape[0])
			if err != nil {
				return nil, err
			}
			hd.Optimizer.Tensors[e.Name] = v
		}
	} else if len(hd.OptTensors) > 0 {
		return nil, fmt.Errorf("%w: optimizer tensors without an optimizer", ErrCorrupt)
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the last tensor", ErrCorrupt, len(rest))
	}
	if err := w.Check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return &Checkpoint{
		Weights: w, EncodingVersion: hd.EncodingVersion, RuleSets: hd.RuleSets, Games: hd.Games, Steps: hd.Steps,
		Samples: hd.Samples, Optimizer: hd.Optimizer, Provenance: hd.Provenance,
	}, nil
}

// Save writes the checkpoint to path crash-safely.
func (ck *Checkpoint) Save(path string) error {
	data, err := ck.Encode()
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, 0o644, data)
}

// Load reads a checkpoint file; errors name the file.
func Load(path string) (*Checkpoint, error) {
	data, err := atomicfile.ReadFile(path, atomicfile.MaxCheckpointBytes)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	ck, err := DecodeCheckpoint(data)
	if err != nil {
		return nil, fmt.Errorf("model: checkpoint %s: %w", path, err)
	}
	return ck, nil
}

func crc32Sum(b []byte) uint32 { return crc32.Checksum(b, crcTable) }

// LoadPlayable loads a checkpoint that this palace can play: one whose
// network reads the encoding (input planes and policy slots) this build
// writes. Every command and package that plays a network file loads it
// through here.
func LoadPlayable(path string) (*Checkpoint, error) {
	ck, err := Load(path)
	if err != nil {
		return nil, err
	}
	if err := ck.checkEncoding("network " + path); err != nil {
		return nil, err
	}
	return ck, nil
}

// LoadPlayableFor is LoadPlayable for playing under rs (nil: any): a
// network made for another game is an error naming the file.
func LoadPlayableFor(path string, rs *rules.RuleSet) (*Checkpoint, error) {
	ck, err := LoadPlayable(path)
	if err != nil || rs == nil {
		return ck, err
	}
	if err := ck.checkRuleSet("network "+path, rs); err != nil {
		return nil, err
	}
	return ck, nil
}

// The network options' two names that are not files: Builtin, the
// network palace ships for the game in play (package nets), and
// NoNetwork, a search with equal priors and value 0 (Uniform). A file
// of either name is given as ./builtin or ./none.
const (
	Builtin   = "builtin"
	NoNetwork = "none"
)

// LoadBuiltin is the network palace ships for rs's game (nets/).
func LoadBuiltin(rs *rules.RuleSet) (*Checkpoint, error) {
	if rs == nil {
		return nil, fmt.Errorf("model: the built-in network: which game? (no rule set given)")
	}
	name, data, ok := nets.For(rs.Game.String())
	if !ok {
		return nil, fmt.Errorf("model: no built-in network for %s", rs.Game)
	}
	ck, err := DecodeCheckpoint(data)
	if err != nil {
		return nil, fmt.Errorf("model: built-in network %s: %w", name, err)
	}
	if err := ck.checkEncoding("built-in network " + name); err != nil {
		return nil, err
	}
	if err := ck.checkRuleSet("built-in network "+name, rs); err != nil {
		return nil, err
	}
	return ck, nil
}

// LoadNetworkFor is a network option's checkpoint for playing under rs:
// Builtin's, or the file's (LoadPlayableFor).
func LoadNetworkFor(option string, rs *rules.RuleSet) (*Checkpoint, error) {
	if option == Builtin {
		return LoadBuiltin(rs)
	}
	return LoadPlayableFor(option, rs)
}

// CheckEncoding reports a network that reads another encoding than this
// build writes, for checkpoints that do not come from a file LoadPlayable
// reads (a trainer's initial network).
func (ck *Checkpoint) CheckEncoding() error { return ck.checkEncoding("the network") }

func (ck *Checkpoint) checkEncoding(what string) error {
	if ck.EncodingVersion != encode.Version {
		return fmt.Errorf("model: %s reads encoding version %d, this palace writes %d", what, ck.EncodingVersion, encode.Version)
	}
	return nil
}

// RandomCheckpoint is a new network: shape cfg, random weights from
// p.Seed (NewRandom), for ruleSets, reading this build's encoding,
// untrained. p.Created is now when empty.
func RandomCheckpoint(cfg Config, ruleSets []*rules.RuleSet, p Provenance) (*Checkpoint, error) {
	w, err := NewRandom(cfg, p.Seed)
	if err != nil {
		return nil, err
	}
	if p.Created == "" {
		p.Created = time.Now().UTC().Format(time.RFC3339)
	}
	ck := &Checkpoint{Weights: w, EncodingVersion: encode.Version, Provenance: p}
	ck.SetRuleSets(ruleSets...)
	return ck, nil
}
