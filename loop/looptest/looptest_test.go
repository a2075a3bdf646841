package looptest

import "testing"

func TestMerge(t *testing.T) {
	base := "a: 1\nb: {c: 2, d: 3}\ne:\n  f: 4\n  g: 5\n"
	got := Merge(t, base, "b: {d: 6}\ne: {f: null}\nh: 7\na: null\n")
	if want := "b: {c: 2, d: 6}\ne:\n  g: 5\nh: 7\n"; got != want {
		t.Errorf("merged\n%s\nwant\n%s", got, want)
	}
	if got := Merge(t, base, ""); got != base {
		t.Errorf("merged with nothing\n%s\nwant\n%s", got, base)
	}
}
