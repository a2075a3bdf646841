package main

import (
	"context"
	"flag"
	"io"

	"github.com/palace-chess/palace/cluster"
	"github.com/palace-chess/palace/configs"
	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/store"
)

func runTrainer(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("trainer", stderr)
	cf := addClusterFlags(fs, nil)
	config := fs.String("config", "", "the run's configuration YAML when starting it (default: the xiangqi quickstart); a started run keeps its own")
	generations := addGenerationsFlag(fs)
	work := fs.String("work", "", "local copy of the shards and the training state (default: palace-RUN in the system's temporary directory; keep it to resume mid-training)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkGenerations(*generations); err != nil {
		return err
	}
	role, err := cf.join("trainer", 0, stdout, nil)
	if err != nil {
		return err
	}
	defer role.Close()
	st, url, cfg, _, err := startDistributed(role.ctx, role.conn, cf, *config)
	if err != nil {
		return err
	}
	overrideGenerations(&cfg, *generations)
	var t interface{ Run(context.Context) error }
	if cfg.Async.Enabled {
		// The asynchronous run's trainer gates too (cluster.Async).
		t, err = cluster.NewAsync(role.conn, st, cfg, role.options(*work))
	} else {
		t, err = cluster.NewTrainer(role.conn, st, cfg, role.options(*work))
	}
	if err != nil {
		return err
	}
	role.announce(stderr, cf, url)
	return t.Run(role.ctx)
}

// addGenerationsFlag adds a distributed role's --generations, which
// overrideGenerations applies.
func addGenerationsFlag(fs *flag.FlagSet) *int {
	return fs.Int("generations", -1, "stop after this many generations in total (overrides the config's; 0: never)")
}

// checkGenerations refuses a --generations below -1 (its default, "the
// config's"), which would otherwise be taken for the config's.
func checkGenerations(generations int) error {
	if generations < -1 {
		return usagef("--generations %d: want 0 (never stop) or more", generations)
	}
	return nil
}

// overrideGenerations applies a --generations flag: -1 (its default)
// keeps the config's.
func overrideGenerations(cfg *loop.Config, generations int) {
	if generations >= 0 {
		cfg.Generations = generations
	}
}

// startDistributed opens the run's store and starts the run there with
// the config file (or the built-in quickstart) unless it exists: a started
// run keeps its config, and another one is refused. own says whether the
// run's config is the one this command line gave (a file, or the built-in
// one starting the run), not one only read from the server.
func startDistributed(ctx context.Context, c *cluster.Conn, cf *clusterFlags, config string) (st store.Store, url string, cfg loop.Config, own bool, err error) {
	ri, started, err := c.Info(ctx)
	if err != nil {
		return nil, "", loop.Config{}, false, err
	}
	var data []byte
	switch {
	case config != "":
		if data, err = atomicfile.ReadFile(config, atomicfile.MaxConfigBytes); err != nil {
			return nil, "", loop.Config{}, false, err
		}
	case !started:
		if data, err = configs.FS.ReadFile(defaultRunConfig); err != nil {
			return nil, "", loop.Config{}, false, err
		}
	}
	if !started && *cf.bucket == "" {
		return nil, "", loop.Config{}, false, usageError{"--bucket is needed to start a run"}
	}
	url = *cf.bucket
	if url == "" {
		url = ri.Bucket
	}
	st, err = cluster.OpenStore(url)
	if err != nil {
		return nil, "", loop.Config{}, false, err
	}
	cfg, err = cluster.Start(ctx, c, st, url, data, codeVersion())
	if err != nil {
		return nil, "", loop.Config{}, false, err
	}
	return st, url, cfg, data != nil, nil
}
