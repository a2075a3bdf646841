// Package model is palace's policy/value network outside of training: its
// shape (Config), its weights, the checkpoint file format and a pure-Go
// forward pass. It imports nothing of Gorgonia; nn/gnet trains the same
// network and hands weights over through this package.
package model

import (
	"fmt"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/internal/yamlconf"
)

// Config is the network's shape. The input is Planes planes of 10×9; a
// residual tower of Blocks blocks of Filters 3×3 filters; a policy head of
// PolicyChannels 1×1 filters and a dense layer to PolicySize logits; a WDL
// value head of ValueChannels 1×1 filters, a dense layer of ValueHidden
// units and a dense layer to 3 logits (win, draw, loss for the side to move).
//
// The yaml keys are a config's network shape (configs/net-6x64.yaml, a run's
// network, self-play's random_network), decoded over the values already
// there; the input planes and policy slots are the encoding's, never a
// config's.
type Config struct {
	Planes         int `json:"planes" yaml:"-"`
	PolicySize     int `json:"policy_size" yaml:"-"`
	Blocks         int `json:"blocks" yaml:"blocks"`
	Filters        int `json:"filters" yaml:"filters"`
	PolicyChannels int `json:"policy_channels" yaml:"policy_channels"`
	ValueChannels  int `json:"value_channels" yaml:"value_channels"`
	ValueHidden    int `json:"value_hidden" yaml:"value_hidden"`
	// ReplyPolicy adds a head for training alone (KataGo's opponent-policy
	// target): a second policy head of the policy head's shape that learns
	// the opponent's reply, the search's policy in the position after the
	// move played (train.Config.ReplyPolicyWeight). Play never reads it;
	// what it teaches the tower is what the policy and value heads read.
	ReplyPolicy bool `json:"reply_policy,omitempty" yaml:"reply_policy"`
}

// DefaultConfig is the network palace plays and initialises when none is
// given (palace net init, self-play without a checkpoint): 6 blocks × 64
// filters over this build's encoding.
func DefaultConfig() Config {
	return Config{Planes: encode.Planes, PolicySize: encode.PolicySize(), Blocks: 6, Filters: 64,
		PolicyChannels: 4, ValueChannels: 2, ValueHidden: 64}
}

// LoadConfig reads a network shape file (configs/net-*.yaml) over
// DefaultConfig and validates it; unknown keys are errors.
func LoadConfig(path string) (Config, error) {
	return yamlconf.Load("model", path, ParseConfig)
}

// ParseConfig reads a network shape over DefaultConfig and validates it;
// source names the input in messages.
func ParseConfig(data []byte, source string) (Config, error) {
	cfg := DefaultConfig()
	if err := yamlconf.Decode(data, &cfg, map[string]string{"model.Config": "the network shape"}); err != nil {
		return cfg, fmt.Errorf("model: %s: %w", source, err)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("%s: %w", source, err)
	}
	return cfg, nil
}

// Board geometry shared by both games.
const (
	Ranks   = 10
	Files   = 9
	Squares = Ranks * Files
)

// BNEpsilon is batch norm's variance epsilon, the same in training.
const BNEpsilon = 1e-5

// Validate reports a shape that cannot be built.
func (c Config) Validate() error {
	for _, f := range []struct {
		name      string
		v, lo, hi int
	}{
		{"planes", c.Planes, 1, 1024},
		{"policy_size", c.PolicySize, 1, 1 << 16},
		{"blocks", c.Blocks, 0, 128},
		{"filters", c.Filters, 1, 1024},
		{"policy_channels", c.PolicyChannels, 1, 256},
		{"value_channels", c.ValueChannels, 1, 256},
		{"value_hidden", c.ValueHidden, 1, 4096},
	} {
		if f.v < f.lo || f.v > f.hi {
			return fmt.Errorf("model: config %s = %d, want %d–%d", f.name, f.v, f.lo, f.hi)
		}
	}
	return nil
}

// InputSize is the floats of one position's input.
func (c Config) InputSize() int { return c.Planes * Squares }

// FLOPs is the multiply-adds ×2 of one position's forward pass (play's:
// the reply head, training's alone, is not in it).
func (c Config) FLOPs() int64 {
	conv := func(in, out, k int) int64 { return 2 * int64(in*out*k*k) * Squares }
	n := conv(c.Planes, c.Filters, 3) + int64(2*c.Blocks)*conv(c.Filters, c.Filters, 3)
	n += conv(c.Filters, c.PolicyChannels, 1) + 2*int64(c.PolicyChannels*Squares*c.PolicySize)
	n += conv(c.Filters, c.ValueChannels, 1) + 2*int64(c.ValueChannels*Squares*c.ValueHidden) + 2*int64(c.ValueHidden*3)
	return n
}

// TensorSpec names one weight tensor and its shape.
type TensorSpec struct {
	Name  string
	Shape []int
}

// Size is the number of floats in the tensor.
func (t TensorSpec) Size() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// bnSpecs are a batch norm's parameters (gamma, beta) and running
// statistics (mean, var), which training saves explicitly.
func bnSpecs(prefix string, ch int) []TensorSpec {
	return []TensorSpec{
		{prefix + ".gamma", []int{ch}}, {prefix + ".beta", []int{ch}},
		{prefix + ".mean", []int{ch}}, {prefix + ".var", []int{ch}},
	}
}

// Tensors lists every tensor of the network in a fixed order. Convolution
// weights are [out, in, kh, kw]; dense weights [out, in]; convolutions have
// no bias (batch norm's beta is it).
func (c Config) Tensors() []TensorSpec {
	var ts []TensorSpec
	conv := func(name string, out, in, k int) {
		ts = append(ts, TensorSpec{name + ".w", []int{out, in, k, k}})
		ts = append(ts, bnSpecs(name+".bn", out)...)
	}
	conv("stem", c.Filters, c.Planes, 3)
	for b := 0; b < c.Blocks; b++ {
		conv(fmt.Sprintf("block%d.conv1", b), c.Filters, c.Filters, 3)
		conv(fmt.Sprintf("block%d.conv2", b), c.Filters, c.Filters, 3)
	}
	conv("policy.conv", c.PolicyChannels, c.Filters, 1)
	ts = append(ts, TensorSpec{"policy.fc.w", []int{c.PolicySize, c.PolicyChannels * Squares}}, TensorSpec{"policy.fc.b", []int{c.PolicySize}})
	conv("value.conv", c.ValueChannels, c.Filters, 1)
	ts = append(ts,
		TensorSpec{"value.fc1.w", []int{c.ValueHidden, c.ValueChannels * Squares}}, TensorSpec{"value.fc1.b", []int{c.ValueHidden}},
		TensorSpec{"value.fc2.w", []int{3, c.ValueHidden}}, TensorSpec{"value.fc2.b", []int{3}})
	if c.ReplyPolicy {
		conv("reply.conv", c.PolicyChannels, c.Filters, 1)
		ts = append(ts, TensorSpec{"reply.fc.w", []int{c.PolicySize, c.PolicyChannels * Squares}}, TensorSpec{"reply.fc.b", []int{c.PolicySize}})
	}
	return ts
}
