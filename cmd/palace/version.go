package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// codeVersion names the code that is running: the module version, or the
// VCS revision (with "+dirty" for uncommitted changes) of a source build.
func codeVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	v := info.Main.Version
	if rev != "" {
		v = rev
		if dirty {
			v += "+dirty"
		}
	}
	return v
}

func runVersion(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	info, _ := debug.ReadBuildInfo()
	goVersion := "unknown"
	if info != nil {
		goVersion = info.GoVersion
	}
	fmt.Fprintf(stdout, "palace %s (%s)\n", codeVersion(), goVersion)
	return nil
}
