package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// progressSteps is how many reports the stepping tool makes.
const progressSteps = 200

const steppingVox = `@tool "Reports progress many times, and prints"
fn stepping(n: int) to str {
    for i in range(1, n + 1) {
        progress(i, n, "step {i}")
        if i % 50 == 0 { print("at {i}") }
    }
    "done"
}
`

// streamMessages reads the JSON-RPC messages of an SSE stream until it
// ends, or until stop says so of a message (it is the last one read).
func streamMessages(t *testing.T, body io.Reader, stop func(map[string]any) bool) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Errorf("an event that is no JSON-RPC message: %q", data)
			continue
		}
		out = append(out, m)
		if stop != nil && stop(m) {
			break
		}
	}
	return out
}

// TestCallNotificationsTravelOnTheirPOST: while a session's GET stream is
// open, two calls of the session run at once, each reporting progress
// many times and printing: every report and log message of a call arrives
// on that call's own POST stream, in order, before its answer — none on
// the GET stream, none on the other call's stream. The GET stream still
// carries what is the session's (a notification sent to every session,
// sent once the calls are answered and read here as the marker that ends
// the GET stream's reading).
func TestCallNotificationsTravelOnTheirPOST(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/stepping.vox": steppingVox})
	opened := make(chan struct{}, 1)
	h := s.HTTPHandler(Auth{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w = &streamOpened{ResponseWriter: w, opened: opened}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	cl := &httpClient{t: t, url: ts.URL}
	cl.initialize()

	get, err := http.NewRequest(http.MethodGet, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", cl.session)
	get.Header.Set("MCP-Protocol-Version", "2025-06-18")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := http.DefaultClient.Do(get.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: status %d", resp.StatusCode)
	}
	<-opened // mcp-go's pump reads the session's channel from now on
	const marker = "notifications/test/marker"
	onGET := make(chan []map[string]any, 1)
	go func() {
		onGET <- streamMessages(t, resp.Body, func(m map[string]any) bool { return m["method"] == marker })
	}()

	tokens := []string{"first", "second"}
	onPOST := make([][]map[string]any, len(tokens))
	var wg sync.WaitGroup
	for i, token := range tokens {
		wg.Go(func() {
			r := cl.do(http.MethodPost, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"stepping","arguments":{"n":%d},"_meta":{"progressToken":%q}}}`, i+1, progressSteps, token))
			if ct := r.header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("%s: Content-Type %q, want an event stream", token, ct)
				return
			}
			onPOST[i] = streamMessages(t, strings.NewReader(string(r.body)), nil)
		})
	}
	wg.Wait()
	s.mcp.SendNotificationToAllClients(marker, nil)

	for i, token := range tokens {
		checkCallMessages(t, token, float64(i+1), onPOST[i])
	}
	var got []map[string]any
	select {
	case got = <-onGET:
	case <-time.After(30 * time.Second):
		t.Fatal("the session's notification did not reach the GET stream within 30s")
	}
	for _, m := range got[:len(got)-1] {
		t.Errorf("the GET stream carried a call's message: %v", m)
	}
	if len(got) == 0 || got[len(got)-1]["method"] != marker {
		t.Errorf("the GET stream ended without the session's notification: %v", got)
	}
}

// checkCallMessages checks the messages of a call's stream: the call's
// progressSteps reports with its token, in order, and its log messages,
// then its answer (id), last.
func checkCallMessages(t *testing.T, token string, id float64, msgs []map[string]any) {
	t.Helper()
	next, logs := 1.0, 0
	for j, m := range msgs {
		switch {
		case m["method"] == string(mcp.MethodNotificationProgress):
			p := m["params"].(map[string]any)
			if p["progressToken"] != token || p["progress"] != next {
				t.Fatalf("%s: report %d is %v, want progress %v of %s's token", token, j, p, next, token)
			}
			next++
		case m["method"] == string(mcp.MethodNotificationMessage):
			logs++
		case m["id"] == id:
			if j != len(msgs)-1 {
				t.Errorf("%s: the answer is message %d of %d: it must come last", token, j+1, len(msgs))
			}
		default:
			t.Errorf("%s: unexpected message on the call's stream: %v", token, m)
		}
	}
	if next != progressSteps+1 || logs != progressSteps/50 {
		t.Errorf("%s: got %v reports and %d log messages, want %d and %d", token, next-1, logs, progressSteps, progressSteps/50)
	}
	if len(msgs) == 0 || msgs[len(msgs)-1]["id"] != id {
		t.Errorf("%s: the stream did not end with the answer", token)
	}
}

// TestCallNotificationsTravelOnTheirPOSTModern: under protocol
// 2026-07-28, where a request has no session, its reports and log
// messages are all written to its POST, in order, before its answer.
func TestCallNotificationsTravelOnTheirPOSTModern(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/stepping.vox": steppingVox})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	t.Cleanup(ts.Close)
	for round := range 3 {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stepping","arguments":{"n":%d},`+
			`"_meta":{"progressToken":"m","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/logLevel":"info",`+
			`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}}}}`, progressSteps)
		req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "stepping")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			resp.Body.Close()
			t.Fatalf("round %d: status %d, Content-Type %q, want an event stream", round, resp.StatusCode, ct)
		}
		checkCallMessages(t, "m", 1, streamMessages(t, resp.Body, nil))
		resp.Body.Close()
	}
}

// TestCallNotificationsPrecedeTheAnswerOverStdio: over stdio, every
// report and log message of a call is written, in order, before its
// answer.
func TestCallNotificationsPrecedeTheAnswerOverStdio(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/stepping.vox": steppingVox})
	inW, outR := stdioPipes(t, s)
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	read := func(id float64) []map[string]any {
		var out []map[string]any
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("a line that is no JSON-RPC message: %q", sc.Text())
			}
			out = append(out, m)
			if m["id"] == id {
				return out
			}
		}
		t.Fatalf("the output ended before the answer to %v: %v", id, sc.Err())
		return nil
	}
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	read(1)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for round := range 3 {
		id := float64(round + 2)
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%v,"method":"tools/call","params":{"name":"stepping","arguments":{"n":%d},"_meta":{"progressToken":"t"}}}`+"\n", id, progressSteps)
		checkCallMessages(t, "t", id, read(id))
	}
}
