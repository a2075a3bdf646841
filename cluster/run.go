package cluster

import (
	"context"
	"fmt"
	neturl "net/url"
	"sync"

	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/store"
)

// RunOptions are a whole run's settings in one process.
type RunOptions struct {
	RoleOptions
	// Workers is the number of workers this process runs besides the
	// trainer and the gatekeeper (0: only remote workers play).
	Workers int
	Worker  WorkerOptions
}

// Run runs the trainer and the gatekeeper of the started run (Start), and
// opt.Workers workers, until the run's generations are done or ctx is
// cancelled (not an error).
func Run(ctx context.Context, c *Conn, st store.Store, cfg loop.Config, opt RunOptions) error {
	var roles []interface{ Run(context.Context) error }
	if cfg.Async.Enabled {
		a, err := NewAsync(c, st, cfg, opt.RoleOptions)
		if err != nil {
			return err
		}
		roles = append(roles, a)
	} else {
		tr, err := NewTrainer(c, st, cfg, opt.RoleOptions)
		if err != nil {
			return err
		}
		gk, err := NewGatekeeper(c, st, cfg, opt.RoleOptions)
		if err != nil {
			return err
		}
		roles = append(roles, tr, gk)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var running, workers sync.WaitGroup
	nr := len(roles)
	errs := make([]error, nr+opt.Workers)
	for i, r := range roles {
		running.Go(func() { errs[i] = r.Run(ctx); failed(cancel, errs[i]) })
	}
	wctx, stopWorkers := context.WithCancel(ctx)
	defer stopWorkers()
	for i := range opt.Workers {
		wo := opt.Worker
		if wo.Name != "" {
			wo.Name = fmt.Sprintf("%s-%d", wo.Name, i)
		}
		if wo.Bucket == nil {
			wo.Bucket = st
		}
		w, err := NewWorker(wctx, c, wo)
		if err != nil {
			// Returned, not only a cancel's cause: the roles end quietly
			// on a cancelled context.
			errs[nr+i] = err
			cancel(err)
			break
		}
		workers.Add(1)
		go func() { defer workers.Done(); errs[nr+i] = w.Run(wctx); failed(cancel, errs[nr+i]) }()
	}
	running.Wait()
	stopWorkers()
	workers.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func failed(cancel context.CancelCauseFunc, err error) {
	if err != nil {
		cancel(err)
	}
}

// OpenStore opens a distributed run's bucket (store.Open), refusing an
// in-memory one: every process of the run must reach the same store.
func OpenStore(url string) (store.Store, error) {
	if u, err := neturl.Parse(url); err == nil && u.Scheme == "mem" {
		return nil, fmt.Errorf("cluster: bucket %q: mem:// lives in one process, and a distributed run's roles and workers must share their bucket (give file:///DIR, s3://, gs:// or azblob://)", url)
	}
	return store.Open(url)
}
