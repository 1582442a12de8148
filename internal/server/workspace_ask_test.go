package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

const askVox = `@tool "Asks the user, then the model"
fn ask_both(message: str) to str {
    progress(1, 3, "before")
    let r = elicit(message, {
        type: "object",
        properties: {
            name: {type: "string", description: "Your name"},
            age: {type: "integer", default: 30},
            color: {type: "string", oneOf: [{const: "r", title: "Red"}, {const: "g", title: "Green"}]},
        },
        required: ["name"],
    })
    progress(2, 3, "asked")
    if r["action"] != "accept" { return "no: " + r["action"] }
    let s = sample([{role: "user", content: "greet " + r["content"]["name"]}], 50, "be brief")
    progress(3, 3, "sampled")
    format("{} {} {} {} {}", r["action"], json.stringify(r["content"]), s["text"], s["model"], s["stop_reason"])
}

@tool "Asks with a message that changes every time"
fn ask_clock(message: str) to str {
    let r = elicit("your ticket is " + crypto.uuid(), {type: "object", properties: {ok: {type: "boolean"}}})
    r["action"]
}

@tool "Asks under a key of its own"
fn ask_named(message: str) to str {
    let r = elicit(message, {type: "object", properties: {name: {type: "string"}}, required: ["name"]}, "user_name")
    "Hello, " + r["content"]["name"] + "!"
}

@tool "Lists the client's roots"
fn ask_roots(message: str) to str {
    "roots: " + json.stringify(roots("client_roots"))
}

@tool "Asks the user, the model and for the roots at once"
fn ask_three(message: str) to str {
    let a = ask_all({
        user_name: {elicit: "What is your name?", schema: {type: "object", properties: {name: {type: "string"}}, required: ["name"]}},
        greeting: {sample: "Generate a greeting", max_tokens: 50},
        client_roots: {roots: true},
    })
    format("{} / {} / {}", a["user_name"]["content"]["name"], a["greeting"]["text"], len(a["client_roots"]))
}

@tool "Asks only what the client can answer"
fn ask_caps(message: str) to str {
    let reqs = {}
    if client_has("elicitation") { reqs["user_name"] = {elicit: "Name?", schema: {type: "object", properties: {name: {type: "string"}}}} }
    if client_has("sampling") { reqs["greeting"] = {sample: "Generate a greeting", max_tokens: 20} }
    json.stringify(ask_all(reqs).keys())
}

@mcp.prompt("Asks the user for the context of the prompt")
fn ask_prompt() to str {
    "Context: " + elicit("What context should the prompt use?", {type: "object", properties: {context: {type: "string"}}, required: ["context"]}, "user_context")["content"]["context"]
}

@tool "Asks with a schema MCP does not allow"
fn ask_nested(message: str) to str {
    elicit("?", {type: "object", properties: {where: {type: "object", properties: {}}}})["action"]
}
`

// askConfig keeps a call's own time short: the answers below take
// longer, which the pause of the limits must allow.
const askConfig = "scan_globs:\n  - \"tools/**/*.vox\"\nlimits:\n  timeout_ms: 300\n"

// askingClient answers elicitation and sampling requests, counting them.
type askingClient struct {
	elicits, samples atomic.Int32
	delay            time.Duration // before each answer
	block            chan struct{} // when set, answer only once it is closed
	mu               sync.Mutex
	schemas          []any
}

func (a *askingClient) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.elicits.Add(1)
	a.mu.Lock()
	a.schemas = append(a.schemas, req.Params.RequestedSchema)
	a.mu.Unlock()
	if a.block != nil {
		<-a.block
		return nil, ctx.Err()
	}
	time.Sleep(a.delay)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": "Ada", "color": "g"}}}, nil
}

func (a *askingClient) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	a.samples.Add(1)
	time.Sleep(a.delay)
	text := "?"
	if len(req.Messages) == 1 && req.SystemPrompt == "be brief" && req.MaxTokens == 50 {
		if tc, err := mcp.ParseSamplingContent(req.Messages[0].Content); err == nil {
			text = "hello " + strings.TrimPrefix(tc.(mcp.TextContent).Text, "greet ")
		}
	}
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent(text)},
		Model:           "test-model", StopReason: "endTurn"}, nil
}

