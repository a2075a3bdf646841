package cluster

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/store"
)

// restartableNATS is a JetStream server that can be stopped and started
// again on the same port and store, as an operator restarts nats-server:
// the program PALACE_NATS_SERVER names, killed with SIGKILL (a crash),
// else one in this process, shut down.
type restartableNATS struct {
	tb       testing.TB
	port     int
	storeDir string
	prog     string
	s        *server.Server // in process
	cmd      *exec.Cmd      // PALACE_NATS_SERVER's
	exited   chan struct{}
}

func newRestartableNATS(tb testing.TB) *restartableNATS {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	n := &restartableNATS{tb: tb, port: port, storeDir: tb.TempDir(), prog: os.Getenv("PALACE_NATS_SERVER")}
	n.start()
	tb.Cleanup(n.stop)
	return n
}

func (n *restartableNATS) start() {
	if n.prog == "" {
		s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: n.port, JetStream: true,
			StoreDir: n.storeDir, NoLog: true, NoSigs: true})
		if err != nil {
			n.tb.Fatal(err)
		}
		go s.Start()
		if !s.ReadyForConnections(10 * time.Second) {
			n.tb.Fatal("the NATS server did not start")
		}
		n.s = s
		return
	}
	n.cmd = exec.Command(n.prog, "-js", "-a", "127.0.0.1", "-p", strconv.Itoa(n.port), "-sd", n.storeDir)
	if err := n.cmd.Start(); err != nil {
		n.tb.Fatalf("PALACE_NATS_SERVER: %v", err)
	}
	n.exited = make(chan struct{})
	go func(cmd *exec.Cmd, exited chan struct{}) { cmd.Wait(); close(exited) }(n.cmd, n.exited) //nolint:errcheck // killed
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", n.addr()); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			n.tb.Fatal("PALACE_NATS_SERVER did not start listening")
		}
	}
}

func (n *restartableNATS) stop() {
	if n.s != nil {
		n.s.Shutdown()
		n.s.WaitForShutdown()
		n.s = nil
	}
	if n.cmd != nil {
		n.cmd.Process.Kill() //nolint:errcheck // it may have exited
		<-n.exited
		n.cmd = nil
	}
}

func (n *restartableNATS) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(n.port)) }
func (n *restartableNATS) url() string  { return "nats://" + n.addr() }

// TestSoak: a four-generation run whose workers are killed one after
// another every second (each replaced by a new process of the same
// name, as a supervisor restarts it) and whose NATS server is restarted
// mid-run (killed, with PALACE_NATS_SERVER) loses nothing: the run finishes, each generation holds each game
// once, and every match played all its pairs (issue 46).
func TestSoak(t *testing.T) {
	soak(t, "", func(dir string, st store.Store, cfg loop.Config) { checkRun(t, dir, cfg) })
}

// TestSoakAsync is TestSoak's run in the asynchronous mode: every
// generation's games each once, the last candidate gated.
func TestSoakAsync(t *testing.T) {
	soak(t, "async: {enabled: true}", func(dir string, st store.Store, cfg loop.Config) { checkAsyncRun(t, dir, st, cfg) })
}

func soak(t *testing.T, over string, check func(string, store.Store, loop.Config)) {
	if testing.Short() {
		t.Skip("a soak: four generations under kills and a server restart")
	}
	srv := newRestartableNATS(t)
	url := srv.url()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	yaml := looptest.Merge(t, tinyYAML(t), "generations: 4\nselfplay: {games: 32, games_per_shard: 2}")
	if over != "" {
		yaml = looptest.Merge(t, yaml, over)
	}
	// A job may be in hand at several kills in a row on a loaded machine
	// (CI runs packages side by side on two cores): deliveries are not
	// what the soak tests, so they are not what ends it.
	main, st, dir, cfg := startRunWith(ctx, t, url, yaml, Settings{AckWait: 2 * time.Second, MaxDeliver: 50})
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, main, st, cfg, RunOptions{RoleOptions: RoleOptions{WorkDir: t.TempDir(), CodeVersion: "test", Progress: logEvents(t)}})
	}()

	// Three worker slots, A to C; every 1.5 s the next one dies with its
	// jobs in hand (its connection closed: no nak, no result) and a new
	// process of the same name takes its place.
	type slot struct {
		stop func()
		done chan struct{}
	}
	var mu sync.Mutex
	slots := make([]slot, 3)
	startWorker := func(i int) {
		// A worker starting while the server restarts may fail to, as a
		// process would: its slot stays empty until the next tick.
		cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
		defer ccancel()
		c, err := Connect(cctx, url, "t1", "worker", Settings{})
		if err != nil {
			t.Logf("worker %c: %v", 'A'+i, err)
			return
		}
		w, err := NewWorker(cctx, c, WorkerOptions{Name: string(rune('A' + i)), WorkDir: t.TempDir(), CodeVersion: "test", Progress: logEvents(t)})
		if err != nil {
			t.Logf("worker %c: %v", 'A'+i, err)
			c.nc.Close()
			return
		}
		wc, stop := context.WithCancel(ctx)
		d := make(chan struct{})
		go func() {
			defer close(d)
			w.Run(wc) //nolint:errcheck // killed workers end as they end
		}()
		mu.Lock()
		slots[i] = slot{stop: func() { c.nc.Close(); stop() }, done: d}
		mu.Unlock()
	}
	for i := range slots {
		startWorker(i)
	}
	kills, restarted := 0, false
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	start := time.Now()
wait:
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("the run: %v", err)
			}
			break wait
		case <-tick.C:
			i := kills % len(slots)
			mu.Lock()
			s := slots[i]
			mu.Unlock()
			if s.stop != nil {
				s.stop()
				<-s.done
			}
			kills++
			startWorker(i)
			if !restarted && time.Since(start) > 4*time.Second {
				restarted = true
				srv.stop()
				time.Sleep(2 * time.Second)
				srv.start()
			}
		case <-ctx.Done():
			t.Fatal("the run did not finish in 5 minutes")
		}
	}
	for _, s := range slots {
		if s.stop != nil {
			s.stop()
			<-s.done
		}
	}
	if !restarted || kills < 3 {
		t.Fatalf("the run ended after %d kills, server restarted: %v", kills, restarted)
	}
	check(dir, st, cfg)
	s, _, _, err := main.State(ctx)
	if err != nil || s.Generation != 4 {
		t.Errorf("the run's state at the end: %+v, %v", s, err)
	}
}
