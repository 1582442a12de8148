package e2e

// Durable tasks in fleet mode (docs/tasks.md): two `vox-mcp --http
// --store redis://...` instances on one real redis-server; a task created
// on one is answered by the other, a cancel on the other stops the call
// on the first, and when the first is killed mid-task the other reports
// the task failed once the first's lease lapsed.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/fleet/redistest"
)

// taskInstance is a vox-mcp --http the test may kill.
type taskInstance struct {
	URL    string
	cmd    *exec.Cmd
	stderr *lockedBuffer
	exited chan error
	killed atomic.Bool
}

// startTaskInstance starts an instance of the fleet on redisURL; it is
// stopped with SIGTERM when the test ends, unless the test killed it.
func startTaskInstance(t *testing.T, root, redisURL string, env ...string) *taskInstance {
	t.Helper()
	s := &taskInstance{stderr: &lockedBuffer{}, exited: make(chan error, 1)}
	s.cmd = exec.Command(voxMCP, "--root", root, "--http", "127.0.0.1:0", "--store", redisURL)
	s.cmd.Env = serverEnv(t, env...)
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.exited <- s.cmd.Wait() }()
	t.Cleanup(func() {
		if s.killed.Load() {
			return
		}
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			t.Errorf("vox-mcp --http ignored SIGTERM for 30s\n%s", s.stderr)
		}
	})
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := urlLine.FindStringSubmatch(s.stderr.String()); m != nil {
			s.URL = m[1]
			return s
		}
	}
	t.Fatalf("vox-mcp --http logged no URL within 30s:\n%s", s.stderr)
	return nil
}

// kill ends the instance at once (SIGKILL): nothing of it runs after.
func (s *taskInstance) kill(t *testing.T) {
	s.killed.Store(true)
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.exited
}

// rpcAt sends one JSON-RPC request of session to endpoint and returns its
// answer, decoded.
func rpcAt(t *testing.T, endpoint, session, body string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(data, `"id"`) {
				raw = []byte(data)
			}
		}
	}
	var m map[string]any
	if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &m) != nil {
		t.Fatalf("%s at %s: HTTP %d %s", body, endpoint, resp.StatusCode, raw)
	}
	return m
}

func taskOf(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	r, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("not a result: %v", m)
	}
	if task, ok := r["task"].(map[string]any); ok {
		return task
	}
	return r
}

// TestFleetTasks: a task of vox_skill_run created on instance A is
// polled and answered on B; a cancel sent to B stops the command running
// on A; and a task on A when A is killed is found failed on B once A's
// lease (2 s here) lapsed.
func TestFleetTasks(t *testing.T) {
	redis := redistest.Start(t)
	root, skills := soakWorkspace(t)
	if err := os.MkdirAll(filepath.Join(skills, "task-skill"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skills, "task-skill", "SKILL.md"), []byte("---\nname: task-skill\ndescription: A skill whose commands the durable task test runs. Use in tests.\n---\n# Tasks\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The commands run without the sandbox: this test is about tasks, not
	// isolation, and must not depend on the host's namespaces.
	env := []string{"VOX_SKILL_ROOTS=" + skills, fleetKey, "VOX_MCP_TASK_LEASE=2s", "VOX_SKILL_SANDBOX=off"}
	a := startTaskInstance(t, root, redis.URL, env...)
	b := startTaskInstance(t, root, redis.URL, env...)
	session := initializeRaw(t, a.URL).id
	seq := 0
	at := func(s *taskInstance, method string, params any) map[string]any {
		t.Helper()
		seq++
		p, _ := json.Marshal(params)
		return rpcAt(t, s.URL, session, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, seq, method, p))
	}
	run := func(command string) string {
		t.Helper()
		task := taskOf(t, at(a, "tools/call", map[string]any{"name": "vox_skill_run", "task": map[string]any{"ttl": 60000},
			"arguments": map[string]any{"id": "task-skill", "command": command, "timeout_ms": 60000}}))
		if task["status"] != "working" {
			t.Fatalf("created on A: %v", task)
		}
		return task["taskId"].(string)
	}
	get := func(s *taskInstance, id string) map[string]any {
		return taskOf(t, at(s, "tasks/get", map[string]any{"taskId": id}))
	}

	// Created on A, answered on B.
	done := run("sleep 0.3; echo done-on-A")
	res := at(b, "tasks/result", map[string]any{"taskId": done})
	r, _ := res["result"].(map[string]any)
	if sc, _ := r["structuredContent"].(map[string]any); sc == nil || !strings.Contains(fmt.Sprint(sc["stdout"]), "done-on-A") {
		t.Fatalf("tasks/result on B: %v\nA: %s", res, a.stderr)
	}
	if got := get(b, done); got["status"] != "completed" {
		t.Fatalf("tasks/get on B: %v", got)
	}
	if list := taskOf(t, at(b, "tasks/list", map[string]any{}))["tasks"].([]any); len(list) != 1 {
		t.Fatalf("tasks/list on B: %v", list)
	}

	// A cancel sent to B stops the command running on A.
	mark := filepath.Join(t.TempDir(), "mark")
	looping := run(fmt.Sprintf("i=0; while [ $i -lt 600 ]; do echo $i > %s; i=$((i+1)); sleep 0.05; done", mark))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(mark); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the command on A never started: %v\n%s", err, a.stderr)
		}
	}
	if c := taskOf(t, at(b, "tasks/cancel", map[string]any{"taskId": looping})); c["status"] != "cancelled" {
		t.Fatalf("tasks/cancel on B: %v", c)
	}
	time.Sleep(2 * time.Second) // A renews every 2s/3 and then stops it
	before, _ := os.ReadFile(mark)
	time.Sleep(500 * time.Millisecond)
	after, _ := os.ReadFile(mark)
	if !bytes.Equal(before, after) {
		t.Fatalf("the command on A still runs after the cancel on B: %q then %q", before, after)
	}
	if got := get(a, looping); got["status"] != "cancelled" {
		t.Fatalf("tasks/get on A after the cancel: %v", got)
	}

	// A dies mid-task: B finds the task failed once A's lease lapsed.
	orphan := run("sleep 8")
	a.kill(t)
	if got := get(b, orphan); got["status"] != "working" {
		t.Fatalf("right after A died: %v", got)
	}
	var got map[string]any
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if got = get(b, orphan); got["status"] != "working" {
			break
		}
	}
	if got["status"] != "failed" || !strings.Contains(fmt.Sprint(got["statusMessage"]), "lease lapsed") {
		t.Fatalf("after A's lease: %v", got)
	}
	e, _ := at(b, "tasks/result", map[string]any{"taskId": orphan})["error"].(map[string]any)
	if e == nil || e["code"] != -32603.0 || !strings.Contains(fmt.Sprint(e["message"]), "failed without a result") {
		t.Fatalf("tasks/result of the failed task: %v", e)
	}
}

