package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A network given the reply head plays exactly as before, keeps the head
// through its checkpoint, and is another network (its id).
func TestWithReplyHead(t *testing.T) {
	cfg := Config{Planes: 80, PolicySize: 2581, Blocks: 1, Filters: 16, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 16}
	w, err := NewRandom(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	r, err := WithReplyHead(w, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Config.ReplyPolicy || w.Config.ReplyPolicy || len(r.Tensors) != len(w.Tensors)+7 || r.ID() == w.ID() {
		t.Fatalf("with the head: %+v, %d tensors (%d before), id %s (%s before)", r.Config, len(r.Tensors), len(w.Tensors), r.ID(), w.ID())
	}
	if slices.Equal(r.Tensors["reply.fc.w"], make([]float32, len(r.Tensors["reply.fc.w"]))) {
		t.Error("the reply head's weights are all zeros")
	}
	if again, err := WithReplyHead(r, 5); err != nil || again != r {
		t.Errorf("a network with the head given it again: %v", err)
	}
	kept := r.Tensors["stem.w"][0]
	r.Tensors["stem.w"][0] = kept + 1
	if w.Tensors["stem.w"][0] != kept {
		t.Error("the network with the head shares its tensors with the original")
	}
	r.Tensors["stem.w"][0] = kept // x+1-1 need not be x in float32

	const batch = 2
	rng := rand.New(rand.NewPCG(1, 1))
	input := make([]float32, batch*cfg.InputSize())
	for i := range input {
		if rng.IntN(6) == 0 {
			input[i] = 1
		}
	}
	outputs := func(w *Weights) ([]float32, []float32) {
		net, err := NewNet(w)
		if err != nil {
			t.Fatal(err)
		}
		p, v := make([]float32, batch*cfg.PolicySize), make([]float32, batch*3)
		if err := net.Forward(batch, input, p, v); err != nil {
			t.Fatal(err)
		}
		return p, v
	}
	p1, v1 := outputs(w)
	p2, v2 := outputs(r)
	if !slices.Equal(p1, p2) || !slices.Equal(v1, v2) {
		t.Errorf("the network plays otherwise with the reply head (wdl %v, want %v)", v2[:3], v1[:3])
	}

	data, err := (&Checkpoint{Weights: r, EncodingVersion: 2}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeCheckpoint(data)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Weights.Config.ReplyPolicy || back.Weights.ID() != r.ID() {
		t.Errorf("read back %+v, id %s; want the head, id %s", back.Weights.Config, back.Weights.ID(), r.ID())
	}
}
