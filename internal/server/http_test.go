package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/runtime/registry"
)

const initializeBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

// httpClient speaks the legacy (2025-06-18) streamable HTTP protocol to one
// endpoint with one token and, after initialize, its session id.
type httpClient struct {
	t       *testing.T
	url     string
	token   string
	session string
}

type httpReply struct {
	status int
	header http.Header
	body   []byte
}

// json decodes a JSON-RPC response body (application/json or one SSE event).
func (r httpReply) json(t *testing.T) map[string]any {
	t.Helper()
	body := r.body
	if strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
		for line := range strings.SplitSeq(string(body), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				body = []byte(data)
			}
		}
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("status %d, body %q: %v", r.status, r.body, err)
	}
	return out
}

func (c *httpClient) do(method, body string, header ...string) httpReply {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if h := req.Header.Get("Host"); h != "" {
		req.Host = h
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return httpReply{status: resp.StatusCode, header: resp.Header, body: b}
}

// initialize runs the handshake and keeps the minted session id.
func (c *httpClient) initialize() {
	c.t.Helper()
	r := c.do(http.MethodPost, initializeBody)
	if r.status != http.StatusOK {
		c.t.Fatalf("initialize: status %d %s", r.status, r.body)
	}
	c.session = r.header.Get("Mcp-Session-Id")
	if c.session == "" {
		c.t.Fatal("initialize minted no Mcp-Session-Id")
	}
	c.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func (c *httpClient) rpc(body string) map[string]any {
	c.t.Helper()
	r := c.do(http.MethodPost, body)
	if r.status != http.StatusOK {
		c.t.Fatalf("%s: status %d %s", body, r.status, r.body)
	}
	return r.json(c.t)
}

func (c *httpClient) call(name string) (text string, isError bool) {
	c.t.Helper()
	text, isError, _ = toolResult(c.t, c.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":%q,"arguments":{"query":"tool"}}}`, name)))
	return text, isError
}

// roleCatalog is the test catalog: vox_tool_search is read-role eligible,
// the test tools are not.
func roleCatalog() *registry.Catalog { return testCatalog() }

// macroSource contributes one skill macro tool.
type macroSource struct{}

func (macroSource) toolEntries() []toolEntry {
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("macro ran")}}, nil
	}
	return []toolEntry{{tool: mcp.Tool{Name: "skill_macro", Description: "a macro", RawInputSchema: json.RawMessage(`{"type":"object"}`)}, source: registry.SourceSkill, handler: h}}
}

func newRoleServer(t *testing.T) *Server {
	t.Helper()
	// A workspace prompt and a resource template written in Vox, besides
	// the fixed prompts below.
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "prompts.vox"), []byte("@mcp.prompt(\"Vox\")\nfn vox_prompt(q: str) to str { q }\n"+
		"@mcp.resource(\"vox://notes/{id}\", \"Note\")\nfn note(id: str) to str { id }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Root: root, Catalog: roleCatalog(), Handlers: testTable})
	if err != nil {
		t.Fatal(err)
	}
	// The first workspace scan reads s.sources: let it finish first.
	s.WaitWorkspace(context.Background())
	s.sources = append(s.sources, hiddenSource{}, macroSource{})
	if err := s.syncTools(); err != nil {
		t.Fatal(err)
	}
	s.promptSources = append(s.promptSources, fixedPrompts{
		{prompt: mcp.Prompt{Name: "workspace-prompt", Description: "w"}, source: registry.SourceWorkspace, handler: textPrompt("from the workspace")},
		{prompt: mcp.Prompt{Name: "skill-prompt", Description: "s"}, source: registry.SourceSkill, handler: textPrompt("from a skill")},
	})
	s.syncPrompts()
	return s
}

// fixedPrompts contributes the same prompts on every sync.
type fixedPrompts []promptEntry

func (f fixedPrompts) promptEntries() []promptEntry { return f }

func textPrompt(text string) mcpserver.PromptHandlerFunc {
	return func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))}}, nil
	}
}

