package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// taskServer serves the test catalog plus vox_test_slow, a tool that
// allows tasks (mcp.task_support: optional): it sleeps {"ms": N} or until
// its call is cancelled, counted in stopped. The catalog tools named in
// taskTools allow tasks too: declared before New, which prepares the
// tools/list answer on a goroutine of its own.
func taskServer(t *testing.T, opts Options, taskTools ...string) (s *Server, stopped *atomic.Int32) {
	t.Helper()
	stopped = new(atomic.Int32)
	cat := testCatalog()
	for i := range cat.Operations {
		if m := cat.Operations[i].MCP; m != nil && slices.Contains(taskTools, m.Name) {
			withTasks := *m
			withTasks.TaskSupport = registry.TaskOptional
			cat.Operations[i].MCP = &withTasks
		}
	}
	cat.Operations = append(cat.Operations, registry.Operation{ID: "t.slow", Title: "slow", Description: "sleeps", ProductLane: "platform",
		SideEffectClass: "none", MCP: &registry.MCP{Name: "vox_test_slow", Exposure: "core", TaskSupport: registry.TaskOptional, InputSchema: json.RawMessage(`{"type":"object"}`)}})
	opts.Root, opts.Catalog = t.TempDir(), cat
	opts.Handlers = func(svc *Services) map[string]toolcall.Handler {
		table := testTable(svc)
		table["vox_test_slow"] = func(c *toolcall.Call, raw json.RawMessage) ([]byte, error) {
			var args struct{ MS int }
			_ = json.Unmarshal(raw, &args)
			select {
			case <-time.After(time.Duration(args.MS) * time.Millisecond):
				return json.Marshal(map[string]any{"slept": args.MS})
			case <-c.Context().Done():
				stopped.Add(1)
				return nil, fmt.Errorf("stopped: %v", c.Context().Err())
			}
		}
		return table
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, stopped
}

// result is the result of a JSON-RPC answer, failing on an error.
func result(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	r, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("not a result: %v", m)
	}
	return r
}

// rpcErr is the error of a JSON-RPC answer: its code and message.
func rpcErr(t *testing.T, m map[string]any) (int, string) {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("not an error: %v", m)
	}
	return int(e["code"].(float64)), e["message"].(string)
}

