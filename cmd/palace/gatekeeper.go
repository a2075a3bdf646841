package main

import (
	"fmt"
	"io"

	"github.com/palace-chess/palace/cluster"
)

func runGatekeeper(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("gatekeeper", stderr)
	cf := addClusterFlags(fs, nil)
	generations := fs.Int("generations", -1, "stop after this many generations in total (overrides the config's; 0: never)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	log, err := cf.log(stdout)
	if err != nil {
		return err
	}
	ctx, stop := stopContext(0)
	defer stop()
	c, err := cf.connect(ctx, "gatekeeper")
	if err != nil {
		return err
	}
	defer c.Close()
	st, url, err := cf.store(ctx, c)
	if err != nil {
		return err
	}
	cfg, err := cluster.Start(ctx, c, st, url, nil, codeVersion())
	if err != nil {
		return err
	}
	if *generations >= 0 {
		cfg.Generations = *generations
	}
	g, err := cluster.NewGatekeeper(c, st, cfg, cluster.RoleOptions{Log: log, CodeVersion: codeVersion()})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "palace gatekeeper: run %s on %s, artifacts in %s\n", *cf.run, *cf.nats, url)
	return g.Run(ctx)
}
