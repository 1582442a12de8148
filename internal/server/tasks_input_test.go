package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

const askTaskVox = `@long_running
@tool "Asks for a name, as a task"
fn ask_task(message: str) to str {
    let r = elicit(message, {type: "object", properties: {name: {type: "string"}}, required: ["name"]}, "user_name")
    "Hello, " + r["content"]["name"] + "!"
}
`

// TestTaskInputRequiredModern: under 2026-07-28 a task whose tool asks
// its client is input_required, its inputRequests in tasks/get;
// tasks/update with the inputResponses resumes it to its result. An
// update of a task that asks for nothing is refused.
func TestTaskInputRequiredModern(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/ask.vox": askTaskVox})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	t.Cleanup(ts.Close)
	url := ts.URL
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}},`
	get := func(id string) map[string]any {
		return result(t, modernPostRaw(t, url, "tasks/get", "", meta+`"taskId":"`+id+`"`))
	}
	poll := func(id string) map[string]any {
		var got map[string]any
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if got = get(id); got["status"] != "working" || time.Now().After(deadline) {
				return got
			}
		}
	}
	created := result(t, modernPostRaw(t, url, "tools/call", "ask_task", meta+`"name":"ask_task","arguments":{"message":"Who?"}`))
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || id == "" {
		t.Fatalf("the call: %v", created)
	}
	got := poll(id)
	reqs, _ := got["inputRequests"].(map[string]any)
	q, _ := reqs["user_name"].(map[string]any)
	if got["status"] != "input_required" || q["method"] != "elicitation/create" || got["result"] != nil || got["requestState"] != nil {
		t.Fatalf("tasks/get of a task that asks: %v", got)
	}
	if code, msg := rpcErr(t, modernPostRaw(t, url, "tasks/update", "", meta+`"taskId":"`+id+`"`)); code != -32602 || !strings.Contains(msg, "inputResponses") {
		t.Errorf("tasks/update without inputResponses: %d %s", code, msg)
	}
	answer := `"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}}`
	if res := result(t, modernPostRaw(t, url, "tasks/update", "", meta+`"taskId":"`+id+`",`+answer)); res["resultType"] != "complete" {
		t.Fatalf("tasks/update: %v", res)
	}
	got = poll(id)
	if got["status"] != "completed" || !strings.Contains(fmt.Sprint(got["result"]), "Hello, Alice!") || got["inputRequests"] != nil {
		t.Fatalf("tasks/get after the update: %v", got)
	}
	if code, msg := rpcErr(t, modernPostRaw(t, url, "tasks/update", "", meta+`"taskId":"`+id+`",`+answer)); code != -32602 || !strings.Contains(msg, "asks for no input") {
		t.Errorf("tasks/update of a completed task: %d %s", code, msg)
	}

	// A task that asks is cancelled: the update comes too late.
	other := result(t, modernPostRaw(t, url, "tools/call", "ask_task", meta+`"name":"ask_task","arguments":{"message":"Who else?"}`))["taskId"].(string)
	if got := poll(other); got["status"] != "input_required" {
		t.Fatalf("the second task: %v", got)
	}
	if res := result(t, modernPostRaw(t, url, "tasks/cancel", "", meta+`"taskId":"`+other+`"`)); res["resultType"] != "complete" {
		t.Fatalf("tasks/cancel: %v", res)
	}
	if got := get(other); got["status"] != "cancelled" || got["inputRequests"] != nil {
		t.Fatalf("a cancelled task that asked: %v", got)
	}
	if code, msg := rpcErr(t, modernPostRaw(t, url, "tasks/update", "", meta+`"taskId":"`+other+`",`+answer)); code != -32602 || !strings.Contains(msg, "(it is cancelled)") {
		t.Errorf("tasks/update of a cancelled task: %d %s", code, msg)
	}
}

const askTwoTaskVox = `@long_running
@tool "Asks two names at once, as a task"
fn ask_two() to str {
    let schema = {type: "object", properties: {name: {type: "string"}}, required: ["name"]}
    let a = ask_all({first: {elicit: "First?", schema: schema}, second: {elicit: "Second?", schema: schema}})
    a["first"]["content"]["name"] + " and " + a["second"]["content"]["name"]
}
`

