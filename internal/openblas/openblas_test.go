package openblas

import (
	"strings"
	"sync"
	"testing"
)

// reset forgets what Load loaded, for a test that loads under its own
// PALACE_BLAS.
func reset(t *testing.T) {
	lib.once, lib.sgemm, lib.name = sync.Once{}, nil, ""
	t.Cleanup(func() { lib.once, lib.sgemm, lib.name = sync.Once{}, nil, "" })
}

// A PALACE_BLAS that names no library is an error, not the Go kernel in
// silence (issue 47); unset and off are not.
func TestCheckRefusesUnloadable(t *testing.T) {
	reset(t)
	t.Setenv("PALACE_BLAS", "garbage")
	if err := Check(); err == nil || !strings.Contains(err.Error(), `openblas: PALACE_BLAS="garbage": no OpenBLAS library loads`) {
		t.Errorf("PALACE_BLAS=garbage: %v", err)
	}
	for _, v := range []string{"", "off"} {
		reset(t)
		t.Setenv("PALACE_BLAS", v)
		if err := Check(); err != nil {
			t.Errorf("PALACE_BLAS=%q: %v", v, err)
		}
	}
}
