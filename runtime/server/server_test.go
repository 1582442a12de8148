package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/generated/catalog"
	"github.com/vox-lang/vox-mcp/runtime/registry"
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

func newServer(t *testing.T, cat *registry.Catalog) *Server {
	t.Helper()
	s, err := New(Options{Root: t.TempDir(), Catalog: cat})
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

func TestCatalogToolsAdvertisedWithMetaAndAnnotations(t *testing.T) {
	s := newServer(t, nil)
	resp := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	tools := resp["result"].(map[string]any)["tools"].([]any)
	var mcpRows int
	for _, op := range catalog.Catalog.Operations {
		if op.MCP != nil {
			mcpRows++
		}
	}
	if len(tools) != mcpRows {
		t.Fatalf("tools/list has %d tools, the catalog %d", len(tools), mcpRows)
	}
	byName := map[string]map[string]any{}
	for _, tl := range tools {
		m := tl.(map[string]any)
		byName[m["name"].(string)] = m
	}
	search := byName["vox_tool_search"]
	if search == nil {
		t.Fatal("vox_tool_search is not advertised")
	}
	meta := search["_meta"].(map[string]any)
	want := map[string]any{
		"vox_source": "catalog", "vox_exposure": "core", "vox_side_effect_class": "read_only",
		"vox_requires": []any{}, "vox_product_lane": "platform", "vox_http_read_role_eligible": true,
	}
	for k, v := range want {
		if fmt.Sprint(meta[k]) != fmt.Sprint(v) {
			t.Errorf("_meta.%s = %v, want %v", k, meta[k], v)
		}
	}
	ann := search["annotations"].(map[string]any)
	if ann["readOnlyHint"] != true || ann["idempotentHint"] != true || ann["destructiveHint"] != false || ann["openWorldHint"] != false {
		t.Errorf("annotations = %v", ann)
	}
	// The schema literal reaches the wire byte for byte.
	raw := s.MCP().HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	b, _ := json.Marshal(raw)
	for _, op := range catalog.Catalog.MCPTools() {
		if !strings.Contains(string(b), `"inputSchema":`+string(op.MCP.InputSchema)) {
			t.Errorf("%s: the input schema on the wire differs from the table literal", op.MCP.Name)
		}
	}
}

func TestAnnotationTable(t *testing.T) {
	type hints struct{ ro, idem, destr, open *bool }
	tr, fa := ptr(true), ptr(false)
	cases := []struct {
		class    string
		requires []string
		want     hints
	}{
		{"none", nil, hints{tr, tr, fa, fa}},
		{"read_only", nil, hints{tr, tr, fa, fa}},
		{"writes_files", nil, hints{fa, nil, fa, fa}},
		{"spawns_process", nil, hints{fa, nil, fa, fa}},
		{"network", nil, hints{fa, nil, fa, tr}},
		{"destructive", nil, hints{fa, nil, tr, fa}},
		{"", nil, hints{nil, nil, nil, fa}},
		{"", []string{"network"}, hints{nil, nil, nil, tr}},
		{"read_only", []string{"workspace", "network"}, hints{tr, tr, fa, tr}},
	}
	eq := func(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	for _, c := range cases {
		a := catalogAnnotations(&registry.Operation{SideEffectClass: c.class, MCP: &registry.MCP{Requires: c.requires}})
		if !eq(a.ReadOnlyHint, c.want.ro) || !eq(a.IdempotentHint, c.want.idem) || !eq(a.DestructiveHint, c.want.destr) || !eq(a.OpenWorldHint, c.want.open) {
			t.Errorf("class %q requires %v: got %+v", c.class, c.requires, a)
		}
	}
}

func TestToolSearchResults(t *testing.T) {
	s := newServer(t, nil)
	text, isErr, structured := toolResult(t, callTool(t, s, "vox_tool_search", `{"query":"search tools"}`))
	if isErr {
		t.Fatalf("error: %s", text)
	}
	var res struct {
		Results []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Source      string          `json:"vox_source"`
			Score       float64         `json:"score"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(text), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || res.Results[0].Name != "vox_tool_search" || res.Results[0].Source != "catalog" || res.Results[0].Score <= 0 || len(res.Results[0].InputSchema) == 0 {
		t.Fatalf("results = %+v", res.Results)
	}
	// structuredContent holds the same object as the text.
	b, _ := json.Marshal(structured)
	var again map[string]any
	json.Unmarshal(b, &again)
	var fromText map[string]any
	json.Unmarshal([]byte(text), &fromText)
	if fmt.Sprint(again) != fmt.Sprint(fromText) {
		t.Fatal("structuredContent differs from the text content")
	}
	// A query with no match returns an empty list, never null.
	text, _, _ = toolResult(t, callTool(t, s, "vox_tool_search", `{"query":"zzzqqq"}`))
	if text != `{"results":[]}` {
		t.Fatalf("no-match result = %s", text)
	}
	// A source filter that excludes everything.
	text, _, _ = toolResult(t, callTool(t, s, "vox_tool_search", `{"query":"search","source":"workspace"}`))
	if text != `{"results":[]}` {
		t.Fatalf("filtered result = %s", text)
	}
}

func TestArgumentErrorsAreErrorResults(t *testing.T) {
	s := newServer(t, nil)
	cases := map[string]string{
		`{"query":5}`:                   "argument query: want string, got integer",
		`{"query":"x","limit":2.5}`:     "argument limit: want integer, got number",
		`{"query":"x","limit":500}`:     "argument limit: want at most 100, got 500",
		`{"query":"x","limit":0}`:       "argument limit: want at least 1, got 0",
		`{}`:                            "missing argument: query",
		`{"query":"x","bogus":true}`:    "unknown argument: bogus",
		`{"query":""}`:                  "argument query: want a non-empty string",
		`{"query":"x","source":"moon"}`: `argument source: want one of "catalog", "workspace", "skill", got "moon"`,
		`[1,2]`:                         "arguments must be a JSON object, got array",
	}
	for args, want := range cases {
		text, isErr, structured := toolResult(t, callTool(t, s, "vox_tool_search", args))
		if !isErr || text != want || structured != nil {
			t.Errorf("%s: got isError=%v %q (structured %v), want %q", args, isErr, text, structured, want)
		}
	}
}

func TestWireErrors(t *testing.T) {
	s := newServer(t, nil)
	codeOf := func(resp map[string]any) float64 {
		e, ok := resp["error"].(map[string]any)
		if !ok {
			t.Fatalf("want a JSON-RPC error, got %v", resp)
		}
		return e["code"].(float64)
	}
	unknown := callTool(t, s, "no_such_tool", `{}`)
	if codeOf(unknown) != -32602 || !strings.Contains(fmt.Sprint(unknown["error"]), "no_such_tool") {
		t.Errorf("unknown tool: %v", unknown)
	}
	if c := codeOf(rpc(t, s, `{"jsonrpc":"2.0","id":3,"method":"no/such"}`)); c != -32601 {
		t.Errorf("unknown method code %v", c)
	}
	if c := codeOf(rpc(t, s, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"nonsense"}`)); c >= 0 {
		t.Errorf("malformed params code %v", c)
	}
	// A 10 MB argument is an ordinary request.
	big := strings.Repeat("a", 10<<20)
	text, isErr, _ := toolResult(t, callTool(t, s, "vox_tool_search", `{"query":"`+big+`"}`))
	if isErr || text != `{"results":[]}` {
		t.Errorf("huge query: isError=%v %.80s", isErr, text)
	}
	// Deeply nested arguments are refused cleanly and the server goes on.
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	resp := callTool(t, s, "vox_tool_search", `{"query":"x","limit":`+deep+`}`)
	if _, ok := resp["error"]; !ok {
		if text, isErr, _ := toolResult(t, resp); !isErr {
			t.Errorf("deep nesting accepted: %s", text)
		}
	}
	if text, isErr, _ := toolResult(t, callTool(t, s, "vox_tool_search", `{"query":"search"}`)); isErr {
		t.Errorf("the server does not serve after bad input: %s", text)
	}
}

// testCatalog is a catalog with tools whose handlers are registered below,
// to exercise the middleware without touching the product's catalog.
func testCatalog() *registry.Catalog {
	op := func(id, name, class string, requires ...string) registry.Operation {
		return registry.Operation{ID: id, Title: id, Description: "test tool " + id, ProductLane: "platform",
			SideEffectClass: class, MCP: &registry.MCP{Name: name, Exposure: "core", Requires: requires, InputSchema: json.RawMessage(`{"type":"object"}`)}}
	}
	return &registry.Catalog{Source: "test", SchemaVersion: 1, Operations: []registry.Operation{
		op("t.panic", "vox_test_panic", "none"),
		op("t.fail", "vox_test_fail", "none"),
		op("t.net", "vox_test_net", "network", "network"),
		op("t.ws", "vox_test_ws", "read_only", "workspace", "process"),
		op("t.missing", "vox_test_no_handler", "none"),
	}}
}

func init() {
	registerHandler("vox_test_panic", func(context.Context, *Server, Args) (any, error) { panic("boom") })
	registerHandler("vox_test_fail", func(context.Context, *Server, Args) (any, error) {
		return nil, fmt.Errorf("it failed; try again later")
	})
	registerHandler("vox_test_net", func(context.Context, *Server, Args) (any, error) { return map[string]any{"ok": true}, nil })
	registerHandler("vox_test_ws", func(context.Context, *Server, Args) (any, error) { return map[string]any{"ok": true}, nil })
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
	allowed, err := New(Options{Root: t.TempDir(), Catalog: testCatalog(), AllowNetwork: true})
	if err != nil {
		t.Fatal(err)
	}
	if text, isErr, _ := toolResult(t, callTool(t, allowed, "vox_test_net", `{}`)); isErr {
		t.Errorf("network allowed: %s", text)
	}
	missingRoot, _ := New(Options{Root: t.TempDir() + "/gone", Catalog: testCatalog()})
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
