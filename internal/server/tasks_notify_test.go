package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const steppingTaskVox = `@long_running
@tool "Reports progress, and prints"
fn stepping(n: int) to str {
    for i in range(1, n + 1) {
        progress(i, n, "step {i}")
        if i % 5 == 0 { print("at {i}") }
    }
    "done"
}
`

// getStream opens the GET event stream of cl's session and returns what
// it carries, read until stop says so of a message, on the channel.
func getStream(t *testing.T, cl *httpClient, stop func(map[string]any) bool) <-chan []map[string]any {
	t.Helper()
	get, err := http.NewRequest(http.MethodGet, cl.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", cl.session)
	get.Header.Set("MCP-Protocol-Version", "2025-06-18")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	resp, err := http.DefaultClient.Do(get.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: status %d", resp.StatusCode)
	}
	out := make(chan []map[string]any, 1)
	go func() { out <- streamMessages(t, resp.Body, stop) }()
	return out
}

// openedServer serves h, telling opened once a GET stream's headers went
// out (mcp-go's pump reads the session's queue from then on).
func openedServer(t *testing.T, h http.Handler) (url string, opened chan struct{}) {
	opened = make(chan struct{}, 4)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w = &streamOpened{ResponseWriter: w, opened: opened}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL, opened
}

func taskStatusIs(status ...string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		return m["method"] == "notifications/tasks/status" && p != nil && strings.Contains(strings.Join(status, " "), fmt.Sprint(p["status"]))
	}
}

func awaitMessages(t *testing.T, ch <-chan []map[string]any, what string) []map[string]any {
	t.Helper()
	select {
	case got := <-ch:
		return got
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not arrive within 30s", what)
		return nil
	}
}

// relatedTask is the related-task id in a message's params._meta.
func relatedTask(m map[string]any) string {
	p, _ := m["params"].(map[string]any)
	meta, _ := p["_meta"].(map[string]any)
	rel, _ := meta["io.modelcontextprotocol/related-task"].(map[string]any)
	id, _ := rel["taskId"].(string)
	return id
}

// TestTaskNotificationsOverHTTP: a task's progress reports and log
// messages reach the GET stream of the session that created it, in order,
// each with the related-task _meta, and then notifications/tasks/status
// with the task completed — after the creating request was answered.
func TestTaskNotificationsOverHTTP(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/stepping.vox": steppingTaskVox})
	url, opened := openedServer(t, s.HTTPHandler(Auth{}))
	cl := &httpClient{t: t, url: url}
	cl.initialize()
	onGET := getStream(t, cl, taskStatusIs("completed", "failed", "cancelled"))
	<-opened
	const n = 10
	created := result(t, cl.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stepping","arguments":{"n":%d},"_meta":{"progressToken":"tok"},"task":{}}}`, n)))
	id := created["task"].(map[string]any)["taskId"].(string)
	got := awaitMessages(t, onGET, "the task's end")
	var progress []float64
	logs := 0
	for _, m := range got {
		if rel := relatedTask(m); m["method"] != "notifications/tasks/status" && rel != id {
			t.Errorf("a message without the task's related-task _meta (%q): %v", rel, m)
		}
		p, _ := m["params"].(map[string]any)
		switch m["method"] {
		case "notifications/progress":
			if p["progressToken"] != "tok" {
				t.Errorf("progress token %v", p["progressToken"])
			}
			progress = append(progress, p["progress"].(float64))
		case "notifications/message":
			logs++
		}
	}
	for i, v := range progress {
		if v != float64(i+1) {
			t.Fatalf("progress out of order or missing: %v", progress)
		}
	}
	if len(progress) != n || logs != 2 {
		t.Errorf("%d reports and %d log messages, want %d and 2: %v", len(progress), logs, n, got)
	}
	end := got[len(got)-1]["params"].(map[string]any)
	if end["taskId"] != id || end["status"] != "completed" || end["lastUpdatedAt"] == nil || end["ttl"] != 3600000.0 {
		t.Errorf("the status notification: %v", end)
	}
}

// TestTaskStatusReachesOnlyItsSession: a task cancelled from another
// session of the same principal is told, cancelled, to the session that
// created it, on its GET stream; the other session's stream carries
// nothing of it.
func TestTaskStatusReachesOnlyItsSession(t *testing.T) {
	s, stopped := taskServer(t, Options{})
	url, opened := openedServer(t, s.HTTPHandler(Auth{}))
	a, b := &httpClient{t: t, url: url + "/mcp"}, &httpClient{t: t, url: url + "/mcp"}
	a.initialize()
	b.initialize()
	const marker = "notifications/test/marker"
	isMarker := func(m map[string]any) bool { return m["method"] == marker }
	onA := getStream(t, a, isMarker)
	<-opened
	onB := getStream(t, b, isMarker)
	<-opened
	id := result(t, a.rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"vox_test_slow","arguments":{"ms":60000},"task":{}}}`))["task"].(map[string]any)["taskId"].(string)
	if got := result(t, b.rpc(`{"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"taskId":"`+id+`"}}`)); got["status"] != "cancelled" {
		t.Fatalf("tasks/cancel: %v", got)
	}
	for deadline := time.Now().Add(5 * time.Second); stopped.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	// The call stopped and its end was recorded: nothing more is sent.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		s.tasks.mu.Lock()
		_, running := s.tasks.running[id]
		s.tasks.mu.Unlock()
		if !running {
			break
		}
	}
	s.mcp.SendNotificationToAllClients(marker, nil)
	gotA := awaitMessages(t, onA, "a's marker")
	if len(gotA) != 2 || !taskStatusIs("cancelled")(gotA[0]) {
		t.Fatalf("the creating session's stream: %v", gotA)
	}
	if p := gotA[0]["params"].(map[string]any); p["taskId"] != id || !strings.Contains(fmt.Sprint(p["statusMessage"]), "tasks/cancel") {
		t.Errorf("the status notification: %v", p)
	}
	if gotB := awaitMessages(t, onB, "b's marker"); len(gotB) != 1 {
		t.Errorf("the other session's stream: %v", gotB)
	}
}

// TestTaskNotificationsOverStdio: over stdio a task's reports carry the
// related-task _meta and its end is a notifications/tasks/status line.
func TestTaskNotificationsOverStdio(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/stepping.vox": steppingTaskVox})
	in, out := stdioPipes(t, s)
	sc := bufio.NewScanner(out)
	next := func() map[string]any {
		if !sc.Scan() {
			t.Fatalf("the output ended: %v", sc.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a line that is no JSON-RPC message: %q", sc.Text())
		}
		return m
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	next()
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stepping","arguments":{"n":5},"_meta":{"progressToken":7},"task":{}}}`)
	var id string
	reports := 0
	for {
		m := next()
		if m["id"] == 2.0 {
			id = result(t, m)["task"].(map[string]any)["taskId"].(string)
			continue
		}
		if id == "" {
			// Over stdio the answer that made the task comes first
			// (withAnswerGate).
			t.Fatalf("a message of the task before the answer that created it: %v", m)
		}
		if m["method"] == "notifications/progress" {
			reports++
			if rel := relatedTask(m); rel == "" || (id != "" && rel != id) {
				t.Errorf("a report without the task's _meta: %v", m)
			}
		}
		if taskStatusIs("completed", "failed", "cancelled")(m) {
			if p := m["params"].(map[string]any); p["status"] != "completed" || p["taskId"] != id {
				t.Fatalf("the status notification: %v", m)
			}
			break
		}
	}
	if reports != 5 {
		t.Errorf("%d reports, want 5", reports)
	}
}