func TestCheckListenAddr(t *testing.T) {
	token := Auth{Token: "t"}
	readOnly := Auth{ReadToken: "r"}
	cases := []struct {
		addr string
		auth Auth
		ok   bool
	}{
		{"127.0.0.1:8080", Auth{}, true},
		{"127.9.8.7:0", Auth{}, true},
		{"localhost:8080", Auth{}, true},
		{"LocalHost:8080", Auth{}, true},
		{"[::1]:8080", Auth{}, true},
		{"[::ffff:127.0.0.1]:8080", Auth{}, true},
		{":8080", Auth{}, false},
		{"0.0.0.0:8080", Auth{}, false},
		{"[::]:8080", Auth{}, false},
		{"10.1.2.3:8080", Auth{}, false},
		{"example.com:8080", Auth{}, false},
		{"localhost.example.com:8080", Auth{}, false},
		{"128.0.0.1:8080", Auth{}, false},
		{":8080", token, true},
		{"0.0.0.0:8080", readOnly, true},
		{"127.0.0.1", Auth{}, false}, // no port
	}
	for _, c := range cases {
		err := CheckListenAddr(c.addr, c.auth)
		if (err == nil) != c.ok {
			t.Errorf("CheckListenAddr(%q, tokens=%v) = %v, want ok=%v", c.addr, c.auth.Enabled(), err, c.ok)
		}
	}
	err := CheckListenAddr(":8080", Auth{})
	for _, want := range []string{"refusing to listen on :8080 (every interface) without a token", "not a loopback address", EnvToken, EnvReadToken, "127.0.0.1:8080"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %v does not say %q", err, want)
		}
	}
}

func TestHTTPRequiresBearerToken(t *testing.T) {
	s := newServer(t, nil)
	ts := httptest.NewServer(s.HTTPHandler(Auth{Token: "full-secret", ReadToken: "read-secret"}))
	defer ts.Close()

	// A bearer token that was presented and refused is invalid_token
	// (RFC 6750 §3.1); a request without one gets the bare challenge.
	const invalid = `Bearer error="invalid_token"`
	for _, c := range []struct{ name, header, challenge string }{
		{"no header", "", "Bearer"},
		{"wrong token", "Bearer nope", invalid},
		{"token prefix", "Bearer full-secre", invalid},
		{"token with suffix", "Bearer full-secretX", invalid},
		{"basic scheme", "Basic full-secret", "Bearer"},
		{"no scheme", "full-secret", "Bearer"},
	} {
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			cl := &httpClient{t: t, url: ts.URL}
			var r httpReply
			if c.header == "" {
				r = cl.do(method, initializeBody)
			} else {
				r = cl.do(method, initializeBody, "Authorization", c.header)
			}
			if r.status != http.StatusUnauthorized || r.header.Get("WWW-Authenticate") != c.challenge {
				t.Errorf("%s, %s: status %d, WWW-Authenticate %q; want 401 and %s", c.name, method, r.status, r.header.Get("WWW-Authenticate"), c.challenge)
			}
		}
	}
	for _, token := range []string{"full-secret", "read-secret"} {
		cl := &httpClient{t: t, url: ts.URL, token: token}
		cl.initialize()
		if resp := cl.rpc(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); resp["result"] == nil {
			t.Errorf("ping with %s: %v", token, resp)
		}
	}
	// The scheme is case-insensitive (RFC 7235).
	cl := &httpClient{t: t, url: ts.URL}
	if r := cl.do(http.MethodPost, initializeBody, "Authorization", "bearer full-secret"); r.status != http.StatusOK {
		t.Errorf("lowercase scheme: status %d", r.status)
	}

	// Without tokens every request has full access (loopback only).
	open := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer open.Close()
	oc := &httpClient{t: t, url: open.URL}
	oc.initialize()
	if text, isErr := oc.call("vox_tool_search"); isErr {
		t.Errorf("no tokens: %s", text)
	}
}

