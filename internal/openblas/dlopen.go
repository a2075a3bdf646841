//go:build !windows

package openblas

import "github.com/ebitengine/purego"

// open loads OpenBLAS (choice: a library path, or "" for the usual
// names) and returns its sgemm and a description, or nil.
func open(choice string) (Sgemm, string) {
	candidates := []string{"libopenblas.so.0", "libopenblas.so", "/usr/lib/x86_64-linux-gnu/libopenblas.so.0", "/usr/lib/aarch64-linux-gnu/libopenblas.so.0"}
	if choice != "" {
		candidates = []string{choice}
	}
	for _, name := range candidates {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			continue
		}
		sym, err := purego.Dlsym(h, "cblas_sgemm")
		if err != nil {
			continue
		}
		var f Sgemm
		purego.RegisterFunc(&f, sym)
		desc := name
		if core, err := purego.Dlsym(h, "openblas_get_corename"); err == nil {
			var corename func() string
			purego.RegisterFunc(&corename, core)
			desc += " (" + corename() + ")"
		}
		if threads, err := purego.Dlsym(h, "openblas_set_num_threads"); err == nil {
			var set func(int32)
			purego.RegisterFunc(&set, threads)
			set(1)
		}
		return f, desc
	}
	return nil, ""
}
