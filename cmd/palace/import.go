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
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/ccbridge"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/gib"
	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/internal/jsonlrec"
	"github.com/palace-chess/palace/pgn"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/xqf"
)

const importUsage = `usage: palace import [flags] PATH...

Reads game records into one palace games file (for palace openings,
palace export and palace train --games). A PATH is a file or a directory
searched for record files by extension (.pgn, .gib, .xqf, .cbr, .cbl,
and .jsonl match records).
Formats:
  PGN  xiangqi in ICCS coordinates, WXF (ASCII or full-width) or Chinese
       notation (traditional or simplified; UTF-8, GBK or Big5), and
       Fairy-Stockfish/pychess PGN with Variant and FEN tags (both games);
       notes after a separator line (XQWizard's =====) are the game's
  GIB  Korean janggi records (CP949 or UTF-8), as Kakao, Hangame and the
       other sites write them
  XQF  XQStudio's records (every version, the encrypted ones included)
  CBR  CCBridge's records, and its .cbl libraries
  arena  palace arena's match records (--records: a match's, a gate's,
       a ladder rung's), external engines' games included: each game
       replayed and its end checked, a forfeit refused
Every move must resolve to exactly one legal move under the collection's
rule set (--rules: Kakao and Hangame play janggi without the bikjang
obligation, --rules janggimodern). A record that cannot be read is
reported with its file, game and reason, and the import goes on; a
recorded result that the rules' forced end (a mate) contradicts is
corrected and reported (--strict refuses it instead, and fails the
command on any refused record). The summary counts what happened to
every record, by file and by reason.`

// importFormats are the record formats palace import reads.
var importFormats = []string{"pgn", "gib", "xqf", "ccbridge", "arena"}

