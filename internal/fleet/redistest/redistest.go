// Package redistest runs a real redis-server for the tests of fleet mode
// (docs/federation.md §8, "Fleet mode"): on a free loopback port, with a
// temporary directory and no persistence, stopped when the test ends. A
// machine without redis-server skips those tests, unless
// VOX_TEST_REQUIRE_REDIS is set (make test sets it, and make deps
// installs redis-server), when they fail instead.
package redistest

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"
)

// EnvRequire makes a missing redis-server fail the test instead of
// skipping it.
const EnvRequire = "VOX_TEST_REQUIRE_REDIS"

// Server is a running redis-server.
type Server struct {
	// Addr is 127.0.0.1:PORT; URL is redis://Addr/0.
	Addr, URL string

	t    testing.TB
	bin  string
	port int
	dir  string

	mu  sync.Mutex
	cmd *exec.Cmd
	out *bytes.Buffer
}

// Start starts redis-server for the test t; it is killed when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(EnvRequire) != "" {
			t.Fatalf("redis-server is not on PATH and %s is set: install it (make deps does: apt-get install redis-server)", EnvRequire)
		}
		t.Skipf("redis-server is not on PATH: the fleet-mode tests need a real one (make deps installs it; set %s=1 to fail instead of skipping)", EnvRequire)
	}
	s := &Server{t: t, bin: bin, port: freePort(t), dir: t.TempDir()}
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	s.URL = "redis://" + s.Addr + "/0"
	s.start()
	t.Cleanup(s.Kill)
	return s
}

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// start runs redis-server on s.port and waits until it answers PING.
func (s *Server) start() {
	s.t.Helper()
	cmd := exec.Command(s.bin,
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--dir", s.dir, "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--logfile", "")
	out := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("starting redis-server: %v", err)
	}
	s.mu.Lock()
	s.cmd, s.out = cmd, out
	s.mu.Unlock()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if ping(s.Addr) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Kill()
	s.t.Fatalf("redis-server on %s did not answer PING within 20s:\n%s", s.Addr, out)
}

func ping(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "+PONG\r\n"
}

// Kill kills the server (SIGKILL: it loses everything, as no persistence
// is configured) and waits for it to exit. Killing a killed server does
// nothing.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}

// Restart starts a killed server again on the same port, empty.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	s.start()
}
