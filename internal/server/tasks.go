package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/tasks"
	"github.com/vox-lang/vox-mcp/runtime/registry"
)

// Durable tasks of protocol 2025-11-25 (docs/tasks.md): a tools/call
// with params.task of a tool whose execution.taskSupport allows it is
// answered at once with the task, and runs in the background here; the
// shim (shim.go) serves tasks/get, tasks/list, tasks/cancel and
// tasks/result from the task store (Options.Tasks) — mcp-go v1.2.1 keeps
// its tasks in a map of its own process, with no store to share, so none
// of them reaches mcp-go. The call itself is served by mcp-go, without
// params.task, through the same middleware as any call: the checks on a
// call (call_checks.go) apply, and a refused call is a failed task whose
// result is the refusal.

// taskPollInterval is the pollInterval the server suggests, and how
// often a waiting tasks/result reads the store again.
const taskPollInterval = 500 * time.Millisecond

// taskPlane runs this instance's tasks.
type taskPlane struct {
	s     *Server
	store tasks.Store

	mu sync.Mutex
	// running are the tasks this instance runs, with what stops them and
	// whom their notifications go to.
	running map[string]*runningTask
	// renewing: the lease loop runs (it stops when nothing runs).
	renewing bool
	// sessions are mcp-go's sessions of this instance by id, for the
	// notifications of the tasks they created (tasks_notify.go).
	sessions sync.Map
}

// runningTask is a task this instance runs.
type runningTask struct {
	cancel context.CancelFunc
	// session is the mcp-go session id of the session that created the
	// task ("" for none: protocol 2026-07-28).
	session string
	// ended: its terminal status was notified.
	ended bool
}

func newTaskPlane(s *Server, store tasks.Store) *taskPlane {
	if store == nil {
		store = tasks.NewMemory(0, nil)
	}
	return &taskPlane{s: s, store: store, running: map[string]*runningTask{}}
}

// track records a running task and starts the lease loop if it is not
// running.
func (tp *taskPlane) track(id, session string, cancel context.CancelFunc) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.running[id] = &runningTask{cancel: cancel, session: session}
	if !tp.renewing {
		tp.renewing = true
		go tp.renewLoop()
	}
}

// untrack forgets a task that ended.
func (tp *taskPlane) untrack(id string) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if r, ok := tp.running[id]; ok {
		r.cancel()
		delete(tp.running, id)
	}
}

// stop cancels a running task of this instance (a tasks/cancel that
// reached it); false when it does not run here.
func (tp *taskPlane) stop(id string) bool {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	r, ok := tp.running[id]
	if ok {
		r.cancel()
	}
	return ok
}

// renewLoop renews this instance's lease every third of it while tasks
// run, and stops those that are no longer working in the store: a
// tasks/cancel served by another instance reaches this one so.
func (tp *taskPlane) renewLoop() {
	t := time.NewTicker(tp.store.Lease() / 3)
	defer t.Stop()
	for range t.C {
		tp.mu.Lock()
		if len(tp.running) == 0 {
			tp.renewing = false
			tp.mu.Unlock()
			return
		}
		ids := make([]string, 0, len(tp.running))
		for id := range tp.running {
			ids = append(ids, id)
		}
		tp.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), tp.store.Lease()/3)
		stopped, err := tp.store.Renew(ctx, ids)
		cancel()
		if err != nil {
			tp.s.log.Warn("tasks: renewing this instance's lease failed; its tasks are found failed if it lapses", "err", err)
			continue
		}
		for _, id := range stopped {
			tp.stop(id)
		}
	}
}

// taskMethods are the methods of protocol 2025-11-25's tasks, served by
// the shim. Each sees only the tasks of the request's principal, so the
// read role may call them.
var taskMethods = map[string]func(tp *taskPlane, ctx context.Context, id, params json.RawMessage) []byte{
	string(mcp.MethodTasksGet):    (*taskPlane).tasksGet,
	string(mcp.MethodTasksList):   (*taskPlane).tasksList,
	string(mcp.MethodTasksCancel): (*taskPlane).tasksCancel,
	string(mcp.MethodTasksResult): (*taskPlane).tasksResult,
}

// taskPrincipal is whose tasks the request behind ctx may see
// (docs/tasks.md, "Whose task").
func (tp *taskPlane) taskPrincipal(ctx context.Context) string { return PrincipalFrom(ctx) }

