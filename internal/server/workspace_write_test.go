package server

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/trust"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// TestWorkspaceWriteOnceAcrossRounds: under protocol 2026-07-28 a tool
// that writes, then asks, runs once per round, and its write happens in
// the first round only (fs.write writes nothing during the replay).
func TestWorkspaceWriteOnceAcrossRounds(t *testing.T) {
	const tool = `@tool "Appends a line, then asks"
fn append_then_ask(message: str) to str {
    let before = fs.read("out/log.txt").unwrap_or("")
    fs.write("out/log.txt", before + "line\n")?
    let r = elicit(message, {type: "object", properties: {name: {type: "string"}, color: {type: "string"}}, required: ["name"]})
    r["action"]
}
`
	config := "scan_globs: [\"tools/**/*.vox\"]\nwrite_globs: [\"out/*\"]\n"
	// The operator grants the write (the workspace is not trusted).
	consent := &workspace.Consent{Operator: trust.Operator{Write: []string{"out/*"}}}
	s := workspaceServer(t, Options{WorkspaceTools: true, Consent: consent}, map[string]string{"tools/write.vox": tool, workspace.ConfigPath: config})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	t.Cleanup(ts.Close)
	url := ts.URL
	c, _ := askConnect(t, url, "2026-07-28", &askingClient{})
	var req mcp.CallToolRequest
	req.Params.Name = "append_then_ask"
	req.Params.Arguments = map[string]any{"message": "Who?"}
	res, err := c.CallTool(context.Background(), req)
	if err != nil || res.IsError {
		t.Fatalf("append_then_ask = %v, %v", res, err)
	}
	b, err := os.ReadFile(filepath.Join(s.root, "out", "log.txt"))
	if err != nil || string(b) != "line\n" {
		t.Errorf("out/log.txt = %q, %v; want one line: the replay must not write again", b, err)
	}
}
