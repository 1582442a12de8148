package server

import (
	"bytes"
	"context"

	"github.com/mark3labs/mcp-go/mcp"
)

// The tasks extension of protocol 2026-07-28 over stdio (docs/tasks.md
// §5): a request naming 2026-07-28 in its _meta is served as over HTTP —
// tasks/get, tasks/update and tasks/cancel from the store, and a
// tools/call declaring the extension of a tool that allows tasks answered
// with the task after the checks of a 2026-07-28 call. Any other line is
// the stdio shim's as before.

// modernTask serves line when it is such a request (handled), writing its
// answer.
func (sh *stdioShim) modernTask(ctx context.Context, line []byte, head *rpcMessage) (handled bool, err error) {
	_, method := modernTaskMethods[head.Method]
	isTaskMethod := method || head.Method == string(mcp.MethodTasksList) || head.Method == string(mcp.MethodTasksResult)
	isCall := head.Method == string(mcp.MethodToolsCall) && bytes.Contains(head.Params, []byte(TasksExtension))
	if (!isTaskMethod && !isCall) || !isModernMessage(nil, head) {
		return false, nil
	}
	if isCall {
		// Only a call that becomes a task is the shim's: any other is
		// mcp-go's, checked by the middleware (call_checks.go).
		if head.call == nil || !declaresTasks(head.call.Meta) {
			return false, nil
		}
		if entry, ok := sh.s.currentTools().lookup(head.call.Name); !ok || taskSupport(entry) == "" || len(head.ID) == 0 {
			return false, nil
		}
	}
	sctx, ok := sh.session(ctx)
	if !ok {
		return true, ctx.Err()
	}
	// A call that becomes a task, or a tasks/update that resumes one,
	// is answered before the task's call goes on.
	if _, answered := sh.answerFirst(sctx, line, head, true); !answered {
		return false, nil
	}
	return true, nil
}