// wireTask is t as MCP's Task.
func wireTask(t tasks.Task) mcp.Task {
	ttl, poll := t.TTL.Milliseconds(), taskPollInterval.Milliseconds()
	return mcp.Task{
		TaskId:        t.ID,
		Status:        mcp.TaskStatus(t.Status),
		StatusMessage: t.Message,
		CreatedAt:     t.Created.UTC().Format(isoMillis),
		LastUpdatedAt: t.Updated.UTC().Format(isoMillis),
		TTL:           &ttl,
		PollInterval:  &poll,
	}
}

const isoMillis = "2006-01-02T15:04:05.000Z07:00"

// taskParams are the params of tasks/get, tasks/cancel and tasks/result.
func taskIDParam(method string, params json.RawMessage) (string, *rpcError) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	if unmarshal(params, &p) != nil || p.TaskID == "" {
		return "", &rpcError{Code: mcp.INVALID_PARAMS, Message: method + ` needs params {"taskId": "..."}: the taskId of the task a tools/call with params.task answered`}
	}
	return p.TaskID, nil
}

// taskError is the JSON-RPC error of a store's error about task id.
func taskError(method, id string, err error) *rpcError {
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		return &rpcError{Code: mcp.INVALID_PARAMS, Message: fmt.Sprintf("%s: no task %s for this client (it expired, or was never created by this principal): tasks/list shows the live ones", method, id)}
	default:
		return &rpcError{Code: mcp.INTERNAL_ERROR, Message: fmt.Sprintf("%s: %v", method, err)}
	}
}

func (tp *taskPlane) tasksGet(ctx context.Context, id, params json.RawMessage) []byte {
	taskID, e := taskIDParam("tasks/get", params)
	if e != nil {
		return rpcReply(id, nil, e)
	}
	t, err := tp.store.Get(ctx, tp.taskPrincipal(ctx), taskID)
	if err != nil {
		return rpcReply(id, nil, taskError("tasks/get", taskID, err))
	}
	return rpcReply(id, mcp.NewGetTaskResult(wireTask(t)), nil)
}

// tasksPage is how many tasks one page of tasks/list holds.
const tasksPage = 100

func (tp *taskPlane) tasksList(ctx context.Context, id, params json.RawMessage) []byte {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if len(params) > 0 && unmarshal(params, &p) != nil {
		return rpcReply(id, nil, &rpcError{Code: mcp.INVALID_PARAMS, Message: "tasks/list params must be an object, such as {}"})
	}
	all, err := tp.store.List(ctx, tp.taskPrincipal(ctx))
	if err != nil {
		return rpcReply(id, nil, taskError("tasks/list", "", err))
	}
	start := 0
	if p.Cursor != nil {
		start = -1
		for i, t := range all {
			if t.ID == *p.Cursor {
				start = i + 1
			}
		}
		if start < 0 {
			return rpcReply(id, nil, &rpcError{Code: mcp.INVALID_PARAMS, Message: fmt.Sprintf("tasks/list: unknown cursor %q (its task expired meanwhile): list again without a cursor", *p.Cursor)})
		}
	}
	page := all[start:min(len(all), start+tasksPage)]
	res := mcp.ListTasksResult{Tasks: make([]mcp.Task, 0, len(page))}
	for _, t := range page {
		res.Tasks = append(res.Tasks, wireTask(t))
	}
	if start+tasksPage < len(all) {
		res.NextCursor = mcp.Cursor(page[len(page)-1].ID)
	}
	return rpcReply(id, res, nil)
}

func (tp *taskPlane) tasksCancel(ctx context.Context, id, params json.RawMessage) []byte {
	taskID, e := taskIDParam("tasks/cancel", params)
	if e != nil {
		return rpcReply(id, nil, e)
	}
	t, err := tp.store.Cancel(ctx, tp.taskPrincipal(ctx), taskID, "cancelled by the client (tasks/cancel)")
	if errors.Is(err, tasks.ErrTerminal) {
		return rpcReply(id, nil, &rpcError{Code: mcp.INVALID_PARAMS, Message: fmt.Sprintf("tasks/cancel: task %s cannot be cancelled: it has ended already (%s)", taskID, t.Status)})
	}
	if err != nil {
		return rpcReply(id, nil, taskError("tasks/cancel", taskID, err))
	}
	// The instance running it stops it at its next renewal; this one at
	// once, and tells the session that created it.
	if tp.stop(taskID) {
		tp.statusChanged(t)
	}
	return rpcReply(id, mcp.NewCancelTaskResult(wireTask(t)), nil)
}

