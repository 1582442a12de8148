package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/sandbox"
	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// logWatch is a log that tells when a line holding a text was written.
type logWatch struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *logWatch) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	if w.want != "" && strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(b), nil
}

func (w *logWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestSandboxToolsListedOnlyWhereTheyRun: a tool that requires the
// sandbox is listed — by the prepared tools/list and by mcp-go's — only
// where it can run: not on a system without a sandbox, not once the
// self-test failed (found by a call or in the background), not with
// VOX_SKILL_SANDBOX=off where running unisolated is not supported either;
// it is listed with the opt-out where that works. The reason is in the
// log and in what vox_skill_discover reports (SkillRunUnavailable), and
// a call by name still answers it.
func TestSandboxToolsListedOnlyWhereTheyRun(t *testing.T) {
	prevRun, prevDelay, prevSup, prevUnis := runSelfTest, sandboxSelfTestDelay, sandboxSupported, unisolatedSupported
	t.Cleanup(func() {
		runSelfTest, sandboxSelfTestDelay, sandboxSupported, unisolatedSupported = prevRun, prevDelay, prevSup, prevUnis
	})
	sandboxSelfTestDelay = time.Hour // only a call starts it, unless a case says otherwise
	var selfTests sync.Map           // sandbox.Config -> bool: the self-test ran
	failed := errors.New("sandbox: self-test: no network: did not hold: the command connected")
	runSelfTest = func(cfg sandbox.Config) sandbox.Report {
		selfTests.Store(cfg, true)
		if strings.HasSuffix(cfg.CgroupRoot, "pass") {
			return sandbox.Report{}
		}
		return sandbox.Report{Err: failed}
	}
	cat := &registry.Catalog{Source: "test", SchemaVersion: 1, Operations: []registry.Operation{
		{ID: "t.sandboxed", Title: "sandboxed", Description: "needs the sandbox", ProductLane: "platform", SideEffectClass: "spawns_process",
			MCP: &registry.MCP{Name: "vox_test_sandboxed", Exposure: "core", Requires: []string{registry.RequireSandbox}, InputSchema: json.RawMessage(`{"type":"object"}`)}},
		{ID: "t.plain", Title: "plain", Description: "needs nothing", ProductLane: "platform", SideEffectClass: "read_only",
			MCP: &registry.MCP{Name: "vox_test_plain", Exposure: "core", InputSchema: json.RawMessage(`{"type":"object"}`)}},
	}}
	table := func(*Services) map[string]toolcall.Handler {
		ran := func(*toolcall.Call, json.RawMessage) ([]byte, error) { return []byte(`{"ran":true}`), nil }
		return map[string]toolcall.Handler{"vox_test_sandboxed": ran, "vox_test_plain": ran}
	}
	start := func(t *testing.T, off bool, outcome string, log *logWatch) (*Server, sandbox.Config) {
		t.Helper()
		cfg := sandbox.Config{CgroupRoot: t.TempDir() + "/" + outcome} // its own memoized self-test
		s, err := New(Options{Root: t.TempDir(), Catalog: cat, Handlers: table, SkillSandbox: cfg, SkillSandboxOff: off,
			Skills: &skills.Config{Roots: []string{t.TempDir()}}, Logger: slog.New(slog.NewTextHandler(log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		rpc(t, s, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
		return s, cfg
	}
	const list = `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`
	// listed checks both answers to tools/list: the prepared one and
	// mcp-go's (a request with _meta is never prepared).
	listed := func(t *testing.T, s *Server, want bool) {
		t.Helper()
		prepared := preparedAnswer(t, s, list)
		if prepared == "" {
			t.Fatal("a plain tools/list was not answered from the prepared list")
		}
		mcpGo := rpc(t, s, `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"x":1}}}`)
		names := map[string]bool{}
		for _, tl := range mcpGo["result"].(map[string]any)["tools"].([]any) {
			names[tl.(map[string]any)["name"].(string)] = true
		}
		if got := strings.Contains(prepared, `"name":"vox_test_sandboxed"`); got != want {
			t.Errorf("prepared tools/list lists vox_test_sandboxed: %v, want %v", got, want)
		}
		if names["vox_test_sandboxed"] != want {
			t.Errorf("mcp-go's tools/list lists vox_test_sandboxed: %v, want %v", names["vox_test_sandboxed"], want)
		}
		if !strings.Contains(prepared, `"name":"vox_test_plain"`) || !names["vox_test_plain"] {
			t.Error("vox_test_plain is not listed")
		}
	}
	refused := func(t *testing.T, s *Server, want string) {
		t.Helper()
		text, isErr, _ := toolResult(t, callTool(t, s, "vox_test_sandboxed", `{}`))
		if !isErr || !strings.HasPrefix(text, "requirement sandbox not met: ") || !strings.Contains(text, want) {
			t.Errorf("call = %v %q, want a refusal with %q", isErr, text, want)
		}
		if got := s.Services().SkillRunUnavailable(); !strings.Contains(got, want) {
			t.Errorf("SkillRunUnavailable() = %q, want %q", got, want)
		}
	}

	t.Run("self-test fails on a call", func(t *testing.T) {
		log := &logWatch{}
		s, cfg := start(t, false, "fail", log)
		listed(t, s, true) // not known yet: the self-test is off the start-up path
		refused(t, s, "the sandbox self-test failed on this host ("+failed.Error()+")")
		listed(t, s, false)
		if !strings.Contains(log.String(), "vox_skill_run is no longer listed: the sandbox self-test failed on this host") {
			t.Errorf("the log does not say why:\n%s", log)
		}
		if ran, _ := selfTests.Load(cfg); ran != true {
			t.Error("the self-test did not run")
		}
	})
	t.Run("self-test fails in the background", func(t *testing.T) {
		sandboxSelfTestDelay = 0
		defer func() { sandboxSelfTestDelay = time.Hour }()
		log := &logWatch{want: "vox_skill_run is no longer listed", seen: make(chan struct{})}
		s, _ := start(t, false, "fail", log)
		if err := s.WaitWorkspace(context.Background()); err != nil {
			t.Fatal(err)
		}
		<-log.seen
		listed(t, s, false)
		refused(t, s, "the sandbox self-test failed on this host")
	})
	t.Run("self-test passes", func(t *testing.T) {
		s, _ := start(t, false, "pass", &logWatch{})
		if got := s.Services().SkillRunUnavailable(); got != "" {
			t.Errorf("SkillRunUnavailable() = %q", got)
		}
		listed(t, s, true)
	})
	t.Run("VOX_SKILL_SANDBOX=off", func(t *testing.T) {
		s, cfg := start(t, true, "fail", &logWatch{})
		listed(t, s, true)
		if text, isErr, _ := toolResult(t, callTool(t, s, "vox_test_sandboxed", `{}`)); isErr || text != `{"ran":true}` {
			t.Errorf("call with the opt-out = %v %q", isErr, text)
		}
		if _, ran := selfTests.Load(cfg); ran {
			t.Error("the self-test ran with the opt-out")
		}
		if !strings.Contains(s.Services().SkillRunAdvice(), "fix the host's sandbox support (docs/sandbox.md") {
			t.Errorf("with the opt-out chosen, the advice is %q", s.Services().SkillRunAdvice())
		}
	})
	t.Run("no sandbox on this system", func(t *testing.T) {
		sandboxSupported = func() error {
			return errors.New("sandbox: skill commands run isolated on Linux, macOS and Windows only, this is plan9")
		}
		defer func() { sandboxSupported = prevSup }()
		log := &logWatch{}
		s, cfg := start(t, false, "pass", log)
		listed(t, s, false)
		refused(t, s, "this is plan9")
		if _, ran := selfTests.Load(cfg); ran {
			t.Error("the self-test ran on a system without a sandbox")
		}
		if !strings.Contains(log.String(), "vox_skill_run is not listed: sandbox: skill commands run isolated on Linux, macOS and Windows only") {
			t.Errorf("the log does not say why:\n%s", log)
		}
		if advice := s.Services().SkillRunAdvice(); !strings.Contains(advice, "VOX_SKILL_SANDBOX=off") {
			t.Errorf("where the opt-out works, the advice is %q", advice)
		}
	})
	t.Run("off where unisolated runs are not supported", func(t *testing.T) {
		sandboxSupported = func() error { return errors.New("sandbox: no sandbox here") }
		unisolatedSupported = func() bool { return false }
		defer func() { sandboxSupported, unisolatedSupported = prevSup, prevUnis }()
		s, _ := start(t, true, "pass", &logWatch{})
		listed(t, s, false)
		refused(t, s, "VOX_SKILL_SANDBOX=off, but this system cannot run skill commands without isolation either")
		sandboxSupported = prevSup // a system with a sandbox, whose self-test fails
		s2, _ := start(t, false, "fail", &logWatch{})
		if advice := s2.Services().SkillRunAdvice(); strings.Contains(advice, "VOX_SKILL_SANDBOX=off") {
			t.Errorf("the advice names the opt-out where it does not work: %q", advice)
		}
		if why := s2.Services().SkillRunUnavailable(); !strings.Contains(why, "the sandbox self-test failed") || strings.Contains(why, "VOX_SKILL_SANDBOX=off") {
			t.Errorf("the reason advises the opt-out where it does not work: %q", why)
		}
	})
}
