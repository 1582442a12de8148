package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/generated/catalog"
)

func TestCatalogToolsAdvertisedWithMetaAndAnnotations(t *testing.T) {
	s := newServer(t)
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

func TestToolSearchResults(t *testing.T) {
	s := newServer(t)
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
	s := newServer(t)
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
	s := newServer(t)
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

func TestVoxCheck(t *testing.T) {
	s := newServer(t)
	for rel, body := range map[string]string{
		"tools/greet.vox": "@tool \"Greet someone by name\"\nfn greet(name: str) to str { \"hello \" + name }\n",
		"tools/bad.vox":   "@tool \"Bad\"\nfn bad( to int { 1 }\n",
	} {
		p := filepath.Join(s.Root(), filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	_, isErr, structured := toolResult(t, callTool(t, s, "vox_check", `{"path":"tools/greet.vox"}`))
	if got, _ := json.Marshal(structured); isErr || string(got) != `{"diagnostics":[],"ok":true}` {
		t.Errorf("good file: %s", got)
	}
	_, _, structured = toolResult(t, callTool(t, s, "vox_check", `{"path":"tools/bad.vox"}`))
	if got, _ := json.Marshal(structured); string(got) != `{"diagnostics":[{"code":"vox/parse/syntax","col":9,"fixes":[],"help":[],"line":2,"message":"expected a name, found keyword to","path":"tools/bad.vox","severity":"error"}],"ok":false}` {
		t.Errorf("bad file: %s", got)
	}
	_, _, structured = toolResult(t, callTool(t, s, "vox_check", `{"source":"@mcp.tool \"Old\"\nfn old() to int { 1 }\n"}`))
	res := structured.(map[string]any)
	d := res["diagnostics"].([]any)
	if res["ok"] != true || len(d) != 1 || d[0].(map[string]any)["severity"] != "warning" || d[0].(map[string]any)["path"] != "<source>" {
		t.Errorf("source with a warning: %v", res)
	}
	outside := filepath.Join(t.TempDir(), "x.vox")
	os.WriteFile(outside, []byte("@tool \"x\"\nfn x() to int { 1 }\n"), 0o644)
	os.Symlink(outside, filepath.Join(s.Root(), "tools", "link.vox"))
	for args, want := range map[string]string{
		`{}`:                                  "give exactly one of path",
		`{"path":"a.vox","source":"x"}`:       "give exactly one of path",
		`{"path":"../x.vox"}`:                 "path ../x.vox is outside the workspace",
		`{"path":"tools/link.vox"}`:           "path tools/link.vox is outside the workspace",
		`{"path":` + jsonQuote(outside) + `}`: "give a path relative to the workspace root",
		`{"path":"tools/none.vox"}`:           "path tools/none.vox: no such file in the workspace",
	} {
		text, isErr, _ := toolResult(t, callTool(t, s, "vox_check", args))
		if !isErr || !strings.Contains(text, want) {
			t.Errorf("vox_check %s = %v %q, want an error containing %q", args, isErr, text, want)
		}
	}
}

func jsonQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// vox_workspace_mcp_refresh reports how many files are compiled to a
// client that sent a progress token: growing, all of them last.
func TestRefreshReportsProgress(t *testing.T) {
	s := newServer(t)
	files := map[string]string{}
	for i := range 250 {
		files[fmt.Sprintf("tools/t%03d.vox", i)] = fmt.Sprintf("@tool \"Tool %d\"\nfn tool_%d() to int { %d }\n", i, i, i)
	}
	writeFiles(t, s.Root(), files)
	s.WaitWorkspace(context.Background())
	sess := &notifySession{id: "refresh", ch: make(chan mcp.JSONRPCNotification, 1000)}
	ctx := s.MCP().WithContext(context.Background(), sess)
	out, _ := json.Marshal(s.MCP().HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"vox_workspace_mcp_refresh","arguments":{},"_meta":{"progressToken":"scan"}}}`)))
	if !strings.Contains(string(out), `\"tool_count\":250`) {
		t.Fatalf("refresh: %s", out)
	}
	var done []float64
	for len(sess.ch) > 0 {
		n := <-sess.ch
		if p := n.Params.AdditionalFields; n.Method == "notifications/progress" && p["progressToken"] == "scan" {
			if p["total"] != 250.0 {
				t.Errorf("total %v", p["total"])
			}
			done = append(done, p["progress"].(float64))
		}
	}
	growing := len(done) >= 2
	for i := 1; i < len(done); i++ {
		growing = growing && done[i] > done[i-1]
	}
	if !growing || done[len(done)-1] != 250 || len(done) > 101 {
		t.Errorf("progress %v: want growing, at most 101 reports, 250 last", done)
	}
}
