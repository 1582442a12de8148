package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

const testScanConfig = "scan_globs: [\"tools/**/*.vox\"]\n"

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

// workspaceServer starts a server on a new workspace holding files and
// waits for its first scan.
func workspaceServer(t *testing.T, opts Options, files map[string]string) *Server {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{workspace.ConfigPath: testScanConfig})
	writeFiles(t, root, files)
	opts.Root = root
	if opts.Catalog == nil {
		opts.Catalog, opts.Handlers = testCatalog(), testTable
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WaitWorkspace(context.Background()); err != nil {
		t.Fatal(err)
	}
	rpc(t, s, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	return s
}

func listedTools(t *testing.T, s *Server) map[string]map[string]any {
	t.Helper()
	resp := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	out := map[string]map[string]any{}
	for _, tl := range resp["result"].(map[string]any)["tools"].([]any) {
		m := tl.(map[string]any)
		out[m["name"].(string)] = m
	}
	return out
}

const greetVox = "@tool \"Greet someone by name\"\nfn greet(name: str) to str { \"hello \" + name }\n"

func TestWorkspaceToolsHiddenUnlessOptedIn(t *testing.T) {
	files := map[string]string{"tools/greet.vox": greetVox}
	hidden := workspaceServer(t, Options{}, files)
	if _, ok := listedTools(t, hidden)["greet"]; ok {
		t.Error("greet is advertised without the opt-in")
	}
	// A hidden tool is still registered (dispatchable by name) and found
	// by vox_tool_search.
	if hidden.MCP().GetTool("greet") == nil {
		t.Error("hidden greet is not registered with mcp-go")
	}
	_, _, structured := toolResult(t, callTool(t, hidden, "vox_tool_search", `{"query":"greet someone","source":"workspace"}`))
	if got := structured.(map[string]any)["results"].([]any); len(got) != 1 || got[0].(map[string]any)["name"] != "greet" {
		t.Errorf("vox_tool_search results = %v", got)
	}

	shown := workspaceServer(t, Options{WorkspaceTools: true}, files)
	g, ok := listedTools(t, shown)["greet"]
	if !ok {
		t.Fatal("greet is not advertised with the opt-in")
	}
	meta := g["_meta"].(map[string]any)
	if meta["vox_source"] != "workspace" || meta["vox_source_path"] != "tools/greet.vox" || meta["vox_source_line"] != float64(1) {
		t.Errorf("_meta = %v", meta)
	}
	ann := g["annotations"].(map[string]any)
	if ann["readOnlyHint"] != true || ann["openWorldHint"] != false {
		t.Errorf("annotations = %v", ann)
	}
	schema, _ := json.Marshal(g["inputSchema"])
	if !strings.Contains(string(schema), `"name":{"type":"string"}`) {
		t.Errorf("inputSchema = %s", schema)
	}
}

func TestWorkspaceRefreshResultAndErrors(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/greet.vox": greetVox})
	writeFiles(t, s.Root(), map[string]string{
		"tools/more.vox":   "@tool \"Shadowing\"\nfn vox_tool_search() to int { 1 }\n\n@tool \"Again\"\nfn greet() to int { 2 }\n\n@tool \"New\"\nfn added() to int { 3 }\n",
		"tools/broken.vox": "@tool \"Broken\"\nfn broken( to int { 1 }\n",
	})
	text, isErr, structured := toolResult(t, callTool(t, s, "vox_workspace_mcp_refresh", `{}`))
	if isErr {
		t.Fatal(text)
	}
	res := structured.(map[string]any)
	got, _ := json.Marshal(res)
	want := `{"duplicate_resources":[],"duplicate_tools":["greet"],"errors":[{"message":"2:12: expected a name, found keyword to [vox/parse/syntax]","path":"tools/broken.vox"}],"resource_count":0,"shadowed":["vox_tool_search"],"tool_count":2}`
	if string(got) != want {
		t.Errorf("refresh result =\n %s\nwant\n %s", got, want)
	}
	tools := listedTools(t, s)
	if _, ok := tools["added"]; !ok {
		t.Error("the added tool is not listed after the refresh")
	}
	if tools["vox_tool_search"]["_meta"].(map[string]any)["vox_source"] != "catalog" {
		t.Error("the catalog tool lost to a workspace tool")
	}

	// A fatal scan error keeps the previous surface.
	writeFiles(t, s.Root(), map[string]string{workspace.ConfigPath: "scan_globs: [\"a/{b\"]\n"})
	text, isErr, _ = toolResult(t, callTool(t, s, "vox_workspace_mcp_refresh", `{}`))
	if !isErr || !strings.Contains(text, workspace.ConfigPath+":1:14: invalid glob") {
		t.Errorf("fatal refresh: %v %q", isErr, text)
	}
	if _, ok := listedTools(t, s)["added"]; !ok {
		t.Error("a failed refresh dropped the previous surface")
	}
}

// notifications connects an in-process client and collects the methods of
// the notifications it receives.
type notifications struct {
	mu      sync.Mutex
	methods []string
	c       *client.Client
}

func connect(t *testing.T, s *Server) *notifications {
	t.Helper()
	c, err := client.NewInProcessClient(s.MCP())
	if err != nil {
		t.Fatal(err)
	}
	n := &notifications{c: c}
	c.OnNotification(func(msg mcp.JSONRPCNotification) {
		n.mu.Lock()
		n.methods = append(n.methods, msg.Method)
		n.mu.Unlock()
	})
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-06-18"
	req.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return n
}

func (n *notifications) wait(t *testing.T, method string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		n.mu.Lock()
		ok := slices.Contains(n.methods, method)
		n.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no %s notification", method)
}

func TestWorkspaceRefreshNotifies(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/greet.vox": greetVox})
	n := connect(t, s)
	writeFiles(t, s.Root(), map[string]string{"tools/docs.vox": "@tool \"Added\"\nfn added() to int { 1 }\n\n@resource(\"docs://guide.md\", \"The guide\")\nfn guide() to str { \"# Guide\" }\n"})
	res, err := s.RefreshWorkspace()
	if err != nil || res.ToolCount != 2 || res.ResourceCount != 1 {
		t.Fatalf("refresh: %+v, %v", res, err)
	}
	n.wait(t, "notifications/tools/list_changed")
	n.wait(t, "notifications/resources/list_changed")

	lr, err := n.c.ListResources(context.Background(), mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var guide *mcp.Resource
	for i, r := range lr.Resources {
		if r.URI == "docs://guide.md" {
			guide = &lr.Resources[i]
		}
	}
	if guide == nil || guide.MIMEType != "text/markdown" || guide.Description != "The guide" || guide.Name != "guide" {
		t.Fatalf("resources = %+v", lr.Resources)
	}
	if meta := guide.Meta; meta == nil || meta.AdditionalFields["vox_source"] != "workspace" || meta.AdditionalFields["vox_source_path"] != "tools/docs.vox" {
		t.Errorf("resource _meta = %+v", meta)
	}
	// An unknown URI is mcp-go's own error: -32002 up to 2025-11-25.
	resp := rpc(t, s, `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"docs://missing.md"}}`)
	e := resp["error"].(map[string]any)
	if e["code"] != float64(-32002) || !strings.Contains(e["message"].(string), "docs://missing.md") {
		t.Errorf("unknown resource: %v", e)
	}
	// The resource goes away with its file.
	os.Remove(filepath.Join(s.Root(), "tools", "docs.vox"))
	if _, err := s.RefreshWorkspace(); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.MCP().ListResources()["docs://guide.md"]; ok {
		t.Error("the resource of a removed file is still registered")
	}
}

func TestWorkspaceStartsFromSnapshotOnlyInItsRepository(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":             "module example.com/ws\n\ngo 1.26\n",
		workspace.ConfigPath: testScanConfig,
		"tools/greet.vox":    greetVox,
	})
	fresh, err := (&workspace.Loader{Root: root}).Load()
	if err != nil {
		t.Fatal(err)
	}
	snap := fresh.Snapshot("example.com/ws")
	// A snapshot tool that is not in the files: only the snapshot serves it.
	snap.Tools = append(snap.Tools, workspace.SnapshotTool{Name: "only_in_snapshot", Description: "x", InputSchema: json.RawMessage(`{"type":"object"}`), Path: "tools/gone.vox", Line: 1})

	block := make(chan struct{})
	firstScanGate = block
	t.Cleanup(func() { firstScanGate = nil })

	s, err := New(Options{Root: root, Catalog: testCatalog(), Handlers: testTable, Snapshot: snap, WorkspaceTools: true})
	if err != nil {
		t.Fatal(err)
	}
	rpc(t, s, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if _, ok := listedTools(t, s)["only_in_snapshot"]; !ok {
		t.Error("the server did not start from the snapshot of its own repository")
	}
	close(block)
	s.WaitWorkspace(context.Background())
	tools := listedTools(t, s)
	if _, ok := tools["only_in_snapshot"]; ok {
		t.Error("the first scan did not replace the snapshot")
	}
	if _, ok := tools["greet"]; !ok {
		t.Error("greet missing after the first scan")
	}

	// In another repository the snapshot is ignored: empty until the scan.
	other := t.TempDir()
	writeFiles(t, other, map[string]string{workspace.ConfigPath: testScanConfig, "tools/greet.vox": greetVox})
	block2 := make(chan struct{})
	firstScanGate = block2
	s2, err := New(Options{Root: other, Catalog: testCatalog(), Handlers: testTable, Snapshot: snap, WorkspaceTools: true})
	if err != nil {
		t.Fatal(err)
	}
	rpc(t, s2, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	tools = listedTools(t, s2)
	if _, ok := tools["only_in_snapshot"]; ok {
		t.Error("a snapshot of another repository was served")
	}
	if _, ok := tools["vox_tool_search"]; !ok {
		t.Error("catalog tools are not served before the first scan")
	}
	close(block2)
	s2.WaitWorkspace(context.Background())
	if _, ok := listedTools(t, s2)["greet"]; !ok {
		t.Error("the first scan was not installed")
	}
}
