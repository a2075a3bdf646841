package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/palace-chess/palace/serve"
)

const serveUsage = `usage: palace serve [flags] PATH...

A local web app over what palace wrote: a run's dashboard (updating while the
run goes on), any game on a board, the opening explorer, playing a network,
an experiment's comparison. Each PATH is a run directory, a games file, a
match, ladder or experiment record, or a directory holding them. It only reads
the paths: it writes nothing there, and serves no file outside them.

It listens on loopback (127.0.0.1:8080) unless --addr says otherwise; any other
address needs --token, which every request must then carry (open
http://HOST:PORT/?token=TOKEN once; a cookie carries it after that).`

func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", stderr)
	setUsage(fs, serveUsage)
	addr := fs.String("addr", "127.0.0.1:8080", "listen on this host:port (a non-loopback address needs --token)")
	token := fs.String("token", "", "require this token with every request (?token= once, then a cookie)")
	sessions := fs.Int("max-sessions", serve.DefaultMaxSessions, "play sessions held in memory at once")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(paths) == 0:
		return usageError{"want at least one PATH: a run directory, games file, record file, or a directory holding them"}
	case *sessions < 1:
		return usagef("--max-sessions %d: want 1 or more", *sessions)
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		return usagef("--addr %q: want host:port (127.0.0.1:8080)", *addr)
	}
	if !serve.IsLoopback(*addr) && *token == "" {
		return usagef("--addr %s is not loopback: anyone who can reach it could read the served files; give --token", *addr)
	}
	if *token != "" && len(*token) < 16 {
		return usagef("--token: want 16 characters or more")
	}
	srv, err := serve.New(serve.Options{Paths: paths, Token: *token, MaxSessions: *sessions, Version: codeVersion()})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: serve.ReadHeaderTimeout, ReadTimeout: serve.ReadTimeout,
		WriteTimeout: serve.WriteTimeout, IdleTimeout: serve.IdleTimeout, MaxHeaderBytes: serve.MaxHeaderBytes}
	url := "http://" + ln.Addr().String() + "/"
	if *token != "" {
		url += "?token=" + *token
	}
	fmt.Fprintf(stdout, "palace serve: %s (Ctrl-C stops)\n", url)
	ctx, stop := stopContext(0)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintln(stderr, "palace serve: stopped")
	return nil
}
