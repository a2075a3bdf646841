package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/selfplay"
)

var shardSubcommands = []subcommand{
	{"inspect", "describe one shard file: its header, counts and first records", runShardInspect},
	{"verify", "check a shard directory and replay its games", runShardVerify},
}

func runShard(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runSubcommand("shard", "want a subcommand: palace shard inspect FILE | palace shard verify DIR", shardSubcommands, args, stdout, stderr)
}

func runShardInspect(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("shard inspect", stderr)
	setSynopsis(fs, "palace shard inspect [flags] FILE")
	n := fs.Int("records", 5, "how many of the first records to show")
	blocks := fs.Bool("blocks", false, "list every block")
	top := fs.Int("top", 3, "policy moves shown per record, most likely first")
	path, err := parseOneArg(fs, args, "want one shard file: palace shard inspect [flags] FILE")
	if err != nil {
		return err
	}
	if *n < 0 || *top < 0 {
		return usageError{"--records and --top must not be negative"}
	}
	r, err := datasets.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	h := r.Header()
	fmt.Fprintf(out, "file            %s\n", path)
	fmt.Fprintf(out, "format          version %d\n", datasets.FormatVersion)
	fmt.Fprintf(out, "rule set        %s\n", h.RuleSet())
	fmt.Fprintf(out, "encoding        version %d, %d policy slots\n", h.EncodingVersion, h.PolicySize)
	fmt.Fprintf(out, "network         %s\n", h.NetworkID)
	fmt.Fprintf(out, "config hash     %s\n", h.ConfigHash)
	fmt.Fprintf(out, "code            %s\n", h.CodeVersion)
	if len(h.Seeds) > 0 {
		fmt.Fprintf(out, "seeds           %v\n", h.Seeds)
	}
	fmt.Fprintf(out, "created         %s\n", h.Created.Format(time.RFC3339))
	if h.Note != "" {
		fmt.Fprintf(out, "note            %s\n", h.Note)
	}
	fmt.Fprintf(out, "blocks          %d\n", r.NumBlocks())
	fmt.Fprintf(out, "records         %d\n", r.Len())

	// One pass over the records for the counts and the first few.
	var games, full int64
	var results [3]int64
	var first, last, prev uint64
	var shown []*datasets.Record
	var i int64
	for rec, err := range r.Records() {
		if err != nil {
			out.Flush()
			return err
		}
		if i == 0 {
			first = rec.GameID
		}
		if i == 0 || rec.GameID != prev {
			games++
		}
		prev, last = rec.GameID, rec.GameID
		if rec.Full {
			full++
		}
		results[rec.Result+1]++
		if i < int64(*n) {
			shown = append(shown, rec.Clone())
		}
		i++
	}
	if i > 0 {
		fmt.Fprintf(out, "games           %d (first id %d, last id %d)\n", games, first, last)
		fmt.Fprintf(out, "full searches   %d of %d records (%.1f%%)\n", full, i, 100*float64(full)/float64(i))
		fmt.Fprintf(out, "results         %d wins, %d draws, %d losses (to the side to move)\n", results[2], results[1], results[0])
	}
	gpath := selfplay.GamesPath(path)
	if gf, err := gamerec.Read(gpath); err == nil {
		fmt.Fprintf(out, "game records    %s: %d games\n", gpath, len(gf.Games))
	} else if !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(out, "game records    %s: %v\n", gpath, err)
	}
	if *blocks {
		fmt.Fprintf(out, "\n%5s %12s %10s %10s %8s %12s\n", "block", "offset", "bytes", "raw", "records", "first game")
		for b := range r.NumBlocks() {
			bi := r.Block(b)
			fmt.Fprintf(out, "%5d %12d %10d %10d %8d %12d\n", b, bi.Offset, bi.Size, bi.Raw, bi.Records, bi.FirstGame)
		}
	}
	if len(shown) > 0 {
		fmt.Fprintf(out, "\n%-8s %4s %-5s %-6s %7s %-17s %-6s %8s %-5s %s\n", "game", "ply", "side", "move", "value", "wdl", "result", "material", "full", "policy")
		for _, rec := range shown {
			wdl := fmt.Sprintf("%.3f/%.3f/%.3f", rec.WDL[0], rec.WDL[1], rec.WDL[2])
			fmt.Fprintf(out, "%-8d %4d %-5s %-6s %7.3f %-17s %-6s %+8d %-5t %s\n", rec.GameID, rec.Ply, rec.Side, rec.Move, rec.Value, wdl, rec.Result, rec.FinalMaterial, rec.Full, topPolicy(rec, *top))
		}
	}
	return nil
}

// topPolicy writes a record's k most likely policy moves with their
// probabilities.
func topPolicy(rec *datasets.Record, k int) string {
	pol := append([]datasets.PolicyEntry(nil), rec.Policy...)
	sort.SliceStable(pol, func(a, b int) bool { return pol[a].P > pol[b].P })
	king := rules.NoSquare
	for s, p := range rec.Board {
		if p != rules.NoPiece && p.Type() == rules.King && p.Color() == rec.Side {
			king = rules.Square(s)
		}
	}
	var parts []string
	for _, e := range pol[:min(k, len(pol))] {
		m, ok := encode.IndexMove(int(e.Index), rec.Side, king)
		text := fmt.Sprintf("#%d", e.Index)
		if ok {
			text = m.String()
		}
		parts = append(parts, fmt.Sprintf("%s %.3f", text, e.P))
	}
	if len(pol) > k {
		parts = append(parts, fmt.Sprintf("(%d moves)", len(pol)))
	}
	return strings.Join(parts, "  ")
}

func runShardVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("shard verify", stderr)
	setSynopsis(fs, "palace shard verify DIR")
	dir, err := parseOneArg(fs, args, "want one shard directory: palace shard verify DIR")
	if err != nil {
		return err
	}
	if st, err := os.Stat(dir); err != nil {
		return err
	} else if !st.IsDir() {
		return fmt.Errorf("%s is not a directory (palace shard inspect reads one shard)", dir)
	}
	// Verify reads a directory without a manifest as one before its
	// first shard: nothing to check, which here would pass for a check.
	if _, err := os.Stat(filepath.Join(dir, datasets.ManifestName)); errors.Is(err, os.ErrNotExist) {
		hint := "palace selfplay writes one with its first shard"
		if _, err := os.Stat(filepath.Join(dir, "selfplay")); err == nil {
			hint = "a run's self-play directories are " + filepath.Join(dir, "selfplay", "gen-NNNN")
		}
		return fmt.Errorf("%s has no %s: not a self-play directory (%s)", dir, datasets.ManifestName, hint)
	}
	rep, err := selfplay.Verify(dir)
	if err != nil {
		return err
	}
	// A manifest listing no shard (self-play stopped before its first)
	// holds nothing to check: no pass either.
	if rep.Shards == 0 && len(rep.Problems) == 0 {
		return fmt.Errorf("%s has no shards: nothing to verify", dir)
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(stdout, "problem %s: %v\n", filepath.Join(dir, p.Name), p.Err)
	}
	fmt.Fprintf(stdout, "%s: %d shards, %d records, %d games replayed, %d problems\n", dir, rep.Shards, rep.Records, rep.Games, len(rep.Problems))
	if len(rep.Problems) > 0 {
		return fmt.Errorf("%d problems in %s", len(rep.Problems), dir)
	}
	return nil
}