func runImport(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("import", stderr)
	setUsage(fs, importUsage)
	out := fs.String("out", "games.jsonl", "the games file to write (replaced whole, crash-safely)")
	format := fs.String("format", "auto", "record format: auto (by file extension, else by content), "+strings.Join(importFormats, ", "))
	encoding := fs.String("encoding", "auto", "PGN text encoding: auto, utf-8, gbk or big5")
	dups := fs.String("duplicates", "skip", "games identical to an earlier one (same rule set, start and moves): skip (each reported) or keep")
	ruleSet := fs.String("rules", "", "the rule set the collection was played under: "+strings.TrimPrefix(ruleSetUsage, "rule set: ")+
		" (default: a PGN game's Variant tag, else xiangqi; janggi for .gib)")
	strict := fs.Bool("strict", false, "refuse a record whose result the rules contradict (instead of correcting it), and exit with an error if any record was refused")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usageError{"want at least one file or directory to import"}
	}
	if *format != "auto" && !slices.Contains(importFormats, *format) {
		return usagef("--format %q: want auto, %s", *format, strings.Join(importFormats, ", "))
	}
	if *dups != "skip" && *dups != "keep" {
		return usagef("--duplicates %q: want skip or keep", *dups)
	}
	enc, err := pgn.ParseEncoding(*encoding)
	if err != nil {
		return usageError{err.Error()}
	}
	opt := gamerec.ImportOptions{Strict: *strict}
	if *ruleSet != "" {
		if opt.RuleSet, err = rules.LoadRuleSet(*ruleSet); err != nil {
			return usagef("--rules: %v", err)
		}
	}
	files, err := importFiles(paths, *format)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no record files (.pgn, .gib, .xqf, .cbr, .cbl) in %s", strings.Join(paths, ", "))
	}
	// Before any file is read: the files found in directories are
	// inputs too.
	if err := checkOut("out", *out, files...); err != nil {
		return err
	}

	results := importAll(files, *format, pgn.Options{Encoding: enc, ImportOptions: opt})
	var games []gamerec.Game
	type first struct {
		where, result string
	}
	seen := map[string]first{} // rule set, start and moves → first game
	var sum importSummary
	for i := range results {
		r := &results[i]
		if r.unreadable {
			fmt.Fprintf(stderr, "palace import: %v\n", r.errs[0])
			sum.unreadable++
			continue
		}
		for _, e := range r.errs {
			fmt.Fprintf(stderr, "palace import: %v\n", e)
			sum.refused(r, e)
		}
		kept := map[int]bool{} // the file's games imported (not duplicates)
		for i := range r.games {
			g := &r.games[i]
			key := g.RuleSet + "|" + g.StartFEN + "|" + g.Moves
			if f, ok := seen[key]; ok && *dups == "skip" {
				if f.result != g.Result {
					fmt.Fprintf(stderr, "palace import: %s: duplicate of %s with a different result (%s, there %s), skipped\n", g.Where(), f.where, g.Result, f.result)
					sum.disagreeing++
				} else {
					fmt.Fprintf(stderr, "palace import: %s: duplicate of %s, skipped\n", g.Where(), f.where)
				}
				r.duplicates++
				sum.duplicates++
				continue
			}
			if _, ok := seen[key]; !ok {
				seen[key] = first{g.Where(), g.Result}
			}
			games = append(games, *g)
			kept[g.Index] = true
			r.imported++
		}
		// What changed in a game imported; stray bytes are the file's,
		// whatever became of the game around them.
		for _, n := range r.notices {
			if !kept[n.Game] && n.Kind != gamerec.NoticeStrayBytes {
				continue
			}
			if n.Kind == gamerec.NoticeResultCorrected || n.Kind == gamerec.NoticeStrayBytes {
				fmt.Fprintf(stderr, "palace import: %s\n", n)
			}
			sum.notice(r, n)
		}
	}
	sum.write(stdout, results)
	// An empty games file would read as a collection imported.
	if len(games) == 0 {
		return fmt.Errorf("no game could be imported from %d files (%d records refused, %d files unreadable: see above); nothing written", len(files), sum.failed, sum.unreadable)
	}
	sets := map[string]*rules.RuleSet{}
	for _, name := range rules.PresetNames() {
		rs := rules.MustPreset(name)
		sets[rs.String()] = rs
	}
	if opt.RuleSet != nil {
		sets[opt.RuleSet.String()] = opt.RuleSet
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
	if sum.failed > 0 || sum.duplicates > 0 {
		fmt.Fprintf(stdout, " (%d records not imported, %d duplicates skipped: see above)", sum.failed, sum.duplicates)
	}
	if sum.unreadable > 0 {
		fmt.Fprintf(stdout, "; %d files could not be read", sum.unreadable)
	}
	fmt.Fprintln(stdout)
	if *strict && sum.failed > 0 {
		return fmt.Errorf("%d records could not be imported (--strict)", sum.failed)
	}
	// A bad record is a collection's; a file that cannot be read at all
	// is the command's failure, even with the other files imported.
	if sum.unreadable > 0 {
		return fmt.Errorf("%d of %d files could not be read (see above); the other files' games are in %s", sum.unreadable, len(files), *out)
	}
	return nil
}

// importSummary counts what became of every record: by file (in the
// results) and by reason.
type importSummary struct {
	failed, duplicates, disagreeing, unreadable int
	byReason                                    map[string]int
	byNotice                                    map[string]int // records with a notice of each kind
}

func (s *importSummary) refused(r *importResult, err error) {
	s.failed++
	r.refused++
	if s.byReason == nil {
		s.byReason = map[string]int{}
	}
	s.byReason[gamerec.RefusalReason(err)]++
}

func (s *importSummary) notice(r *importResult, n gamerec.Notice) {
	if s.byNotice == nil {
		s.byNotice = map[string]int{}
	}
	s.byNotice[n.Kind]++
	if n.Kind == gamerec.NoticeResultCorrected {
		r.corrected++
	}
}

// importShowFiles is how many files the summary lists whole; beyond it,
// only the files where a record was refused or corrected.
const importShowFiles = 20