// TestTasksOverHTTP: a task-augmented call is answered with a working
// task, polled with tasks/get, listed, and tasks/result gives the tool's
// result; a cancel stops the call; another principal sees none of it; a
// tool without task support refuses params.task.
func TestTasksOverHTTP(t *testing.T) {
	s, stopped := taskServer(t, Options{})
	ts := httptest.NewServer(s.HTTPHandler(Auth{Token: "full-secret", ReadToken: "read-secret"}))
	defer ts.Close()
	full := &httpClient{t: t, url: ts.URL + "/mcp", token: "full-secret"}
	init := full.do(http.MethodPost, initializeBody).json(t)
	caps := result(t, init)["capabilities"].(map[string]any)["tasks"]
	if b, _ := json.Marshal(caps); string(b) != `{"cancel":{},"list":{},"requests":{"tools":{"call":{}}}}` {
		t.Fatalf("initialize declares tasks %s", b)
	}
	full.initialize()
	reader := &httpClient{t: t, url: ts.URL + "/mcp", token: "read-secret"}
	reader.initialize()

	for _, tool := range result(t, full.rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))["tools"].([]any) {
		tool := tool.(map[string]any)
		exec, _ := tool["execution"].(map[string]any)
		if want := tool["name"] == "vox_test_slow"; (exec["taskSupport"] == "optional") != want {
			t.Errorf("tool %s has execution %v", tool["name"], tool["execution"])
		}
	}

	// A call as a task, polled to its end.
	created := result(t, full.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"vox_test_slow","arguments":{"ms":300},"task":{"ttl":60000}}}`))["task"].(map[string]any)
	id, _ := created["taskId"].(string)
	if created["status"] != "working" || len(id) != 32 || created["ttl"] != 60000.0 || created["pollInterval"] != 500.0 || created["createdAt"] == nil {
		t.Fatalf("created %v", created)
	}
	var got map[string]any
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got = result(t, full.rpc(`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"`+id+`"}}`))
		if got["status"] != "working" || time.Now().After(deadline) {
			break
		}
	}
	if got["status"] != "completed" || got["taskId"] != id {
		t.Fatalf("tasks/get: %v", got)
	}
	res := result(t, full.rpc(`{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"`+id+`"}}`))
	text, _ := res["content"].([]any)[0].(map[string]any)["text"].(string)
	meta, _ := res["_meta"].(map[string]any)["io.modelcontextprotocol/related-task"].(map[string]any)
	if !strings.Contains(text, `"slept":300`) || meta["taskId"] != id || res["isError"] == true {
		t.Fatalf("tasks/result: %v", res)
	}

	// tasks/result waits for a task that still works.
	created = result(t, full.rpc(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"vox_test_slow","arguments":{"ms":400},"task":{}}}`))["task"].(map[string]any)
	start := time.Now()
	res = result(t, full.rpc(`{"jsonrpc":"2.0","id":6,"method":"tasks/result","params":{"taskId":"`+created["taskId"].(string)+`"}}`))
	if time.Since(start) < 200*time.Millisecond || !strings.Contains(fmt.Sprint(res["content"]), `"slept":400`) || created["ttl"] != 3600000.0 {
		t.Fatalf("a waiting tasks/result: %v after %v (created %v)", res, time.Since(start), created)
	}

	// A cancel ends the task and stops its call.
	created = result(t, full.rpc(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"vox_test_slow","arguments":{"ms":60000},"task":{"ttl":60000}}}`))["task"].(map[string]any)
	long := created["taskId"].(string)
	// Another principal can neither see, list, cancel nor read it.
	for _, method := range []string{"tasks/get", "tasks/cancel", "tasks/result"} {
		code, msg := rpcErr(t, reader.rpc(`{"jsonrpc":"2.0","id":8,"method":"`+method+`","params":{"taskId":"`+long+`"}}`))
		if code != -32602 || !strings.Contains(msg, "no task "+long) {
			t.Errorf("the read role's %s of another's task: %d %s", method, code, msg)
		}
	}
	if tasks := result(t, reader.rpc(`{"jsonrpc":"2.0","id":9,"method":"tasks/list"}`))["tasks"].([]any); len(tasks) != 0 {
		t.Errorf("the read role lists %v", tasks)
	}
	if tasks := result(t, full.rpc(`{"jsonrpc":"2.0","id":10,"method":"tasks/list"}`))["tasks"].([]any); len(tasks) != 3 || tasks[2].(map[string]any)["taskId"] != long {
		t.Errorf("the owner lists %v", tasks)
	}
	cancelled := result(t, full.rpc(`{"jsonrpc":"2.0","id":11,"method":"tasks/cancel","params":{"taskId":"`+long+`"}}`))
	if cancelled["status"] != "cancelled" || cancelled["taskId"] != long {
		t.Fatalf("tasks/cancel: %v", cancelled)
	}
	for deadline := time.Now().Add(5 * time.Second); stopped.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if stopped.Load() != 1 {
		t.Fatal("the cancelled task's call was not stopped")
	}
	time.Sleep(100 * time.Millisecond) // its end is recorded: the cancel stays
	if got := result(t, full.rpc(`{"jsonrpc":"2.0","id":12,"method":"tasks/get","params":{"taskId":"`+long+`"}}`)); got["status"] != "cancelled" {
		t.Fatalf("after the call stopped: %v", got)
	}
	if code, msg := rpcErr(t, full.rpc(`{"jsonrpc":"2.0","id":13,"method":"tasks/result","params":{"taskId":"`+long+`"}}`)); code != -32603 || !strings.Contains(msg, "cancelled without a result") {
		t.Errorf("tasks/result of a cancelled task: %d %s", code, msg)
	}
	if code, msg := rpcErr(t, full.rpc(`{"jsonrpc":"2.0","id":14,"method":"tasks/cancel","params":{"taskId":"`+id+`"}}`)); code != -32602 || !strings.Contains(msg, "ended already (completed)") {
		t.Errorf("cancelling a completed task: %d %s", code, msg)
	}

	// A tool that does not allow tasks refuses params.task.
	if code, msg := rpcErr(t, full.rpc(`{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"vox_test_fail","arguments":{},"task":{}}}`)); code != -32601 || !strings.Contains(msg, "cannot run as a task") {
		t.Errorf("a task of a tool without task support: %d %s", code, msg)
	}
	// The same tool called without a task answers at once.
	if text, isErr := full.call("vox_test_slow"); isErr || !strings.Contains(text, `"slept":0`) {
		t.Errorf("an ordinary call: %s %v", text, isErr)
	}
}

// TestTaskFailsWithTheCallsError: a call whose tool fails is a failed
// task; tasks/result gives the error result, as the call would have.
func TestTaskFailsWithTheCallsError(t *testing.T) {
	s, _ := taskServer(t, Options{}, "vox_test_fail")
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	c := &httpClient{t: t, url: ts.URL + "/mcp"}
	c.initialize()
	id := result(t, c.rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"vox_test_fail","task":{}}}`))["task"].(map[string]any)["taskId"].(string)
	res := result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"`+id+`"}}`))
	if res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "it failed; try again later") {
		t.Fatalf("tasks/result: %v", res)
	}
	got := result(t, c.rpc(`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"`+id+`"}}`))
	if got["status"] != "failed" || !strings.Contains(got["statusMessage"].(string), "it failed") {
		t.Fatalf("tasks/get: %v", got)
	}
}

// TestTasksOverStdio: over stdio a waiting tasks/result does not hold the
// reading of the requests after it.
func TestTasksOverStdio(t *testing.T) {
	s, _ := taskServer(t, Options{})
	in, lines := stdioMessages(t, s)
	answer := func() map[string]any {
		for {
			select {
			case m := <-lines:
				if m["id"] != nil {
					return m
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no answer within 10s")
			}
		}
	}
	send := func(msg string) { fmt.Fprintln(in, msg) }
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	answer()
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"vox_test_slow","arguments":{"ms":500},"task":{"ttl":1000}}}`)
	task := result(t, answer())["task"].(map[string]any)
	if task["ttl"] != 10000.0 {
		t.Errorf("a ttl under the minimum is raised to it: %v", task["ttl"])
	}
	id := task["taskId"].(string)
	send(`{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"` + id + `"}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"` + id + `"}}`)
	first := answer()
	if first["id"] != 3.0 || result(t, first)["status"] != "working" {
		t.Fatalf("the tasks/get after a waiting tasks/result: %v", first)
	}
	res := answer()
	if res["id"] != 2.0 || !strings.Contains(fmt.Sprint(result(t, res)["content"]), `"slept":500`) {
		t.Fatalf("tasks/result: %v", res)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"tasks/list","params":{}}`)
	if list := result(t, answer())["tasks"].([]any); len(list) != 1 || list[0].(map[string]any)["status"] != "completed" {
		t.Fatalf("tasks/list: %v", list)
	}
	// The task is the stdio principal's (docs/tasks.md, "Whose task").
	if mine, err := s.tasks.store.List(t.Context(), PrincipalStdio); err != nil || len(mine) != 1 || mine[0].ID != id {
		t.Fatalf("the stdio principal's tasks: %v %v", mine, err)
	}
}

// TestTasksExtensionModern: under protocol 2026-07-28 a client that
// declares io.modelcontextprotocol/tasks gets a task for a call of a tool
// that allows tasks, polls it with tasks/get (the result inline), and
// cancels with tasks/cancel; tasks/update of a task that does not ask
// (tasks_input_test.go has one that does) has nothing to update, and the
// methods of 2025-11-25 the extension dropped are refused.
func TestTasksExtensionModern(t *testing.T) {
	s, stopped := taskServer(t, Options{})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	url := ts.URL + "/mcp"
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{`
	withTasks := meta + `"extensions":{"io.modelcontextprotocol/tasks":{}}}},`
	call := func(caps string, ms int) map[string]any {
		return modernPostRaw(t, url, "tools/call", "vox_test_slow", caps+fmt.Sprintf(`"name":"vox_test_slow","arguments":{"ms":%d}`, ms))
	}
	tasksReq := func(method, id string) map[string]any {
		return modernPostRaw(t, url, method, "", withTasks+`"taskId":"`+id+`"`)
	}
	if plain := result(t, call(meta+"}},", 10)); plain["resultType"] != "complete" || !strings.Contains(fmt.Sprint(plain["content"]), `"slept":10`) {
		t.Fatalf("a call without the extension: %v", plain)
	}
	created := result(t, call(withTasks, 300))
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || created["status"] != "working" || len(id) != 32 || created["ttlMs"] != 3600000.0 || created["pollIntervalMs"] != 500.0 {
		t.Fatalf("a call with the extension: %v", created)
	}
	var got map[string]any
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if got = result(t, tasksReq("tasks/get", id)); got["status"] != "working" || time.Now().After(deadline) {
			break
		}
	}
	inline, _ := got["result"].(map[string]any)
	if got["status"] != "completed" || got["resultType"] != "complete" || inline["resultType"] != "complete" || !strings.Contains(fmt.Sprint(inline["content"]), `"slept":300`) {
		t.Fatalf("tasks/get: %v", got)
	}

	long := result(t, call(withTasks, 60000))["taskId"].(string)
	if res := result(t, tasksReq("tasks/cancel", long)); res["resultType"] != "complete" {
		t.Fatalf("tasks/cancel: %v", res)
	}
	if got := result(t, tasksReq("tasks/get", long)); got["status"] != "cancelled" {
		t.Fatalf("tasks/get after the cancel: %v", got)
	}
	for deadline := time.Now().Add(5 * time.Second); stopped.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if stopped.Load() != 1 {
		t.Fatal("the cancelled task's call was not stopped")
	}
	// A cancel of a task that ended is acknowledged as well.
	if res := result(t, tasksReq("tasks/cancel", id)); res["resultType"] != "complete" || res["status"] != nil {
		t.Fatalf("tasks/cancel of a completed task: %v", res)
	}
	if got := result(t, tasksReq("tasks/get", id)); got["status"] != "completed" {
		t.Fatalf("a completed task after a cancel: %v", got)
	}
	// The methods need the extension declared in the request.
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		r := modernPostRaw(t, url, method, "", meta+`}},"taskId":"`+id+`"`)
		if code, msg := rpcErr(t, r); code != -32021 || !strings.Contains(msg, "io.modelcontextprotocol/tasks") {
			t.Errorf("%s without the extension: %d %s", method, code, msg)
		}
	}
	// server/discover declares the extension, not 2025-11-25's capability.
	caps := result(t, modernPostRaw(t, url, "server/discover", "", meta+"}}"))["capabilities"].(map[string]any)
	if _, v1 := caps["tasks"]; v1 || caps["extensions"].(map[string]any)["io.modelcontextprotocol/tasks"] == nil {
		t.Errorf("server/discover declares %v", caps)
	}
	if code, msg := rpcErr(t, modernPostRaw(t, url, "tasks/update", "", withTasks+`"taskId":"`+id+`","inputResponses":{}`)); code != -32602 || !strings.Contains(msg, "asks for no input") {
		t.Errorf("tasks/update: %d %s", code, msg)
	}
	for _, method := range []string{"tasks/result", "tasks/list"} {
		if code, _ := rpcErr(t, tasksReq(method, id)); code != -32601 {
			t.Errorf("%s under 2026-07-28: %d, want -32601", method, code)
		}
	}
	if code, _ := rpcErr(t, tasksReq("tasks/get", "0123")); code != -32602 {
		t.Errorf("tasks/get of an unknown task: %d", code)
	}
}