// askServer serves askVox over streamable HTTP.
func askServer(t *testing.T, config string) string {
	t.Helper()
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/ask.vox": askVox, workspace.ConfigPath: config})
	streams := make(chan struct{}, 16)
	h := s.HTTPHandler(Auth{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w = &streamOpened{ResponseWriter: w, opened: streams}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	getStreams.Store(ts.URL, streams)
	t.Cleanup(func() { getStreams.Delete(ts.URL) })
	return ts.URL
}

// getStreams holds, by test server URL, a channel told each time a GET
// stream of that server is open: mcp-go sends a legacy session's sampling
// requests on that stream only, and a request sent before the client's
// stream is open is never seen (the call then waits until wait_ms).
var getStreams sync.Map // string -> chan struct{}

// streamOpened tells opened when the GET stream's headers go out, which
// mcp-go does once the stream is registered for its session.
type streamOpened struct {
	http.ResponseWriter
	opened chan<- struct{}
	told   bool
}

func (s *streamOpened) tell() {
	if !s.told {
		s.told = true
		select {
		case s.opened <- struct{}{}:
		default:
		}
	}
}

func (s *streamOpened) WriteHeader(status int) {
	s.ResponseWriter.WriteHeader(status)
	if status == http.StatusOK {
		s.tell()
	}
}

func (s *streamOpened) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	s.tell()
}

func (s *streamOpened) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// askConnect connects over HTTP in version; a nil answerer declares no
// capability.
func askConnect(t *testing.T, url, version string, a *askingClient) (*client.Client, func() []float64) {
	t.Helper()
	// mcp-go sends sampling requests on the GET stream only, which
	// protocol 2026-07-28 does not have.
	var topts []transport.StreamableHTTPCOption
	if !mcp.IsModernProtocol(version) {
		topts = append(topts, transport.WithContinuousListening())
	}
	tr, err := transport.NewStreamableHTTP(url, topts...)
	if err != nil {
		t.Fatal(err)
	}
	var opts []client.ClientOption
	if a != nil {
		opts = append(opts, client.WithElicitationHandler(a), client.WithSamplingHandler(a))
	}
	opts = append(opts, client.WithProtocolVersion(version))
	c := client.NewClient(tr, opts...)
	var mu sync.Mutex
	progress := &[]float64{}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationProgress) {
			mu.Lock()
			*progress = append(*progress, n.Params.AdditionalFields["progress"].(float64))
			mu.Unlock()
		}
	})
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	if c.ProtocolVersion() != version {
		t.Fatalf("the client speaks %s, want %s", c.ProtocolVersion(), version)
	}
	if !mcp.IsModernProtocol(version) {
		// Wait for the client's GET stream, where sampling requests go.
		if streams, ok := getStreams.Load(url); ok {
			select {
			case <-streams.(chan struct{}):
			case <-time.After(30 * time.Second):
				t.Fatal("the client's GET stream did not open within 30s")
			}
		}
	}
	return c, func() []float64 {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(*progress)
	}
}

func askCall(t *testing.T, ctx context.Context, c *client.Client, tool, message string) (string, bool) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = map[string]any{"message": message}
	req.Params.Meta = &mcp.Meta{ProgressToken: "p"}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d blocks", tool, len(res.Content))
	}
	return res.Content[0].(mcp.TextContent).Text, res.IsError
}

// mcp-go's client writes the content's members sorted.
const askWant = `accept {"color":"g","name":"Ada"} hello Ada test-model endTurn`

// TestWorkspaceAsk: a tool asks the user and the model through a client
// of each protocol era, over streamable HTTP; each answer takes longer
// than the call's own time limit, which pauses meanwhile.
func TestWorkspaceAsk(t *testing.T) {
	url := askServer(t, askConfig)
	for _, version := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			a := &askingClient{delay: 400 * time.Millisecond}
			c, progress := askConnect(t, url, version, a)
			text, isErr := askCall(t, context.Background(), c, "ask_both", "Who are you?")
			if isErr || text != askWant {
				t.Fatalf("ask_both = %v %q, want %q", isErr, text, askWant)
			}
			// Under 2026-07-28 the call ran three times; nothing was
			// asked or reported twice.
			if a.elicits.Load() != 1 || a.samples.Load() != 1 {
				t.Errorf("asked %d elicitations and %d samples, want 1 and 1", a.elicits.Load(), a.samples.Load())
			}
			// Each report reaches the client once, in order, before the
			// answer: on the call's own stream (docs/federation.md §9).
			if got := progress(); !slices.Equal(got, []float64{1, 2, 3}) {
				t.Errorf("progress = %v, want [1 2 3]", got)
			}
			a.mu.Lock()
			schema := a.schemas[0].(map[string]any)
			a.mu.Unlock()
			if props := schema["properties"].(map[string]any); props["age"].(map[string]any)["default"] != float64(30) || schema["required"].([]any)[0] != "name" {
				t.Errorf("the requested schema = %v", schema)
			}
		})
	}
}

