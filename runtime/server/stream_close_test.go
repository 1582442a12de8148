package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const pollVox = `@tool "Closes its stream mid-call"
fn poll(message: str) to str {
    print("closing the stream")
    if close_stream() { "sent after the close" } else { "sent on the stream" }
}
`

// TestCloseStreamIsResumed: a call that closes its stream (close_stream,
// SEP-1699 polling) ends the POST's response after the priming event and
// what it sent so far; the client's GET with the last event id it got
// receives the result. A session of 2025-11-25 is primed even when the
// request names 2025-03-26 (as the conformance suite's does); one that
// negotiated 2025-06-18 is not, so its stream is not closed.
func TestCloseStreamIsResumed(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/poll.vox": pollVox})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	t.Cleanup(ts.Close)
	const call = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"poll","arguments":{"message":"x"}}}`

	cl := &httpClient{t: t, url: ts.URL}
	cl.initializeAs("2025-11-25")
	events := readEvents(t, cl.do(http.MethodPost, call, "MCP-Protocol-Version", "2025-03-26"))
	if len(events) != 2 || events[0].data != "" || events[0].retry != "1000" || !strings.Contains(events[1].data, "closing the stream") {
		t.Fatalf("POST stream: %+v, want the priming event and the log message, then its end", events)
	}
	for _, ev := range events {
		if strings.Contains(ev.data, `"id":5`) {
			t.Fatalf("the result came on the closed stream: %+v", events)
		}
	}
	resumed := readEvents(t, cl.do(http.MethodGet, "", "Last-Event-ID", events[1].id))
	if len(resumed) != 1 || !strings.Contains(resumed[0].data, `"id":5`) || !strings.Contains(resumed[0].data, "sent after the close") {
		t.Fatalf("resumed stream: %+v, want the result of the call, sent after the close", resumed)
	}

	older := &httpClient{t: t, url: ts.URL}
	older.initializeAs("2025-06-18")
	events = readEvents(t, older.do(http.MethodPost, call, "MCP-Protocol-Version", "2025-06-18"))
	if len(events) != 2 || events[0].data == "" || !strings.Contains(events[1].data, "sent on the stream") {
		t.Fatalf("a session of 2025-06-18: %+v, want the log message and the result on the stream, no priming event", events)
	}
}
