package server

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/fleet"
	"github.com/vox-lang/vox-mcp/internal/fleet/redistest"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// progressServer serves one tool, vox_test_progress, which reports
// progress twice before answering: a POST calling it with a progress
// token is answered as an event stream.
func progressServer(t *testing.T) *httptest.Server {
	t.Helper()
	ts, _ := progressServerWith(t, Options{})
	return ts
}

// progressServerWith is progressServer with the session options of opts
// (SharedStore, EventStore), and the server behind it.
func progressServerWith(t *testing.T, opts Options) (*httptest.Server, *Server) {
	t.Helper()
	s := oneToolServer(t, opts, "vox_test_progress", "reports progress", func(c *toolcall.Call, _ json.RawMessage) ([]byte, error) {
		c.Progress(1, 2, "half")
		c.Progress(2, 2, "done")
		return []byte(`{"ok":true}`), nil
	})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	t.Cleanup(ts.Close)
	return ts, s
}

// oneToolServer is a server with the options of opts (its root, catalog,
// handlers and session key replaced) whose catalog is the one core tool
// name, described as description and answered by handler; its first
// workspace scan has ended.
func oneToolServer(t *testing.T, opts Options, name, description string, handler toolcall.Handler) *Server {
	t.Helper()
	cat := &registry.Catalog{Source: "test", SchemaVersion: 1, Operations: []registry.Operation{{
		ID: "t." + name, Title: name, Description: description, ProductLane: "platform", SideEffectClass: "none",
		MCP: &registry.MCP{Name: name, Exposure: "core", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}}}
	table := func(*Services) map[string]toolcall.Handler { return map[string]toolcall.Handler{name: handler} }
	opts.Root, opts.Catalog, opts.Handlers, opts.SessionKeys = t.TempDir(), cat, table, [][]byte{testSessionKey}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.WaitWorkspace(context.Background())
	return s
}

// initializeAs starts the client's session negotiating version.
func (c *httpClient) initializeAs(version string) {
	c.t.Helper()
	r := c.do(http.MethodPost, strings.Replace(initializeBody, `"2025-06-18"`, `"`+version+`"`, 1))
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"protocolVersion":"`+version+`"`) {
		c.t.Fatalf("initialize as %s: status %d %s", version, r.status, r.body)
	}
	c.session = r.header.Get("Mcp-Session-Id")
	c.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "MCP-Protocol-Version", version)
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
	cl.initializeAs("2025-11-25")
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

	// DELETE purges the session's events: its ids resume nothing.
	if r := cl.do(http.MethodDelete, ""); r.status != http.StatusOK {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	if r := cl.do(http.MethodGet, "", "Last-Event-ID", prime.id); r.status != http.StatusNotFound {
		t.Errorf("resume after DELETE: %d %s, want 404", r.status, r.body)
	}
}

// TestPrimingFollowsTheNegotiatedVersion: whether a POST's stream starts
// with a priming event is decided by the protocol version the session's
// initialize negotiated, not the one a request names — with the
// in-memory session state and with fleet mode's shared store — and by the
// request's version when the session's is not kept.
func TestPrimingFollowsTheNegotiatedVersion(t *testing.T) {
	stores := map[string]func(t *testing.T) Options{
		"memory": func(*testing.T) Options { return Options{} },
		"fleet": func(t *testing.T) Options {
			rs := redistest.Start(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			st, err := fleet.Open(ctx, fleet.Options{URL: rs.URL})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = st.Close() })
			return Options{SharedStore: st, EventStore: st.Events(time.Hour)}
		},
	}
	for name, opts := range stores {
		t.Run(name, func(t *testing.T) {
			ts, s := progressServerWith(t, opts(t))
			primed := func(cl *httpClient, header string) bool {
				t.Helper()
				events := readEvents(t, cl.do(http.MethodPost, progressCall, "MCP-Protocol-Version", header))
				if len(events) < 3 || !strings.Contains(events[len(events)-1].data, `"id":7`) {
					t.Fatalf("events %+v: want the progress notifications and the answer", events)
				}
				return events[0].data == "" && events[0].retry == "1000" && events[0].id != ""
			}
			current := &httpClient{t: t, url: ts.URL}
			current.initializeAs("2025-11-25")
			older := &httpClient{t: t, url: ts.URL}
			older.initializeAs("2025-06-18")
			for _, c := range []struct {
				cl             *httpClient
				session, named string
				want           bool
			}{
				{current, "2025-11-25", "2025-11-25", true},
				// The conformance suite's SSE polling scenario names an
				// older version on a session of 2025-11-25.
				{current, "2025-11-25", "2025-03-26", true},
				{older, "2025-06-18", "2025-06-18", false},
				// An older session's client may not expect empty data.
				{older, "2025-06-18", "2025-11-25", false},
			} {
				if got := primed(c.cl, c.named); got != c.want {
					t.Errorf("session of %s, request naming %s: primed %v, want %v", c.session, c.named, got, c.want)
				}
			}
			// A session whose version is not kept: the request's decides.
			id, err := s.sessions.ids.Verify(older.session, PrincipalAnonymous)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.sessions.state.Drop(context.Background(), id.Key); err != nil {
				t.Fatal(err)
			}
			if !primed(older, "2025-11-25") || primed(older, "2025-06-18") {
				t.Error("a session without a kept version: want the request's version to decide")
			}
		})
	}
}
