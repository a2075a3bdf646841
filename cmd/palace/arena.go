package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/stats"
)

const arenaPlayerHelp = `a player, given twice: first A (the candidate), then B (the baseline). One of
` + arena.PlayerHelp

func runArena(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("arena", stderr)
	ruleSet := addRuleSetFlag(fs)
	maxPlies := fs.Int("max-plies", 0, "cap each game's length at this many plies, openings included (0: the rule set's own cap)")
	var specs stringList
	fs.Var(&specs, "player", arenaPlayerHelp)
	set := arena.Settings{Pairs: 50, OpeningPlies: 2, Concurrency: 8}
	setHelp := arena.FlagHelp{Pairs: "game pairs to play at most (each opening twice, colours swapped)",
		OpeningPlies: "random plies in each opening"}
	set.AddFlags(fs, setHelp)
	openings := fs.Int("openings", 0, "distinct random openings, used in turn by the pairs (default: one per pair)")
	seed := fs.Uint64("seed", 1, "random seed: the openings and each game's seeds")
	records := fs.String("out", "arena.jsonl", "match record file: a game per line as it finishes; an existing file resumes the same match (the same flags), one holding another match is refused")
	sprtFlag := fs.String("sprt", "", "sequential test ELO0,ELO1 (logistic Elo of A over B): stop once H0 (Elo = ELO0) or H1 (Elo = ELO1) is accepted; empty: play every pair")
	alpha := fs.Float64("alpha", 0.05, "SPRT: probability of accepting H1 when H0 holds")
	beta := fs.Float64("beta", 0.05, "SPRT: probability of accepting H0 when H1 holds")
	progress := addProgressFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}

	// Check every flag before loading anything.
	if len(specs) != 2 {
		return usagef("give --player exactly twice (A, the candidate, then B, the baseline); got %d", len(specs))
	}
	parsed := make([]arena.PlayerSpec, 2)
	for i, s := range specs {
		ps, err := arena.ParsePlayer(s)
		if err != nil {
			var se *arena.SpecError
			if errors.As(err, &se) {
				return usagef("--player %q: %s", se.Spec, se.Problem)
			}
			return usageError{err.Error()}
		}
		parsed[i] = ps
	}
	err := checkLowerBounds(
		lowerBound{flag: "max-plies", value: *maxPlies, want: "0 (the rule set's cap) or more"},
		lowerBound{flag: "openings", value: *openings, want: "at least 1 (0: one per pair)"},
	)
	if err != nil {
		return err
	}
	if err := checkSettings(&set, setHelp); err != nil {
		return err
	}
	// An opening beyond the pairs' would never be played, and each is
	// found and kept before the first game.
	if *openings > set.Pairs {
		return usagef("--openings %d: more than the %d pairs would never be played", *openings, set.Pairs)
	}
	if *records == "" {
		return usageError{"--out: want a file name"}
	}
	if *openings == 0 {
		*openings = set.Pairs
	}
	sprt, err := parseSPRT(fs, *sprtFlag, *alpha, *beta)
	if err != nil {
		return err
	}
	show, line, err := progressFlag(*progress, stdout)
	if err != nil {
		return err
	}

	rs, err := rules.LoadRuleSet(*ruleSet)
	if err != nil {
		return err
	}
	rs = rs.WithMaxPlies(*maxPlies)
	// Interrupted, the match stops with every finished game recorded;
	// the games in progress are played again by the next run. An engine
	// hung in its start-up handshake is given up at once too.
	ctx, stop := stopContext(0)
	defer stop()
	var players [2]arena.Player
	defer func() {
		// External engines end with the match.
		for _, p := range players {
			if c, ok := p.(interface{ Close() }); ok {
				c.Close()
			}
		}
	}()
	for i, ps := range parsed {
		p, err := ps.StartPlayer(ctx, rs)
		if err != nil {
			if ierr := interruption(ctx, "no game was played"); ierr != nil {
				return ierr
			}
			return fmt.Errorf("--player %s: %w", ps.Spec, err)
		}
		players[i] = p
	}
	ops, err := arena.RandomOpenings(rs, *openings, set.OpeningPlies, *seed)
	if err != nil {
		return err
	}

	// The games already recorded, to tell what this run adds. A file that
	// cannot be read, or holds another match, is Play's to refuse.
	before, another := 0, false
	if _, err := os.Stat(*records); err == nil {
		if h, recs, err := arena.ReadRecords(*records); err == nil {
			another = h.A != players[0].Name() || h.B != players[1].Name() || h.RuleSet != rs.String() ||
				h.Pairs != set.Pairs || h.Seed != *seed || h.Openings != len(ops)
			if !another {
				before = len(recs)
			}
		}
	}

	m := arena.Match{
		RuleSet: rs, Openings: ops, A: players[0], B: players[1],
		Pairs: set.Pairs, SPRT: sprt, Concurrency: set.Concurrency, Records: *records,
		Seed: *seed, CodeVersion: codeVersion(),
	}
	maxGames := 2 * set.Pairs
	status := newStatus(stdout, show, line)
	defer status.end()
	if show {
		header := fmt.Sprintf("arena: %s (A) vs %s (B), %s, %d pairs, %d openings of %d plies, records %s",
			m.A.Name(), m.B.Name(), rs, set.Pairs, len(ops), set.OpeningPlies, *records)
		if before > 0 {
			header += fmt.Sprintf(" (resuming with %d games)", before)
		}
		status.logLine(header)
		// Play calls Progress under its lock, and has returned before
		// the status line ends.
		m.Progress = func(s arena.Summary) { status.update(arenaStatusLine(s, maxGames, sprt != nil)) }
	}

	sum, playErr := arena.Play(ctx, m)
	interrupted := stoppedBy(ctx, playErr)
	if playErr != nil && !interrupted {
		if another {
			return fmt.Errorf("%w (give --out another file for a new match)", playErr)
		}
		return playErr
	}
	stop()
	after := before
	if _, recs, err := arena.ReadRecords(*records); err == nil {
		after = len(recs)
	}
	status.end()
	writeArenaSummary(stdout, arenaReport{
		sum: sum, rs: rs, specs: parsed, players: players, sprt: sprt, pairs: set.Pairs, records: *records,
		played: after - before, resumed: before, interrupted: interrupted,
	})
	if interrupted {
		return interruption(ctx, "%d of at most %d games recorded in %s; run the same command again to resume", after, maxGames, *records)
	}
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, " ") }

