package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// This file holds what the soak test and the load benchmarks share: Go
// MCP clients (mcp-go) of a vox-mcp process over stdio or streamable HTTP,
// a workspace of their own, and the server's resident memory.

// soakWorkspace is a workspace root of its own (the scan config and the
// examples/ tools and resources of this repository) and an empty skills
// folder, where skill installs may write.
func soakWorkspace(t testing.TB) (root, skillRoot string) {
	t.Helper()
	root = t.TempDir()
	for _, dir := range []string{"examples", filepath.Join("contracts", "mcp")} {
		if err := os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join(repoRoot, dir))); err != nil {
			t.Fatal(err)
		}
	}
	skillRoot = filepath.Join(root, "skills")
	if err := os.Mkdir(skillRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, skillRoot
}

// stdioServer is vox-mcp started by the test with a Go client on its
// stdin and stdout.
type stdioServer struct {
	client *client.Client
	cmd    *exec.Cmd
	stderr *lockedBuffer
	waited chan error
	once   sync.Once
	err    error
}

// stop closes the client, and so the server's stdin, and waits for the
// server to exit.
func (s *stdioServer) stop() error {
	s.once.Do(func() {
		s.client.Close()
		select {
		case <-s.waited:
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			s.err = fmt.Errorf("vox-mcp over stdio did not stop after stdin closed\n%s", s.stderr)
		}
	})
	return s.err
}

// startStdio starts vox-mcp over stdio on root and initializes a client.
func startStdio(t testing.TB, root string, env []string, args ...string) *stdioServer {
	t.Helper()
	cmd := exec.Command(voxMCP, append([]string{"--root", root}, args...)...)
	cmd.Env = env
	return startStdioCmd(t, cmd)
}

// startStdioCmd starts a server command over stdio and initializes a client.
func startStdioCmd(t testing.TB, cmd *exec.Cmd) *stdioServer {
	t.Helper()
	s := &stdioServer{stderr: &lockedBuffer{}, cmd: cmd}
	s.cmd.Stderr = s.stderr
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.client = client.NewClient(transport.NewIO(stdout, stdin, io.NopCloser(strings.NewReader(""))))
	s.waited = make(chan error, 1)
	go func() { s.waited <- s.cmd.Wait() }()
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Error(err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	initialize(t, ctx, s.client, mcp.LATEST_PROTOCOL_VERSION)
	return s
}

// initialize negotiates the given protocol version: up to 2025-11-25 the
// initialize handshake (over HTTP with a session), from 2026-07-28 the
// stateless core (over HTTP without any).
func initialize(t testing.TB, ctx context.Context, c *client.Client, version string) {
	t.Helper()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "vox-e2e-go", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
}

// newHTTPClient connects a client to a vox-mcp --http server in the
// given protocol version.
func newHTTPClient(t testing.TB, url, version string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	initialize(t, ctx, c, version)
	return c
}

// callTool calls a tool and returns its result; a JSON-RPC error is an error.
func callTool(ctx context.Context, c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return c.CallTool(ctx, req)
}

// resultText is the text of a result's single text content.
func resultText(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) != 1 {
		return fmt.Sprintf("<%d contents>", len(res.Content))
	}
	if tc, ok := mcp.AsTextContent(res.Content[0]); ok {
		return tc.Text
	}
	return "<not text>"
}

// rssBytes is the resident set of a process (Linux /proc), or 0 where it
// cannot be read.
func rssBytes(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest) // "12345 kB"
			if len(f) == 2 && f[1] == "kB" {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}

// latencies collects call durations from many goroutines.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

// quantile is the q-quantile (nearest rank) of the durations.
func (l *latencies) quantile(q float64) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.d) == 0 {
		return 0
	}
	s := slices.Clone(l.d)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// loadTool names a tool call measured by the load benchmarks.
type loadTool struct {
	kind string // catalog or workspace
	name string
	args map[string]any
	want string // the result text
}

var (
	catalogLoadTool   = loadTool{"catalog", "vox_tool_search", map[string]any{"query": "slug", "limit": 1}, ""}
	workspaceLoadTool = loadTool{"workspace", "slugify", map[string]any{"title": "Load Test Title"}, "load-test-title"}
)

// benchmarkCalls measures calls of one tool at a fixed concurrency:
// requests per second, and p50 and p99 latency, as benchmark metrics.
func benchmarkCalls(b *testing.B, clients []*client.Client, tool loadTool) {
	var lat latencies
	var failed sync.Once
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	next := make(chan struct{})
	go func() {
		for i := 0; i < b.N; i++ {
			next <- struct{}{}
		}
		close(next)
	}()
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				t0 := time.Now()
				res, err := callTool(ctx, c, tool.name, tool.args)
				lat.add(time.Since(t0))
				if err != nil || res.IsError || (tool.want != "" && resultText(res) != tool.want) {
					failed.Do(func() { b.Errorf("%s: %v %s", tool.name, err, resultText(res)) })
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(lat.quantile(0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat.quantile(0.99).Microseconds())/1000, "p99-ms")
}

// loadConcurrency is the number of calls in flight in the load benchmarks.
const loadConcurrency = 8

// BenchmarkToolsCall measures tools/call of a catalog tool and of a
// workspace tool over streamable HTTP (one session per concurrent client)
// and over stdio (one process, concurrent requests), with
// loadConcurrency calls in flight. `make load` runs it.
func BenchmarkToolsCall(b *testing.B) {
	for _, tool := range []loadTool{catalogLoadTool, workspaceLoadTool} {
		kind := tool.kind
		b.Run("http/"+kind, func(b *testing.B) {
			root, skills := soakWorkspace(b)
			srv := startHTTPOn(b, root, "VOX_SKILL_ROOTS="+skills)
			var clients []*client.Client
			for range loadConcurrency {
				c := newHTTPClient(b, srv.URL, mcp.ProtocolVersion20251125)
				b.Cleanup(func() { c.Close() })
				clients = append(clients, c)
			}
			benchmarkCalls(b, clients, tool)
		})
		b.Run("stdio/"+kind, func(b *testing.B) {
			root, skills := soakWorkspace(b)
			s := startStdio(b, root, serverEnv(b, "VOX_SKILL_ROOTS="+skills, "VOX_LOG=warn"))
			clients := make([]*client.Client, loadConcurrency)
			for i := range clients {
				clients[i] = s.client
			}
			benchmarkCalls(b, clients, tool)
		})
	}
}

// BenchmarkIdleRSS reports the resident memory of vox-mcp serving this
// repository over stdio after start-up and one tools/list (target < 30 MB,
// docs/architecture.md §6). Each iteration starts a server: run it with a small
// -benchtime such as 3x (`make load` does).
func BenchmarkIdleRSS(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads VmRSS from /proc")
	}
	var total int64
	for range b.N {
		total += idleRSS(b)
	}
	b.ReportMetric(float64(total)/float64(b.N)/(1<<20), "MB-RSS")
}

func idleRSS(b *testing.B) int64 {
	// The repository's own skill folders, a home without any.
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.TempDir(), "VOX_LOG=warn"}
	s := startStdio(b, repoRoot, env)
	defer s.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.client.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		b.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // let start-up work (the background scan) settle
	return rssBytes(s.cmd.Process.Pid)
}
