package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// printingTool prints its word (at info) before returning it.
var printingTool = map[string]string{"tools/say.vox": `
@tool "Say a word"
fn say(word: str) to str {
    print("said " + word)
    word
}
`}

// logSession is a client session that records its notifications and
// keeps the level mcp-go sets on it.
type logSession struct {
	id    string
	ch    chan mcp.JSONRPCNotification
	level mcp.LoggingLevel
}

func (l *logSession) Initialize()                                         {}
func (l *logSession) Initialized() bool                                   { return true }
func (l *logSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return l.ch }
func (l *logSession) SessionID() string                                   { return l.id }
func (l *logSession) SetLogLevel(level mcp.LoggingLevel)                  { l.level = level }
func (l *logSession) GetLogLevel() mcp.LoggingLevel                       { return l.level }

// messages takes the notifications/message the session received so far.
func (l *logSession) messages() []map[string]any {
	var out []map[string]any
	for {
		select {
		case n := <-l.ch:
			if n.Method == "notifications/message" {
				out = append(out, n.Params.AdditionalFields)
			}
		default:
			return out
		}
	}
}

// What a Vox tool prints during a call reaches the session that made the
// call at info, and never another session; logging/setLevel is kept per
// session. (Over HTTP a notification is written to the stream of its
// session's request; see docs/federation.md §9.)
func TestPrintReachesOnlyTheCallingSession(t *testing.T) {
	s := workspaceServer(t, Options{}, printingTool)
	caps := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if _, ok := caps["result"].(map[string]any)["capabilities"].(map[string]any)["logging"]; !ok {
		t.Errorf("no logging capability: %v", caps)
	}
	a := &logSession{id: "session-a", ch: make(chan mcp.JSONRPCNotification, 100)}
	b := &logSession{id: "session-b", ch: make(chan mcp.JSONRPCNotification, 100)}
	send := func(l *logSession, msg string) map[string]any {
		t.Helper()
		raw, _ := json.Marshal(s.MCP().HandleMessage(s.MCP().WithContext(context.Background(), l), json.RawMessage(msg)))
		var out map[string]any
		json.Unmarshal(raw, &out)
		return out
	}
	say := func(l *logSession, word string) []map[string]any {
		t.Helper()
		if r := send(l, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"say","arguments":{"word":%q}}}`, word)); r["result"] == nil {
			t.Fatalf("say: %v", r)
		}
		return l.messages()
	}
	// Both sessions call at once: every print reaches its own session.
	var wg sync.WaitGroup
	got := map[*logSession][]string{}
	for i := range 20 {
		for _, l := range []*logSession{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				send(l, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"say","arguments":{"word":"%s-%d"}}}`, l.id, i))
			}()
		}
	}
	wg.Wait()
	for _, l := range []*logSession{a, b} {
		for _, m := range l.messages() {
			if m["level"] != mcp.LoggingLevelInfo || m["logger"] != "say" {
				t.Errorf("%s got %v", l.id, m)
			}
			got[l] = append(got[l], m["data"].(string))
		}
		if len(got[l]) != 20 {
			t.Errorf("%s received %d messages, want 20: %v", l.id, len(got[l]), got[l])
		}
		for _, d := range got[l] {
			if !strings.HasPrefix(d, "said "+l.id+"-") {
				t.Errorf("%s received %q", l.id, d)
			}
		}
	}

	// A level above info silences the print for that session only.
	if r := send(a, `{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"warning"}}`); r["error"] != nil {
		t.Fatalf("setLevel: %v", r)
	}
	if msgs := say(a, "quiet"); len(msgs) != 0 {
		t.Errorf("after setLevel warning: %v", msgs)
	}
	if msgs := say(b, "loud"); len(msgs) != 1 {
		t.Errorf("the other session: %v", msgs)
	}
	if r := send(a, `{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"verbose"}}`); r["error"] == nil {
		t.Errorf("an unknown level was accepted: %v", r)
	}
	if msgs := say(a, "still-quiet"); len(msgs) != 0 {
		t.Errorf("a refused setLevel changed the level: %v", msgs)
	}
	send(a, `{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"debug"}}`)
	if msgs := say(a, "again"); len(msgs) != 1 || msgs[0]["data"] != "said again" {
		t.Errorf("after setLevel debug: %v", msgs)
	}
	// A method named with escapes is the same method to mcp-go, and is
	// recorded too (mayRecordSessionState).
	if r := send(a, `{"jsonrpc":"2.0","id":7,"method":"logging\/set\u004cevel","params":{"level":"warning"}}`); r["error"] != nil {
		t.Fatalf("escaped setLevel: %v", r)
	}
	if msgs := say(a, "escaped"); len(msgs) != 0 {
		t.Errorf("after an escaped setLevel warning: %v", msgs)
	}
}

