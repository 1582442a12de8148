// Command tasksfixture serves, over streamable HTTP, the fixtures the
// conformance suite's tasks scenarios (SEP-2663) call, on internal/server,
// the plane vox-mcp serves (docs/tasks.md): greet, slow_compute,
// failing_job and protocol_error_job as catalog tools (they sleep, which
// Vox cannot), and confirm_delete, multi_input and test_tool_with_task,
// which ask their client, as @long_running workspace tools written in Vox
// into its temporary root (only a workspace tool's task asks:
// docs/tasks.md §5, "A task that asks"). vox-mcp's own catalog and workspace have no such tools, so
// TestTasksConformance builds this instead. Usage: tasksfixture
// HOST:PORT; it prints "url=http://HOST:PORT/mcp" once it listens.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/vox-lang/vox-mcp/internal/server"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// askingVox are the fixtures that ask their client: confirm_delete and
// test_tool_with_task ask one question, multi_input two at once
// (docs/vox-language.md, elicit and ask_all).
const askingVox = `@long_running
@tool "Asks the client to confirm, then deletes (pretends to) the file"
fn confirm_delete(filename: str) to str {
    let r = elicit("Delete " + filename + "?", {type: "object", properties: {confirm: {type: "boolean"}}, required: ["confirm"]}, "confirm")
    if r["action"] == "accept" and r["content"]["confirm"] == true { return "deleted " + filename }
    "kept " + filename
}

@long_running
@tool "Asks the client two questions at once"
fn multi_input() to str {
    let schema = {type: "object", properties: {name: {type: "string"}, confirm: {type: "boolean"}}}
    let a = ask_all({first: {elicit: "First input?", schema: schema}, second: {elicit: "Second input?", schema: schema}})
    format("{} {}", a["first"]["action"], a["second"]["action"])
}

@long_running
@tool "Asks the client's name, as a task"
fn test_tool_with_task() to str {
    let r = elicit("What is your name?", {type: "object", properties: {name: {type: "string"}}, required: ["name"]}, "user_name")
    "Hello, " + r["content"]["name"] + "!"
}
`

// writeRoot writes the workspace of the asking fixtures into root.
func writeRoot(root string) error {
	files := map[string]string{
		workspace.ConfigPath: "scan_globs: [\"tools/**/*.vox\"]\n",
		"tools/asking.vox":   askingVox,
	}
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "tasksfixture:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 2 {
		return errors.New("usage: tasksfixture HOST:PORT")
	}
	op := func(name, support string) registry.Operation {
		return registry.Operation{ID: name, Title: name, Description: "conformance fixture " + name, ProductLane: "platform", SideEffectClass: "none",
			MCP: &registry.MCP{Name: name, Exposure: "core", TaskSupport: support, InputSchema: json.RawMessage(`{"type":"object"}`)}}
	}
	cat := &registry.Catalog{Source: "tasksfixture", SchemaVersion: 1, Operations: []registry.Operation{
		op("greet", ""), op("slow_compute", registry.TaskOptional), op("failing_job", registry.TaskOptional), op("protocol_error_job", registry.TaskOptional)}}
	root, err := os.MkdirTemp("", "tasksfixture-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	if err := writeRoot(root); err != nil {
		return err
	}
	s, err := server.New(server.Options{Root: root, Catalog: cat, NoSkills: true, WorkspaceTools: true, Handlers: handlers})
	if err != nil {
		return err
	}
	if err := s.WaitWorkspace(context.Background()); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		return err
	}
	fmt.Printf("url=http://%s/mcp\n", ln.Addr())
	return http.Serve(ln, s.HTTPHandler(server.Auth{}))
}

func handlers(*server.Services) map[string]toolcall.Handler {
	return map[string]toolcall.Handler{
		"greet": func(_ *toolcall.Call, raw json.RawMessage) ([]byte, error) {
			var a struct{ Name string }
			_ = json.Unmarshal(raw, &a)
			return json.Marshal("Hello, " + a.Name + "!")
		},
		// slow_compute sleeps its seconds, or stops when cancelled.
		"slow_compute": func(c *toolcall.Call, raw json.RawMessage) ([]byte, error) {
			var a struct{ Seconds float64 }
			_ = json.Unmarshal(raw, &a)
			select {
			case <-time.After(time.Duration(a.Seconds * float64(time.Second))):
				return json.Marshal(map[string]any{"seconds": a.Seconds})
			case <-c.Context().Done():
				return nil, c.Context().Err()
			}
		},
		"failing_job": func(*toolcall.Call, json.RawMessage) ([]byte, error) {
			time.Sleep(time.Second)
			return nil, errors.New("failing_job fails, as the fixture must")
		},
		// A handler cannot fail with a protocol error in vox-mcp: its
		// panic is an error result (docs/federation.md §3).
		"protocol_error_job": func(*toolcall.Call, json.RawMessage) ([]byte, error) { panic("protocol_error_job") },
	}
}