func (l *stringList) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// parseSPRT reads --sprt ELO0,ELO1 with --alpha and --beta; nil without a
// test.
func parseSPRT(fs *flag.FlagSet, text string, alpha, beta float64) (*stats.SPRT, error) {
	if text == "" {
		set := false
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == "alpha" || f.Name == "beta" })
		if set {
			return nil, usageError{"--alpha and --beta go with --sprt ELO0,ELO1"}
		}
		return nil, nil
	}
	lo, hi, ok := strings.Cut(text, ",")
	if !ok {
		return nil, usagef("--sprt %q: want ELO0,ELO1", text)
	}
	e0, err0 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
	e1, err1 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
	if err0 != nil || err1 != nil {
		return nil, usagef("--sprt %q: want two numbers ELO0,ELO1", text)
	}
	s := stats.SPRT{Elo0: e0, Elo1: e1, Alpha: alpha, Beta: beta}
	if err := s.Validate(); err != nil {
		msg := strings.ReplaceAll(err.Error(), "stats: ", "")
		return nil, usagef("--sprt %s --alpha %v --beta %v: %s", text, alpha, beta, strings.ReplaceAll(msg, "\n", "; "))
	}
	return &s, nil
}

// arenaStatusLine is the running standings after a game.
func arenaStatusLine(s arena.Summary, maxGames int, test bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "games %d/%d  W-D-L %d-%d-%d  score %.3f  Elo %s",
		s.Games, maxGames, s.WDL.Wins, s.WDL.Draws, s.WDL.Losses, s.WDL.Score(), fmtEloInterval(s.Elo))
	if test {
		fmt.Fprintf(&b, "  LLR %.2f [%.2f, %.2f]", s.LLR, s.Lower, s.Upper)
		if s.Decision != stats.Continue {
			fmt.Fprintf(&b, " %s", s.Decision)
		}
	}
	return b.String()
}

