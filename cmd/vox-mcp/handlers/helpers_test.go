package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/cmd/vox-mcp/handlers"
	"github.com/vox-lang/vox-mcp/generated/catalog"
	"github.com/vox-lang/vox-mcp/internal/server"
	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// These tests drive the product's catalog tools through the server, as a
// client does: the generated decoders, the handlers and the server's
// middleware together.

// rpc sends one JSON-RPC message through the server and returns the
// response as it would appear on the wire, decoded generically.
func rpc(t *testing.T, s *server.Server, msg string) map[string]any {
	t.Helper()
	resp := s.MCP().HandleMessage(context.Background(), json.RawMessage(msg))
	if resp == nil {
		t.Fatalf("no response to %s", msg)
	}
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// newServer serves the product's catalog with its handlers, as vox-mcp
// does.
func newServer(t *testing.T) *server.Server {
	t.Helper()
	root := t.TempDir()
	s, err := server.New(server.Options{Root: root, Catalog: catalog.Catalog, Handlers: handlers.Table,
		Skills: &skills.Config{Workspace: root, Home: t.TempDir(), Roots: []string{t.TempDir()}}})
	if err != nil {
		t.Fatal(err)
	}
	rpc(t, s, initializeBody)
	return s
}

func callTool(t *testing.T, s *server.Server, name, args string) map[string]any {
	t.Helper()
	return rpc(t, s, fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, name, args))
}

// toolResult returns the result of a call, failing on a JSON-RPC error.
func toolResult(t *testing.T, resp map[string]any) (text string, isError bool, structured any) {
	t.Helper()
	res, ok := resp["result"].(map[string]any)
	if !ok {
		t.Fatalf("not a result: %v", resp)
	}
	content := res["content"].([]any)
	if len(content) != 1 {
		t.Fatalf("want one content, got %v", content)
	}
	text = content[0].(map[string]any)["text"].(string)
	isError, _ = res["isError"].(bool)
	return text, isError, res["structuredContent"]
}

// testCatalog holds test tools beside the product's, to see the allowlist
// and sessions act on tools other than the skill tools.
func testCatalog() *registry.Catalog {
	op := func(id, name string) registry.Operation {
		return registry.Operation{ID: id, Title: id, Description: "test tool " + id, ProductLane: "platform",
			MCP: &registry.MCP{Name: name, Exposure: "core", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	}
	return &registry.Catalog{Operations: []registry.Operation{
		op("t.fail", "vox_test_fail"), op("t.net", "vox_test_net"), op("t.panic", "vox_test_panic"), op("t.ws", "vox_test_ws"),
	}}
}

// testTable is the product's handler table plus those of testCatalog.
func testTable(svc *server.Services) map[string]toolcall.Handler {
	table := handlers.Table(svc)
	okResult := func(*toolcall.Call, json.RawMessage) ([]byte, error) { return []byte(`{"ok":true}`), nil }
	table["vox_test_fail"] = func(*toolcall.Call, json.RawMessage) ([]byte, error) {
		return nil, fmt.Errorf("it failed; try again later")
	}
	table["vox_test_net"] = okResult
	table["vox_test_ws"] = okResult
	table["vox_test_panic"] = func(*toolcall.Call, json.RawMessage) ([]byte, error) { panic("boom") }
	return table
}

// skillRegistry is the server's skills registry.
func skillRegistry(t *testing.T, s *server.Server) *skills.Registry {
	t.Helper()
	reg, err := s.Services().Skills()
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// writeFiles writes files (relative path -> content) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const initializeBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

// httpClient speaks the legacy (2025-06-18) streamable HTTP protocol to one
// endpoint and, after initialize, its session id.
type httpClient struct {
	t       *testing.T
	url     string
	session string
}

type httpReply struct {
	status int
	header http.Header
	body   []byte
}

// json decodes a JSON-RPC response body (application/json or one SSE event).
func (r httpReply) json(t *testing.T) map[string]any {
	t.Helper()
	body := r.body
	if strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
		for line := range strings.SplitSeq(string(body), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				body = []byte(data)
			}
		}
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("status %d, body %q: %v", r.status, r.body, err)
	}
	return out
}

func (c *httpClient) do(method, body string, header ...string) httpReply {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return httpReply{status: resp.StatusCode, header: resp.Header, body: b}
}

// initialize runs the handshake and keeps the minted session id.
func (c *httpClient) initialize() {
	c.t.Helper()
	r := c.do(http.MethodPost, initializeBody)
	if r.status != http.StatusOK {
		c.t.Fatalf("initialize: status %d %s", r.status, r.body)
	}
	c.session = r.header.Get("Mcp-Session-Id")
	c.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func (c *httpClient) rpc(body string) map[string]any {
	c.t.Helper()
	r := c.do(http.MethodPost, body)
	if r.status != http.StatusOK {
		c.t.Fatalf("%s: status %d %s", body, r.status, r.body)
	}
	return r.json(c.t)
}
