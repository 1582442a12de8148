package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

const callVox = `@tool "Greet someone by name"
fn greet(name: str, punct: str = "!") to str { "hello " + name + punct }

@tool "Divide two integers"
fn divide(a: int, b: int) {
    if b == 0 { return Err("cannot divide " + str(a) + " by zero") }
    { quotient: a / b, rest: a - (a / b) * b }
}

@tool "Loop forever"
fn spin() to int {
    let mut n = 0
    while true { n = n + 1 }
    n
}

@tool "Read a workspace file"
fn read(path: str) to str { fs.read(path)? }

@resource("docs://guide.md", "The guide")
fn guide() to str { "# Guide" }

@resource("docs://broken.md", "Fails")
fn broken() to str { Err("the guide is missing") }
`

func TestWorkspaceToolCalls(t *testing.T) {
	s := workspaceServer(t, Options{}, map[string]string{"tools/calls.vox": callVox, "notes.txt": "some notes\n"})
	// Hidden (not advertised) tools are dispatched by name.
	text, isErr, structured := toolResult(t, callTool(t, s, "greet", `{"name":"Ada"}`))
	if isErr || text != "hello Ada!" {
		t.Errorf("greet = %v %q", isErr, text)
	}
	if got, _ := json.Marshal(structured); string(got) != `{"result":"hello Ada!"}` {
		t.Errorf("structuredContent = %s", got)
	}
	text, isErr, structured = toolResult(t, callTool(t, s, "divide", `{"a":7,"b":2}`))
	if got, _ := json.Marshal(structured); isErr || text != `{"quotient":3,"rest":1}` || string(got) != `{"result":{"quotient":3,"rest":1}}` {
		t.Errorf("divide = %v %q %s", isErr, text, got)
	}
	for args, want := range map[string]string{
		`{"a":1,"b":0}`:       "cannot divide 1 by zero",
		`{"a":1}`:             "missing argument: b",
		`{"a":1,"b":2,"c":3}`: "unknown argument: c",
		`{"a":"x","b":2}`:     "argument a: want int, got string",
	} {
		text, isErr, _ := toolResult(t, callTool(t, s, "divide", args))
		if !isErr || text != want {
			t.Errorf("divide %s = %v %q, want the error %q", args, isErr, text, want)
		}
	}
	text, isErr, _ = toolResult(t, callTool(t, s, "read", `{"path":"notes.txt"}`))
	if isErr || text != "some notes\n" {
		t.Errorf("read = %v %q", isErr, text)
	}
	text, isErr, _ = toolResult(t, callTool(t, s, "read", `{"path":"../outside.txt"}`))
	if !isErr || !strings.Contains(text, "capability denied: fs.read outside the workspace") {
		t.Errorf("read outside = %v %q", isErr, text)
	}
	text, isErr, _ = toolResult(t, callTool(t, s, "spin", `{}`))
	if !isErr || !strings.Contains(text, "steps limit of 10000000 exceeded; raise limits.steps in contracts/mcp/workspace-mcp-surface.v1.yaml") {
		t.Errorf("spin = %v %q", isErr, text)
	}
	// An unknown tool is mcp-go's -32602 naming it.
	resp := callTool(t, s, "nope", `{}`)
	if e, _ := resp["error"].(map[string]any); e == nil || e["code"] != float64(-32602) || !strings.Contains(e["message"].(string), "nope") {
		t.Errorf("unknown tool: %v", resp)
	}

	// Resources: a body; a failing function is -32603 with its text.
	resp = rpc(t, s, `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"docs://guide.md"}}`)
	c := resp["result"].(map[string]any)["contents"].([]any)[0].(map[string]any)
	if c["text"] != "# Guide" || c["mimeType"] != "text/markdown" || c["uri"] != "docs://guide.md" {
		t.Errorf("guide = %v", c)
	}
	resp = rpc(t, s, `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"docs://broken.md"}}`)
	if e, _ := resp["error"].(map[string]any); e == nil || e["code"] != float64(-32603) || e["message"] != "the guide is missing" {
		t.Errorf("broken resource: %v", resp)
	}
}

