package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/runtime/toolcall"
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

// TestCloseStreamResumedWhileTheCallRuns: a call that closed its stream
// after its own notification goes on; the client resuming meanwhile (the
// server has no mcp-go stream of the POST yet: its events so far are the
// call's own) receives what the call sends after the close and its
// result, in order.
func TestCloseStreamResumedWhileTheCallRuns(t *testing.T) {
	closed, release := make(chan bool, 1), make(chan struct{})
	s := oneToolServer(t, Options{}, "vox_test_poll", "closes its stream", func(c *toolcall.Call, _ json.RawMessage) ([]byte, error) {
		c.Progress(1, 2, "before the close")
		closed <- toolcall.CloseStream(c.Context())
		<-release
		c.Progress(2, 2, "after the close")
		return []byte(`{"ok":true}`), nil
	})
	h := s.HTTPHandler(Auth{})
	resuming := make(chan struct{}, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" {
			resuming <- struct{}{}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)

	cl := &httpClient{t: t, url: ts.URL}
	cl.initializeAs("2025-11-25")
	const call = `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"vox_test_poll","arguments":{},"_meta":{"progressToken":"p"}}}`
	events := readEvents(t, cl.do(http.MethodPost, call, "MCP-Protocol-Version", "2025-11-25"))
	if !<-closed {
		t.Fatal("CloseStream: false, want the stream closed")
	}
	if len(events) != 2 || events[0].data != "" || !strings.Contains(events[1].data, "before the close") {
		t.Fatalf("POST stream: %+v, want the priming event and the first progress report, then its end", events)
	}
	go func() {
		<-resuming
		close(release)
	}()
	resumed := readEvents(t, cl.do(http.MethodGet, "", "Last-Event-ID", events[1].id))
	if len(resumed) != 2 || !strings.Contains(resumed[0].data, "after the close") || !strings.Contains(resumed[1].data, `"id":8`) {
		t.Fatalf("resumed stream: %+v, want the second progress report and the result", resumed)
	}
}
