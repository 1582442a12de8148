package server

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestTasksExtensionOverStdio: over stdio a 2026-07-28 request declaring
// the tasks extension is served as over HTTP: a call of a tool that allows
// tasks answered with the task, tasks/get polling it to its inline
// result, tasks/cancel stopping another, tasks/update refused for a task
// that asks nothing, and a request without the extension refused; a call
// without it runs as usual.
func TestTasksExtensionOverStdio(t *testing.T) {
	s, stopped := taskServer(t, Options{})
	in, lines := stdioMessages(t, s)
	var next atomic.Int32
	ask := func(method, params string) map[string]any {
		id := next.Add(1)
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`+"\n", id, method, params)
		for {
			select {
			case m := <-lines:
				if m["id"] == float64(id) {
					return m
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no answer to %s within 10s", method)
			}
		}
	}
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{`
	withTasks := meta + `"extensions":{"io.modelcontextprotocol/tasks":{}}}},`
	if plain := result(t, ask("tools/call", meta+`}},"name":"vox_test_slow","arguments":{"ms":10}`)); plain["resultType"] != "complete" || !strings.Contains(fmt.Sprint(plain["content"]), `"slept":10`) {
		t.Fatalf("a call without the extension: %v", plain)
	}
	created := result(t, ask("tools/call", withTasks+`"name":"vox_test_slow","arguments":{"ms":200}`))
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || created["status"] != "working" || len(id) != 32 {
		t.Fatalf("a call with the extension: %v", created)
	}
	var got map[string]any
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if got = result(t, ask("tasks/get", withTasks+`"taskId":"`+id+`"`)); got["status"] != "working" || time.Now().After(deadline) {
			break
		}
	}
	if inline, _ := got["result"].(map[string]any); got["status"] != "completed" || !strings.Contains(fmt.Sprint(inline["content"]), `"slept":200`) {
		t.Fatalf("tasks/get: %v", got)
	}
	long := result(t, ask("tools/call", withTasks+`"name":"vox_test_slow","arguments":{"ms":60000}`))["taskId"].(string)
	if res := result(t, ask("tasks/cancel", withTasks+`"taskId":"`+long+`"`)); res["resultType"] != "complete" {
		t.Fatalf("tasks/cancel: %v", res)
	}
	for deadline := time.Now().Add(5 * time.Second); stopped.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if stopped.Load() != 1 {
		t.Fatal("the cancelled task's call was not stopped")
	}
	if code, msg := rpcErr(t, ask("tasks/update", withTasks+`"taskId":"`+id+`","inputResponses":{}`)); code != -32602 || !strings.Contains(msg, "asks for no input") {
		t.Errorf("tasks/update: %d %s", code, msg)
	}
	if code, _ := rpcErr(t, ask("tasks/get", meta+`}},"taskId":"`+id+`"`)); code != -32021 {
		t.Errorf("tasks/get without the extension: %d", code)
	}
	if code, _ := rpcErr(t, ask("tasks/result", withTasks+`"taskId":"`+id+`"`)); code != -32601 {
		t.Errorf("tasks/result under 2026-07-28: %d", code)
	}
}
