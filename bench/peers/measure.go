package peers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// listDeadline bounds how long a server may take to list every tool it
// serves after start-up.
const listDeadline = 60 * time.Second

// coldStart is one cold start over stdio.
type coldStart struct {
	// first is spawn → initialize → the first tools/list answered;
	// complete is spawn → the first tools/list that lists every tool the
	// server serves (the same as first unless that list was incomplete,
	// which then counts in incomplete).
	first, complete time.Duration
	incomplete      bool
}

// startStdioReady starts a server with n tools over stdio, initializes a
// session and lists its tools until every one is listed. The returned
// cold start times it all from before the spawn.
func startStdioReady(s *server, n int, extraEnv ...string) (*stdioConn, coldStart, error) {
	cmd := s.command(n, "")
	if len(extraEnv) > 0 {
		if cmd.Env == nil {
			cmd.Env = os.Environ()
		}
		cmd.Env = append(cmd.Env, extraEnv...)
	}
	t0 := time.Now()
	c, err := startStdio(cmd)
	if err != nil {
		return nil, coldStart{}, fmt.Errorf("%s: %w", s.id, err)
	}
	cs, err := untilListed(c, n, t0)
	if err != nil {
		c.stop()
		return nil, coldStart{}, fmt.Errorf("%s with %d tools over stdio: %w", s.id, n, err)
	}
	return c, cs, nil
}

// untilListed initializes c and lists its tools until all n add tools are
// listed. A server that lists fewer at first (vox-mcp before its first
// workspace scan) is listed again every millisecond, as a client would
// after notifications/tools/list_changed.
func untilListed(c conn, n int, t0 time.Time) (coldStart, error) {
	var cs coldStart
	if err := initialize(c); err != nil {
		return cs, err
	}
	names, _, done, err := listTools(c)
	if err != nil {
		return cs, err
	}
	cs.first = done.Sub(t0)
	for !listsAll(names, n) {
		cs.incomplete = true
		if time.Since(t0) > listDeadline {
			return cs, fmt.Errorf("%w: %d tools listed after %s, want add and add_001…add_%03d", errNotListed, len(names), listDeadline, n-1)
		}
		time.Sleep(time.Millisecond)
		if names, _, done, err = listTools(c); err != nil {
			return cs, err
		}
	}
	cs.complete = done.Sub(t0)
	return cs, nil
}

// listsAll reports whether names include the n add tools.
func listsAll(names []string, n int) bool {
	if len(names) < n {
		return false
	}
	set := make(map[string]bool, len(names))
	for _, name := range names {
		set[name] = true
	}
	for i := range n {
		if !set[toolName(i)] {
			return false
		}
	}
	return true
}

// callOnce makes the i-th call of t and checks its answer; it returns the
// time from sending the request to having the whole response.
func callOnce(c conn, t tool, i int) (time.Duration, error) {
	params := callParams(t.name, t.args(i))
	start := time.Now()
	m, _, done, err := c.roundTrip("tools/call", params)
	if err != nil {
		return 0, fmt.Errorf("tools/call %s: %w", t.name, err)
	}
	var r callResult
	if err := json.Unmarshal(m.Result, &r); err != nil {
		return 0, fmt.Errorf("tools/call %s: result: %v", t.name, err)
	}
	if err := t.want(i, r); err != nil {
		return 0, err
	}
	return done.Sub(start), nil
}

// sequential makes warmup untimed calls, then n timed calls one after the
// other, and returns their latencies.
func sequential(c conn, t tool, warmup, n int) ([]time.Duration, error) {
	for i := range warmup {
		if _, err := callOnce(c, t, i); err != nil {
			return nil, err
		}
	}
	lat := make([]time.Duration, n)
	for i := range n {
		d, err := callOnce(c, t, i)
		if err != nil {
			return nil, err
		}
		lat[i] = d
	}
	return lat, nil
}

