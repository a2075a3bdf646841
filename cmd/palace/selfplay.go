package main

import (
	"fmt"
	"io"
	"time"

	"github.com/palace-chess/palace/selfplay"
)

func runSelfplay(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("selfplay", stderr)
	config := fs.String("config", "", "self-play configuration YAML (see configs/selfplay.yaml)")
	games := fs.Int("games", 0, "override the config's games: the number of games the directory should hold")
	output := fs.String("out", "", "override the config's output directory (its shards and game records; an existing one resumes)")
	duration := fs.Duration("duration", 0, "stop after this long, committing the finished games (a later run continues); 0: until the games are played")
	progress := addProgressFlag(fs)
	interval := fs.Duration("interval", 0, "time between progress reports (default 5s for log lines, 1s for the status line)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *config == "" {
		return usageError{"--config FILE is required"}
	}
	if *games < 0 || *duration < 0 || *interval < 0 {
		return usageError{"--games, --duration and --interval must not be negative"}
	}
	if *games > selfplay.MaxGames {
		return usagef("--games %d: want at most %d", *games, selfplay.MaxGames)
	}
	cfg, job, err := selfplay.LoadConfig(*config)
	if err != nil {
		return err
	}
	if *games > 0 {
		job.Games = *games
	}
	if *output != "" {
		job.Output = *output
	}
	show, line, err := progressFlag(*progress, stdout)
	if err != nil {
		return err
	}
	opt := selfplay.Options{Interval: *interval, CodeVersion: codeVersion()}
	status := newStatus(stdout, show, line)
	if show {
		opt.Progress = drawSelfplay(status)
	}
	if line && *interval == 0 {
		opt.Interval = time.Second
	}
	// Interrupted or out of time, the run commits the games it finished
	// and leaves the rest to the next run.
	ctx, stop := stopContext(*duration)
	defer stop()
	st, err := selfplay.Run(ctx, cfg, job, opt)
	status.end()
	if err != nil {
		return err
	}
	if complete := st.Before + st.Played; complete < st.Target {
		if err := interruption(ctx, "%d of %d games in %s; run the same command again to continue", complete, st.Target, job.Output); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "palace selfplay: stopped with %d of %d games in %s; run again to continue\n", complete, st.Target, job.Output)
	}
	return nil
}