func TestWorkspaceCallCancelled(t *testing.T) {
	s := workspaceServer(t, Options{}, map[string]string{
		workspace.ConfigPath: "scan_globs: [\"tools/**/*.vox\"]\nlimits: {steps: 0, timeout_ms: 0}\n",
		"tools/calls.vox":    callVox,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	resp := s.MCP().HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"spin","arguments":{}}}`))
	b, _ := json.Marshal(resp)
	if !strings.Contains(string(b), `"isError":true`) {
		t.Errorf("a cancelled unlimited call = %s, want an error result", b)
	}
}

func TestWorkspaceLiveBodyEdit(t *testing.T) {
	s := workspaceServer(t, Options{}, map[string]string{"tools/calls.vox": callVox})
	p := filepath.Join(s.Root(), "tools", "calls.vox")
	write := func(src string, step int) {
		os.WriteFile(p, []byte(src), 0o644)
		mt := time.Now().Add(time.Duration(step) * time.Hour)
		os.Chtimes(p, mt, mt)
	}
	write(strings.Replace(callVox, `"hello " + name + punct`, `"bonjour " + name + punct`, 1), 1)
	if text, _, _ := toolResult(t, callTool(t, s, "greet", `{"name":"Ada"}`)); text != "bonjour Ada!" {
		t.Errorf("after the edit greet = %q: the edited body did not take effect", text)
	}
	write("@tool \"x\"\nfn greet( to str { 1 }\n", 2)
	text, isErr, _ := toolResult(t, callTool(t, s, "greet", `{"name":"Ada"}`))
	if !isErr || !strings.Contains(text, "tools/calls.vox no longer compiles") || !strings.Contains(text, "vox_workspace_mcp_refresh") {
		t.Errorf("broken file: %v %q", isErr, text)
	}
	write("@tool \"x\"\nfn other() to int { 1 }\n", 3)
	text, isErr, _ = toolResult(t, callTool(t, s, "greet", `{"name":"Ada"}`))
	if !isErr || text != "tools/calls.vox no longer declares tool greet; run vox_workspace_mcp_refresh" {
		t.Errorf("removed tool: %v %q", isErr, text)
	}
}

// TestWorkspaceStress runs many concurrent calls while refreshing over and
// over: no call fails or is lost because of a refresh.
func TestWorkspaceStress(t *testing.T) {
	files := map[string]string{"tools/calls.vox": callVox}
	for i := range 20 {
		files[fmt.Sprintf("tools/extra%02d.vox", i)] = fmt.Sprintf("@tool \"Extra %d\"\nfn extra%02d(x: int = %d) to int { x * 2 }\n", i, i, i)
	}
	s := workspaceServer(t, Options{}, files)
	const callers, calls = 8, 60
	var wg sync.WaitGroup
	var answered atomic.Int64
	stop := make(chan struct{})
	refreshes := 0
	var refreshErr error
	var rwg sync.WaitGroup
	rwg.Add(1)
	go func() {
		defer rwg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// Alternate the set of extra files so that refreshes really
			// change the surface, never the tools being called.
			name := filepath.Join(s.Root(), "tools", "churn.vox")
			if i%2 == 0 {
				os.WriteFile(name, []byte(fmt.Sprintf("@tool \"Churn\"\nfn churn%d() to int { %d }\n", i, i)), 0o644)
			} else {
				os.Remove(name)
			}
			if _, err := s.RefreshWorkspace(); err != nil {
				refreshErr = err
				return
			}
			refreshes++
		}
	}()
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range calls {
				var msg, want string
				if i%2 == 0 {
					msg = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"greet","arguments":{"name":"c%d-%d"}}}`, i, c, i)
					want = fmt.Sprintf(`"text":"hello c%d-%d!"`, c, i)
				} else {
					msg = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"extra%02d","arguments":{"x":%d}}}`, i, i%20, i)
					want = fmt.Sprintf(`"text":"%d"`, 2*i)
				}
				resp := s.MCP().HandleMessage(context.Background(), json.RawMessage(msg))
				b, _ := json.Marshal(resp)
				if !strings.Contains(string(b), want) || strings.Contains(string(b), `"isError":true`) {
					t.Errorf("call %s answered %s", msg, b)
					continue
				}
				answered.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	rwg.Wait()
	if refreshErr != nil {
		t.Fatal(refreshErr)
	}
	if got := answered.Load(); got != callers*calls {
		t.Errorf("%d of %d calls answered correctly", got, callers*calls)
	}
	if refreshes == 0 {
		t.Error("no refresh ran during the calls")
	}
	t.Logf("%d calls during %d refreshes", answered.Load(), refreshes)
}

// TestCallWaitsForFirstScan: in a root without a usable snapshot the
// workspace starts empty; a call of a workspace tool made before the first
// scan completes waits for it instead of failing as unknown.
func TestCallWaitsForFirstScan(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{workspace.ConfigPath: testScanConfig, "tools/calls.vox": callVox})
	gate := make(chan struct{})
	firstScanGate = gate
	t.Cleanup(func() { firstScanGate = nil })
	s, err := New(Options{Root: root, Catalog: testCatalog(), Handlers: testTable})
	if err != nil {
		t.Fatal(err)
	}
	answer := make(chan string, 1)
	go func() {
		resp := s.MCP().HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`))
		b, _ := json.Marshal(resp)
		answer <- string(b)
	}()
	// Catalog requests are answered at once meanwhile.
	if _, ok := listedTools(t, s)["vox_tool_search"]; !ok {
		t.Error("catalog tools wait for the workspace scan")
	}
	close(gate)
	if got := <-answer; !strings.Contains(got, `"text":"hello Ada!"`) {
		t.Errorf("early call = %s", got)
	}
}
