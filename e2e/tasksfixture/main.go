// Command tasksfixture serves, over streamable HTTP, the fixtures the
// conformance suite's tasks scenarios (SEP-2663) call — greet,
// slow_compute, failing_job, protocol_error_job — as catalog tools of
// internal/server, the plane vox-mcp serves (docs/tasks.md). vox-mcp's
// own catalog has no such tools, and workspace tools cannot allow tasks
// yet, so TestTasksConformance builds this instead. Usage: tasksfixture
// HOST:PORT; it prints "url=http://HOST:PORT/mcp" once it listens.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/vox-lang/vox-mcp/internal/server"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

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
	s, err := server.New(server.Options{Root: root, Catalog: cat, NoSkills: true, Handlers: handlers})
	if err != nil {
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
