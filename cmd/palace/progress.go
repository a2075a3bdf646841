package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// progressFlag reads a long-running command's --progress (addProgressFlag):
// auto (a status line redrawn on a terminal, else log lines), line, log
// or none; terminal, palace arena's old name for line, still works.
func progressFlag(value string, stdout io.Writer) (show, line bool, err error) {
	switch value {
	case "auto":
		return true, isTerminal(stdout), nil
	case "line", "terminal":
		return true, true, nil
	case "log":
		return true, false, nil
	case "none":
		return false, false, nil
	}
	return false, false, usagef("--progress %q: want auto, line, log or none", value)
}

// stopContext is cancelled by Ctrl-C or SIGTERM (its cause an
// interruptedError), or after duration when it is positive: long jobs stop
// cleanly and resume on the next run. After the first signal the next
// one has its default effect, so a second Ctrl-C ends a job that is slow
// to stop.
func stopContext(duration time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-signals:
			signal.Stop(signals)
			s, _ := sig.(syscall.Signal)
			cancel(interruptedError{sig: s})
		case <-done:
		}
	}()
	stop := func() {
		signal.Stop(signals)
		select {
		case <-done:
		default:
			close(done)
		}
		cancel(nil)
	}
	if duration <= 0 {
		return ctx, stop
	}
	tctx, tcancel := context.WithTimeout(ctx, duration)
	return tctx, func() {
		tcancel()
		stop()
	}
}

// interruptedError is a job stopped by a signal, with what it kept and how
// to resume (resume). palace exits 128 + the signal's number, as a shell
// reports a process the signal killed (130 for Ctrl-C, 143 for SIGTERM):
// a script sees that the job did not finish, and why.
type interruptedError struct {
	sig    syscall.Signal
	resume string
}

func (e interruptedError) Error() string {
	name := "SIGTERM"
	if e.sig == syscall.SIGINT {
		name = "SIGINT (Ctrl-C)"
	} else if e.sig != syscall.SIGTERM {
		name = e.sig.String()
	}
	if e.resume == "" {
		return "interrupted by " + name
	}
	return "interrupted by " + name + "; " + e.resume
}

// Unwrap makes it a context.Canceled to the packages whose jobs it stops,
// which take a cancel for a clean stop.
func (e interruptedError) Unwrap() error { return context.Canceled }

// exitCode is the status palace exits with.
func (e interruptedError) exitCode() int { return 128 + int(e.sig) }

// interruption is the error of a job whose ctx was stopped, saying resume
// (what was kept and how to go on): an interruptedError for a signal, a
// plain error for a caller's cancel; nil when ctx is not stopped or its
// duration ran out (a job given a duration has done what it was asked).
func interruption(ctx context.Context, resume string, a ...any) error {
	var ie interruptedError
	switch {
	case errors.As(context.Cause(ctx), &ie):
		ie.resume = fmt.Sprintf(resume, a...)
		return ie
	case errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("interrupted; "+resume, a...)
	}
	return nil
}

// stoppedBy tells whether err is ctx's stop (a signal, or the duration
// up) rather than a failure: the job stopped cleanly with its results so
// far.
func stoppedBy(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err())
}