func TestReadRole(t *testing.T) {
	s := newRoleServer(t)
	reader, full := roleClients(t, s)

	// Listing shows everything, also what the role may not call.
	tools := reader.rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)["result"].(map[string]any)["tools"].([]any)
	if len(tools) < 5 {
		t.Fatalf("the read role lists %d tools", len(tools))
	}
	if text, isErr := reader.call("vox_tool_search"); isErr {
		t.Errorf("eligible tool denied to the read role: %s", text)
	}
	for _, name := range []string{"vox_test_ws", "vox_test_fail", "open_tool", "secret_tool", "skill_macro"} {
		text, isErr := reader.call(name)
		if want := "read role may not call " + name + ": use a full-access token"; !isErr || text != want {
			t.Errorf("read role calling %s: isError=%v %q, want %q", name, isErr, text, want)
		}
		if text, isErr := full.call(name); isErr && strings.Contains(text, "read role") {
			t.Errorf("full access calling %s: %s", name, text)
		}
	}

	allowed := []string{
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":4,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":5,"method":"resources/templates/list"}`,
		`{"jsonrpc":"2.0","id":6,"method":"prompts/list"}`,
		`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"skill://index.json"}}`,
		`{"jsonrpc":"2.0","id":16,"method":"logging/setLevel","params":{"level":"debug"}}`,
		`{"jsonrpc":"2.0","id":17,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"skill-prompt"},"argument":{"name":"task","value":""}}}`,
		`{"jsonrpc":"2.0","id":18,"method":"prompts/get","params":{"name":"skill-prompt"}}`,
		`{"jsonrpc":"2.0","id":19,"method":"resources/subscribe","params":{"uri":"skill://index.json"}}`,
		`{"jsonrpc":"2.0","id":20,"method":"resources/unsubscribe","params":{"uri":"skill://index.json"}}`,
		// A principal sees only its own tasks (docs/tasks.md).
		`{"jsonrpc":"2.0","id":21,"method":"tasks/list"}`,
		`{"jsonrpc":"2.0","id":26,"method":"tasks/get","params":{"taskId":"t"}}`,
	}
	for _, body := range allowed {
		resp := reader.rpc(body)
		if e, ok := resp["error"].(map[string]any); ok && strings.Contains(fmt.Sprint(e["message"]), "read role") {
			t.Errorf("%s denied to the read role: %v", body, e)
		}
	}
	denied := map[string]string{
		`{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"vox://notes/today"}}`:                                                                        "read role may not read vox://notes/today: use a full-access token",
		`{"jsonrpc":"2.0","id":9,"method":"resources/subscribe","params":{"uri":"vox://notes/today"}}`:                                                                   "read role may not subscribe vox://notes/today: use a full-access token",
		`{"jsonrpc":"2.0","id":10,"method":"prompts/get","params":{"name":"workspace-prompt"}}`:                                                                          "read role may not get prompt workspace-prompt: use a full-access token",
		`{"jsonrpc":"2.0","id":11,"method":"prompts/get","params":{"name":"x"}}`:                                                                                         "read role may not get prompt x: use a full-access token",
		`{"jsonrpc":"2.0","id":22,"method":"prompts/get","params":{"name":"vox_prompt","arguments":{"q":"hi"}}}`:                                                         "read role may not get prompt vox_prompt: use a full-access token",
		`{"jsonrpc":"2.0","id":12,"method":"vox/unknown","params":{"taskId":"t"}}`:                                                                                       "read role may not call vox/unknown: use a full-access token",
		`{"jsonrpc":"2.0","id":13,"METHOD":"prompts/get","params":{"name":"workspace-prompt"}}`:                                                                          "read role may not get prompt workspace-prompt: use a full-access token",
		`{"jsonrpc":"2.0","id":14,"method":"ping","method":"prompts/get","params":{"name":"workspace-prompt"}}`:                                                          "read role may not get prompt workspace-prompt: use a full-access token",
		`{"jsonrpc":"2.0","id":15,"method":"resources/read","params":{"uri":"skill://x","URI":"file:///x"}}`:                                                             "read role may not read file:///x: use a full-access token",
		`{"jsonrpc":"2.0","id":23,"method":"resources/read","params":{"uri":"vox://notes/abc"}}`:                                                                         "read role may not read vox://notes/abc: use a full-access token",
		`{"jsonrpc":"2.0","id":24,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"vox_prompt"},"argument":{"name":"q","value":""}}}`:         "read role may not complete workspace prompt vox_prompt: use a full-access token",
		`{"jsonrpc":"2.0","id":25,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"vox://notes/{id}"},"argument":{"name":"id","value":""}}}`: "read role may not complete workspace resource vox://notes/{id}: use a full-access token",
	}
	for body, want := range denied {
		resp := reader.rpc(body)
		e, ok := resp["error"].(map[string]any)
		if !ok || e["message"] != want || e["code"] != float64(mcp.INVALID_REQUEST) {
			t.Errorf("%s: %v, want error -32600 %q", body, resp, want)
		}
		if e, ok := full.rpc(body)["error"].(map[string]any); ok && strings.Contains(fmt.Sprint(e["message"]), "read role") {
			t.Errorf("%s refused with full access: %v", body, e)
		}
	}

	// The read role lists the skill prompts only.
	var prompts []string
	for _, p := range reader.rpc(`{"jsonrpc":"2.0","id":21,"method":"prompts/list"}`)["result"].(map[string]any)["prompts"].([]any) {
		prompts = append(prompts, p.(map[string]any)["name"].(string))
	}
	if fmt.Sprint(prompts) != "[skill-prompt]" {
		t.Errorf("the read role lists prompts %v", prompts)
	}

	// Full access lists and gets the Vox prompt.
	if got := fmt.Sprint(full.rpc(`{"jsonrpc":"2.0","id":23,"method":"prompts/get","params":{"name":"vox_prompt","arguments":{"q":"hi"}}}`)["result"]); !strings.Contains(got, "text:hi") {
		t.Errorf("full access getting vox_prompt: %s", got)
	}

	// stdio and in-process requests carry no role: full access.
	if text, isErr, _ := toolResult(t, callTool(t, s, "vox_test_ws", `{}`)); isErr {
		t.Errorf("in-process call: %s", text)
	}
}

// TestSessionIDsWorkOnEveryInstance: instances sharing a session key
// (VOX_MCP_SESSION_KEY) accept each other's ids without shared state; an
// instance with another key (or none) refuses them with 404.
func TestSessionIDsWorkOnEveryInstance(t *testing.T) {
	key := Options{SessionKeys: [][]byte{testSessionKey}}
	a := httptest.NewServer(newKeyedServer(t, key).HTTPHandler(Auth{}))
	defer a.Close()
	b := httptest.NewServer(newKeyedServer(t, key).HTTPHandler(Auth{}))
	defer b.Close()
	alone := httptest.NewServer(newServer(t, nil).HTTPHandler(Auth{}))
	defer alone.Close()
	cl := &httpClient{t: t, url: a.URL}
	cl.initialize()
	cl.url = b.URL // a load balancer sent the next request elsewhere
	if text, isErr := cl.call("vox_tool_search"); isErr {
		t.Fatalf("instance b refused a session minted by instance a: %s", text)
	}
	if resp := cl.rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp["result"] == nil {
		t.Fatalf("tools/list on instance b: %v", resp)
	}
	cl.url = alone.URL
	if r := cl.do(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.status != http.StatusNotFound || !strings.Contains(string(r.body), "not issued by this server") {
		t.Fatalf("an instance with its own key: %d %s", r.status, r.body)
	}
}

func TestDNSRebindingProtectionStaysOn(t *testing.T) {
	ts := httptest.NewServer(newServer(t, nil).HTTPHandler(Auth{Token: "t"}))
	defer ts.Close()
	cl := &httpClient{t: t, url: ts.URL, token: "t"}
	if r := cl.do(http.MethodPost, initializeBody, "Host", "attacker.example"); r.status != http.StatusForbidden {
		t.Errorf("a loopback request with Host attacker.example: status %d, want 403", r.status)
	}
	if r := cl.do(http.MethodPost, initializeBody, "Host", "localhost"); r.status != http.StatusOK {
		t.Errorf("Host localhost: status %d", r.status)
	}
}

func TestListenAndServeHTTP(t *testing.T) {
	// The logger goes in through Options: New starts the first workspace
	// scan, which logs from its own goroutine, so the server's logger
	// cannot be swapped afterwards; the logs are read once that scan and
	// the listener are done.
	var logs bytes.Buffer
	logger, _ := NewLogger(&logs, "info")
	s, err := New(Options{Root: t.TempDir(), Catalog: testCatalog(), Handlers: testTable, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WaitWorkspace(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.ListenAndServeHTTP(context.Background(), HTTPOptions{Addr: ":0"}); err == nil || !strings.Contains(err.Error(), "refusing to listen") {
		t.Fatalf("listening on every interface without a token: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- s.ListenAndServeHTTP(ctx, HTTPOptions{Addr: "127.0.0.1:0", Ready: func(a net.Addr) { ready <- a }})
	}()
	var addr net.Addr
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("server stopped: %v", err)
	}
	cl := &httpClient{t: t, url: "http://" + addr.String() + EndpointPath}
	cl.initialize()
	if text, isErr := cl.call("vox_tool_search"); isErr {
		t.Fatalf("call over a real listener: %s", text)
	}
	// Only the endpoint path serves MCP.
	other := &httpClient{t: t, url: "http://" + addr.String() + "/other"}
	if r := other.do(http.MethodPost, initializeBody); r.status != http.StatusNotFound {
		t.Errorf("POST /other: status %d", r.status)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the server did not stop after its context ended")
	}
	if !strings.Contains(logs.String(), "url=http://"+addr.String()+"/mcp") {
		t.Errorf("the log does not give the URL: %s", logs.String())
	}
	if conn, err := net.Dial("tcp", addr.String()); err == nil {
		conn.Close()
		t.Error("the listener is still open after shutdown")
	}
}

// A read of a URI that no resource is registered for is resource-not-found
// naming the URI in data.uri, which mcp-go never sets; a registered
// resource still reads.
func TestUnknownResourceNamesItsURI(t *testing.T) {
	s := workspaceServer(t, Options{}, map[string]string{"tools/notes.vox": "@resource(\"notes://today\", \"Today\")\nfn today() to str { \"none\" }\n"})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	c := &httpClient{t: t, url: ts.URL}
	c.initialize()
	r := c.rpc(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"notes://tomorrow"}}`)
	e, _ := r["error"].(map[string]any)
	if e == nil || e["code"] != float64(mcp.RESOURCE_NOT_FOUND) || fmt.Sprint(e["data"]) != "map[uri:notes://tomorrow]" {
		t.Errorf("unknown resource: %v", r)
	}
	if r := c.rpc(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"notes://today"}}`); r["result"] == nil {
		t.Errorf("registered resource: %v", r)
	}
}
