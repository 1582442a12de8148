package server

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/session"
	"github.com/vox-lang/vox-mcp/runtime/registry"
)

// TestCallStepsOrder pins the one ordered list of the checks on a call
// (call_checks.go): a step moved or dropped changes which refusal a
// client sees first.
func TestCallStepsOrder(t *testing.T) {
	var names []string
	for _, s := range callSteps {
		names = append(names, s.name)
	}
	want := "role, client capability, input state, allowlist, requirements"
	if got := strings.Join(names, ", "); got != want {
		t.Errorf("callSteps = %s, want %s", got, want)
	}
}

// TestCallSteps makes each step refuse a call that only it refuses, and
// checks the refusal names that step and has the form the protocol
// wants: a JSON-RPC error for the client capability (-32021) and the
// input state (-32602), an error result for the others.
func TestCallSteps(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/ask.vox": askVox})
	bg := context.Background()
	caps := map[string]any{"elicitation": map[string]any{}}
	modern := func(meta map[string]any, state string) toolCall {
		return toolCall{name: "ask_named", modern: true, params: &callParams{Name: "ask_named",
			Arguments: []byte(`{"message":"Who?"}`), RequestState: state, Meta: meta}}
	}
	allowOther := context.WithValue(bg, requestSkillKey{}, &requestSkill{named: true,
		skill: session.ActiveSkill{ID: "sk", Name: "sk", Tools: []string{"other_tool"}}})
	needsNetwork := toolCall{name: "net_tool", entry: &toolEntry{op: &registry.Operation{MCP: &registry.MCP{Requires: []string{registry.RequireNetwork}}}}}
	for _, tc := range []struct {
		step string
		ctx  context.Context
		call toolCall
		code int    // the JSON-RPC error's, 0 for an error result
		text string // in the refusal's text
	}{
		{"role", withRole(bg, roleRead), modern(map[string]any{mcp.MetaKeyClientCapabilities: caps}, ""), 0, "read role may not call ask_named"},
		{"client capability", bg, modern(nil, ""), mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, "needs the client capabilities elicitation"},
		{"input state", bg, modern(map[string]any{mcp.MetaKeyClientCapabilities: caps}, "forged"), mcp.INVALID_PARAMS, "requestState: "},
		{"allowlist", allowOther, toolCall{name: "ask_named"}, 0, "ask_named"},
		{"requirements", bg, needsNetwork, 0, "requirement network not met"},
	} {
		t.Run(tc.step, func(t *testing.T) {
			r := s.checkCall(tc.ctx, tc.call)
			if r == nil {
				t.Fatal("the call passed every step")
			}
			if r.step != tc.step {
				t.Errorf("refused by %q (%s), want %q", r.step, r.resultText(), tc.step)
			}
			code := 0
			if r.rpc != nil {
				code = r.rpc.Code
			}
			if code != tc.code || !strings.Contains(r.resultText(), tc.text) {
				t.Errorf("refusal = code %d %q, want code %d containing %q", code, r.resultText(), tc.code, tc.text)
			}
		})
	}
	// The same call with what each step asks for passes them all.
	if r := s.checkCall(bg, modern(map[string]any{mcp.MetaKeyClientCapabilities: caps}, "")); r != nil {
		t.Errorf("a call meeting every step was refused by %s: %s", r.step, r.resultText())
	}
}

// countDecodes counts the decodes (decodeHook) of bytes holding marker
// while f runs: the decodes of one call, whose arguments hold it. The
// server's tests run one at a time.
func countDecodes(t *testing.T, marker string, f func()) map[string]int {
	t.Helper()
	var mu sync.Mutex
	counts := map[string]int{}
	hook := func(what string, data []byte) {
		if bytes.Contains(data, []byte(marker)) {
			mu.Lock()
			counts[what]++
			mu.Unlock()
		}
	}
	decodeHook.Store(&hook)
	defer decodeHook.Store(nil)
	f()
	return counts
}

// TestToolCallDecodedOnce: a tools/call is decoded once on its way to
// mcp-go — its head once (decodeHead, a scan that allocates nothing) and
// its params once, for every look of the transport and every check: by
// mcp-go alone over HTTP in a session and over stdio, where the checks
// run on mcp-go's decode, and by the shim (decodeCallParams) for a
// sessionless call of 2026-07-28, whose _meta the checks read
// (capabilities, the active skill) before mcp-go.
func TestToolCallDecodedOnce(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/ask.vox": askVox})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	t.Cleanup(ts.Close)
	c := &httpClient{t: t, url: ts.URL}
	c.initialize()
	counts := countDecodes(t, "Who?", func() {
		text, isErr, _ := toolResult(t, c.rpc(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"vox_tool_search","arguments":{"query":"Who?"}}}`))
		if isErr {
			t.Fatalf("session call failed: %s", text)
		}
	})
	if want := map[string]int{"head": 1}; !equalCounts(counts, want) {
		t.Errorf("HTTP session call: decodes %v, want %v (the head, and the params by mcp-go alone)", counts, want)
	}

	counts = countDecodes(t, "Who?", func() {
		r := modernPostRaw(t, ts.URL, "tools/call", "ask_named", `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",`+
			`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"},`+
			`"io.github.vox-lang/activeSkill":""},"name":"ask_named","arguments":{"message":"Who?"}`)
		if r["result"] == nil {
			t.Fatalf("2026-07-28 call: %v", r)
		}
	})
	if want := map[string]int{"head": 1, "call": 1}; !equalCounts(counts, want) {
		t.Errorf("HTTP 2026-07-28 call: decodes %v, want %v", counts, want)
	}

	// Without the Mcp-Protocol-Version header a 2026-07-28 call is known
	// by its _meta, read in the same decode as the checks' params (mcp-go
	// then refuses it for the missing header, -32020).
	counts = countDecodes(t, "Who?", func() {
		body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}},` +
			`"name":"ask_named","arguments":{"message":"Who?"}}}`
		resp, err := http.Post(ts.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(b.String(), `-32020`) {
			t.Fatalf("2026-07-28 call without the header: %d %s", resp.StatusCode, b.String())
		}
	})
	if want := map[string]int{"head": 1, "call": 1}; !equalCounts(counts, want) {
		t.Errorf("HTTP 2026-07-28 call known by its _meta: decodes %v, want %v", counts, want)
	}

	var out bytes.Buffer
	counts = countDecodes(t, "Who?", func() {
		in := strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"vox_tool_search","arguments":{"query":"Who?"}}}` + "\n")
		if err := s.ServeStdio(context.Background(), in, &out); err != nil {
			t.Fatal(err)
		}
	})
	if !strings.Contains(out.String(), `"id":1`) {
		t.Fatalf("stdio: no answer to the call: %s", out.String())
	}
	if want := map[string]int{"head": 1}; !equalCounts(counts, want) {
		t.Errorf("stdio call: decodes %v, want %v (the head, and the params by mcp-go alone)", counts, want)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}
