package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/tasks"
)

// The tasks extension of protocol 2026-07-28 (SEP-2663,
// io.modelcontextprotocol/tasks;
// docs/tasks.md, "The 2026-07-28 extension"): a client declares the extension in the request's
// _meta clientCapabilities, and a tools/call of a tool that allows tasks
// is then answered with a task (resultType "task"); tasks/get gives the
// task with its result or error inline (or the input it asks for),
// tasks/cancel cancels it, and tasks/update answers what it asks
// (tasks_input.go). The
// tasks are the same as 2025-11-25's: one store, one plane (tasks.go).

// TasksExtension is the extension's identifier in capabilities.extensions.
const TasksExtension = "io.modelcontextprotocol/tasks"

// modernTaskMethods are the methods of the extension, served by the shim.
var modernTaskMethods = map[string]func(tp *taskPlane, ctx context.Context, id, params json.RawMessage) []byte{
	string(mcp.MethodTasksGet):    (*taskPlane).tasksGetModern,
	string(mcp.MethodTasksCancel): (*taskPlane).tasksCancelModern,
	"tasks/update":                (*taskPlane).tasksUpdateModern,
}

// serveModernTask serves a method of the extension: only for a request
// that declares it in its _meta clientCapabilities, as SEP-2663 requires
// (-32021 otherwise, which the HTTP shim answers with 400).
func (tp *taskPlane) serveModernTask(ctx context.Context, method string, id, params json.RawMessage) []byte {
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	_ = unmarshal(params, &p)
	if !declaresTasks(p.Meta) {
		return rpcReply(id, nil, &rpcError{Code: mcp.MISSING_REQUIRED_CLIENT_CAPABILITY,
			Message: fmt.Sprintf("%s needs the tasks extension %s declared in the request's _meta %q (under extensions): declare it", method, TasksExtension, mcp.MetaKeyClientCapabilities),
			Data:    map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}}})
	}
	return modernTaskMethods[method](tp, ctx, id, params)
}

// hideTasksCapability removes capabilities.tasks from server/discover:
// under 2026-07-28 the extension replaces it (SEP-2663), and the
// capability mcp-go declares (server.go) is 2025-11-25's.
func hideTasksCapability(_ context.Context, _ any, _ *mcp.DiscoverRequest, result *mcp.DiscoverResult) {
	if result != nil {
		result.Capabilities.Tasks = nil
	}
}

// declaresTasks reports whether a 2026-07-28 request's _meta declares the
// tasks extension among the client's capabilities.
func declaresTasks(meta map[string]any) bool {
	caps, _ := meta[mcp.MetaKeyClientCapabilities].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	_, ok := ext[TasksExtension]
	return ok
}

// modernTaskCall serves a 2026-07-28 tools/call, checked already (ctx
// carries the verdict for pass), as a task when its client declares the
// extension and the tool allows tasks; answered is false otherwise.
func (tp *taskPlane) modernTaskCall(ctx context.Context, pass []byte, m *rpcMessage, p *callParams) (reply []byte, answered bool) {
	s := tp.s
	if p == nil || len(m.ID) == 0 || !declaresTasks(p.Meta) {
		return nil, false
	}
	entry, ok := s.currentTools().lookup(p.Name)
	if !ok || taskSupport(entry) == "" {
		return nil, false
	}
	t, err := tp.store.Create(ctx, tasks.Task{Principal: tp.taskPrincipal(ctx), Tool: p.Name})
	if errors.Is(err, tasks.ErrFull) {
		return errorReply(m.ID, mcp.INVALID_REQUEST, fmt.Sprintf("tools/call: this client holds %d live tasks, the most it may: wait for some to end and expire, or cancel them", tasks.MaxPerPrincipal)), true
	}
	if err != nil {
		return errorReply(m.ID, mcp.INTERNAL_ERROR, "tools/call: creating the task: "+err.Error()), true
	}
	// No session to notify: 2026-07-28 has none (docs/tasks.md §5).
	tp.startTask(ctx, t, pass, "")
	res := wireTaskModern(t)
	res["resultType"] = "task"
	return rpcReply(m.ID, res, nil), true
}

// wireTaskModern is t as the extension's Task.
func wireTaskModern(t tasks.Task) map[string]any {
	w := map[string]any{
		"taskId":         t.ID,
		"status":         string(t.Status),
		"createdAt":      t.Created.UTC().Format(isoMillis),
		"lastUpdatedAt":  t.Updated.UTC().Format(isoMillis),
		"ttlMs":          t.TTL.Milliseconds(),
		"pollIntervalMs": taskPollInterval.Milliseconds(),
	}
	if t.Message != "" {
		w["statusMessage"] = t.Message
	}
	return w
}

// tasksGetModern answers the extension's tasks/get: the task, with its
// call's result when it completed — a result with isError included, which
// 2025-11-25 reports as failed — or the JSON-RPC error it failed with.
func (tp *taskPlane) tasksGetModern(ctx context.Context, id, params json.RawMessage) []byte {
	taskID, e := taskIDParam("tasks/get", params)
	if e != nil {
		return rpcReply(id, nil, e)
	}
	t, raw, err := tp.store.Result(ctx, tp.taskPrincipal(ctx), taskID)
	if err != nil {
		return rpcReply(id, nil, taskError("tasks/get", taskID, err))
	}
	w := wireTaskModern(t)
	w["resultType"] = "complete"
	var out storedOutcome
	if raw != nil {
		_ = unmarshal(raw, &out)
	}
	switch {
	case t.Status == tasks.InputRequired:
		var round taskRound
		if unmarshal([]byte(t.Input), &round) == nil && round.InputRequests != nil {
			w["inputRequests"] = round.InputRequests
		}
	case t.Status == tasks.Completed || (t.Status == tasks.Failed && out.Result != nil):
		w["status"] = string(tasks.Completed)
		var result map[string]any
		_ = unmarshal(out.Result, &result)
		if result == nil {
			result = map[string]any{}
		}
		result["resultType"] = "complete"
		w["result"] = result
	case t.Status == tasks.Failed && out.Error != nil:
		w["error"] = out.Error
	case t.Status == tasks.Failed:
		w["error"] = &rpcError{Code: mcp.INTERNAL_ERROR, Message: t.Message}
	}
	return rpcReply(id, w, nil)
}

// tasksCancelModern answers the extension's tasks/cancel: an
// acknowledgement without the task.
func (tp *taskPlane) tasksCancelModern(ctx context.Context, id, params json.RawMessage) []byte {
	taskID, e := taskIDParam("tasks/cancel", params)
	if e != nil {
		return rpcReply(id, nil, e)
	}
	// A cancel of a task that ended is acknowledged the same way: the
	// extension's cancel is idempotent.
	_, err := tp.store.Cancel(ctx, tp.taskPrincipal(ctx), taskID, "cancelled by the client (tasks/cancel)")
	if err != nil && !errors.Is(err, tasks.ErrTerminal) {
		return rpcReply(id, nil, taskError("tasks/cancel", taskID, err))
	}
	tp.stop(taskID)
	return rpcReply(id, map[string]any{"resultType": "complete"}, nil)
}
