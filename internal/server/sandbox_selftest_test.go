package server

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/sandbox"
	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// TestSandboxSelfTestIsOffTheStartUpPath: a server starts and answers
// without running the sandbox self-test; the first call of a tool that
// requires the sandbox starts it and waits for its end, and its outcome
// decides the requirement — a failed self-test refuses the call, naming
// why, a passing one lets the next server's call through.
func TestSandboxSelfTestIsOffTheStartUpPath(t *testing.T) {
	prevRun, prevDelay := runSelfTest, sandboxSelfTestDelay
	t.Cleanup(func() { runSelfTest, sandboxSelfTestDelay = prevRun, prevDelay })
	sandboxSelfTestDelay = time.Hour // only a call starts it here

	started := make(chan sandbox.Config, 2)
	finish := make(chan sandbox.Report)
	runSelfTest = func(cfg sandbox.Config) sandbox.Report {
		started <- cfg
		return <-finish
	}
	cat := &registry.Catalog{Source: "test", SchemaVersion: 1, Operations: []registry.Operation{{
		ID: "t.sandboxed", Title: "sandboxed", Description: "needs the sandbox", ProductLane: "platform", SideEffectClass: "spawns_process",
		MCP: &registry.MCP{Name: "vox_test_sandboxed", Exposure: "core", Requires: []string{registry.RequireSandbox}, InputSchema: json.RawMessage(`{"type":"object"}`)},
	}}}
	table := func(*Services) map[string]toolcall.Handler {
		return map[string]toolcall.Handler{"vox_test_sandboxed": func(*toolcall.Call, json.RawMessage) ([]byte, error) { return []byte(`{"ran":true}`), nil }}
	}
	start := func(cfg sandbox.Config) *Server {
		t.Helper()
		s, err := New(Options{Root: t.TempDir(), Catalog: cat, Handlers: table, SkillSandbox: cfg,
			Skills: &skills.Config{Roots: []string{t.TempDir()}}})
		if err != nil {
			t.Fatal(err)
		}
		rpc(t, s, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
		if _, ok := listedTools(t, s)["vox_test_sandboxed"]; !ok {
			t.Fatal("the tool is not listed")
		}
		if err := s.WaitWorkspace(context.Background()); err != nil {
			t.Fatal(err)
		}
		return s
	}
	// A configuration of its own: the self-test is memoized per process
	// and configuration.
	failing := sandbox.Config{CgroupRoot: t.TempDir()}
	s := start(failing)
	if sandboxSelfTestStarted(failing) {
		t.Fatal("the self-test started with the server")
	}
	answer := make(chan string, 1)
	go func() {
		b, _ := json.Marshal(s.MCP().HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"vox_test_sandboxed","arguments":{}}}`)))
		answer <- string(b)
	}()
	if got := <-started; got != failing {
		t.Fatalf("the self-test ran with %+v", got)
	}
	select {
	case got := <-answer:
		t.Fatalf("the call answered before the self-test ended: %s", got)
	default:
	}
	finish <- sandbox.Report{Err: errors.New("sandbox: unshare: operation not permitted")}
	text, isErr, _ := toolResult(t, decode(t, <-answer))
	if !isErr || !strings.Contains(text, "requirement sandbox not met: the sandbox self-test failed on this host (sandbox: unshare: operation not permitted)") {
		t.Errorf("call with a failed self-test = %v %q", isErr, text)
	}
	// The outcome is kept: the next call does not run it again.
	text, isErr, _ = toolResult(t, callTool(t, s, "vox_test_sandboxed", `{}`))
	if !isErr || !strings.Contains(text, "requirement sandbox not met") {
		t.Errorf("second call = %v %q", isErr, text)
	}

	passing := sandbox.Config{CgroupRoot: t.TempDir()}
	s = start(passing)
	go func() {
		<-started
		finish <- sandbox.Report{}
	}()
	if text, isErr, _ := toolResult(t, callTool(t, s, "vox_test_sandboxed", `{}`)); isErr || text != `{"ran":true}` {
		t.Errorf("call with a passing self-test = %v %q", isErr, text)
	}

	// Without a call it starts in the background once start-up is over.
	sandboxSelfTestDelay = 0
	idle := sandbox.Config{CgroupRoot: t.TempDir()}
	start(idle)
	if got := <-started; got != idle {
		t.Fatalf("the background self-test ran with %+v", got)
	}
	finish <- sandbox.Report{}
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatal(err)
	}
	return out
}
