// Package looptest is what the tests of whole runs share (loop's, cluster's
// and palace's): the tiny run's configuration, a way to state another run
// as its differences from it, and a NATS server. Only tests
// import it.
package looptest

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"gopkg.in/yaml.v3"
)

// TinyYAML is a run small enough for a unit test: a 1×8 network, 8 games
// of at most 30 plies a generation, 4-pair matches. loop's pinned run
// (loop/pin_test.go) plays it: changing it changes the pins.
const TinyYAML = `
rules: xiangqi
seed: 5
generations: 2
network: {blocks: 1, filters: 8, policy_channels: 2, value_channels: 1, value_hidden: 8, seed: 2}
selfplay:
  games: 8
  concurrent_games: 4
  max_plies: 30
  games_per_shard: 4
  cache_entries: 4096
  search: {simulations: 8, cheap_simulations: 2, gumbel_k: 4}
train:
  batch: 32
  samples_per_position: 2
  window: {min_rows: 100}
  checkpoint_every: 4
  schedule: {kind: constant, rate: 0.02}
arena:
  pairs: 4
  opening_plies: 2
  simulations: 4
  concurrent_games: 4
  evaluators: 1
  sprt: {elo0: 0, elo1: 200}
  accept_score: 0.5
`

// Merge returns the YAML document base with over laid on it: a key of
// over replaces base's, within mappings key by key, and a key given as
// null is removed. Keys keep base's order; new ones follow. It fails the
// test on YAML that does not parse.
func Merge(tb testing.TB, base, over string) string {
	tb.Helper()
	var b, o yaml.Node
	if err := yaml.Unmarshal([]byte(base), &b); err != nil {
		tb.Fatalf("looptest: base: %v", err)
	}
	if err := yaml.Unmarshal([]byte(over), &o); err != nil {
		tb.Fatalf("looptest: over: %v", err)
	}
	if len(o.Content) > 0 {
		merge(b.Content[0], o.Content[0])
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&b); err != nil {
		tb.Fatalf("looptest: %v", err)
	}
	return out.String()
}

// merge lays the mapping over on the mapping dst.
func merge(dst, over *yaml.Node) {
	for i := 0; i+1 < len(over.Content); i += 2 {
		key, val := over.Content[i], over.Content[i+1]
		j := indexOf(dst, key.Value)
		switch {
		case val.Tag == "!!null" && j >= 0:
			dst.Content = append(dst.Content[:j], dst.Content[j+2:]...)
		case val.Tag == "!!null":
		case j < 0:
			dst.Content = append(dst.Content, key, val)
		case val.Kind == yaml.MappingNode && dst.Content[j+1].Kind == yaml.MappingNode:
			merge(dst.Content[j+1], val)
		default:
			dst.Content[j+1] = val
		}
	}
}

// indexOf is the index of key's node in the mapping m, or -1.
func indexOf(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// NATS runs a NATS server with JetStream on loopback, its storage in a
// test directory, until the test ends, and returns its URL: the embedded
// server of go.mod's version, or, with $PALACE_NATS_SERVER set to a
// nats-server program (Debian's package: /usr/sbin/nats-server), that
// program, so that the distributed tests run against the servers users
// run (.ci/run does both).
func NATS(tb testing.TB) string {
	tb.Helper()
	if prog := os.Getenv("PALACE_NATS_SERVER"); prog != "" {
		return externalNATS(tb, prog)
	}
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: tb.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		tb.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		tb.Fatal("the NATS server did not start")
	}
	tb.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return s.ClientURL()
}

// externalNATS runs the nats-server program prog on a free loopback port.
func externalNATS(tb testing.TB, prog string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var log bytes.Buffer
	cmd := exec.Command(prog, "-js", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-sd", tb.TempDir())
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		tb.Fatalf("PALACE_NATS_SERVER: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }() //nolint:errcheck // killed at cleanup
	tb.Cleanup(func() {
		cmd.Process.Kill() //nolint:errcheck
		<-exited
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			tb.Fatalf("%s exited: %s", prog, log.String())
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s did not start listening on %s: %s", prog, addr, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "nats://" + addr
}
