package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// The URIs kept for expanded-URI subscriptions are bounded: past
// maxExpandedSubscriptions a new one is not kept, and the log says so
// once, so that sessions subscribing to many expanded URIs cannot make
// every refresh ask the session state about an unbounded set.
func TestExpandedSubscriptionsAreBounded(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	var e expandedSubscriptions
	for i := range maxExpandedSubscriptions + 10 {
		e.add(fmt.Sprintf("notes://%d", i), log)
	}
	e.add("notes://0", log) // kept already: no change
	if len(e.uris) != maxExpandedSubscriptions {
		t.Errorf("%d URIs kept, want %d", len(e.uris), maxExpandedSubscriptions)
	}
	if n := strings.Count(logs.String(), "too many subscribed URIs of resource templates"); n != 1 {
		t.Errorf("the cap was logged %d times, want once:\n%s", n, logs.String())
	}
}

// The expanded URIs kept are bounded in bytes too: each may be as long
// as session.MaxURIBytes; forgetting one frees its bytes.
func TestExpandedSubscriptionsAreBoundedInBytes(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	var e expandedSubscriptions
	long := func(i int) string { return fmt.Sprintf("notes://%04d/%s", i, strings.Repeat("a", 8000)) }
	for i := range maxExpandedSubscriptions {
		e.add(long(i), log)
	}
	if e.bytes > maxExpandedSubscriptionBytes || len(e.uris) != maxExpandedSubscriptionBytes/len(long(0)) {
		t.Errorf("%d URIs of %d bytes kept, want %d within %d bytes", len(e.uris), e.bytes, maxExpandedSubscriptionBytes/len(long(0)), maxExpandedSubscriptionBytes)
	}
	e.forget([]string{long(0), "never://kept"})
	if e.add(long(9999), log); len(e.uris) != maxExpandedSubscriptionBytes/len(long(0)) {
		t.Errorf("after forgetting one: %d URIs", len(e.uris))
	}
}

// notesVox declares a plain resource and a template.
const notesVox = `@mcp.resource("notes://index", "The index")
fn index() to str { "index" }

@mcp.resource("notes://{id}", "A note")
fn note(id: str) to str { "note " + id }
`

// updatedURIs takes the URIs of the notifications/resources/updated the
// session received so far.
func updatedURIs(l *logSession) []string {
	var out []string
	for {
		select {
		case n := <-l.ch:
			if n.Method == string(mcp.MethodNotificationResourceUpdated) {
				out = append(out, fmt.Sprint(n.Params.AdditionalFields["uri"]))
			}
		default:
			return out
		}
	}
}

// A refresh that runs while the first scan still waits for its turn (a
// loaded machine, a client that refreshes at once) installs a scan of the
// files the first scan would read: the first scan then does not scan
// again, so a session that subscribed in between hears one
// notifications/resources/updated per refresh — not a second one from the
// first scan. The subscriptions go through the shim and then mcp-go, and
// both record them (kept_state.go, recordSessionState): recorded twice,
// they are still heard once.
func TestFirstScanAfterARefreshTellsNobodyAgain(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{workspace.ConfigPath: testScanConfig, "tools/notes.vox": notesVox})
	gate := make(chan struct{})
	firstScanGate = gate
	t.Cleanup(func() { firstScanGate = nil })
	s, err := New(Options{Root: root, Catalog: testCatalog(), Handlers: testTable})
	if err != nil {
		t.Fatal(err)
	}
	gated := true
	defer func() {
		if gated {
			close(gate)
			s.WaitWorkspace(context.Background())
		}
	}()
	rpc(t, s, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if _, err := s.RefreshWorkspace(); err != nil {
		t.Fatal(err)
	}

	subscriber := &logSession{id: "subscriber", ch: make(chan mcp.JSONRPCNotification, 100)}
	if err := s.MCP().RegisterSession(context.Background(), subscriber); err != nil {
		t.Fatal(err)
	}
	ctx := s.MCP().WithContext(context.Background(), subscriber)
	for i, uri := range []string{"notes://index", "notes://7"} {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":%q}}`, i+1, uri)
		pass, reply, answered := s.preDispatch(ctx, []byte(msg), false)
		if answered {
			t.Fatalf("the shim answered %s: %s", msg, reply)
		}
		b, _ := json.Marshal(s.MCP().HandleMessage(ctx, pass))
		if strings.Contains(string(b), `"error"`) {
			t.Fatalf("%s: %s", msg, b)
		}
	}

	// The first scan's goroutine closes ready when it ends, after anything
	// it sent.
	gated = false
	close(gate)
	if err := s.WaitWorkspace(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := updatedURIs(subscriber); len(got) != 0 {
		t.Errorf("the first scan, run after a refresh had installed a scan, told the subscribers again: %v", got)
	}
	if _, err := s.RefreshWorkspace(); err != nil {
		t.Fatal(err)
	}
	if got := updatedURIs(subscriber); fmt.Sprint(got) != "[notes://index notes://7]" {
		t.Errorf("after a refresh: %v, want each subscribed URI once", got)
	}
}
