package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/palace-chess/palace/cluster"
	"github.com/palace-chess/palace/configs"
	"github.com/palace-chess/palace/internal/atomicfile"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/store"
)

// defaultRunConfig is what palace run plays with no --config.
const defaultRunConfig = "quickstart-xiangqi.yaml"

func runRun(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", stderr)
	config := fs.String("config", "", "run configuration YAML (see configs/quickstart-*.yaml); default: the xiangqi quickstart built into palace, or the run directory's own config when it has one")
	dir := fs.String("dir", "", "the run directory, the run's whole state (default runs/<config name>); an existing one resumes")
	generations := fs.Int("generations", -1, "stop after this many generations in total (overrides the config's generations; 0: never)")
	duration := fs.Duration("duration", 0, "stop after this long (the run resumes where it stopped); 0: until the generations are done")
	progress := addProgressFlag(fs)
	distributed := fs.Bool("distributed", false, "run the trainer and gatekeeper (and --workers workers) against a NATS server (--nats) and a bucket (--bucket); workers anywhere join with palace worker")
	cf := addClusterFlags(fs, progress)
	workers := fs.Int("workers", 0, "with --distributed: workers to run in this process too")
	work := fs.String("work", "", "with --distributed: the trainer's local copy of the shards and its state (default: palace-RUN in the system's temporary directory)")
	var engines stringList
	fs.Var(&engines, "engine", "with --distributed --workers: an engine program the local workers may run (repeatable), besides the ladder engine of a config given here")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	// An empty path given is a mistake (an unset shell variable, say), not
	// a request for the default: --dir '' once ran in runs/NAME.
	var empty error
	fs.Visit(func(f *flag.Flag) {
		if (f.Name == "dir" || f.Name == "config") && f.Value.String() == "" && empty == nil {
			empty = usagef("--%s is empty: give a path, or leave --%s out", f.Name, f.Name)
		}
	})
	if empty != nil {
		return empty
	}
	if *duration < 0 {
		return usageError{"--duration must not be negative"}
	}
	if err := checkGenerations(*generations); err != nil {
		return err
	}
	if *distributed {
		if *dir != "" {
			return usageError{"--dir is for a local run; a distributed run's artifacts are in --bucket (file:///DIR for a directory)"}
		}
		return runDistributed(cf, *config, *generations, *duration, *workers, *work, engines, stdout, stderr)
	}
	if *workers != 0 || *cf.bucket != "" || len(engines) > 0 {
		return usageError{"--workers, --bucket and --engine are for --distributed runs"}
	}
	var data []byte
	var source string
	var err error
	if *config != "" {
		if data, err = atomicfile.ReadFile(*config, atomicfile.MaxConfigBytes); err != nil {
			return err
		}
		source = *config
	}
	if *dir == "" {
		name := strings.TrimSuffix(defaultRunConfig, ".yaml")
		if *config != "" {
			name = strings.TrimSuffix(filepath.Base(*config), filepath.Ext(*config))
		}
		*dir = filepath.Join("runs", name)
	}
	st, err := store.NewDir(*dir)
	if err != nil {
		return err
	}
	// The run directory keeps the config it started with: a resumed run
	// uses it, and a different one is refused rather than mixed in.
	saved, err := st.Read(loop.ConfigKey)
	switch {
	case err == nil:
		if data != nil && !bytes.Equal(saved, data) {
			return fmt.Errorf("%s was started with another configuration (%s); resume it without --config, or give a new --dir", *dir, st.Local(loop.ConfigKey))
		}
		data, source = saved, st.Local(loop.ConfigKey)
	case errors.Is(err, store.ErrNotExist):
		// A new run goes into a new or empty directory: its files would
		// mix with another job's (a self-play directory, a checkout).
		if other := atomicfile.OtherFiles(*dir, "run.lock"); len(other) > 0 {
			return fmt.Errorf("%s is not a run (no %s) and holds other files (%s); give a new or empty --dir", *dir, loop.ConfigKey, strings.Join(other, ", "))
		}
		if data == nil {
			if data, err = configs.FS.ReadFile(defaultRunConfig); err != nil {
				return err
			}
			source = "configs/" + defaultRunConfig + " (built in)"
		}
	default:
		return err
	}
	cfg, err := loop.ParseConfig(data, source)
	if err != nil {
		return err
	}
	if saved == nil {
		if err := st.Write(loop.ConfigKey, data); err != nil {
			return err
		}
	}
	overrideGenerations(&cfg, *generations)
	if cfg.Async.Enabled {
		return runLocalAsync(cf, *dir, source, data, cfg, *duration, stdout, stderr)
	}
	show, line, err := progressFlag(*progress, stdout)
	if err != nil {
		return err
	}
	opt := loop.Options{CodeVersion: codeVersion()}
	status := newStatus(stdout, show, line)
	defer status.end()
	if show {
		opt.Progress = (&loopView{s: status}).event
	}
	if line {
		opt.SelfplayInterval = time.Second // self-play's status line, redrawn every second
	}
	ctx, stop := stopContext(*duration)
	defer stop()
	fmt.Fprintf(stderr, "palace run: %s (%s); palace report %s shows its generations\n", *dir, source, *dir)
	if err := loop.Run(ctx, st, cfg, opt); err != nil {
		return err
	}
	return interruption(ctx, "the same command resumes the run in %s", *dir)
}

