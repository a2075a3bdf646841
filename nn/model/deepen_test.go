package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A deepened network computes exactly what it was grown from, on every
// kernel, and holds its own copy of the old tensors.
func TestDeepenKeepsTheFunction(t *testing.T) {
	cfg := Config{Planes: 80, PolicySize: 2581, Blocks: 2, Filters: 16, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 16}
	w, err := NewRandom(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for _, spec := range cfg.Tensors() { // batch norms that are not the identity, in a fixed order
		name, data := spec.Name, w.Tensors[spec.Name]
		switch name[len(name)-5:] {
		case "gamma", ".beta", ".mean":
			for i := range data {
				data[i] = 0.5 + rng.Float32()
			}
		}
	}
	deep, err := Deepen(w, 4, 9)
	if err != nil {
		t.Fatal(err)
	}
	if deep.Config.Blocks != 4 || deep.Config.Filters != cfg.Filters {
		t.Fatalf("deepened shape %+v", deep.Config)
	}
	for _, name := range []string{"block2.conv2.bn.gamma", "block3.conv2.bn.beta"} {
		if slices.ContainsFunc(deep.Tensors[name], func(v float32) bool { return v != 0 }) {
			t.Errorf("%s is not zero: the new block is not an identity", name)
		}
	}
	if slices.Equal(deep.Tensors["block2.conv1.w"], make([]float32, len(deep.Tensors["block2.conv1.w"]))) {
		t.Errorf("block2.conv1.w is all zeros: the new block has nothing to learn from")
	}
	kept := deep.Tensors["block0.conv1.w"][0]
	deep.Tensors["block0.conv1.w"][0] = kept + 1
	if w.Tensors["block0.conv1.w"][0] != kept {
		t.Errorf("the deepened network shares its tensors with the original")
	}
	deep.Tensors["block0.conv1.w"][0] = kept // x+1-1 need not be x in float32

	const batch = 3
	input := make([]float32, batch*cfg.InputSize())
	for i := range input {
		if rng.IntN(6) == 0 {
			input[i] = rng.Float32()
		}
	}
	for _, k := range []Kernel{KernelBF16, KernelAVX512, KernelBLAS} {
		if !k.Supported() {
			continue
		}
		outputs := func(w *Weights) ([]float32, []float32) {
			net, err := NewNetKernel(w, k)
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
		p2, v2 := outputs(deep)
		if !slices.Equal(p1, p2) || !slices.Equal(v1, v2) {
			t.Errorf("kernel %v: the deepened network computes something else (wdl %v, want %v)", k, v2[:3], v1[:3])
		}
	}

	for _, blocks := range []int{1, 2, 1000} {
		if _, err := Deepen(w, blocks, 1); err == nil {
			t.Errorf("deepen a 2-block network to %d blocks: no error", blocks)
		}
	}
}