// TestTasksListPages: tasks/list pages by 100, oldest first, and a cursor
// it did not issue is refused.
func TestTasksListPages(t *testing.T) {
	s, _ := taskServer(t, Options{})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	c := &httpClient{t: t, url: ts.URL + "/mcp"}
	c.initialize()
	var ids []string
	for i := range tasksPage + 5 {
		task := result(t, c.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"vox_test_slow","arguments":{"ms":0},"task":{}}}`, i+1)))["task"].(map[string]any)
		ids = append(ids, task["taskId"].(string))
	}
	first := result(t, c.rpc(`{"jsonrpc":"2.0","id":200,"method":"tasks/list"}`))
	page, _ := first["tasks"].([]any)
	cursor, _ := first["nextCursor"].(string)
	if len(page) != tasksPage || cursor != page[tasksPage-1].(map[string]any)["taskId"] {
		t.Fatalf("first page: %d tasks, cursor %q", len(page), cursor)
	}
	second := result(t, c.rpc(`{"jsonrpc":"2.0","id":201,"method":"tasks/list","params":{"cursor":"`+cursor+`"}}`))
	rest, _ := second["tasks"].([]any)
	if len(rest) != 5 || second["nextCursor"] != nil {
		t.Fatalf("second page: %v", second)
	}
	seen := map[string]bool{}
	for _, task := range append(page, rest...) {
		seen[task.(map[string]any)["taskId"].(string)] = true
	}
	for _, id := range ids {
		if !seen[id] {
			t.Errorf("task %s is on no page", id)
		}
	}
	if code, msg := rpcErr(t, c.rpc(`{"jsonrpc":"2.0","id":202,"method":"tasks/list","params":{"cursor":"nope"}}`)); code != -32602 || !strings.Contains(msg, "unknown cursor") {
		t.Errorf("an unknown cursor: %d %s", code, msg)
	}
}

// TestLongRunningWorkspaceTool: a workspace tool declared @long_running
// allows tasks (execution.taskSupport optional) and runs as one; its
// neighbour without the decorator refuses params.task (the decorator
// elsewhere is an error: testdata/schema/long_running.txtar of
// internal/vox).
func TestLongRunningWorkspaceTool(t *testing.T) {
	root := t.TempDir()
	src := "@long_running\n@tool \"Echoes slowly\"\nfn echo_slow(s: str) to str { s }\n\n" +
		"@tool \"Echoes\"\nfn echo_now(s: str) to str { s }\n"
	if err := os.WriteFile(filepath.Join(root, "tools.vox"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Root: root, WorkspaceTools: true})
	if err != nil {
		t.Fatal(err)
	}
	s.WaitWorkspace(t.Context())
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	c := &httpClient{t: t, url: ts.URL + "/mcp"}
	c.initialize()
	support := map[string]any{}
	for _, tool := range result(t, c.rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))["tools"].([]any) {
		tool := tool.(map[string]any)
		exec, _ := tool["execution"].(map[string]any)
		support[tool["name"].(string)] = exec["taskSupport"]
	}
	if support["echo_slow"] != "optional" || support["echo_now"] != nil {
		t.Fatalf("taskSupport: %v", support)
	}
	id := result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo_slow","arguments":{"s":"hi"},"task":{}}}`))["task"].(map[string]any)["taskId"].(string)
	if res := result(t, c.rpc(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"`+id+`"}}`)); !strings.Contains(fmt.Sprint(res["content"]), "hi") {
		t.Fatalf("tasks/result: %v", res)
	}
	if code, _ := rpcErr(t, c.rpc(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo_now","arguments":{"s":"hi"},"task":{}}}`)); code != -32601 {
		t.Errorf("a task of a tool without @long_running: %d", code)
	}
}