// runLocalAsync is palace run of an asynchronous config on this machine:
// self-play and training at once (cluster.RunLocal), the run's queue in
// its directory.
func runLocalAsync(cf *clusterFlags, dir, source string, data []byte, cfg loop.Config, duration time.Duration, stdout, stderr io.Writer) error {
	log, err := cf.log(stdout)
	if err != nil {
		return err
	}
	opt := cluster.LocalOptions{CodeVersion: codeVersion()}
	if log != nil {
		opt.Progress = log.event
	}
	ctx, stop := stopContext(duration)
	defer stop()
	fmt.Fprintf(stderr, "palace run: %s (%s), asynchronous: self-play and training at once; palace report %s shows its generations\n", dir, source, dir)
	if err := cluster.RunLocal(ctx, dir, data, cfg, opt); err != nil {
		return err
	}
	return interruption(ctx, "the same command resumes the run in %s", dir)
}

// runDistributed is palace run --distributed: the trainer, the gatekeeper
// and any local workers of a run coordinated through NATS.
func runDistributed(cf *clusterFlags, config string, generations int, duration time.Duration, workers int, work string, engines []string, stdout, stderr io.Writer) error {
	if workers < 0 {
		return usageError{"--workers must not be negative"}
	}
	role, err := cf.join("run", duration, stdout, nil)
	if err != nil {
		return err
	}
	defer role.Close()
	st, url, cfg, own, err := startDistributed(role.ctx, role.conn, cf, config)
	if err != nil {
		return err
	}
	// The local workers may play the ladder engine of a config this
	// command line gave (a file, or the built-in one starting the run):
	// its operator chose it. A config only read from the server is not.
	if own && cfg.Ladder.Every > 0 {
		if prog, err := cfg.Ladder.Program(cfg.Rules); err == nil {
			engines = append(engines, prog)
		}
	}
	overrideGenerations(&cfg, generations)
	nats := cluster.Redact(*cf.nats)
	fmt.Fprintf(stderr, "palace run: distributed run %s on %s, artifacts in %s; palace worker --nats %s --run %s joins it\n",
		*cf.run, nats, url, nats, *cf.run)
	return cluster.Run(role.ctx, role.conn, st, cfg, cluster.RunOptions{
		RoleOptions: role.options(work),
		Workers:     workers,
		Worker:      cluster.WorkerOptions{Name: "local", Progress: role.progress(), CodeVersion: codeVersion(), Engines: engines},
	})
}
