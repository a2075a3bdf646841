package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// progressFlag reads a long-running command's --progress: auto (a status
// line redrawn on a terminal, else log lines), line, log or none.
func progressFlag(value string, stdout io.Writer) (show, line bool, err error) {
	switch value {
	case "auto":
		return true, isTerminal(stdout), nil
	case "line":
		return true, true, nil
	case "log":
		return true, false, nil
	case "none":
		return false, false, nil
	}
	return false, false, usagef("--progress %q: want auto, line, log or none", value)
}

// stopContext is cancelled by Ctrl-C or SIGTERM, or after duration when it
// is positive: long jobs stop cleanly and resume on the next run.
func stopContext(duration time.Duration) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if duration <= 0 {
		return ctx, stop
	}
	ctx, cancel := context.WithTimeout(ctx, duration)
	return ctx, func() {
		cancel()
		stop()
	}
}

// stoppedBy tells whether err is ctx's stop (a signal, or the duration
// up) rather than a failure: the job stopped cleanly with its results so
// far.
func stoppedBy(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err())
}