// write prints the summary: a line per file (every file of a small
// import; else the files with something refused or corrected), then the
// counts by reason.
func (s *importSummary) write(w io.Writer, results []importResult) {
	var rows []*importResult
	for i := range results {
		r := &results[i]
		if len(results) <= importShowFiles || r.refused > 0 || r.corrected > 0 || r.unreadable {
			rows = append(rows, r)
		}
	}
	if len(rows) > 0 {
		if len(rows) < len(results) {
			fmt.Fprintf(w, "files with records refused or corrected (%d other files imported whole, duplicates aside):\n", len(results)-len(rows))
		}
		fmt.Fprintf(w, "%8s %8s %10s %8s %9s  %s\n", "records", "imported", "duplicates", "refused", "corrected", "file")
		for _, r := range rows {
			if r.unreadable {
				fmt.Fprintf(w, "%8s %8s %10s %8s %9s  %s (unreadable)\n", "-", "-", "-", "-", "-", r.path)
				continue
			}
			fmt.Fprintf(w, "%8d %8d %10d %8d %9d  %s\n", r.imported+r.duplicates+r.refused, r.imported, r.duplicates, r.refused, r.corrected, r.path)
		}
	}
	if s.failed > 0 {
		var parts []string
		for _, kind := range append(slices.Clone(gamerec.RefusalReasons), errors.New("other")) {
			if n := s.byReason[kind.Error()]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", kind, n))
			}
		}
		fmt.Fprintf(w, "refused: %d (%s)\n", s.failed, strings.Join(parts, ", "))
	}
	if s.duplicates > 0 {
		fmt.Fprintf(w, "duplicates skipped: %d", s.duplicates)
		if s.disagreeing > 0 {
			fmt.Fprintf(w, " (%d with a different recorded result)", s.disagreeing)
		}
		fmt.Fprintln(w)
	}
	if len(s.byNotice) > 0 {
		var parts []string
		for _, kind := range []string{gamerec.NoticeResultCorrected, gamerec.NoticeStrayBytes, gamerec.NoticeTokens, gamerec.NoticeComments, gamerec.NoticeVariations} {
			if n := s.byNotice[kind]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", kind, n))
			}
		}
		fmt.Fprintf(w, "imported with changes (records): %s\n", strings.Join(parts, ", "))
	}
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
// by content: the binary formats by their signatures, a .gib file's tags
// are Korean, a PGN's ASCII names.
func recordKind(path string, data []byte) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".pgn":
		return "pgn"
	case ".gib":
		return "gib"
	case ".xqf":
		return "xqf"
	case ".cbr", ".cbl":
		return "ccbridge"
	case ".jsonl":
		// A match record file, by its header; palace's other JSON lines
		// files (games files, metrics) are no records to import.
		var format string
		if data != nil {
			format = jsonlrec.FormatOf(data)
		} else {
			format, _ = jsonlrec.FileFormat(path) // unreadable: not a record file to list
		}
		if format == arena.RecordsFormat {
			return "arena"
		}
		return ""
	}
	if data != nil {
		switch {
		case xqf.Is(data):
			return "xqf"
		case ccbridge.Is(data):
			return "ccbridge"
		}
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

// importResult is what became of one file's records.
type importResult struct {
	path       string
	games      []gamerec.Game
	errs       []error
	notices    []gamerec.Notice
	unreadable bool // the file itself could not be read
	// imported, duplicates, refused and corrected count its records.
	imported, duplicates, refused, corrected int
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
	r := importResult{path: path}
	data, err := atomicfile.ReadFile(path, atomicfile.MaxGamesBytes)
	if err != nil {
		r.errs, r.unreadable = []error{err}, true
		return r
	}
	kind := format
	if kind == "auto" {
		kind = recordKind(path, data)
	}
	switch kind {
	case "gib":
		r.games, r.errs, r.notices = gib.Import(data, path, opt.ImportOptions)
	case "xqf":
		r.games, r.errs, r.notices = xqf.Import(data, path, opt.ImportOptions)
	case "ccbridge":
		r.games, r.errs, r.notices = ccbridge.Import(data, path, opt.ImportOptions)
	case "arena":
		r.games, r.errs, r.notices = arena.Import(data, path, opt.ImportOptions)
	case "":
		r.errs = []error{fmt.Errorf("%s: %w: JSON lines but not a match record file (a games file needs no import: palace train --games, export and openings read it as it is)", path, gamerec.ErrRecordSyntax)}
	default:
		r.games, r.errs, r.notices = pgn.Import(data, path, opt)
	}
	if len(r.games) == 0 && len(r.errs) == 0 {
		r.errs = []error{fmt.Errorf("%s: no games: %w", path, gamerec.ErrRecordNoMoves)}
	}
	sort.SliceStable(r.games, func(i, j int) bool { return r.games[i].Index < r.games[j].Index })
	return r
}
