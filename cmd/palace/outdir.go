package main

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/palace-chess/palace/internal/atomicfile"
)

// checkOwnDir refuses, before any work, an output directory that holds
// anything but the command's own files (own: the names it writes, and
// their temporary files that a kill leaves): issue 47, ladder --out / and
// report --out / put their files into the root. A directory that does
// not exist yet, or is empty, is the command's.
func checkOwnDir(flag, dir string, own func(name string) bool) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return usagef("--%s %s: %v", flag, dir, err)
	case !info.IsDir():
		return usagef("--%s %s is not a directory", flag, dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return usagef("--%s %s: %v", flag, dir, err)
	}
	var foreign []string
	for _, e := range entries {
		name := e.Name()
		if atomicfile.IsTemp(name) {
			name = name[1:strings.LastIndex(name, ".tmp-")]
		}
		if !e.Type().IsRegular() || !own(name) {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		more := ""
		if len(foreign) > 3 {
			more, foreign = ", …", foreign[:3]
		}
		return usagef("--%s %s holds files that are not this command's (%s%s); give a new or empty directory, or one this command wrote", flag, dir, strings.Join(foreign, ", "), more)
	}
	return nil
}