// TestWorkspaceAskRefused: a client that declared no capability, a schema
// MCP does not allow, a question that changes between rounds and a
// client that never answers each end the call with an error result that
// says why.
func TestWorkspaceAskRefused(t *testing.T) {
	url := askServer(t, askConfig+"  wait_ms: 300\n")
	c, _ := askConnect(t, url, "2025-06-18", nil)
	text, isErr := askCall(t, context.Background(), c, "ask_both", "?")
	if !isErr || !strings.Contains(text, "elicit: the client did not declare the elicitation capability") {
		t.Errorf("2025-06-18: without the capability = %v %q", isErr, text)
	}
	// 2026-07-28 declares capabilities on every request: the tool, which
	// asks, is refused before it runs (client_capabilities.go).
	c, _ = askConnect(t, url, "2026-07-28", nil)
	var req mcp.CallToolRequest
	req.Params.Name = "ask_both"
	req.Params.Arguments = map[string]any{"message": "?"}
	if _, err := c.CallTool(context.Background(), req); !mcp.IsMissingRequiredClientCapability(err) {
		t.Errorf("2026-07-28: without the capabilities = %v, want -32021", err)
	}
	c, _ = askConnect(t, url, "2025-06-18", &askingClient{})
	text, isErr = askCall(t, context.Background(), c, "ask_nested", "?")
	if !isErr || !strings.Contains(text, `tools/ask.vox:62:89: elicit: property "where": type must be one of string, number, integer, boolean or array`) {
		t.Errorf("ask_nested = %v %q", isErr, text)
	}
	c, _ = askConnect(t, url, "2026-07-28", &askingClient{})
	text, isErr = askCall(t, context.Background(), c, "ask_clock", "?")
	if !isErr || !strings.Contains(text, "asked something else than in the round the client answered") {
		t.Errorf("ask_clock = %v %q", isErr, text)
	}
	// Never answered: the wait ends at wait_ms, and the server goes on.
	a := &askingClient{block: make(chan struct{})}
	defer close(a.block)
	c, _ = askConnect(t, url, "2025-06-18", a)
	text, isErr = askCall(t, context.Background(), c, "ask_both", "?")
	if !isErr || !strings.HasPrefix(text, "tools/ask.vox:4:5: wait_ms limit of 300 exceeded; raise limits.wait_ms in ") || !strings.HasSuffix(text, "\n  in ask_both at tools/ask.vox:4:5") {
		t.Errorf("never answered = %v %q", isErr, text)
	}
}

// TestWorkspaceAskCancelled: cancelling a call that waits for its client
// ends the wait, long before wait_ms.
func TestWorkspaceAskCancelled(t *testing.T) {
	url := askServer(t, askConfig)
	a := &askingClient{block: make(chan struct{})}
	defer close(a.block)
	c, _ := askConnect(t, url, "2025-06-18", a)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "ask_both"
		req.Params.Arguments = map[string]any{"message": "?"}
		_, err := c.CallTool(ctx, req)
		done <- err
	}()
	for a.elicits.Load() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled call succeeded")
	}
	// The server is free: the next call is answered.
	b := &askingClient{}
	c2, _ := askConnect(t, url, "2025-06-18", b)
	if text, isErr := askCall(t, context.Background(), c2, "ask_both", "?"); isErr || text != askWant {
		t.Errorf("after the cancellation: %v %q", isErr, text)
	}
}

// modernPost sends one tools/call of protocol 2026-07-28 with extra
// params and returns the JSON-RPC reply.
func modernPost(t *testing.T, url, tool, params string) map[string]any {
	t.Helper()
	return modernPostMethod(t, url, "tools/call", tool, params)
}