// fmtEloInterval writes an estimate as ±half-width when the interval is
// symmetric enough to say so, else with its bounds.
func fmtEloInterval(e stats.EloEstimate) string {
	lo, hi := e.CI.Lo, e.CI.Hi
	if isFinite(e.Elo) && isFinite(lo) && isFinite(hi) {
		below, above := e.Elo-lo, hi-e.Elo
		if math.Abs(below-above) < 0.5 {
			return fmt.Sprintf("%s ± %.0f", stats.FormatElo(e.Elo), (below+above)/2)
		}
	}
	return fmt.Sprintf("%s [%s, %s]", stats.FormatElo(e.Elo), stats.FormatElo(lo), stats.FormatElo(hi))
}

func isFinite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }

// arenaReport is what the final summary shows.
type arenaReport struct {
	sum         arena.Summary
	rs          *rules.RuleSet
	specs       []arena.PlayerSpec
	players     [2]arena.Player
	sprt        *stats.SPRT
	pairs       int
	records     string
	played      int
	resumed     int
	interrupted bool
}

func writeArenaSummary(w io.Writer, r arenaReport) {
	s := r.sum
	state := "finished"
	switch {
	case r.interrupted:
		state = "interrupted (standings so far)"
	case r.sprt != nil && s.Decision != stats.Continue:
		state = "decided by the SPRT"
	}
	fmt.Fprintf(w, "match %s\n", state)
	fmt.Fprintf(w, "  A            %s (%s)\n", s.A, r.specs[0].Describe(r.players[0]))
	fmt.Fprintf(w, "  B            %s (%s)\n", s.B, r.specs[1].Describe(r.players[1]))
	limit := "no ply cap"
	if r.rs.MaxPlies > 0 {
		limit = fmt.Sprintf("games capped at %d plies", r.rs.MaxPlies)
	}
	fmt.Fprintf(w, "  rules        %s, %s\n", r.rs, limit)
	fmt.Fprintf(w, "  games        %d of at most %d (%d pairs complete; %d played now, %d before)\n",
		s.Games, 2*r.pairs, s.Pentanomial.Pairs(), r.played, r.resumed)
	fmt.Fprintf(w, "  W-D-L        %d-%d-%d (A's view)\n", s.WDL.Wins, s.WDL.Draws, s.WDL.Losses)
	p := s.Pentanomial
	fmt.Fprintf(w, "  pentanomial  %d %d %d %d %d (pairs scoring 0, 0.5, 1, 1.5, 2)\n", p[0], p[1], p[2], p[3], p[4])
	fmt.Fprintf(w, "  score        %.3f\n", s.WDL.Score())
	fmt.Fprintf(w, "  Elo          %s (95%%, pentanomial; per game %s)\n", fmtEloInterval(s.Elo), fmtEloInterval(s.EloGames))
	fmt.Fprintf(w, "  LOS          %.1f%%\n", 100*s.Elo.LOS)
	if r.sprt != nil {
		fmt.Fprintf(w, "  SPRT         elo0 %g, elo1 %g, alpha %g, beta %g: LLR %.2f [%.2f, %.2f], %s\n",
			r.sprt.Elo0, r.sprt.Elo1, r.sprt.Alpha, r.sprt.Beta, s.LLR, s.Lower, s.Upper, s.Decision)
	}
	fmt.Fprintf(w, "  first mover  scores %.3f (%s)\n", s.WhiteScore, firstMoverName(r.rs))
	for i, c := range s.Clocks {
		if c.Games > 0 {
			fmt.Fprintf(w, "  %s's clock    %d games, %d lost on time; left at the end: mean %.1f s (%.1f%% of the game's time), most %.1f s (%.1f%%)\n",
				"AB"[i:i+1], c.Games, c.Flagged, c.MeanLeft.Seconds(), 100*c.MeanLeftShare, c.MaxLeft.Seconds(), 100*c.MaxLeftShare)
		}
	}
	fmt.Fprintf(w, "  records      %s\n", r.records)
}

func firstMoverName(rs *rules.RuleSet) string {
	if rs.Game == rules.Janggi {
		return "cho"
	}
	return "red"
}
