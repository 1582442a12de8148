// Package otelcoltest runs a real OpenTelemetry Collector for tests: a
// minimal build with the OTLP receiver (HTTP only) and the contrib file
// exporter, from the nested module internal/otelcoltest/otelcol (its own
// go.mod and go.sum, so the Collector never becomes a dependency of
// vox-mcp), built by make deps into bin/otelcol. Start runs it on a free
// loopback port with traces, metrics and logs pipelines that write OTLP
// JSON lines to a temporary file, and the readers decode that file: what a
// user's Collector would have received, not what our exporter meant to
// send. A machine without the binary skips those tests, unless
// VOX_TEST_REQUIRE_OTELCOL is set (make test sets it), when they fail
// instead. Only tests import it.
package otelcoltest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// EnvRequire makes a missing Collector binary fail the test instead of
// skipping it.
const EnvRequire = "VOX_TEST_REQUIRE_OTELCOL"

// EnvBinary names the Collector binary; by default it is bin/otelcol at
// the root of the module, where make deps builds it.
const EnvBinary = "VOX_TEST_OTELCOL"

// WaitTimeout bounds the Wait readers: an OTLP exporter's batch delay and
// the file exporter's flush are well below it.
var WaitTimeout = 30 * time.Second

// Collector is a running Collector.
type Collector struct {
	// Endpoint is the OTLP/HTTP base URL, http://127.0.0.1:PORT: the value
	// of OTEL_EXPORTER_OTLP_ENDPOINT, to which exporters append
	// /v1/traces, /v1/metrics and /v1/logs.
	Endpoint string

	t    testing.TB
	file string // the file exporter's output

	mu   sync.Mutex
	cmd  *exec.Cmd
	out  *bytes.Buffer
	done chan struct{}
}

// Start starts a Collector for the test t; it is stopped when t ends.
func Start(t testing.TB) *Collector {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	c := &Collector{t: t, file: filepath.Join(dir, "received.jsonl")}
	// Another process may take the free port between its choice and the
	// Collector's bind: a start that fails that way is tried again.
	for try := 1; ; try++ {
		port := freePort(t)
		err := c.start(bin, dir, port)
		if err == nil {
			break
		}
		if try == 3 || !strings.Contains(err.Error(), "address already in use") {
			t.Fatal(err)
		}
	}
	t.Cleanup(c.Stop)
	return c
}

// Binary returns the Collector binary's path, or skips t (fails it when
// VOX_TEST_REQUIRE_OTELCOL is set) when it is missing.
func Binary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(EnvBinary)
	if bin == "" {
		root, err := moduleRoot()
		if err != nil {
			t.Fatalf("otelcoltest: %v", err)
		}
		bin = filepath.Join(root, "bin", "otelcol")
	}
	if st, err := os.Stat(bin); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		if os.Getenv(EnvRequire) != "" {
			t.Fatalf("otelcoltest: the OpenTelemetry Collector %s is missing and %s is set: run make deps (it builds internal/otelcoltest/otelcol into bin/otelcol)", bin, EnvRequire)
		}
		t.Skipf("otelcoltest: the OpenTelemetry Collector %s is missing: run make deps or make otelcol to build it (set %s=1 to fail instead of skipping)", bin, EnvRequire)
	}
	return bin
}

// moduleRoot is the nearest folder above the working directory (a test's
// is its package's) whose go.mod is vox-mcp's.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(data), "module github.com/vox-lang/vox-mcp\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of github.com/vox-lang/vox-mcp above the working directory: set %s to the Collector binary", EnvBinary)
		}
		dir = parent
	}
}

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// config is the Collector's configuration: the OTLP receiver over HTTP
// alone (gRPC's default port would clash between parallel tests), one
// file exporter shared by the three pipelines, flushed every 50ms. The
// build has no metrics of its own (its default port, 8888, would clash
// too): internal/otelcoltest/otelcol/main.go.
func config(port int, file string) string {
	return fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
exporters:
  file:
    path: %s
    flush_interval: 50ms
service:
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
    metrics:
      receivers: [otlp]
      exporters: [file]
    logs:
      receivers: [otlp]
      exporters: [file]
`, port, strconv.Quote(file))
}

// start runs the Collector on port and waits until its receiver accepts
// connections: the service starts the exporters first and the receivers
// last, so by then the pipelines are ready.
func (c *Collector) start(bin, dir string, port int) error {
	conf := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(conf, []byte(config(port, c.file)), 0o600); err != nil {
		return err
	}
	cmd := exec.Command(bin, "--config", conf)
	out := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = &lockedWriter{w: out, mu: &c.mu}, &lockedWriter{w: out, mu: &c.mu}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("otelcoltest: starting %s: %v", bin, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	c.mu.Lock()
	c.cmd, c.out, c.done = cmd, out, done
	c.mu.Unlock()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return fmt.Errorf("otelcoltest: the Collector exited before listening on %s (%v):\n%s", addr, cmd.ProcessState, c.Output())
		default:
		}
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			c.Endpoint = "http://" + addr
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.Stop()
	return fmt.Errorf("otelcoltest: the Collector did not listen on %s within 30s:\n%s", addr, c.Output())
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Output is what the Collector has logged (stderr and stdout).
func (c *Collector) Output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.out == nil {
		return ""
	}
	return c.out.String()
}

// File is the path of the file exporter's output: OTLP JSON, one export
// request a line.
func (c *Collector) File() string { return c.file }

// Stop shuts the Collector down (SIGTERM, so the file exporter flushes;
// SIGKILL after 10s) and waits for it. What it received stays readable.
// Stopping a stopped Collector does nothing.
func (c *Collector) Stop() {
	c.mu.Lock()
	cmd, done := c.cmd, c.done
	c.cmd = nil
	c.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}