func modernPostMethod(t *testing.T, url, method, tool, params string) map[string]any {
	t.Helper()
	return modernPostRaw(t, url, method, tool, `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",`+
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}},`+params)
}

// modernPostRaw posts method with params (their JSON members, _meta
// included).
func modernPostRaw(t *testing.T, url, method, tool, params string) map[string]any {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + `}}`
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", tool)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	raw := b.Bytes()
	if i := bytes.Index(raw, []byte("data: ")); i >= 0 { // an event stream of one message
		raw = raw[i+6:]
	}
	var m map[string]any
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&m); err != nil {
		t.Fatalf("%s: %v", b.Bytes(), err)
	}
	return m
}

// TestWorkspaceAskRounds drives the rounds of protocol 2026-07-28 by
// hand: a question under the tool's own key, the answer sent back with
// the state, an answer sent without a state (extra keys ignored), and a
// tampered state, refused with -32602 before the tool runs.
func TestWorkspaceAskRounds(t *testing.T) {
	url := askServer(t, askConfig)
	r1 := modernPost(t, url, "ask_named", `"name":"ask_named","arguments":{"message":"Who?"}`)
	res, _ := r1["result"].(map[string]any)
	reqs, _ := res["inputRequests"].(map[string]any)
	state, _ := res["requestState"].(string)
	q, _ := reqs["user_name"].(map[string]any)
	if res["resultType"] != "input_required" || q["method"] != "elicitation/create" || state == "" {
		t.Fatalf("round 1 = %v", r1)
	}
	answer := `"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}}`
	r2 := modernPost(t, url, "ask_named", `"name":"ask_named","arguments":{"message":"Who?"},`+answer+`,"requestState":"`+state+`"`)
	if got, _ := json.Marshal(r2["result"]); !strings.Contains(string(got), `"text":"Hello, Alice!"`) {
		t.Errorf("round 2 = %s", got)
	}
	junk := modernPost(t, url, "ask_named", `"name":"ask_named","arguments":{"message":"Who?"},"inputResponses":{"user_name":12345}`)
	if res, _ := junk["result"].(map[string]any); res["resultType"] != "input_required" {
		t.Errorf("an answer that is not one = %v, want the question again", junk)
	}
	loose := modernPost(t, url, "ask_named", `"name":"ask_named","arguments":{"message":"Who?"},"inputResponses":{"user_name":{"action":"accept","content":{"name":"Bob"}},"other":{"action":"accept"}}`)
	if got, _ := json.Marshal(loose["result"]); !strings.Contains(string(got), `"text":"Hello, Bob!"`) {
		t.Errorf("an answer without a state = %s", got)
	}
	for _, bad := range []string{state + "-TAMPERED", "x" + state} {
		r := modernPost(t, url, "ask_named", `"name":"ask_named","arguments":{"message":"Who?"},`+answer+`,"requestState":"`+bad+`"`)
		e, _ := r["error"].(map[string]any)
		if e["code"] != float64(mcp.INVALID_PARAMS) || !strings.Contains(e["message"].(string), "requestState: the request state was not made by this server") {
			t.Errorf("a tampered state = %v", r)
		}
	}
	// A state of another call (other arguments) is refused too.
	r := modernPost(t, url, "ask_named", `"name":"ask_named","arguments":{"message":"Someone else?"},`+answer+`,"requestState":"`+state+`"`)
	if e, _ := r["error"].(map[string]any); e["code"] != float64(mcp.INVALID_PARAMS) || !strings.Contains(e["message"].(string), "belongs to another call") {
		t.Errorf("a state of other arguments = %v", r)
	}
}

// TestWorkspacePromptAsks: a workspace prompt asks under 2026-07-28 as a
// tool does: prompts/get gets the input_required result, then the
// messages once answered.
func TestWorkspacePromptAsks(t *testing.T) {
	url := askServer(t, askConfig)
	r1 := modernPostMethod(t, url, "prompts/get", "ask_prompt", `"name":"ask_prompt"`)
	res, _ := r1["result"].(map[string]any)
	reqs, _ := res["inputRequests"].(map[string]any)
	state, _ := res["requestState"].(string)
	if res["resultType"] != "input_required" || reqs["user_context"] == nil || state == "" {
		t.Fatalf("round 1 = %v", r1)
	}
	r2 := modernPostMethod(t, url, "prompts/get", "ask_prompt", `"name":"ask_prompt","inputResponses":{"user_context":{"action":"accept","content":{"context":"tests"}}},"requestState":"`+state+`"`)
	if got, _ := json.Marshal(r2["result"]); !strings.Contains(string(got), `"text":"Context: tests"`) {
		t.Errorf("round 2 = %s", got)
	}
}