// tasksScenarios are the conformance suite's tasks scenarios (SEP-2663,
// an extension: run with --force) that TestTasksConformance runs, each
// with the checks that fail and why. The fixtures that ask the client
// (confirm_delete, multi_input, test_tool_with_task) are workspace tools
// in Vox: only a workspace tool's task asks (docs/tasks.md §5, "A task
// that asks"). Not run: tasks-status-notifications (not sent under
// 2026-07-28), tasks-required-task-error and tasks-request-headers.
var tasksScenarios = map[string]map[string]string{
	"tasks-capability-negotiation": {},
	"tasks-lifecycle": {
		"sep-2663-tasks-get-status-failed": "a tool's failure is an error result in vox-mcp, never a protocol error (docs/federation.md §3), so no task fails with an inlined error but one whose instance died",
	},
	"tasks-wire-fields":           {},
	"tasks-request-state-removal": {},
	"tasks-dispatch-and-envelope": {},
	"tasks-mrtr-input":            {},
	"tasks-mrtr-composition": {
		"sep-2663-mrtr-synchronous-before-task-creation": "vox-mcp makes the task on the first call of a tool that allows tasks (docs/tasks.md §5), so the first round is a task, not an input_required result that a retry turns into a task",
	},
}

// TestTasksConformance runs the conformance suite's tasks scenarios
// (0.2.0-alpha.12, protocol 2026-07-28) against internal/server serving
// the suite's fixtures (tasksfixture).
func TestTasksConformance(t *testing.T) {
	node := node22(t)
	entry := conformanceEntry(t, conformanceNext, "0.2.0-alpha.12")
	bin := filepath.Join(t.TempDir(), "tasksfixture")
	build := exec.Command("go", "build", "-o", bin, "./e2e/tasksfixture")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./e2e/tasksfixture: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "url=")
	if err != nil || !ok {
		t.Fatalf("tasksfixture printed %q: %v", line, err)
	}
	for scenario, expected := range tasksScenarios {
		results := t.TempDir()
		out, runErr := runNode(t, 3*time.Minute, serverEnv(t), node, entry, "server", "--url", url,
			"--scenario", scenario, "--force", "--output-dir", results)
		checks, err := readConformanceChecks(results)
		if err != nil || len(checks[scenario]) == 0 {
			t.Fatalf("%s ran no check (%v, %v):\n%s", scenario, err, runErr, out)
		}
		passed := 0
		for _, c := range checks[scenario] {
			_, known := expected[c.ID]
			switch {
			case c.Status == "SUCCESS" && known:
				t.Errorf("%s: %s passes now: remove it from tasksScenarios", scenario, c.ID)
			case c.Status == "SUCCESS":
				passed++
			case (c.Status == "FAILURE" || c.Status == "WARNING") && !known:
				t.Errorf("%s: %s %s: %s", scenario, c.ID, c.Status, c.ErrorMessage)
			}
		}
		if passed == 0 {
			t.Errorf("%s: no check passed:\n%s", scenario, out)
		}
	}
}
