package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/gib"
	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/pgn"
	"github.com/palace-chess/palace/rules"
)

const importUsage = `palace import [flags] PATH...

Reads game records into one palace games file (for palace openings and
palace export). A PATH is a file or a directory searched for *.pgn and
*.gib files. Formats:
  PGN  xiangqi in ICCS coordinates, WXF (ASCII or full-width) or Chinese
       notation (traditional or simplified; UTF-8, GBK or Big5), and
       Fairy-Stockfish/pychess PGN with Variant and FEN tags (both games)
  GIB  Korean janggi records (CP949 or UTF-8)
Every move must resolve to exactly one legal move. A record that cannot
be read is reported with its file, game and reason, and the import goes
on; --strict makes any such record fail the command.`

func runImport(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("import", stderr)
	setUsage(fs, importUsage)
	out := fs.String("out", "games.jsonl", "the games file to write (replaced whole, crash-safely)")
	format := fs.String("format", "auto", "record format: auto (by file extension, else by content), pgn or gib")
	encoding := fs.String("encoding", "auto", "PGN text encoding: auto, utf-8, gbk or big5")
	dups := fs.String("duplicates", "skip", "games identical to an earlier one (same rule set, start and moves): skip (each reported) or keep")
	strict := fs.Bool("strict", false, "exit with an error if any record could not be imported")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usageError{"want at least one file or directory to import"}
	}
	switch *format {
	case "auto", "pgn", "gib":
	default:
		return usagef("--format %q: want auto, pgn or gib", *format)
	}
	if *dups != "skip" && *dups != "keep" {
		return usagef("--duplicates %q: want skip or keep", *dups)
	}
	enc, err := pgn.ParseEncoding(*encoding)
	if err != nil {
		return usageError{err.Error()}
	}
	files, err := importFiles(paths, *format)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no .pgn or .gib files in %s", strings.Join(paths, ", "))
	}
	// Before any file is read: the files found in directories are
	// inputs too.
	if err := checkOut("out", *out, files...); err != nil {
		return err
	}

	results := importAll(files, *format, pgn.Options{Encoding: enc})
	var games []gamerec.Game
	seen := map[string]string{} // rule set, start and moves → first game
	failed, duplicates, unreadable := 0, 0, 0
	for _, r := range results {
		if r.unreadable {
			fmt.Fprintf(stderr, "palace import: %v\n", r.errs[0])
			unreadable++
			continue
		}
		for _, e := range r.errs {
			fmt.Fprintf(stderr, "palace import: %v\n", e)
			failed++
		}
		for i := range r.games {
			g := &r.games[i]
			key := g.RuleSet + "|" + g.StartFEN + "|" + g.Moves
			if first, ok := seen[key]; ok && *dups == "skip" {
				fmt.Fprintf(stderr, "palace import: %s: duplicate of %s, skipped\n", g.Where(), first)
				duplicates++
				continue
			}
			seen[key] = g.Where()
			games = append(games, *g)
		}
	}
	// An empty games file would read as a collection imported.
	if len(games) == 0 {
		return fmt.Errorf("no game could be imported from %d files (%d records refused, %d files unreadable: see above); nothing written", len(files), failed, unreadable)
	}
	sets := map[string]*rules.RuleSet{}
	for _, name := range rules.PresetNames() {
		rs := rules.MustPreset(name)
		sets[rs.String()] = rs
	}
	hdr, err := gamerec.NewHeader(games, sets)
	if err != nil {
		return err
	}
	hdr.CodeVersion = codeVersion()
	hdr.Source = "palace import " + strings.Join(args, " ")
	if err := gamerec.Write(*out, hdr, games); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %d games from %d files into %s", len(games), len(files), *out)
	if failed > 0 || duplicates > 0 {
		fmt.Fprintf(stdout, " (%d records not imported, %d duplicates skipped: see above)", failed, duplicates)
	}
	if unreadable > 0 {
		fmt.Fprintf(stdout, "; %d files could not be read", unreadable)
	}
	fmt.Fprintln(stdout)
	if *strict && failed > 0 {
		return fmt.Errorf("%d records could not be imported (--strict)", failed)
	}
	// A bad record is a collection's; a file that cannot be read at all
	// is the command's failure, even with the other files imported.
	if unreadable > 0 {
		return fmt.Errorf("%d of %d files could not be read (see above); the other files' games are in %s", unreadable, len(files), *out)
	}
	return nil
}

// importFiles expands paths into record files in a fixed order: files as
// given, directories walked in name order for *.pgn and *.gib.
func importFiles(paths []string, format string) ([]string, error) {
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if k := recordKind(path, nil); k != "" && (format == "auto" || format == k) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// recordKind is a file's record format by extension, else (data non-nil)
// by content: a .gib file's tags are Korean, a PGN's ASCII names.
func recordKind(path string, data []byte) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".pgn":
		return "pgn"
	case ".gib":
		return "gib"
	}
	if data != nil {
		// 대국결과 / 초차림 in CP949 or UTF-8 mark a .gib file.
		for _, mark := range [][]byte{[]byte("\xb4\xeb\xb1\xb9"), []byte("대국"), []byte("\xc3\xca\xc2\xf7\xb8\xb2"), []byte("초차림")} {
			if bytes.Contains(data, mark) {
				return "gib"
			}
		}
		return "pgn"
	}
	return ""
}

type importResult struct {
	games      []gamerec.Game
	errs       []error
	unreadable bool // the file itself could not be read
}

// importAll reads the files on all cores; results keep the files' order
// so that the output is the same however the work was shared.
func importAll(files []string, format string, opt pgn.Options) []importResult {
	results := make([]importResult, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = importFile(files[i], format, opt)
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

func importFile(path, format string, opt pgn.Options) importResult {
	data, err := atomicfile.ReadFile(path, atomicfile.MaxGamesBytes)
	if err != nil {
		return importResult{errs: []error{err}, unreadable: true}
	}
	kind := format
	if kind == "auto" {
		kind = recordKind(path, data)
	}
	var r importResult
	if kind == "gib" {
		r.games, r.errs = gib.Import(data, path)
	} else {
		r.games, r.errs = pgn.Import(data, path, opt)
	}
	if len(r.games) == 0 && len(r.errs) == 0 {
		r.errs = []error{errors.New(path + ": no games")}
	}
	sort.SliceStable(r.games, func(i, j int) bool { return r.games[i].Index < r.games[j].Index })
	return r
}
