package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// The in-process counterpart of the peer benchmark's call rows
// (docs/benchmarks.md): one tools/call through the HTTP handler, served
// straight into a recorder (no sockets, so allocations and CPU are the
// server's own), for the floor — a bare mcp-go server with a native add —
// and for vox-mcp's workspace tool add and a catalog tool that does what
// vox_skill_list does with no skills installed.

const benchAddSchema = `{"additionalProperties":false,"properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"type":"object"}`

// benchFloorHandler is the floor of bench/peers/floor, in process.
func benchFloorHandler() http.Handler {
	s := mcpserver.NewMCPServer("floor", "1", mcpserver.WithToolCapabilities(true))
	s.AddTool(mcp.NewToolWithRawSchema("add", "Add two integers", json.RawMessage(benchAddSchema)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, err := req.RequireInt("a")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			b, err := req.RequireInt("b")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultStructured(map[string]any{"result": a + b}, strconv.Itoa(a+b)), nil
		})
	return mcpserver.NewStreamableHTTPServer(s)
}

// benchVoxServer is vox-mcp as the peer benchmark runs it: a workspace
// with add, an empty skills root, and a catalog row standing in for
// vox_skill_list (same requirements, exemption and input schema; its
// handler lists the empty registry).
func benchVoxServer(b *testing.B) *Server {
	root := b.TempDir()
	os.MkdirAll(filepath.Join(root, "tools"), 0o755)
	os.MkdirAll(filepath.Join(root, "skills"), 0o755)
	os.WriteFile(filepath.Join(root, filepath.FromSlash(workspace.ConfigPath)), []byte(testScanConfig), 0o644)
	os.WriteFile(filepath.Join(root, "tools", "add.vox"), []byte("@tool \"Add two integers\"\nfn add(a: int, b: int) to int { a + b }\n"), 0o644)
	cat := &registry.Catalog{Source: "bench", SchemaVersion: 1, Operations: []registry.Operation{{
		ID: "skill.list", Title: "List installed skills", Description: "List the installed skills.", ProductLane: "ai", SideEffectClass: "read_only",
		MCP: &registry.MCP{Name: "vox_skill_list", Exposure: "core", Requires: []string{"skills"}, HTTPReadRoleEligible: true, AllowlistExempt: true,
			InputSchema: json.RawMessage(`{"additionalProperties":false,"properties":{},"type":"object"}`)},
	}}}
	table := func(svc *Services) map[string]toolcall.Handler {
		return map[string]toolcall.Handler{"vox_skill_list": func(_ *toolcall.Call, raw json.RawMessage) ([]byte, error) {
			d := toolcall.Decode(raw)
			d.Only()
			if err := d.Err(); err != nil {
				return nil, err
			}
			reg, err := svc.Skills()
			if err != nil {
				return nil, err
			}
			var e toolcall.Encoder
			e.Open()
			e.Key(`"skills"`)
			e.OpenArray()
			for _, sk := range reg.Snapshot().Skills() {
				e.Elem()
				e.String(sk.ID)
			}
			e.CloseArray()
			e.Close()
			return e.Bytes()
		}}
	}
	s, err := New(Options{Root: root, Catalog: cat, Handlers: table, WorkspaceTools: true, SessionKeys: [][]byte{testSessionKey},
		Skills: &skills.Config{Workspace: root, Roots: []string{filepath.Join(root, "skills")}}})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.WaitWorkspace(context.Background()); err != nil {
		b.Fatal(err)
	}
	return s
}

// benchHTTPSession is one session of a handler, served in process.
type benchHTTPSession struct {
	h       http.Handler
	session string
	id      int
}

func newBenchHTTPSession(b *testing.B, h http.Handler) *benchHTTPSession {
	c := &benchHTTPSession{h: h}
	w := c.post(initializeBody)
	if w.Code != http.StatusOK {
		b.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	c.session = w.Header().Get(mcpserver.HeaderKeySessionID)
	if w := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); w.Code != http.StatusAccepted {
		b.Fatalf("initialized: %d %s", w.Code, w.Body)
	}
	return c
}

func (c *benchHTTPSession) post(body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "http://localhost"+EndpointPath, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		r.Header.Set(mcpserver.HeaderKeySessionID, c.session)
		r.Header.Set(mcp.HeaderProtocolVersion, "2025-11-25")
	}
	w := httptest.NewRecorder()
	c.h.ServeHTTP(w, r)
	return w
}

// call makes one tools/call and checks its answer.
func (c *benchHTTPSession) call(b *testing.B, tool, args, want string) {
	c.id++
	w := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, c.id, tool, args))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), want) {
		b.Fatalf("%s: %d %s", tool, w.Code, w.Body)
	}
}

// BenchmarkHTTPCall is one tools/call through the HTTP handler, one at a
// time (serial: allocations per call) and 32 in flight (parallel: lock
// contention, GC pressure). Compare vox-mcp's rows with the floor's.
func BenchmarkHTTPCall(b *testing.B) {
	vox := benchVoxServer(b).HTTPHandler(Auth{})
	cases := []struct {
		name, tool, args, want string
		h                      http.Handler
	}{
		{"floor", "add", `{"a":2,"b":7}`, `"result":9`, benchFloorHandler()},
		{"workspace", "add", `{"a":2,"b":7}`, `"result":9`, vox},
		{"catalog", "vox_skill_list", `{}`, `"skills":[]`, vox},
	}
	for _, c := range cases {
		b.Run(c.name+"/serial", func(b *testing.B) {
			s := newBenchHTTPSession(b, c.h)
			cpu := startCPU()
			for b.Loop() {
				s.call(b, c.tool, c.args, c.want)
			}
			cpu.report(b)
		})
		b.Run(c.name+"/32-in-flight", func(b *testing.B) {
			// 32 sessions on GOMAXPROCS 2, as the peer benchmark's
			// 32-in-flight row on two cores.
			var sessions [32]*benchHTTPSession
			for i := range sessions {
				sessions[i] = newBenchHTTPSession(b, c.h)
			}
			var next atomic.Int32
			b.SetParallelism(max(1, 32/max(1, goruntime.GOMAXPROCS(0))))
			cpu := startCPU()
			b.RunParallel(func(pb *testing.PB) {
				s := sessions[int(next.Add(1)-1)%len(sessions)]
				for pb.Next() {
					s.call(b, c.tool, c.args, c.want)
				}
			})
			cpu.report(b)
		})
	}
}

// cpuClock is the process's CPU time (user and system, GC included) at
// the start of a measure: on a machine shared with other work it varies
// far less than the wall time per call.
type cpuClock struct{ start time.Duration }

func startCPU() cpuClock { return cpuClock{processCPU()} }

// report adds cpu-ns/op: the process's CPU time over the calls made.
func (c cpuClock) report(b *testing.B) {
	b.ReportMetric(float64(processCPU()-c.start)/float64(b.N), "cpu-ns/op")
}