// storedOutcome is what a task keeps of its call's answer: the result,
// or the JSON-RPC error mcp-go answered with.
type storedOutcome struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

// tasksResult answers tasks/result: the call's own answer once the task
// ended — its result with _meta io.modelcontextprotocol/related-task, or
// its JSON-RPC error — waiting for the end while the task works.
func (tp *taskPlane) tasksResult(ctx context.Context, id, params json.RawMessage) []byte {
	taskID, e := taskIDParam("tasks/result", params)
	if e != nil {
		return rpcReply(id, nil, e)
	}
	principal := tp.taskPrincipal(ctx)
	tick := time.NewTicker(taskPollInterval / 5)
	defer tick.Stop()
	for {
		t, raw, err := tp.store.Result(ctx, principal, taskID)
		if err != nil {
			return rpcReply(id, nil, taskError("tasks/result", taskID, err))
		}
		if t.Status.Terminal() {
			return taskOutcomeReply(id, t, raw)
		}
		select {
		case <-ctx.Done():
			return rpcReply(id, nil, &rpcError{Code: mcp.REQUEST_INTERRUPTED, Message: "tasks/result: the request ended before task " + taskID + " did: ask again"})
		case <-tick.C:
		}
	}
}

// taskOutcomeReply is the answer of tasks/result for a task that ended.
func taskOutcomeReply(id json.RawMessage, t tasks.Task, raw []byte) []byte {
	var out storedOutcome
	if raw == nil || unmarshal(raw, &out) != nil || (out.Result == nil && out.Error == nil) {
		// Cancelled, or failed without an answer (its instance stopped).
		return rpcReply(id, nil, &rpcError{Code: mcp.INTERNAL_ERROR, Message: fmt.Sprintf("task %s %s without a result: %s", t.ID, t.Status, t.Message)})
	}
	if out.Error != nil {
		return rpcReply(id, nil, out.Error)
	}
	var result map[string]json.RawMessage
	if unmarshal(out.Result, &result) != nil {
		return rpcReply(id, nil, &rpcError{Code: mcp.INTERNAL_ERROR, Message: "task " + t.ID + ": its stored result does not decode"})
	}
	var meta map[string]any
	if m, ok := result["_meta"]; ok {
		_ = unmarshal(m, &meta)
	}
	if meta == nil {
		meta = map[string]any{}
	}
	meta[mcp.RelatedTaskMetaKey] = mcp.RelatedTaskMeta(t.ID)
	b, _ := json.Marshal(meta)
	result["_meta"] = b
	return rpcReply(id, result, nil)
}

// taskCall serves a tools/call whose params carry task (answered false
// when they do not: an ordinary call). The tool must allow tasks
// (execution.taskSupport); the call runs in the background without
// params.task and the answer is the created task.
//
// Protocol 2026-07-28 has no params.task (its tasks are an extension,
// tasks_modern.go): the member is dropped there, m and raw rewritten,
// and the call served as an ordinary one — mcp-go would otherwise run it
// as a task of its own map.
func (tp *taskPlane) taskCall(ctx context.Context, raw *[]byte, m *rpcMessage, modern bool) (reply []byte, answered bool) {
	s := tp.s
	if len(m.ID) == 0 || !bytes.Contains(m.Params, []byte(`"task"`)) {
		return nil, false
	}
	var p map[string]json.RawMessage
	if unmarshal(m.Params, &p) != nil {
		return nil, false // mcp-go refuses it
	}
	task, ok := p["task"]
	if !ok {
		return nil, false
	}
	if modern || bytes.Equal(bytes.TrimSpace(task), []byte("null")) {
		delete(p, "task")
		*raw = rewriteParams(*raw, p)
		m.Params, _ = json.Marshal(p)
		m.call = nil
		return nil, false
	}
	var name string
	var opts struct {
		TTL *float64 `json:"ttl"`
	}
	if unmarshal(p["name"], &name) != nil || unmarshal(task, &opts) != nil {
		return errorReply(m.ID, mcp.INVALID_PARAMS, `tools/call: params.task must be an object such as {"ttl": 60000} (the milliseconds to keep the task)`), true
	}
	entry, ok := s.currentTools().lookup(name)
	if !ok {
		return nil, false // mcp-go answers the unknown tool (the task is dropped below)
	}
	if support := taskSupport(entry); support == "" {
		return errorReply(m.ID, mcp.METHOD_NOT_FOUND, fmt.Sprintf("tools/call: tool %s cannot run as a task (its execution.taskSupport is forbidden): call it without params.task", name)), true
	}
	var ttl time.Duration
	if opts.TTL != nil {
		ttl = time.Duration(*opts.TTL) * time.Millisecond
	}
	t, err := tp.store.Create(ctx, tasks.Task{Principal: tp.taskPrincipal(ctx), Tool: name, TTL: ttl})
	if errors.Is(err, tasks.ErrFull) {
		return errorReply(m.ID, mcp.INVALID_REQUEST, fmt.Sprintf("tools/call: this client holds %d live tasks, the most it may: wait for some to end and expire, or cancel them", tasks.MaxPerPrincipal)), true
	}
	if err != nil {
		return errorReply(m.ID, mcp.INTERNAL_ERROR, "tools/call: creating the task: "+err.Error()), true
	}
	delete(p, "task")
	if a, ok := p["arguments"]; ok && bytes.Equal(bytes.TrimSpace(a), []byte("null")) {
		p["arguments"] = json.RawMessage("{}")
	}
	pass := rewriteParams(*raw, p)
	tp.startTask(ctx, t, pass, taskSession(ctx))
	return rpcReply(m.ID, mcp.NewCreateTaskResult(wireTask(t)), nil), true
}

