package server

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// progressServer serves one tool, vox_test_progress, which reports
// progress twice before answering: a POST calling it with a progress
// token is answered as an event stream.
func progressServer(t *testing.T) *httptest.Server {
	t.Helper()
	cat := &registry.Catalog{Source: "test", SchemaVersion: 1, Operations: []registry.Operation{{
		ID: "t.progress", Title: "progress", Description: "reports progress", ProductLane: "platform", SideEffectClass: "none",
		MCP: &registry.MCP{Name: "vox_test_progress", Exposure: "core", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}}}
	table := func(*Services) map[string]toolcall.Handler {
		return map[string]toolcall.Handler{"vox_test_progress": func(c *toolcall.Call, _ json.RawMessage) ([]byte, error) {
			c.Progress(1, 2, "half")
			c.Progress(2, 2, "done")
			return []byte(`{"ok":true}`), nil
		}}
	}
	s, err := New(Options{Root: t.TempDir(), Catalog: cat, Handlers: table, SessionKeys: [][]byte{testSessionKey}})
	if err != nil {
		t.Fatal(err)
	}
	s.WaitWorkspace(context.Background())
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	t.Cleanup(ts.Close)
	return ts
}

// sseEvent is one event of a stream: its id, retry and data fields.
type sseEvent struct{ id, retry, data string }

func readEvents(t *testing.T, r httpReply) []sseEvent {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q, want an event stream: %s", r.status, ct, r.body)
	}
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(strings.NewReader(string(r.body)))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			out = append(out, cur)
			cur = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "retry: "):
			cur.retry = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[6:]
		}
	}
	return out
}

const progressCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"vox_test_progress","arguments":{},"_meta":{"progressToken":"p"}}}`

// TestPostStreamIsPrimedAndResumable: a call that reports progress is
// answered as an event stream whose first event primes the client (an id,
// a retry field, empty data), every event has an id, and a GET with
// Last-Event-ID replays what followed — to this session only.
func TestPostStreamIsPrimedAndResumable(t *testing.T) {
	ts := progressServer(t)
	cl := &httpClient{t: t, url: ts.URL}
	cl.initialize()
	events := readEvents(t, cl.do(http.MethodPost, progressCall, "MCP-Protocol-Version", "2025-11-25"))
	if len(events) != 4 {
		t.Fatalf("got %d events, want the priming event, 2 progress notifications and the answer: %+v", len(events), events)
	}
	prime := events[0]
	if prime.id == "" || prime.retry != "1000" || prime.data != "" {
		t.Fatalf("first event %+v, want an id, retry 1000 and empty data", prime)
	}
	seen := map[string]bool{}
	for _, ev := range events {
		if ev.id == "" || seen[ev.id] {
			t.Fatalf("event %+v has no id or a repeated one", ev)
		}
		seen[ev.id] = true
	}
	if !strings.Contains(events[1].data, `"notifications/progress"`) || !strings.Contains(events[3].data, `"id":7`) {
		t.Fatalf("events %+v: want progress first and the answer last", events)
	}

	// Resuming from the priming event replays everything after it; from
	// the first progress notification, the rest.
	for from, want := range map[string]int{prime.id: 3, events[1].id: 2} {
		got := readEvents(t, cl.do(http.MethodGet, "", "Last-Event-ID", from))
		if len(got) != want || got[len(got)-1].data != events[3].data {
			t.Errorf("resume after %s: %+v, want the last %d events", from, got, want)
		}
	}

	// Another session cannot resume this session's stream, nor can an
	// invented id.
	other := &httpClient{t: t, url: ts.URL}
	other.initialize()
	for _, id := range []string{events[1].id, "999999", "1; drop"} {
		r := other.do(http.MethodGet, "", "Last-Event-ID", id)
		if r.status != http.StatusBadRequest || strings.Contains(string(r.body), "notifications/progress") {
			t.Errorf("another session resuming from %q: status %d %s, want 400 and nothing replayed", id, r.status, r.body)
		}
	}

	// A client of 2025-06-18 gets the stream without a priming event.
	events = readEvents(t, cl.do(http.MethodPost, progressCall))
	if len(events) != 3 || events[0].data == "" {
		t.Fatalf("2025-06-18: %+v, want 2 progress notifications and the answer, no priming event", events)
	}

	// DELETE purges the session's events: its ids resume nothing.
	if r := cl.do(http.MethodDelete, ""); r.status != http.StatusOK {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	if r := cl.do(http.MethodGet, "", "Last-Event-ID", prime.id); r.status != http.StatusNotFound {
		t.Errorf("resume after DELETE: %d %s, want 404", r.status, r.body)
	}
}