// TestTaskPartialInputModern: a task that asks two questions at once is
// answered one tasks/update at a time (docs/tasks.md §5, "A task that
// asks"): after an update that answers one, the task is still
// input_required with only the other in inputRequests, answers to keys it
// does not ask are dropped, and the last update resumes it with every
// answer.
func TestTaskPartialInputModern(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/ask.vox": askTwoTaskVox})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	t.Cleanup(ts.Close)
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}},`
	get := func(id string) map[string]any {
		return result(t, modernPostRaw(t, ts.URL, "tasks/get", "", meta+`"taskId":"`+id+`"`))
	}
	update := func(id, answers string) {
		t.Helper()
		if res := result(t, modernPostRaw(t, ts.URL, "tasks/update", "", meta+`"taskId":"`+id+`","inputResponses":{`+answers+`}`)); res["resultType"] != "complete" {
			t.Fatalf("tasks/update %s: %v", answers, res)
		}
	}
	pending := func(got map[string]any) []string {
		reqs, _ := got["inputRequests"].(map[string]any)
		keys := []string{}
		for k := range reqs {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return keys
	}
	id, _ := result(t, modernPostRaw(t, ts.URL, "tools/call", "ask_two", meta+`"name":"ask_two","arguments":{}`))["taskId"].(string)
	var got map[string]any
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if got = get(id); got["status"] != "working" || time.Now().After(deadline) {
			break
		}
	}
	if got["status"] != "input_required" || !slices.Equal(pending(got), []string{"first", "second"}) {
		t.Fatalf("the task that asks two: %v", got)
	}
	answer := func(key, name string) string {
		return `"` + key + `":{"action":"accept","content":{"name":"` + name + `"}}`
	}
	update(id, answer("first", "Alice")+`,"unknown":{"ignored":true}`)
	if got = get(id); got["status"] != "input_required" || !slices.Equal(pending(got), []string{"second"}) {
		t.Fatalf("after answering first: %v", got)
	}
	update(id, answer("first", "Mallory")) // first is answered already: dropped
	if got = get(id); got["status"] != "input_required" || !slices.Equal(pending(got), []string{"second"}) {
		t.Fatalf("after answering first again: %v", got)
	}
	update(id, answer("second", "Bob"))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if got = get(id); got["status"] != "working" || time.Now().After(deadline) {
			break
		}
	}
	if got["status"] != "completed" || !strings.Contains(fmt.Sprint(got["result"]), "Alice and Bob") || got["inputRequests"] != nil {
		t.Fatalf("after answering both: %v", got)
	}
}

// TestTaskInputRequiredOverHTTP: under 2025-11-25 a task whose tool
// asks its client sends its elicitation/create on the creating session's
// GET stream with the related-task _meta, and is input_required (told on
// that stream, and in tasks/get) until the client answers; then it runs
// on to its result.
func TestTaskInputRequiredOverHTTP(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/ask.vox": askTaskVox})
	url, opened := openedServer(t, s.HTTPHandler(Auth{}))
	c := &httpClient{t: t, url: url}
	r := c.do(http.MethodPost, strings.Replace(initializeBody, `"capabilities":{}`, `"capabilities":{"elicitation":{}}`, 1))
	c.session = r.header.Get("Mcp-Session-Id")
	c.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// Every message of the GET stream, as it comes, until the task's end.
	msgs := make(chan map[string]any, 64)
	getStream(t, c, func(m map[string]any) bool {
		msgs <- m
		return taskStatusIs("completed", "failed", "cancelled")(m)
	})
	<-opened
	id := result(t, c.rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_task","arguments":{"message":"Who?"},"task":{}}}`))["task"].(map[string]any)["taskId"].(string)
	statuses := []string{}
	next := func() map[string]any {
		select {
		case m := <-msgs:
			if taskStatusIs("input_required", "working", "completed", "failed", "cancelled")(m) {
				statuses = append(statuses, m["params"].(map[string]any)["status"].(string))
			}
			return m
		case <-time.After(30 * time.Second):
			t.Fatalf("the GET stream carried nothing more within 30s (statuses %v)", statuses)
			return nil
		}
	}
	var req map[string]any
	for req == nil {
		if m := next(); m["method"] == "elicitation/create" {
			req = m
		}
	}
	if relatedTask(req) != id || req["id"] == nil {
		t.Fatalf("the elicitation request: %v", req)
	}
	if task := result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"`+id+`"}}`)); task["status"] != "input_required" {
		t.Fatalf("tasks/get while the client is asked: %v", task)
	}
	reqID, _ := json.Marshal(req["id"])
	if r := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":`+string(reqID)+`,"result":{"action":"accept","content":{"name":"Bob"}}}`); r.status >= 300 {
		t.Fatalf("the answer: %d %s", r.status, r.body)
	}
	res := result(t, c.rpc(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"`+id+`"}}`))
	if !strings.Contains(fmt.Sprint(res["content"]), "Hello, Bob!") {
		t.Fatalf("tasks/result: %v", res)
	}
	for len(statuses) == 0 || statuses[len(statuses)-1] != "completed" {
		next()
	}
	if strings.Join(statuses, " ") != "input_required working completed" {
		t.Errorf("the task's status notifications: %v", statuses)
	}
}

// TestTaskInputRequiredOverStdio: over stdio a task's elicitation/create
// is a line of the output with the related-task _meta; the answer, a
// line of the input, lets the task run on to its result.
func TestTaskInputRequiredOverStdio(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/ask.vox": askTaskVox})
	in, lines := stdioMessages(t, s)
	next := func(want func(map[string]any) bool) map[string]any {
		for {
			select {
			case m := <-lines:
				if want(m) {
					return m
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no such line within 10s")
			}
		}
	}
	hasID := func(id float64) func(map[string]any) bool {
		return func(m map[string]any) bool { return m["id"] == id && m["method"] == nil }
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	next(hasID(1))
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_task","arguments":{"message":"Who?"},"task":{}}}`)
	// The task's call may ask before its answer is written: either comes
	// first.
	var created, req map[string]any
	for created == nil || req == nil {
		m := next(func(m map[string]any) bool { return hasID(2)(m) || m["method"] == "elicitation/create" })
		if m["method"] != nil {
			req = m
		} else {
			created = m
		}
	}
	id := result(t, created)["task"].(map[string]any)["taskId"].(string)
	if relatedTask(req) != id {
		t.Fatalf("the elicitation request: %v", req)
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"`+id+`"}}`)
	if got := result(t, next(hasID(3))); got["status"] != "input_required" {
		t.Fatalf("tasks/get while the client is asked: %v", got)
	}
	reqID, _ := json.Marshal(req["id"])
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":`+string(reqID)+`,"result":{"action":"accept","content":{"name":"Eve"}}}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"`+id+`"}}`)
	if res := result(t, next(hasID(4))); !strings.Contains(fmt.Sprint(res["content"]), "Hello, Eve!") {
		t.Fatalf("tasks/result: %v", res)
	}
}