func TestMayRecordSessionState(t *testing.T) {
	for msg, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`:                 true,
		`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"skill://a"}}`:            true,
		`{"jsonrpc":"2.0","id":1,"method":"resources/unsubscribe","params":{"uri":"skill://a"}}`:          true,
		`{"jsonrpc":"2.0","id":1,"method":"logging\/setLevel","params":{"level":"debug"}}`:                true,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}`:      false,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"say","arguments":{"s":"a\nb"}}}`: true, // an escape: decoded to be sure
	} {
		if got := mayRecordSessionState([]byte(msg)); got != want {
			t.Errorf("%s: %v, want %v", msg, got, want)
		}
	}
}

// progressTools report progress: count to n, and spin until cancelled.
var progressTools = map[string]string{"tools/work.vox": `
@tool "Count to n, reporting every step"
fn count(n: int) to int {
    for i in range(0, n) {
        progress(i + 1, n, "step " + str(i + 1))
    }
    n
}

@tool "Report forever"
fn forever() to int {
    let mut i = 0
    while true {
        i = i + 1
        progress(i, 0)
    }
    i
}
`}

// Vox progress() reaches the caller as notifications/progress with its
// token, only when it sent one; a long tool reporting progress stops when
// the client cancels it (notifications/cancelled).
func TestVoxProgressAndCancellation(t *testing.T) {
	s := workspaceServer(t, Options{}, map[string]string{
		workspace.ConfigPath: "scan_globs: [\"tools/**/*.vox\"]\nlimits: {steps: 0, timeout_ms: 0}\n",
		"tools/work.vox":     progressTools["tools/work.vox"],
	})
	l := &logSession{id: "p", ch: make(chan mcp.JSONRPCNotification, 1000)}
	ctx := s.MCP().WithContext(context.Background(), l)
	progressOf := func() []string {
		var out []string
		for {
			select {
			case n := <-l.ch:
				if n.Method == "notifications/progress" {
					p := n.Params.AdditionalFields
					out = append(out, fmt.Sprintf("%v %v/%v %v", p["progressToken"], p["progress"], p["total"], p["message"]))
				}
			default:
				return out
			}
		}
	}
	s.MCP().HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":3},"_meta":{"progressToken":"tok"}}}`))
	if got := progressOf(); fmt.Sprint(got) != "[tok 1/3 step 1 tok 2/3 step 2 tok 3/3 step 3]" {
		t.Errorf("progress %q", got)
	}
	s.MCP().HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{"n":3}}}`))
	if got := progressOf(); len(got) != 0 {
		t.Errorf("progress without a token: %q", got)
	}

	done := make(chan []byte)
	go func() {
		b, _ := json.Marshal(s.MCP().HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"forever","arguments":{},"_meta":{"progressToken":7}}}`)))
		done <- b
	}()
	for n := range l.ch { // the tool runs: it reported
		if n.Method == "notifications/progress" {
			break
		}
	}
	s.MCP().HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`))
	if b := <-done; !strings.Contains(string(b), `"isError":true`) {
		t.Errorf("the cancelled call answered %s", b)
	}
}
