package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/palace-chess/palace/selfplay"
)

func runSelfplay(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("selfplay", stderr)
	config := fs.String("config", "", "self-play configuration YAML (see configs/selfplay.yaml)")
	games := fs.Int("games", 0, "override the config's games: the number of games the directory should hold")
	output := fs.String("output", "", "override the config's output directory")
	duration := fs.Duration("duration", 0, "stop after this long, committing the finished games (a later run continues); 0: until the games are played")
	progress := fs.String("progress", "auto", "progress display: auto (a status line on a terminal, else log lines), line, log or none")
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
	cfg, err := selfplay.LoadConfig(*config)
	if err != nil {
		return err
	}
	if *games > 0 {
		cfg.Games = *games
	}
	if *output != "" {
		cfg.Output = *output
	}
	opt := selfplay.Options{Progress: stdout, Interval: *interval, CodeVersion: codeVersion()}
	switch *progress {
	case "auto":
		if isTerminal(stdout) {
			opt.Display = selfplay.DisplayTerminal
		}
	case "line":
		opt.Display = selfplay.DisplayTerminal
	case "log":
	case "none":
		opt.Progress = nil
	default:
		return usageError{fmt.Sprintf("--progress %q: want auto, line, log or none", *progress)}
	}
	// Interrupted or out of time, the run commits the games it finished
	// and leaves the rest to the next run.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	st, err := selfplay.Run(ctx, cfg, opt)
	if err != nil {
		return err
	}
	if complete := st.Before + st.Played; complete < st.Target {
		fmt.Fprintf(stderr, "palace selfplay: stopped with %d of %d games in %s; run again to continue\n", complete, st.Target, cfg.Output)
	}
	return nil
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
