package splitmix

import "testing"

// The values are the ones palace's files were written with: changing
// them would change every seed a resumed run derives.
func TestValues(t *testing.T) {
	if got := Finalize(1); got != 0x5692161d100b05e5 {
		t.Errorf("Finalize(1) = %#x", got)
	}
	if got := Mix(7, 3); got != 0xa2c32742a8a4a5ea {
		t.Errorf("Mix(7, 3) = %#x", got)
	}
	if Mix(1, 2) == Mix(2, 1) {
		t.Error("Mix is symmetric")
	}
}
