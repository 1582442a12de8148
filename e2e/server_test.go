package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer collects a child's stderr while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// httpServer is a running `vox-mcp --http 127.0.0.1:0`.
type httpServer struct {
	URL    string
	cmd    *exec.Cmd
	stderr *lockedBuffer
}

var urlLine = regexp.MustCompile(`url=(http://\S+/mcp)`)

// serverEnv is the environment of a vox-mcp under test: skills come only
// from an empty folder, so no test sees the machine's own skills.
func serverEnv(t testing.TB, extra ...string) []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"VOX_SKILL_ROOTS=" + t.TempDir(),
		"VOX_LOG=info",
	}, extra...)
}

// startHTTP starts vox-mcp on this repository on a free loopback port and
// waits for the log line with its URL; the server is stopped with SIGTERM
// when the test ends.
func startHTTP(t testing.TB, extraEnv ...string) *httpServer {
	t.Helper()
	return startHTTPOn(t, repoRoot, extraEnv...)
}

// startHTTPOn is startHTTP on another workspace root.
func startHTTPOn(t testing.TB, root string, extraEnv ...string) *httpServer {
	t.Helper()
	return startHTTPWith(t, root, nil, extraEnv...)
}

// startHTTPWith is startHTTPOn with more flags.
func startHTTPWith(t testing.TB, root string, flags []string, extraEnv ...string) *httpServer {
	t.Helper()
	s := &httpServer{stderr: &lockedBuffer{}}
	s.cmd = exec.Command(voxMCP, append([]string{"--root", root, "--http", "127.0.0.1:0"}, flags...)...)
	s.cmd.Env = serverEnv(t, extraEnv...)
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	t.Cleanup(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("vox-mcp --http did not stop cleanly: %v\n%s", err, s.stderr)
			}
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			t.Errorf("vox-mcp --http ignored SIGTERM for 30s\n%s", s.stderr)
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := urlLine.FindStringSubmatch(s.stderr.String()); m != nil {
			s.URL = m[1]
			return s
		}
		select {
		case err := <-exited:
			t.Fatalf("vox-mcp --http exited: %v\n%s", err, s.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("vox-mcp --http logged no URL within 30s:\n%s", s.stderr)
	return nil
}

// runNode runs a Node.js program in this folder with a time limit and
// returns its combined output and error.
func runNode(t *testing.T, limit time.Duration, env []string, node string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %v did not finish within %v:\n%s", node, args, limit, out.String())
	}
	return out.String(), err
}
