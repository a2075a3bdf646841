package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/palace-chess/palace/rules"
)

func runPerft(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, pf := newPositionFlagSet("perft", stderr)
	depth := fs.Int("depth", 0, fmt.Sprintf("plies to count (1 to %d)", rules.MaxPerftDepth))
	divide := fs.Bool("divide", false, "print each root move's count (MOVE: COUNT) before the total")
	batch := fs.String("batch", "", "read FEN<TAB>DEPTH lines from FILE ('-' for stdin), write FEN<TAB>DEPTH<TAB>NODES")
	rs, err := pf.parse(fs, args)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	if *batch != "" {
		if pf.fen != "" || pf.start || *divide || *depth != 0 {
			return usageError{"--batch takes positions and depths from its lines; drop --fen, --start, --depth and --divide"}
		}
		return batchLines(*batch, stdin, func(line string) error {
			g, fen, n, err := parsePerftLine(rs, line)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "%s\t%d\t%d\n", fen, n, g.Perft(n))
			return out.Flush() // each answer as soon as it is known
		})
	}
	if *depth < 1 || *depth > rules.MaxPerftDepth {
		return usagef("--depth %d: want 1 to %d", *depth, rules.MaxPerftDepth)
	}
	fen, err := pf.startFEN(rs)
	if err != nil {
		return err
	}
	g, err := rules.NewGame(rs, fen)
	if err != nil {
		return err
	}
	if !*divide {
		fmt.Fprintf(out, "nodes %d\n", g.Perft(*depth))
		return nil
	}
	var total uint64
	for _, mc := range g.PerftDivide(*depth) {
		fmt.Fprintf(out, "%s: %d\n", mc.Move, mc.Nodes)
		total += mc.Nodes
	}
	fmt.Fprintf(out, "nodes %d\n", total)
	return nil
}

// parsePerftLine reads a perft --batch line, FEN<TAB>DEPTH, under rs.
func parsePerftLine(rs *rules.RuleSet, line string) (g *rules.Game, fen string, depth int, err error) {
	fen, d, ok := strings.Cut(line, "\t")
	if !ok {
		return nil, "", 0, fmt.Errorf("want FEN<TAB>DEPTH, got %q", line)
	}
	depth, err = strconv.Atoi(strings.TrimSpace(d))
	if err != nil || depth < 0 || depth > rules.MaxPerftDepth {
		return nil, "", 0, fmt.Errorf("depth %q is not a number from 0 to %d", d, rules.MaxPerftDepth)
	}
	if g, err = rules.NewGame(rs, fen); err != nil {
		return nil, "", 0, err
	}
	return g, fen, depth, nil
}

func runMoves(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, pf := newPositionFlagSet("moves", stderr)
	batch := fs.String("batch", "", "read one FEN per line from FILE ('-' for stdin), write FEN<TAB>MOVES")
	rs, err := pf.parse(fs, args)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	buf := make([]rules.Move, 0, rules.MaxMoves)
	write := func(fen string) error {
		pos, err := rules.ParseFEN(fen, rs)
		if err != nil {
			return err
		}
		buf = pos.LegalMoves(buf[:0])
		fmt.Fprintf(out, "%s\t%s\n", fen, rules.SortedMoveText(buf))
		return nil
	}
	if *batch != "" {
		if pf.fen != "" || pf.start {
			return usageError{"--batch takes positions from its lines; drop --fen and --start"}
		}
		return batchLines(*batch, stdin, func(line string) error { return write(strings.TrimSpace(line)) })
	}
	fen, err := pf.startFEN(rs)
	if err != nil {
		return err
	}
	return write(fen)
}