// throughput opens inFlight sessions, each on a connection of its own,
// warms them, then keeps inFlight calls in flight until total calls are
// answered; it returns calls per second, their latencies and the CPU time
// the server process pid spent per timed call, in microseconds.
func throughput(url string, pid int, t tool, inFlight, total int) (float64, []time.Duration, float64, error) {
	conns := make([]*httpConn, 0, inFlight)
	defer func() {
		for _, c := range conns {
			c.close()
		}
	}()
	for range inFlight {
		c, err := newHTTPConn(url)
		if err != nil {
			return 0, nil, 0, err
		}
		conns = append(conns, c)
	}
	warm := max(1, min(50, total/(4*inFlight)))
	if err := together(conns, func(c *httpConn) error {
		for i := range warm {
			if _, err := callOnce(c, t, i); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return 0, nil, 0, err
	}
	lat := make([]time.Duration, total)
	var next atomic.Int64
	cpu0, err := processCPU(pid)
	if err != nil {
		return 0, nil, 0, err
	}
	start := time.Now()
	err = together(conns, func(c *httpConn) error {
		for {
			i := int(next.Add(1) - 1)
			if i >= total {
				return nil
			}
			d, err := callOnce(c, t, i)
			if err != nil {
				return err
			}
			lat[i] = d
		}
	})
	elapsed := time.Since(start)
	if err != nil {
		return 0, nil, 0, err
	}
	cpu1, err := processCPU(pid)
	if err != nil {
		return 0, nil, 0, err
	}
	return float64(total) / elapsed.Seconds(), lat, float64(cpu1-cpu0) / float64(time.Microsecond) / float64(total), nil
}

// together runs f on every connection at once and returns the first error.
func together(conns []*httpConn, f func(*httpConn) error) error {
	var wg sync.WaitGroup
	errs := make([]error, len(conns))
	for i, c := range conns {
		wg.Go(func() { errs[i] = f(c) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// httpServer is a server process serving streamable HTTP.
type httpServer struct {
	cmd    *exec.Cmd
	url    string
	stderr *tailBuffer
	waited chan error
}

// startHTTP starts a server with n tools over streamable HTTP on a free
// loopback port and waits until it accepts connections.
func startHTTP(s *server, n int) (*httpServer, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	h := &httpServer{cmd: s.command(n, addr), url: "http://" + addr + "/mcp", stderr: &tailBuffer{}}
	h.cmd.Stdout, h.cmd.Stderr = h.stderr, h.stderr
	if err := h.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.id, err)
	}
	h.waited = make(chan error, 1)
	go func() { h.waited <- h.cmd.Wait() }()
	deadline := time.Now().Add(listDeadline)
	for {
		nc, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			nc.Close()
			return h, nil
		}
		select {
		case werr := <-h.waited:
			h.waited <- werr
			return nil, fmt.Errorf("%s over HTTP exited before listening: %v\n%s", s.id, werr, h.stderr)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			h.stop()
			return nil, fmt.Errorf("%s over HTTP did not listen on %s within %s\n%s", s.id, addr, listDeadline, h.stderr)
		}
	}
}

// stop ends the server with SIGTERM, and SIGKILL after a grace period.
func (h *httpServer) stop() {
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-h.waited:
	case <-time.After(5 * time.Second):
		_ = h.cmd.Process.Kill()
		<-h.waited
	}
}

// freeLoopbackAddr is 127.0.0.1 with a port nothing listens on now.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// residentBytes is VmRSS of a process, from /proc (Linux).
func residentBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("resident memory: %w", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest) // "12345 kB"
			if len(f) == 2 && f[1] == "kB" {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return kb << 10, nil
				}
			}
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// processCPU is the CPU time the threads of process pid have run so far:
// the sum of the first field of /proc/PID/task/*/schedstat, in
// nanoseconds (Linux). A share of the machine, unlike wall time, changes
// little with the load of other processes, so the server CPU rows stay
// readable on a busy machine (docs/benchmarks.md). A thread that ends
// takes its time with it; Go servers keep their threads.
func processCPU(pid int) (time.Duration, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, fmt.Errorf("server CPU time: %w", err)
	}
	var total time.Duration
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, task.Name()))
		if err != nil {
			continue // the thread ended meanwhile
		}
		f := strings.Fields(string(b)) // "run-ns wait-ns timeslices"
		if len(f) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("server CPU time: /proc/%d/task/%s/schedstat: %v", pid, task.Name(), err)
		}
		total += time.Duration(ns)
	}
	return total, nil
}

// quantile is the q-quantile (nearest rank) of durations, in milliseconds.
func quantile(d []time.Duration, q float64) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return ms(s[min(max(i, 0), len(s)-1)])
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
