package main

import (
	"io"

	"github.com/palace-chess/palace/cluster"
)

func runGatekeeper(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("gatekeeper", stderr)
	cf := addClusterFlags(fs, nil)
	generations := addGenerationsFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkGenerations(*generations); err != nil {
		return err
	}
	role, err := cf.join("gatekeeper", 0, stdout, nil)
	if err != nil {
		return err
	}
	defer role.Close()
	st, url, err := cf.store(role.ctx, role.conn)
	if err != nil {
		return err
	}
	cfg, err := cluster.Start(role.ctx, role.conn, st, url, nil, codeVersion())
	if err != nil {
		return err
	}
	overrideGenerations(&cfg, *generations)
	g, err := cluster.NewGatekeeper(role.conn, st, cfg, role.options(""))
	if err != nil {
		return err
	}
	role.announce(stderr, cf, url)
	return g.Run(role.ctx)
}