// taskSupport is the tool's execution.taskSupport: "" when forbidden.
func taskSupport(e *toolEntry) mcp.TaskSupport {
	if e.tool.Execution == nil || e.tool.Execution.TaskSupport == mcp.TaskSupportForbidden {
		return ""
	}
	return e.tool.Execution.TaskSupport
}

// rewriteParams is raw with params p.
func rewriteParams(raw []byte, p map[string]json.RawMessage) []byte {
	var msg map[string]json.RawMessage
	if unmarshal(raw, &msg) != nil {
		return raw
	}
	msg["params"], _ = json.Marshal(p)
	out, err := json.Marshal(msg)
	if err != nil {
		return raw
	}
	return out
}

// runTask serves the call of task t through mcp-go and records how it
// ended: completed with its result, failed with an error result
// (isError) or JSON-RPC error, or as it is when it was cancelled
// meanwhile (the store keeps the first end).
func (tp *taskPlane) runTask(ctx context.Context, t tasks.Task, pass []byte) {
	s := tp.s
	defer tp.untrack(t.ID)
	status, message, outcome := tasks.Failed, "", storedOutcome{}
	func() {
		defer func() {
			if r := recover(); r != nil {
				status, message = tasks.Failed, fmt.Sprintf("the call of %s panicked: %v", t.Tool, r)
			}
		}()
		resp := s.mcp.HandleMessage(ctx, pass)
		b, err := json.Marshal(resp)
		if err != nil || unmarshal(b, &outcome) != nil {
			message = fmt.Sprintf("the answer of %s could not be encoded", t.Tool)
			return
		}
		switch {
		case outcome.Error != nil:
			message = outcome.Error.Message
		default:
			var r struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			_ = unmarshal(outcome.Result, &r)
			status = tasks.Completed
			if r.IsError {
				status = tasks.Failed
				if len(r.Content) > 0 {
					message = truncate(r.Content[0].Text, 500)
				}
			}
		}
	}()
	if status == tasks.Completed && tp.taskAsks(t, pass, outcome.Result) {
		return // input_required until tasks/update (tasks_input.go)
	}
	var raw []byte
	if outcome.Result != nil || outcome.Error != nil {
		raw, _ = json.Marshal(outcome)
	}
	// The end is recorded even when the task was stopped: the store keeps
	// a cancel that came first, and the status notified is the one kept.
	fctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ended, err := tp.store.Finish(fctx, t.ID, status, message, raw)
	switch {
	case err == nil || errors.Is(err, tasks.ErrTerminal):
		tp.statusChanged(ended)
	case !errors.Is(err, tasks.ErrNotFound):
		s.log.Warn("tasks: recording the end of a task failed", "task", t.ID, "tool", t.Tool, "err", err)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// catalogExecution is the execution member of a catalog row's tool
// (mcp.task_support; nil when tasks are forbidden).
func catalogExecution(m *registry.MCP) *mcp.ToolExecution {
	if m.TaskSupport == "" || m.TaskSupport == registry.TaskForbidden {
		return nil
	}
	return &mcp.ToolExecution{TaskSupport: mcp.TaskSupport(m.TaskSupport)}
}
