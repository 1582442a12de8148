package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const sampleVox = `@tool "Asks the client's model"
fn ask_model(message: str) to str {
    sample(message, 20)["text"]
}
`

// TestSamplingWithoutAGetStreamFailsAtOnce: a session of 2025-06-18 that
// declared sampling but never opened its GET stream — where the server
// sends its sampling requests — gets a tool error naming the missing
// stream, not a wait of wait_ms.
func TestSamplingWithoutAGetStreamFailsAtOnce(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/ask.vox": sampleVox})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	t.Cleanup(ts.Close)
	cl := &httpClient{t: t, url: ts.URL}
	r := cl.do(http.MethodPost, strings.Replace(initializeBody, `"capabilities":{}`, `"capabilities":{"sampling":{}}`, 1))
	if r.status != http.StatusOK {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	cl.session = r.header.Get("Mcp-Session-Id")
	cl.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	text, isError, _ := toolResult(t, cl.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_model","arguments":{"message":"hi"}}}`))
	if !isError || !strings.Contains(text, "sampling/createMessage cannot reach the client: its session has no GET event stream open") {
		t.Fatalf("tool result %q (error %v), want an error naming the missing GET stream", text, isError)
	}
}
