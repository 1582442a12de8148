package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/session"
)

// rpcErrorOf is the error of a JSON-RPC answer, or nil.
func rpcErrorOf(r map[string]any) (code float64, message string, ok bool) {
	e, _ := r["error"].(map[string]any)
	if e == nil {
		return 0, "", false
	}
	code, _ = e["code"].(float64)
	message, _ = e["message"].(string)
	return code, message, true
}

// Over HTTP, a subscription over a bound — a URI over session.MaxURIBytes,
// one more than a session's MaxSubscriptionBytes — is refused with -32602
// naming the bound, and nothing of it is kept in the session's state; the
// session goes on, and one within the bounds is kept.
func TestSubscriptionsOverTheirBoundsAreRefusedOverHTTP(t *testing.T) {
	s := newKeyedServer(t, Options{})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	c := &httpClient{t: t, url: ts.URL}
	c.initialize()
	key := keyOf(t, s, c.session)
	subscribe := func(id int, uri string) map[string]any {
		return c.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":%q}}`, id, uri))
	}
	huge := "big://" + strings.Repeat("a", 1<<20)
	code, msg, isErr := rpcErrorOf(subscribe(1, huge))
	if !isErr || code != mcp.INVALID_PARAMS || !strings.Contains(msg, fmt.Sprintf("a subscribed resource URI may have at most %d", session.MaxURIBytes)) {
		t.Fatalf("a 1 MiB URI: %v %q, want -32602 naming the bound", code, msg)
	}
	if len(msg) > 1000 {
		t.Errorf("the refusal repeats the URI: %d bytes", len(msg))
	}
	if got, _ := s.sessions.state.Subscribers(context.Background(), huge); len(got) != 0 {
		t.Errorf("the refused URI was kept for %v", got)
	}
	uri := func(i int) string {
		return fmt.Sprintf("big://%03d/%s", i, strings.Repeat("a", session.MaxURIBytes-10))
	}
	fits := session.MaxSubscriptionBytes / session.SubscriptionCost(uri(0))
	for i := range fits {
		if r := subscribe(10+i, uri(i)); r["result"] == nil {
			t.Fatalf("subscription %d of %d that fit: %v", i+1, fits, r)
		}
	}
	code, msg, isErr = rpcErrorOf(subscribe(99, uri(fits)))
	if !isErr || code != mcp.INVALID_PARAMS || !strings.Contains(msg, fmt.Sprintf("may take at most %d bytes together", session.MaxSubscriptionBytes)) {
		t.Fatalf("past the bytes bound: %v %q", code, msg)
	}
	if got, _ := s.sessions.state.Subscribers(context.Background(), uri(fits)); len(got) != 0 {
		t.Errorf("the refused subscription was kept for %v", got)
	}
	if got, _ := s.sessions.state.Subscribers(context.Background(), uri(0)); len(got) != 1 || got[0] != c.session {
		t.Errorf("a kept subscription's address is %v, want the session id %s (key %s)", got, c.session, key)
	}
	if r := c.rpc(pingBody); r["result"] == nil {
		t.Errorf("the session no longer answers: %v", r)
	}
}

// initialize whose clientInfo and capabilities exceed
// session.MaxClientInfoBytes gets -32602 and no session; one within it
// gets a session.
func TestHugeClientInfoIsRefused(t *testing.T) {
	s := newKeyedServer(t, Options{})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	c := &httpClient{t: t, url: ts.URL}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"experimental":{"x":%q}},"clientInfo":{"name":"test","version":"1"}}}`, strings.Repeat("a", session.MaxClientInfoBytes))
	r := c.do(http.MethodPost, body)
	if sid := r.header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("a session was minted for the refused initialize: %s", sid)
	}
	code, msg, isErr := rpcErrorOf(r.json(t))
	if !isErr || code != mcp.INVALID_PARAMS || !strings.Contains(msg, fmt.Sprintf("accepts at most %d", session.MaxClientInfoBytes)) {
		t.Fatalf("a huge initialize: %v %q", code, msg)
	}
	c.initialize() // an ordinary one still works
}

// subscriptions/listen keeps its resource URIs with the stream: the same
// bounds apply to the list, checked before anything is kept.
func TestCheckListenedURIs(t *testing.T) {
	if err := checkListenedURIs([]string{"a://1", "a://2", "a://1"}); err != nil {
		t.Errorf("a short list: %v", err)
	}
	many := make([]string, session.MaxSubscriptions+1)
	for i := range many {
		many[i] = fmt.Sprintf("a://%d", i)
	}
	if err := checkListenedURIs(many); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("resourceSubscriptions[%d]", session.MaxSubscriptions)) {
		t.Errorf("one URI too many: %v", err)
	}
	if err := checkListenedURIs([]string{"a://1", "b://" + strings.Repeat("x", session.MaxURIBytes)}); err == nil || !strings.Contains(err.Error(), "resourceSubscriptions[1]") {
		t.Errorf("a huge URI: %v", err)
	}
}
