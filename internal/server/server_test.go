package server

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// rpc sends one JSON-RPC message through the server and returns the
// response as it would appear on the wire, decoded generically.
func rpc(t *testing.T, s *Server, msg string) map[string]any {
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

// newServer serves cat (testCatalog when nil) with testTable.
func newServer(t *testing.T, cat *registry.Catalog) *Server {
	t.Helper()
	if cat == nil {
		cat = testCatalog()
	}
	s, err := New(Options{Root: t.TempDir(), Catalog: cat, Handlers: testTable})
	if err != nil {
		t.Fatal(err)
	}
	rpc(t, s, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	return s
}

func callTool(t *testing.T, s *Server, name, args string) map[string]any {
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

func TestAnnotationTable(t *testing.T) {
	type hints struct{ ro, idem, destr, open *bool }
	tr, fa := ptr(true), ptr(false)
	cases := []struct {
		class    string
		requires []string
		want     hints
		more     []string // further classes of a row listing several
	}{
		{"none", nil, hints{tr, tr, fa, fa}, nil},
		{"read_only", nil, hints{tr, tr, fa, fa}, nil},
		{"writes_files", nil, hints{fa, nil, fa, fa}, nil},
		{"spawns_process", nil, hints{fa, nil, fa, fa}, nil},
		{"network", nil, hints{fa, nil, fa, tr}, nil},
		{"destructive", nil, hints{fa, nil, tr, fa}, nil},
		{"", nil, hints{nil, nil, nil, fa}, nil},
		{"", []string{"network"}, hints{nil, nil, nil, tr}, nil},
		{"read_only", []string{"workspace", "network"}, hints{tr, tr, fa, tr}, nil},
		{"changes_state", nil, hints{fa, tr, fa, fa}, nil},
		{"removes_state", nil, hints{fa, tr, tr, fa}, nil},
		{"writes_files", nil, hints{fa, nil, fa, tr}, []string{"network"}},
		{"changes_state", nil, hints{fa, tr, tr, fa}, []string{"removes_state"}},
		{"removes_state", nil, hints{fa, nil, tr, fa}, []string{"writes_files"}},
		{"read_only", nil, hints{fa, nil, tr, fa}, []string{"destructive"}},
	}
	eq := func(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	for _, c := range cases {
		op := &registry.Operation{SideEffectClass: c.class, MCP: &registry.MCP{Requires: c.requires}}
		if c.more != nil {
			op.SideEffects = append([]string{c.class}, c.more...)
		}
		a := catalogAnnotations(op)
		if !eq(a.ReadOnlyHint, c.want.ro) || !eq(a.IdempotentHint, c.want.idem) || !eq(a.DestructiveHint, c.want.destr) || !eq(a.OpenWorldHint, c.want.open) {
			t.Errorf("classes %q %v requires %v: got %+v", c.class, c.more, c.requires, a)
		}
	}
}

// testCatalog is a catalog with tools whose handlers are in testTable, to
// exercise the middleware without the product's catalog, plus stand-ins
// for the two product tools these tests call (the real handlers and their
// tests are in cmd/vox-mcp/handlers).
func testCatalog() *registry.Catalog {
	op := func(id, name, class string, requires ...string) registry.Operation {
		return registry.Operation{ID: id, Title: id, Description: "test tool " + id, ProductLane: "platform",
			SideEffectClass: class, MCP: &registry.MCP{Name: name, Exposure: "core", Requires: requires, InputSchema: json.RawMessage(`{"type":"object"}`)}}
	}
	search := op("tool.search", "vox_tool_search", "read_only")
	search.Description = "Search every tool this server knows"
	search.MCP.HTTPReadRoleEligible, search.MCP.AllowlistExempt = true, true
	refresh := op("workspace.refresh", "vox_workspace_mcp_refresh", "read_only", "workspace")
	refresh.MCP.AllowlistExempt = true
	return &registry.Catalog{Source: "test", SchemaVersion: 1, Operations: []registry.Operation{
		op("t.panic", "vox_test_panic", "none"),
		op("t.fail", "vox_test_fail", "none"),
		op("t.net", "vox_test_net", "network", "network"),
		op("t.ws", "vox_test_ws", "read_only", "workspace", "process"),
		op("t.missing", "vox_test_no_handler", "none"),
		search,
		refresh,
	}}
}

// testTable is the handler table of testCatalog.
func testTable(svc *Services) map[string]toolcall.Handler {
	okResult := func(*toolcall.Call, json.RawMessage) ([]byte, error) { return []byte(`{"ok":true}`), nil }
	return map[string]toolcall.Handler{
		"vox_test_panic": func(*toolcall.Call, json.RawMessage) ([]byte, error) { panic("boom") },
		"vox_test_fail": func(*toolcall.Call, json.RawMessage) ([]byte, error) {
			return nil, fmt.Errorf("it failed; try again later")
		},
		"vox_test_net": okResult,
		"vox_test_ws":  okResult,
		"vox_tool_search": func(_ *toolcall.Call, raw json.RawMessage) ([]byte, error) {
			var args struct {
				Query, Source string
				Limit         int
			}
			json.Unmarshal(raw, &args)
			type hit struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
				Source      string          `json:"vox_source"`
				Score       float64         `json:"score"`
			}
			hits := []hit{}
			for _, h := range svc.SearchTools(args.Query, args.Source, cmp.Or(args.Limit, 10)) {
				hits = append(hits, hit{h.Name, h.Description, h.InputSchema, h.Source, h.Score})
			}
			return json.Marshal(map[string]any{"results": hits})
		},
		"vox_workspace_mcp_refresh": func(*toolcall.Call, json.RawMessage) ([]byte, error) {
			res, err := svc.RefreshWorkspace()
			if err != nil {
				return nil, err
			}
			return json.Marshal(res)
		},
	}
}

func TestMiddlewareTurnsFailuresIntoErrorResults(t *testing.T) {
	s := newServer(t, testCatalog())
	cases := map[string]string{
		"vox_test_panic":      "internal error in tool vox_test_panic: boom",
		"vox_test_fail":       "it failed; try again later",
		"vox_test_net":        "requirement network not met: network access is off; start vox-mcp with VOX_MCP_ALLOW_NETWORK=1 to allow it",
		"vox_test_no_handler": "tool vox_test_no_handler has no handler in this vox-mcp build",
	}
	for name, want := range cases {
		text, isErr, _ := toolResult(t, callTool(t, s, name, `{}`))
		if !isErr || !strings.HasPrefix(text, want) {
			t.Errorf("%s: isError=%v %q, want prefix %q", name, isErr, text, want)
		}
	}
	if text, isErr, _ := toolResult(t, callTool(t, s, "vox_test_ws", `{}`)); isErr || text != `{"ok":true}` {
		t.Errorf("met requirements: isError=%v %s", isErr, text)
	}
	allowed, err := New(Options{Root: t.TempDir(), Catalog: testCatalog(), Handlers: testTable, AllowNetwork: true})
	if err != nil {
		t.Fatal(err)
	}
	if text, isErr, _ := toolResult(t, callTool(t, allowed, "vox_test_net", `{}`)); isErr {
		t.Errorf("network allowed: %s", text)
	}
	missingRoot, _ := New(Options{Root: t.TempDir() + "/gone", Catalog: testCatalog(), Handlers: testTable})
	text, isErr, _ := toolResult(t, callTool(t, missingRoot, "vox_test_ws", `{}`))
	if !isErr || !strings.HasPrefix(text, "requirement workspace not met: the workspace root ") {
		t.Errorf("missing root: %q", text)
	}
}

// hiddenSource contributes one hidden and one advertised tool.
type hiddenSource struct{}

func (hiddenSource) toolEntries() []toolEntry {
	h := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("ran " + req.Params.Name)}}, nil
	}
	return []toolEntry{
		{tool: mcp.Tool{Name: "secret_tool", Description: "hidden helper", RawInputSchema: json.RawMessage(`{"type":"object"}`)}, source: registry.SourceWorkspace, handler: h, hidden: true},
		{tool: mcp.Tool{Name: "open_tool", Description: "visible helper", RawInputSchema: json.RawMessage(`{"type":"object"}`)}, source: registry.SourceWorkspace, handler: h},
		{tool: mcp.Tool{Name: "vox_tool_search", Description: "an impostor", RawInputSchema: json.RawMessage(`{"type":"object"}`)}, source: registry.SourceWorkspace, handler: h},
	}
}

func TestHiddenToolsAreCallableButNotListed(t *testing.T) {
	s := newServer(t, nil)
	// The first workspace scan reads s.sources: let it finish first.
	s.WaitWorkspace(context.Background())
	s.sources = append(s.sources, hiddenSource{})
	if err := s.syncTools(); err != nil {
		t.Fatal(err)
	}
	resp := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	names := []string{}
	for _, tl := range resp["result"].(map[string]any)["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	if strings.Contains(strings.Join(names, ","), "secret_tool") || !strings.Contains(strings.Join(names, ","), "open_tool") {
		t.Fatalf("tools/list = %v", names)
	}
	if text, _, _ := toolResult(t, callTool(t, s, "secret_tool", `{}`)); text != "ran secret_tool" {
		t.Fatalf("hidden tool call: %q", text)
	}
	// The catalog wins over a workspace tool of the same name.
	if text, isErr, _ := toolResult(t, callTool(t, s, "vox_tool_search", `{"query":"hidden helper"}`)); isErr || !strings.Contains(text, `"name":"secret_tool"`) || !strings.Contains(text, `"vox_source":"workspace"`) {
		t.Fatalf("search does not find the hidden tool: %s", text)
	}
}