// TestWorkspaceAskRoots: roots() under 2026-07-28 is a roots/list input
// request; the answer's roots reach the tool.
func TestWorkspaceAskRoots(t *testing.T) {
	url := askServer(t, askConfig)
	caps := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}},`
	r1 := modernPostRaw(t, url, "tools/call", "ask_roots", caps+`"name":"ask_roots","arguments":{"message":"?"}`)
	res, _ := r1["result"].(map[string]any)
	reqs, _ := res["inputRequests"].(map[string]any)
	q, _ := reqs["client_roots"].(map[string]any)
	state, _ := res["requestState"].(string)
	if res["resultType"] != "input_required" || q["method"] != "roots/list" || state == "" {
		t.Fatalf("round 1 = %v", r1)
	}
	r2 := modernPostRaw(t, url, "tools/call", "ask_roots", caps+`"name":"ask_roots","arguments":{"message":"?"},"inputResponses":{"client_roots":{"roots":[{"uri":"file:///work","name":"work"}]}},"requestState":"`+state+`"`)
	if got, _ := json.Marshal(r2["result"]); !strings.Contains(string(got), `roots: [{\"uri\":\"file:///work\",\"name\":\"work\"}]`) {
		t.Errorf("round 2 = %s", got)
	}
}

// TestWorkspaceAskAll: ask_all sends an elicitation, a sampling and a
// roots request in one input_required round under 2026-07-28.
func TestWorkspaceAskAll(t *testing.T) {
	url := askServer(t, askConfig)
	caps := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{},"sampling":{},"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}},`
	r1 := modernPostRaw(t, url, "tools/call", "ask_three", caps+`"name":"ask_three","arguments":{"message":"?"}`)
	res, _ := r1["result"].(map[string]any)
	reqs, _ := res["inputRequests"].(map[string]any)
	state, _ := res["requestState"].(string)
	methods := map[string]any{}
	for k, v := range reqs {
		methods[k] = v.(map[string]any)["method"]
	}
	if res["resultType"] != "input_required" || state == "" || len(methods) != 3 || methods["user_name"] != "elicitation/create" || methods["greeting"] != "sampling/createMessage" || methods["client_roots"] != "roots/list" {
		t.Fatalf("round 1 = %v", r1)
	}
	answers := `"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}},` +
		`"greeting":{"role":"assistant","content":{"type":"text","text":"Hi!"},"model":"m"},"client_roots":{"roots":[{"uri":"file:///a"},{"uri":"file:///b"}]}}`
	r2 := modernPostRaw(t, url, "tools/call", "ask_three", caps+`"name":"ask_three","arguments":{"message":"?"},`+answers+`,"requestState":"`+state+`"`)
	if got, _ := json.Marshal(r2["result"]); !strings.Contains(string(got), `"text":"Ada / Hi! / 2"`) {
		t.Errorf("round 2 = %s", got)
	}
	// A retry that leaves one answer out is refused.
	r3 := modernPostRaw(t, url, "tools/call", "ask_three", caps+`"name":"ask_three","arguments":{"message":"?"},"inputResponses":{"user_name":{"action":"decline"}},"requestState":"`+state+`"`)
	if got, _ := json.Marshal(r3["result"]); !strings.Contains(string(got), "the retry does not answer the input request") {
		t.Errorf("a partial retry = %s", got)
	}
}

// TestWorkspaceAskCapabilities: a tool asks only what the request's
// client declared (client_has).
func TestWorkspaceAskCapabilities(t *testing.T) {
	url := askServer(t, askConfig)
	caps := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}},`
	r := modernPostRaw(t, url, "tools/call", "ask_caps", caps+`"name":"ask_caps","arguments":{"message":"?"}`)
	res, _ := r["result"].(map[string]any)
	reqs, _ := res["inputRequests"].(map[string]any)
	if res["resultType"] != "input_required" || len(reqs) != 1 || reqs["greeting"] == nil {
		t.Errorf("with sampling only = %v", r)
	}
}
